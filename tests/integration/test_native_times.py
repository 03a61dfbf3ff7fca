"""Times are native datetimes in the graph and epoch-second floats above it (issue 25, item 6):
what a Cypher user reads, what the service reads back, version-1 exports, and the one-time
migration of a float-time database, resumed after a kill -9 in the middle of a batch."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import textwrap
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from neo4j.time import DateTime

from api.auth import create_key
from api.brain import Brain
from core.clock import NEVER
from core.settings import GraphSettings, Settings
from core.types import EntityType, NewMemory
from graph.analyst import query_text, run_read_only
from graph.migrate_times import LOCAL_MIGRATION, MIGRATION
from graph.records import epoch_seconds
from graph.runtime import open_graph
from graph.store import ANALYST, GraphStore
from tests.integration.api_client import Client

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
# Sub-microsecond parts on purpose: the graph keeps nanoseconds, so the float read back is
# the float written.
T0 = 1_700_000_000.123456789
T1 = 1_700_086_400.987654321
CYPHER = (
    "query($q: String!, $p: JSON) { cypher(query: $q, params: $p) { __typename "
    "... on CypherRows { rows } ... on Error { code message } } }"
)


async def native(store: GraphStore, tenant: str, text: str, **params: Any) -> list[dict[str, Any]]:
    """Rows as the graph holds them (the analyst path translates nothing)."""
    return await store.read_text(text, {**params, "tenant": tenant})


async def test_the_graph_stores_datetimes_and_the_service_reads_its_floats(
    brain: Brain, tenant_id: str
) -> None:
    # The embedded engine speaks Bolt 5: the times below go out as the structures the driver
    # would pack (``records.bolt_time``), and must be stored exactly as its datetimes were.
    assert brain.graph.packs_times
    first = await brain.memories.remember(
        tenant_id, NewMemory(content="Ada leads the Lisbon office.", created_at=T0, valid_from=T0)
    )
    second = await brain.memories.supersede(tenant_id, first.id, "Ada leads the Porto office.")
    (old, new) = await native(
        brain.graph,
        tenant_id,
        "MATCH (m:Memory) WHERE m.tenant_id = $tenant "
        "RETURN m.created_at AS created, m.superseded_at AS superseded, m.expires_at AS expires "
        "ORDER BY m.created_at",
    )
    assert isinstance(old["created"], DateTime) and epoch_seconds(old["created"]) == T0
    assert old["created"].nanosecond % 1000  # below the microsecond: the float's own digits
    assert isinstance(old["superseded"], DateTime)
    assert new["superseded"] is None and new["expires"] is None  # "never" is null
    again = await brain.memories.get(tenant_id, first.id)
    assert (again.created_at, again.valid_from) == (T0, T0)  # exact to the float
    assert not again.is_current and again.superseded_at < NEVER
    current = await brain.memories.get(tenant_id, second.id)
    assert current.is_current and (current.superseded_at, current.expires_at) == (NEVER, NEVER)

    # Comparisons against "now" and a date read the datetimes: what was true on a date.
    on_date = {"at": "2023-11-15T00:00:00Z", "entity": None}
    then = await run_read_only(brain.graph, tenant_id, query_text("true_on_date"), on_date)
    assert [r["id"] for r in then] == [first.id]
    assert datetime.fromisoformat(then[0]["valid_from"]).timestamp() == pytest.approx(T0)

    # Components of a stored datetime (docs/GRAPH.md: corrections per month).
    per_month = await run_read_only(
        brain.graph,
        tenant_id,
        "MATCH (:Memory {tenant_id: $tenant})-[r:SUPERSEDED_BY]->() "
        "RETURN r.at.year AS year, r.at.month AS month, count(*) AS corrections",
    )
    today = datetime.now(UTC)
    assert per_month == [{"year": today.year, "month": today.month, "corrections": 1}]

    # GraphQL `cypher` (what `brain cypher` sends a running service) returns ISO-8601 in UTC.
    _, key = await create_key(brain.graph, "ops", admin=True)
    admin = Client(brain, key)
    admin.headers["X-Brain-Tenant"] = tenant_id
    query = (
        "MATCH (m:Memory {id: $id}) WHERE m.tenant_id = $tenant "
        "RETURN m.created_at AS at, m.created_at < datetime('2023-11-15T00:00:00Z') AS before"
    )
    answer = (await admin.data(CYPHER, q=query, p={"id": first.id}))["cypher"]
    (row,) = answer["rows"]
    assert row == {"at": "2023-11-14T22:13:20.123456717+00:00", "before": True}  # T0's float


async def test_a_version_1_export_with_float_times_imports_as_datetimes(
    brain: Brain, tenant_id: str
) -> None:
    """The export format is unchanged (epoch seconds, NEVER for "never"), so an export made
    before native times imports as it always did, and is stored natively."""
    memory = {
        "id": "0b5f2c5e-0000-4000-8000-000000000001",
        "type": "fact",
        "content": "The Gdansk warehouse closes at six.",
        "content_hash": "h1",
        "created_at": T0,
        "valid_from": T0,
        "expires_at": NEVER,
        "superseded_at": NEVER,
        "importance": 0.5,
        "decay_class": "slow",
    }
    record = {"kind": "memory", "memory": memory, "entity_ids": [], "supersede_reason": None}
    counts = await brain.graph.tenant(tenant_id).import_records([{**record, "supersede_at": None}])
    assert counts["memories"] == 1
    (row,) = await native(
        brain.graph,
        tenant_id,
        "MATCH (m:Memory) WHERE m.tenant_id = $tenant "
        "RETURN m.created_at AS created, m.expires_at AS expires, m.superseded_at AS superseded",
    )
    assert isinstance(row["created"], DateTime)
    assert row["expires"] is None and row["superseded"] is None
    back = [r async for r in brain.graph.tenant(tenant_id).export_records()]
    exported = next(r["memory"] for r in back if r["kind"] == "memory")
    assert {k: exported[k] for k in ("created_at", "expires_at", "superseded_at")} == {
        "created_at": T0,
        "expires_at": NEVER,
        "superseded_at": NEVER,
    }


# The state the float-time code wrote: epoch seconds, 1e15 for "never", on nodes and links,
# and the migrations of that time recorded with float times. 30 memories in batches of 4.
LEGACY = """
UNWIND range(0, 29) AS i
CREATE (m:Memory {id: 'legacy-' + toString(i), tenant_id: $tenant, type: 'fact',
                  content: 'Legacy fact ' + toString(i), content_hash: 'h' + toString(i),
                  chain_id: 'legacy-' + toString(i), importance: 0.5, decay_class: 'slow',
                  indexed: false, created_at: $t0 + i, valid_from: $t0 + i,
                  expires_at: 1.0e15, superseded_at: 1.0e15})
WITH collect(m) AS ms
WITH ms[0] AS a, ms[1] AS b
SET a.superseded_at = $t1, a.superseded_by = b.id, b.chain_id = a.chain_id, b.supersedes = a.id
CREATE (a)-[:SUPERSEDED_BY {reason: 'moved', at: $t1}]->(b)
CREATE (:EntityMerge {id: 'legacy-merge', tenant_id: $tenant, keep_id: 'e1', drop_ids: ['e2'],
                      at: $t0, undone_at: $t1})
MERGE (l:LeaderLock {name: 'legacy-lock'}) SET l.expires_at = 0.0
RETURN count(*) AS n
"""
CHILD = textwrap.dedent(
    """
    import asyncio, os, signal, sys
    from pathlib import Path
    import graph.migrate_times as migrate
    from core.settings import GraphSettings, Settings
    from graph.runtime import open_graph
    from graph.store import ANALYST, GraphStore

    migrate.BATCH = 4
    original = GraphStore._run
    writes = 0

    async def run(self, tx, text, params, name="ddl"):
        global writes
        rows = await original(self, tx, text, params, name)
        if name == migrate.MIGRATION and "SET" in text:
            writes += 1
            if writes == 3:  # the third batch has run but not committed: kill -9 now
                os.kill(os.getpid(), signal.SIGKILL)
        return rows

    GraphStore._run = run
    settings = Settings(data_dir=Path(sys.argv[1]), graph=GraphSettings(heap="256m"))
    asyncio.run(open_graph(settings))
    print("the migration finished: the kill did not happen", flush=True)
    """
)


@pytest.mark.slow
async def test_a_float_time_graph_is_migrated_once_and_resumes_after_a_kill(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    settings = Settings(data_dir=tmp_path, graph=GraphSettings(heap="256m"))
    runtime = await open_graph(settings)
    try:  # a database of the float-time code: its data, and no native_times marker
        system = runtime.store.system
        await _raw(runtime.store, LEGACY, tenant="legacy", t0=T0, t1=T1)
        await _raw(runtime.store, "MATCH (g:Migration) SET g.applied_at = $t0", t0=T0)
        await _raw(runtime.store, "MATCH (g:Migration {name: $name}) DELETE g", name=MIGRATION)
        assert not await system.read("migration_applied", migration=MIGRATION)
    finally:
        await runtime.close()

    child = subprocess.run(
        [sys.executable, "-c", CHILD, str(tmp_path)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert child.returncode == -signal.SIGKILL, child.stdout + child.stderr

    caplog.set_level(logging.WARNING, logger="graph.migrate_times")
    runtime = await open_graph(settings)  # the engine restarts; the migration resumes
    try:
        store = runtime.store
        progress = [r.getMessage() for r in caplog.records if "Memory" in r.getMessage()]
        # Two batches of 4 committed before the kill: 22 memories were left, not 30.
        assert progress[0] == f"graph migration {MIGRATION}: converting 22 node records of Memory"
        assert await store.system.read("migration_applied", migration=MIGRATION)
        memories = await store.tenant("legacy").get_memories([f"legacy-{i}" for i in range(30)])
        assert {m.created_at for m in memories.values()} == {T0 + i for i in range(30)}
        assert memories["legacy-0"].superseded_at == T1 and not memories["legacy-0"].is_current
        assert all(m.is_current for k, m in memories.items() if k != "legacy-0")
        assert {m.expires_at for m in memories.values()} == {NEVER}
        left = await store.read_text(FLOATS, {"tenant": "legacy"})
        # 30 created_at and valid_from, one superseded_at; "never" is no value at all
        assert left == [{"set": 61, "floats": 0}]
        (link,) = await store.read_text(LINK, {"tenant": "legacy"})
        assert epoch_seconds(link["at"]) == T1
        # Stored in the form a write gives them (the embedded engine: local, which it reads
        # faster than zoned; Neo4j: zoned), so old and new times read alike.
        fresh = await _fresh_time(store, "legacy")
        (old,) = await native(store, "legacy", OLD_CREATED, id="legacy-3")
        assert (old["t"].tzinfo is None) == (fresh.tzinfo is None)
        history = await run_read_only(
            store, "legacy", query_text("fact_history"), {"id": "legacy-1"}
        )
        assert [(r["id"], r["correction"], r["current"]) for r in history] == [
            ("legacy-0", "moved", False),
            ("legacy-1", None, True),
        ]
        assert history[0]["superseded_at"].startswith("2023-11-15T22:13:20.98765")
        (merge,) = await run_read_only(store, "legacy", query_text("entity_merges"))
        assert merge["undone_at"] is not None
        (lock,) = await store.read_text(
            "MATCH (l:LeaderLock {name: 'legacy-lock'}) RETURN l.expires_at AS at, $tenant AS t",
            {"tenant": "legacy"},
        )
        assert isinstance(lock["at"], DateTime) and lock["at"].year == 1970

        caplog.clear()  # a second start finds it recorded and converts nothing
        await store.install_schema()
        assert not [r for r in caplog.records if MIGRATION in r.getMessage()]
    finally:
        await runtime.close()


async def test_zoned_times_of_the_first_migration_take_the_form_writes_give(
    brain: Brain, tenant_id: str, caplog: pytest.LogCaptureFixture
) -> None:
    """The first version of the float migration stored Cypher ``datetime()`` values, which the
    embedded engine keeps zoned (and reads two to four times slower than the local ones its
    writes keep); ``local_times`` converts them there and changes nothing on Neo4j."""
    store = brain.graph
    await _raw(store, LEGACY, tenant=tenant_id, t0=T0, t1=T1)
    await _raw(
        store,
        "MATCH (m:Memory) WHERE m.tenant_id = $tenant SET m.created_at = "
        "datetime({epochSeconds: 1700000000 + toInteger(substring(m.id, 7)), nanosecond: 5})",
        tenant=tenant_id,
    )
    await _raw(store, "MATCH (g:Migration {name: $name}) DELETE g", name=LOCAL_MIGRATION)
    caplog.set_level(logging.WARNING, logger="graph.migrate_times")
    await store.install_schema()
    assert await store.system.read("migration_applied", migration=LOCAL_MIGRATION)
    fresh = await _fresh_time(store, tenant_id)
    (old,) = await native(store, tenant_id, OLD_CREATED, id="legacy-3")
    assert (old["t"].tzinfo is None) == (fresh.tzinfo is None)
    assert epoch_seconds(old["t"]) == 1_700_000_003.000000005  # the same instant
    converted = [r.getMessage() for r in caplog.records if LOCAL_MIGRATION in r.getMessage()]
    assert bool(converted) == (fresh.tzinfo is None)  # only where writes keep them local


async def _fresh_time(store: GraphStore, tenant: str) -> DateTime:
    """A time as this engine stores what a write sends."""
    entity = await store.tenant(tenant).create_entity("Fresh Person", EntityType.PERSON)
    (row,) = await native(
        store,
        tenant,
        "MATCH (e:Entity {id: $id, tenant_id: $tenant}) RETURN e.first_seen AS t",
        id=entity.id,
    )
    return row["t"]


OLD_CREATED = "MATCH (m:Memory {id: $id, tenant_id: $tenant}) RETURN m.created_at AS t"
# The legacy memories' time values: how many are set, and how many are still floats.
FLOATS = """
MATCH (m:Memory) WHERE m.tenant_id = $tenant
UNWIND [m.created_at, m.valid_from, m.superseded_at, m.expires_at] AS v
RETURN count(v) AS set, sum(CASE WHEN v < 1.0e16 THEN 1 ELSE 0 END) AS floats
"""
LINK = """
MATCH (:Memory {tenant_id: $tenant})-[r:SUPERSEDED_BY]->() RETURN r.at AS at
"""


async def _raw(store: GraphStore, text: str, **params: Any) -> None:
    """Write as the float-time code did: the statement and its numbers as they are."""
    await store._execute_write(lambda tx: store._run(tx, text, params, ANALYST))
