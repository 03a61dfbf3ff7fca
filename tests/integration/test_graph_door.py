"""The graph's door for Neo4j Browser users and analysts (issue 39, item 3): `brain graph` says
how to connect; the read-only `analyst` user reads the graph through the official driver, is
refused every write by the engine itself, cannot read API keys; and the calls Neo4j Browser
makes on connecting either answer or have the replacement docs/GRAPH.md gives."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from neo4j import Driver, GraphDatabase
from neo4j.exceptions import AuthError, ClientError, Neo4jError

from api.brain import Brain
from cli.graph_door import door
from core.settings import Settings
from core.types import NewMemory

pytestmark = pytest.mark.integration

GRAPH_MD = Path(__file__).resolve().parents[2] / "docs" / "GRAPH.md"


@pytest.fixture
def connection(
    settings: Settings, embedded_graph: object, capsys: pytest.CaptureFixture[str]
) -> dict[str, Any]:
    """What `brain graph --json` prints for the test engine."""
    assert door(settings, as_json=True) == 0
    return dict(json.loads(capsys.readouterr().out))


@pytest.fixture
def analyst(connection: dict[str, Any]) -> Iterator[Driver]:
    password = Path(connection["analyst"]["password_file"]).read_text().strip()
    driver = GraphDatabase.driver(connection["uri"], auth=("analyst", password))
    yield driver
    driver.close()


def run(driver: Driver, query: str, **params: object) -> list[dict[str, object]]:
    with driver.session(database="brain") as session:
        return session.run(query, params).data()


def test_brain_graph_names_the_url_database_and_both_users(
    settings: Settings, embedded_graph: object, capsys: pytest.CaptureFixture[str]
) -> None:
    assert door(settings, as_json=False) == 0
    text = capsys.readouterr().out
    info = json.loads((settings.graph_dir / "engine.json").read_text())
    assert f"bolt://127.0.0.1:{info['bolt_port']}" in text
    assert "database  brain" in text
    assert str(settings.graph_dir / "analyst.password") in text
    assert str(settings.graph_dir / "password") in text
    assert (settings.graph_dir / "analyst.password").stat().st_mode & 0o777 == 0o600


async def test_the_analyst_reads_and_the_engine_refuses_its_writes(
    brain: Brain, tenant_id: str, analyst: Driver
) -> None:
    memory = await brain.memories.remember(
        tenant_id, NewMemory(content="Door test: Ana runs payroll")
    )
    rows = run(analyst, "MATCH (m:Memory {id: $id}) RETURN m.content AS c", id=memory.id)
    assert rows == [{"c": "Door test: Ana runs payroll"}]
    for write in (
        "CREATE (x:Memory {id: 'door-evil', tenant_id: $t}) RETURN x",
        "MATCH (m:Memory {id: $id}) SET m.content = 'changed' RETURN m",
        "MATCH (m:Memory {id: $id}) DETACH DELETE m",
    ):
        with pytest.raises(ClientError, match="Forbidden"):
            run(analyst, write, id=memory.id, t=tenant_id)
    assert (await brain.memories.get(tenant_id, memory.id)).content == "Door test: Ana runs payroll"
    with pytest.raises(ClientError, match="Forbidden"):  # key hashes are not for analysts
        run(analyst, "MATCH (k:ApiKey) RETURN k.hash LIMIT 1")


def test_a_wrong_password_is_refused(connection: dict[str, Any]) -> None:
    driver = GraphDatabase.driver(connection["uri"], auth=("analyst", "not-the-password"))
    try:
        with pytest.raises(AuthError):
            driver.verify_connectivity()
    finally:
        driver.close()


BROWSER_CALLS = [
    "CALL dbms.components()",
    "SHOW DATABASES",
    "CALL db.labels()",
    "CALL db.relationshipTypes()",
]


@pytest.mark.parametrize("call", BROWSER_CALLS)
def test_what_browser_calls_on_connecting_answers(analyst: Driver, call: str) -> None:
    run(analyst, call)  # raises if the engine does not answer it


def test_every_replacement_query_in_graph_md_runs_for_the_analyst(
    brain: Brain, analyst: Driver
) -> None:
    """docs/GRAPH.md's replacements for the Browser calls the engine lacks: each call still
    fails or answers nothing (else the doc is out of date) and each replacement runs."""
    text = GRAPH_MD.read_text().split("## Connecting", 1)[1].split("\n## ", 1)[0]
    pairs = re.findall(r"Instead of `([^`]+)`:\n\n```cypher\n(.*?)```", text, re.S)
    assert len(pairs) >= 5, text
    for missing, replacement in pairs:
        try:
            answered = run(analyst, missing)
        except Neo4jError:
            answered = []
        if missing == "CALL db.propertyKeys()":
            assert answered == [], "db.propertyKeys() answers now: update docs/GRAPH.md"
        rows = run(analyst, replacement)
        if "keys(m)" in replacement:
            assert {"content", "tenant_id"} <= {r["key"] for r in rows}, rows
