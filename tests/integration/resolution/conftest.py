"""A resolver over the real engines: embedded ArcadeDB, the packaged embedder, real spaCy."""

from __future__ import annotations

import pytest

from core.settings import Settings
from graph.runtime import GraphRuntime
from resolution.resolver import Resolver
from vectors.embedding.embedder import Embedder


@pytest.fixture(scope="session")
async def resolver(
    settings: Settings, embedded_graph: GraphRuntime, embedder: Embedder
) -> Resolver:
    instance = Resolver(embedded_graph.store, embedder, settings.resolution)
    await instance.load()
    return instance
