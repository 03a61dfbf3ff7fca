"""Fixtures for the write side on the real engines: the real resolver (spaCy + embedder),
the durable writer, a turn recorder with its persisted job queue, and the task service."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from api.brain import Brain
from ingest.service import IngestService
from resolution.resolver import Resolver


@pytest.fixture(scope="session")
async def resolver(brain: Brain) -> Resolver:
    instance = Resolver(brain.graph, brain.embedder, brain.settings.resolution)
    await instance.load()
    return instance


def build_ingest(brain: Brain, resolver: Resolver) -> IngestService:
    return IngestService.build(
        brain.settings,
        brain.graph,
        brain.index,
        brain.embedder,
        resolver,
        profile_refresh=resolver.refresh_profiles,
    )


@pytest.fixture(scope="session")
async def ingest(brain: Brain, resolver: Resolver) -> AsyncIterator[IngestService]:
    service = build_ingest(brain, resolver)
    await service.start(tenants=[])
    yield service
    await service.stop()
