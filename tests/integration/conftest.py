"""Fixtures over the real engines: one Brain per session on the embedded ArcadeDB, a Qdrant
Edge shard and the packaged all-MiniLM-L6-v2 model."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence

import pytest

from api.brain import Brain
from core.settings import Settings
from graph.runtime import GraphRuntime
from vectors.embedding.embedder import Embedder
from vectors.factory import build_embedder, build_vector_index


@pytest.fixture(scope="session")
async def embedder(settings: Settings) -> AsyncIterator[Embedder]:
    model = build_embedder(settings.embedder)
    yield model
    await model.close()


@pytest.fixture
def embedded(embedder: Embedder, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The texts the shared embedder is given to embed as documents during the test, in
    order (the brain, the resolver and the ingest service all use it)."""
    texts: list[str] = []
    real = embedder.embed_documents

    async def counted(batch: Sequence[str]) -> list[list[float]]:
        texts.extend(batch)
        return await real(batch)

    monkeypatch.setattr(embedder, "embed_documents", counted)
    return texts


@pytest.fixture(scope="session")
async def brain(
    settings: Settings, embedded_graph: GraphRuntime, embedder: Embedder
) -> AsyncIterator[Brain]:
    index = build_vector_index(settings, embedder.dimension)
    await index.open()
    instance = Brain(settings, embedded_graph.store, index, embedder)
    yield instance
    await instance.access.close()
    await index.close()
