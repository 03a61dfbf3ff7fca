"""docs/GRAPH.md's ten analyst queries, each run as written by the read-only `analyst` user over
Bolt (as Neo4j Browser would), on a tenant written through the facade's public operations
(issue 39, item 5). A query the engine refuses, or one that finds nothing where the tenant
holds an answer, fails here."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from neo4j import Driver, GraphDatabase

from api.brain import Brain
from core.ingest_types import TurnInput
from core.settings import Settings
from core.types import EntityType, NewMemory

pytestmark = pytest.mark.integration

GRAPH_MD = Path(__file__).resolve().parents[2] / "docs" / "GRAPH.md"


def guide() -> list[tuple[str, str]]:
    """(title, query) of each numbered query under "Queries analysts ask"."""
    text = GRAPH_MD.read_text().split("## Queries analysts ask", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"### \d+\. ([^\n]+)\n\n```cypher\n(.*?)```", text, re.S)


@pytest.fixture
def analyst(settings: Settings, embedded_graph: object) -> Iterator[Driver]:
    root = settings.graph_dir
    port = json.loads((root / "engine.json").read_text())["bolt_port"]
    password = (root / "analyst.password").read_text().strip()
    driver = GraphDatabase.driver(f"bolt://127.0.0.1:{port}", auth=("analyst", password))
    yield driver
    driver.close()


def test_the_guide_has_ten_queries() -> None:
    assert len(guide()) == 10


async def test_each_guide_query_answers_as_the_analyst(
    brain: Brain, tenant_id: str, analyst: Driver
) -> None:
    t = tenant_id
    turn = TurnInput(session_id="g1", user_id="ana", content="Peter Novak reviewed the budget.")
    await brain.memories.record_turn(t, turn)
    cousin = await brain.memories.record_turn(
        t, TurnInput(session_id="g2", user_id="ana", content="My cousin Peter called today.")
    )
    fact = await brain.memories.remember(t, NewMemory(content="WOBS bills clients monthly."))
    between = datetime.now(UTC)
    await asyncio.sleep(0.01)
    await brain.memories.supersede(
        t, fact.id, "WOBS bills clients every two weeks.", "new contract"
    )
    await brain.memories.pin_core(t, NewMemory(content="WOBS is a link-building agency."))
    wobs = await brain.entities.create(t, "WOBS", EntityType.ORG)
    twin = await brain.entities.create(t, "Wolf of Blog Street", EntityType.ORG)
    await brain.entities.merge(t, wobs.id, [twin.id], "same company")

    params: dict[str, dict[str, Any]] = {
        "The lineage": {"id": fact.id},
        "Why a memory": {"id": cousin.episode.id},
        "What was true": {"at": between.isoformat()},
    }
    expect_rows = {
        "The lineage": 2,  # the fact and its correction
        "Everything said": 1,
        "What changed this week": 1,
        "Corrections per month": 1,
        "Everyone called Peter": 1,
        "Open identity questions": 1,  # the cousin, maybe Peter Novak
        "Why a memory": 1,
        "Merges": 1,
        "Core": 1,
    }
    for title, query in guide():
        extra = next((p for k, p in params.items() if title.startswith(k)), {})
        with analyst.session(database="brain") as session:
            rows = session.run(query, {"tenant": t, **extra}).data()
        wanted = next((n for k, n in expect_rows.items() if title.startswith(k)), 0)
        assert len(rows) >= wanted, (title, rows)
        if title.startswith("What was true"):  # the value then, not the one that replaced it
            said = {r["content"] for r in rows}
            assert "WOBS bills clients monthly." in said, rows
            assert "WOBS bills clients every two weeks." not in said, rows
