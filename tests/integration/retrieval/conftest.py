"""A Retriever and a ContextAssembler over the session's real engines (see the parent
conftest): embedded ArcadeDB, Qdrant Edge and the packaged all-MiniLM-L6-v2."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from api.brain import Brain
from core.tokens import token_counter
from retrieval.access import AccessRecorder
from retrieval.assembly import ContextAssembler
from retrieval.retriever import Retriever


@pytest.fixture
async def retriever(brain: Brain) -> AsyncIterator[Retriever]:
    access = AccessRecorder(brain.graph, flush_seconds=3600)  # flushed explicitly by tests
    yield Retriever(
        brain.graph,
        brain.index,
        brain.embedder,
        brain.settings.retrieval,
        brain.settings.limits,
        access,
    )
    await access.close()


@pytest.fixture
def assembler(retriever: Retriever) -> ContextAssembler:
    return ContextAssembler(retriever, token_counter())
