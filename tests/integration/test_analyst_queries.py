"""The analyst queries of ``cypher/analyst/`` run unchanged on the embedded engine, tenant-bound,
and ``graph.analyst`` refuses anything but a tenant-bound read (issue 25, item 6, in part)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from api.brain import Brain
from core.errors import InvalidInput
from core.lifecycle_types import JobName
from core.types import EntityType, NewMemory
from graph.analyst import analyst_queries, check_read_only, query_text, run_read_only

pytestmark = pytest.mark.integration

T0 = 1_700_000_000.0  # 2023-11-14T22:13:20Z


async def ask(brain: Brain, tenant: str, query: str, **params: Any) -> list[dict[str, Any]]:
    return await run_read_only(brain.graph, tenant, query_text(query), params)


async def test_history_truth_on_a_date_statements_and_merges(
    brain: Brain, tenant_id: str, other_tenant_id: str
) -> None:
    t = tenant_id
    peter = await brain.entities.create(t, "Peter Novak", EntityType.PERSON)
    wobs = await brain.entities.create(t, "WOBS", EntityType.ORG)
    first = await brain.memories.remember(
        t,
        NewMemory(
            content="Peter Novak works at WOBS as a writer.",
            entity_ids=[peter.id, wobs.id],
            created_at=T0,
            valid_from=T0,
        ),
    )
    second = await brain.memories.supersede(
        t, first.id, "Peter Novak works at WOBS as an editor.", "promoted"
    )
    third = await brain.memories.supersede(
        t, second.id, "Peter Novak works at WOBS as chief editor."
    )

    history = await ask(brain, t, "fact_history", id=second.id)
    assert [r["id"] for r in history] == [first.id, second.id, third.id]
    assert [r["current"] for r in history] == [False, False, True]
    assert history[0]["correction"] == "promoted"
    assert history[0]["created_at"].startswith("2023-11-14T22:13:20")
    assert history[0]["superseded_at"] is not None and history[2]["superseded_at"] is None

    then = await ask(brain, t, "true_on_date", at="2023-11-15T00:00:00Z", entity="peter novak")
    assert [r["content"] for r in then] == ["Peter Novak works at WOBS as a writer."]
    assert set(then[0]["about"]) == {"Peter Novak", "WOBS"}
    now = datetime.now(UTC).isoformat()
    assert [r["id"] for r in await ask(brain, t, "true_on_date", at=now, entity=None)] == [third.id]
    assert await ask(brain, t, "true_on_date", at="2023-11-14T00:00:00Z", entity=None) == []
    # A datetime parameter (Browser's `:param at => datetime(...)`) reads as its text does.
    as_datetime = datetime(2023, 11, 15, tzinfo=UTC)
    assert await ask(brain, t, "true_on_date", at=as_datetime, entity="peter novak") == then

    # Duplicates merged by the lifecycle, and an entity merge that was undone.
    specific = await brain.memories.remember(
        t,
        NewMemory(
            content="Anna Berg runs the Tuesday planning call for WOBS.",
            entity_ids=[wobs.id],
            importance=0.6,
        ),
    )
    vague = await brain.memories.remember(
        t,
        NewMemory(
            content="Anna Berg runs the Tuesday planning call for WOBS", entity_ids=[wobs.id]
        ),
    )
    await brain.lifecycle.consolidate(t, [JobName.MERGE_DUPLICATES])
    (merged,) = await ask(brain, t, "memory_merges")
    assert (merged["merged_id"], merged["into_id"]) == (vague.id, specific.id)
    assert merged["undone_at"] is None and merged["similarity"] >= 0.92
    await brain.lifecycle.unmerge(t, vague.id)
    (undone,) = await ask(brain, t, "memory_merges")
    assert undone["undone_at"] is not None

    novak = await brain.entities.create(t, "P. Novak", EntityType.PERSON)
    await brain.memories.remember(
        t, NewMemory(content="P. Novak likes green tea.", entity_ids=[novak.id])
    )
    merge = await brain.entities.merge(t, peter.id, [novak.id], "same person")
    said = await ask(brain, t, "entity_statements", name="PETER NOVAK")
    assert {r["entity_id"] for r in said} == {peter.id}
    assert [r["content"] for r in said if r["current"]] == [
        "Peter Novak works at WOBS as chief editor.",
        "P. Novak likes green tea.",
    ]
    # A first name finds the full name, and every namesake is listed apart.
    other_peter = await brain.entities.create(t, "Peter Alvarez", EntityType.PERSON)
    await brain.memories.remember(
        t, NewMemory(content="Peter Alvarez is a CTO.", entity_ids=[other_peter.id])
    )
    by_first = await ask(brain, t, "entity_statements", name="peter")
    assert {r["entity_id"] for r in by_first} == {peter.id, other_peter.id}
    assert await ask(brain, t, "entity_statements", name="pete") == []  # whole words only
    await brain.entities.unmerge(t, merge.id)
    (record,) = await ask(brain, t, "entity_merges")
    assert (record["kept_id"], record["dropped_ids"], record["reason"]) == (
        peter.id,
        [novak.id],
        "same person",
    )
    assert record["undone_at"] is not None

    # $tenant is bound: another tenant sees none of it, whatever it asks.
    for query in analyst_queries():
        params = {"id": first.id, "at": now, "entity": None, "name": "Peter Novak"}
        assert await ask(brain, other_tenant_id, query, **params) == []


@pytest.mark.parametrize(
    "query",
    [
        "MATCH (m:Memory) WHERE m.tenant_id = $tenant DETACH DELETE m",
        "MATCH (m:Memory {tenant_id: $tenant}) SET m.content = 'x' RETURN m",
        "match (m:Memory {tenant_id: $tenant}) remove m.content return m",
        "CREATE (x:Memory {tenant_id: $tenant}) RETURN x",
        "MERGE (x:Tenant {id: $tenant}) RETURN x",
        "MATCH (m {tenant_id: $tenant}) FOREACH (x IN [1] | SET m.a = 1) RETURN m",
        "CALL db.labels() YIELD label WHERE $tenant IS NOT NULL RETURN label",
        "LOAD CSV FROM 'file:///etc/passwd' AS row WITH row WHERE $tenant = '' RETURN row",
        "DROP INDEX memory_type // $tenant",
        "MATCH (m:Memory) RETURN m.content",  # no $tenant
        "MATCH (m:Memory) WHERE m.content = '$tenant' RETURN m",  # $tenant only in a string
        "   ",
    ],
)
async def test_writes_and_unbound_queries_are_refused_before_they_run(
    brain: Brain, tenant_id: str, query: str
) -> None:
    with pytest.raises(InvalidInput) as refused:
        await run_read_only(brain.graph, tenant_id, query)
    assert refused.value.field == "query"


def test_a_query_without_the_tenant_filter_is_told_where_to_add_it() -> None:
    lineage = "MATCH path = (m:Memory {id: $id})-[:SUPERSEDED_BY*]->(latest) RETURN path"
    with pytest.raises(InvalidInput) as refused:
        check_read_only(lineage)
    assert "add `WHERE m.tenant_id = $tenant` after the MATCH of (m:Memory)" in str(
        refused.value.message
    )


async def test_reads_that_only_mention_write_words_run(brain: Brain, tenant_id: str) -> None:
    await brain.memories.remember(
        tenant_id, NewMemory(content="We create a merge request to set up CI.")
    )
    query = (
        "MATCH (m:Memory) WHERE m.tenant_id = $tenant AND m.content CONTAINS 'merge request'"
        " // a comment may say DELETE\nRETURN m.content AS `set`, {create: 1} AS map"
    )
    rows = await run_read_only(brain.graph, tenant_id, check_read_only(query))
    assert rows == [{"set": "We create a merge request to set up CI.", "map": {"create": 1}}]
    with pytest.raises(InvalidInput, match="tenant"):
        await run_read_only(brain.graph, tenant_id, query, {"tenant": "someone-else"})
    with pytest.raises(InvalidInput, match="refused the query"):
        await run_read_only(brain.graph, tenant_id, "MATCH (m WHERE $tenant RETURN m")
