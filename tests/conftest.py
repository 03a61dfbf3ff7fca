"""Shared fixtures. The embedded ArcadeDB starts once per test session; each test works in a
fresh tenant, so tests never see each other's data (and prove isolation as they go)."""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import hypothesis.internal.observability  # noqa: F401
import pytest

from core.settings import GraphSettings, Settings
from graph.runtime import GraphRuntime, open_graph
from graph.store import GraphStore

# hypothesis's pytest plugin imports this module in its terminal summary; imported there, at
# the end of a long run, CPython 3.11.7 sometimes fails with "AST constructor recursion depth
# mismatch" after every test passed (seen on runs of a few integration files). Imported here.

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


@pytest.fixture(scope="session")
def nlp() -> Any:
    """The spaCy pipeline the tests parse their sentences with, loaded once."""
    import spacy

    return spacy.load(Settings().resolution.spacy_model)


@pytest.fixture(scope="session")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("brain-data")


@pytest.fixture(scope="session")
def settings(data_dir: Path) -> Settings:
    # Erases here skip the on-disk compaction (2-4 s each on 2 busy cores, most of it the
    # engine's fsyncs); tests/integration/test_erase_disk.py runs it on its own engines.
    return Settings(data_dir=data_dir, graph=GraphSettings(heap="512m"), compact_on_erase=False)


@pytest.fixture(scope="session")
async def embedded_graph(settings: Settings) -> AsyncIterator[GraphRuntime]:
    runtime = await open_graph(settings)
    yield runtime
    await runtime.close()


@pytest.fixture(scope="session")
async def neo4j_graph() -> AsyncIterator[GraphStore]:
    uri = os.environ.get("NEO4J_URI")
    if not uri:
        pytest.skip("NEO4J_URI is not set: the Neo4j server run of the contract suite is opt-in")
    store = await GraphStore.connect(
        uri,
        os.environ.get("NEO4J_USER", "neo4j"),
        os.environ.get("NEO4J_PASSWORD", ""),
        os.environ.get("NEO4J_DATABASE", "neo4j"),
    )
    await store.install_schema()
    yield store
    await store.close()


@pytest.fixture(
    params=["arcadedb", pytest.param("neo4j", marks=pytest.mark.neo4j)], scope="session"
)
def graph(request: pytest.FixtureRequest) -> GraphStore:
    """The graph contract runs on every available backend (embedded always)."""
    if request.param == "arcadedb":
        runtime: GraphRuntime = request.getfixturevalue("embedded_graph")
        return runtime.store
    store: GraphStore = request.getfixturevalue("neo4j_graph")
    return store


@pytest.fixture
def tenant_id() -> str:
    return f"t-{uuid.uuid4().hex[:12]}"


@pytest.fixture
def other_tenant_id() -> str:
    return f"o-{uuid.uuid4().hex[:12]}"


def pytest_report_header(config: pytest.Config) -> list[str]:
    return [
        "graph backends: arcadedb (embedded)" + (", neo4j" if os.environ.get("NEO4J_URI") else ""),
        "vector backends: qdrant-edge (embedded)"
        + (", qdrant" if os.environ.get("QDRANT_URL") else ""),
    ]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Server backends run only when their URL is set; otherwise they are deselected, not
    reported as skipped coverage."""
    off = {
        "neo4j": not os.environ.get("NEO4J_URI"),
        "qdrant_server": not os.environ.get("QDRANT_URL"),
    }
    keep, drop = [], []
    for item in items:
        (drop if any(off[m] and item.get_closest_marker(m) for m in off) else keep).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep
