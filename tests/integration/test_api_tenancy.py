"""For every operation that takes an id: another tenant's ids are not found and nothing changes."""

from __future__ import annotations

import pytest

from api.auth import create_key
from api.brain import Brain
from core.lifecycle_types import JobName
from core.types import EntityType, NewMemory
from tests.integration.api_client import Client

pytestmark = pytest.mark.integration


async def test_every_id_taking_operation_is_tenant_sealed(
    brain: Brain, tenant_id: str, other_tenant_id: str
) -> None:
    g = brain.graph.tenant(tenant_id)
    peter = await g.create_entity("Peter", EntityType.PERSON, aliases=["Pete"])
    smith = await g.create_entity("P. Smith", EntityType.PERSON)
    merge = await g.merge_entities(peter.id, [smith.id], "same")
    await g.unmerge(merge.id)
    memory = await brain.memories.remember(
        tenant_id, NewMemory(content="Peter is a writer", entity_ids=[peter.id])
    )
    core = await brain.memories.pin_core(tenant_id, NewMemory(content="Be brief"))
    before = await _state(brain, tenant_id)

    _, key = await create_key(brain.graph, other_tenant_id)
    intruder = Client(brain, key)
    await intruder.data('mutation { remember(input: {content: "my own"}) { __typename } }')
    own = await brain.graph.tenant(other_tenant_id).create_entity("Mallory", EntityType.PERSON)
    m, e, k, mg = memory.id, peter.id, core.id, merge.id
    operations = {
        "memory": f'{{ memory(id: "{m}") {{ __typename }} }}',
        "lineage": f'{{ lineage(memoryId: "{m}") {{ __typename }} }}',
        "supersede": f'mutation {{ supersede(id: "{m}", input: {{content: "x"}}) {{ __typename }} }}',
        "forget": f'mutation {{ forget(id: "{m}") {{ __typename }} }}',
        "erase": f'mutation {{ erase(input: {{memoryIds: ["{m}"]}}) {{ __typename }} }}',
        "eraseEntity": f'mutation {{ erase(input: {{entityId: "{e}"}}) {{ __typename }} }}',
        "updateCore": f'mutation {{ updateCore(id: "{k}", input: {{content: "x"}}) {{ __typename }} }}',
        "unpinCore": f'mutation {{ unpinCore(id: "{k}") {{ __typename }} }}',
        "entity": f'{{ entity(id: "{e}") {{ __typename }} }}',
        "relationships": f'{{ relationships(entityId: "{e}") {{ __typename }} }}',
        "entityLineage": f'{{ entityLineage(entityId: "{e}") {{ __typename }} }}',
        "addAlias": f'mutation {{ addAlias(entityId: "{e}", alias: "Peetah") {{ __typename }} }}',
        "mergeInto": f'mutation {{ mergeEntities(keepId: "{own.id}", dropIds: ["{e}"], reason: "x") {{ __typename }} }}',
        "mergeFrom": f'mutation {{ mergeEntities(keepId: "{e}", dropIds: ["{own.id}"], reason: "x") {{ __typename }} }}',
        "unmerge": f'mutation {{ unmergeEntities(mergeId: "{mg}") {{ __typename }} }}',
        "recordFeedback": f'mutation {{ recordFeedback(input: {{sessionId: "s", memoryIds: ["{m}"], helpful: true}}) {{ __typename }} }}',
        "unmergeMemory": f'mutation {{ unmergeMemory(id: "{m}") {{ __typename }} }}',
        "memoryMerges": f'{{ memoryMerges(memoryId: "{m}") {{ __typename }} }}',
    }
    for name, query in operations.items():
        data = await intruder.data(query)
        assert next(iter(data.values()))["__typename"] == "NotFoundError", name
    lists = await intruder.data(
        "{ memories { ... on MemoryConnection { edges { node { content } } } }"
        ' entities(filter: {alias: "pete"}) { ... on EntityConnection { edges { node { id } } } }'
        " core { ... on MemoryList { memories { id } } }"
        ' search(input: {query: "Peter is a writer"}) { ... on SearchResults { hits { memory { id } } } }'
        " vizGraph { ... on VizGraph { nodes { id } } } }"
    )
    assert [e["node"]["content"] for e in lists["memories"]["edges"]] == ["my own"]
    assert lists["entities"]["edges"] == [] and lists["core"]["memories"] == []
    assert {h["memory"]["id"] for h in lists["search"]["hits"]}.isdisjoint({m, k})
    assert {n["id"] for n in lists["vizGraph"]["nodes"]}.isdisjoint({m, e, k})
    report = await intruder.data(
        "mutation { consolidate { ... on ConsolidationReport { ok runs { job } } } }"
    )
    assert report["consolidate"]["ok"] and len(report["consolidate"]["runs"]) == len(JobName)
    runs = await intruder.data("{ jobRuns { ... on JobRunConnection { edges { node { id } } } } }")
    assert len(runs["jobRuns"]["edges"]) == len(JobName)  # only its own
    assert await brain.lifecycle.runs(tenant_id, first=5) == []
    assert await _state(brain, tenant_id) == before


async def _state(brain: Brain, tenant_id: str) -> list[object]:
    g = brain.graph.tenant(tenant_id)
    records = [r async for r in g.export_records()]
    return sorted((repr(sorted(r.items())) for r in records), key=str)
