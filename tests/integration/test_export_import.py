"""Export/import of a tenant round-trips losslessly, onto a second deployment."""

from __future__ import annotations

import io
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from api.brain import Brain
from cli.standalone import export_tenant, read_export
from core.errors import Conflict, InvalidInput
from core.ingest_types import TaskStatus, TurnInput
from core.lifecycle_types import FeedbackOutcome, JobName
from core.retrieval_types import SearchQuery
from core.settings import GraphSettings, Settings
from core.types import EntityType, NewMemory
from graph.runtime import open_graph
from vectors.embedding.embedder import Embedder
from vectors.factory import build_vector_index

pytestmark = [pytest.mark.integration, pytest.mark.slow]


@pytest.fixture(scope="module")
async def second_brain(
    tmp_path_factory: pytest.TempPathFactory, embedder: Embedder
) -> AsyncIterator[Brain]:
    """Another deployment: its own embedded ArcadeDB and Qdrant Edge."""
    settings = Settings(
        data_dir=tmp_path_factory.mktemp("second"), graph=GraphSettings(heap="256m")
    )
    runtime = await open_graph(settings)
    index = build_vector_index(settings, embedder.dimension)
    await index.open()
    yield Brain(settings, runtime.store, index, embedder, runtime)
    await index.close()
    await runtime.close()


async def snapshot(brain: Brain, tenant: str) -> list[dict[str, object]]:
    out = io.StringIO()
    await export_tenant(brain, tenant, out)
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    return sorted(
        (r for r in lines if r["kind"] != "header"), key=lambda r: json.dumps(r, sort_keys=True)
    )


async def test_round_trip_keeps_chains_merges_aliases_and_search(
    brain: Brain, second_brain: Brain, tenant_id: str, tmp_path: Path
) -> None:
    g = brain.graph.tenant(tenant_id)
    wobs = await g.create_entity("Wolf of Blog Street", EntityType.ORG, aliases=["WOBS"])
    peter = await g.create_entity("Peter", EntityType.PERSON)
    pete = await g.create_entity("Pete", EntityType.PERSON)
    smith = await g.create_entity("P. Smith", EntityType.PERSON)
    await g.relate(peter.id, wobs.id, "works_for", since=1.0)
    kept = await g.merge_entities(peter.id, [pete.id], "same writer")
    undone = await g.merge_entities(peter.id, [smith.id], "mistake")
    await g.unmerge(undone.id)
    first = await brain.memories.remember(
        tenant_id, NewMemory(content="We deploy to Heroku", entity_ids=[wobs.id])
    )
    second = await brain.memories.supersede(tenant_id, first.id, "We deploy to Render", "moved")
    await brain.memories.supersede(tenant_id, second.id, "We deploy to AWS", "moved again")
    await brain.memories.remember(
        tenant_id, NewMemory(content="Peter writes for WOBS", entity_ids=[peter.id])
    )
    gone = await brain.memories.remember(tenant_id, NewMemory(content="temporary note"))
    await brain.memories.forget(tenant_id, gone.id)
    await brain.memories.pin_core(tenant_id, NewMemory(content="Answer in British English"))
    dup_a, dup_b = await brain.memories.remember_many(
        tenant_id,
        [
            NewMemory(content="Invoices go out on the first Monday.", entity_ids=[wobs.id]),
            NewMemory(content="Invoices go out on the first Monday", importance=0.2),
        ],
    )
    merged = await brain.lifecycle.consolidate(tenant_id, [JobName.MERGE_DUPLICATES])
    assert merged.runs[0].counts["merged"] == 1
    await brain.lifecycle.feedback(tenant_id, "s-1", [dup_a.id], True, FeedbackOutcome.POSITIVE)

    path = tmp_path / "export.jsonl"
    with path.open("w") as f:
        await export_tenant(brain, tenant_id, f)
    counts = await second_brain.transfer.import_(tenant_id, read_export(path))
    assert counts["memories"] == 8 and counts["entities"] == 4 and counts["indexed"] == 8
    assert counts["memory_links"] == 1 and counts["job_runs"] == 1 and counts["feedback"] == 1

    assert await snapshot(second_brain, tenant_id) == await snapshot(brain, tenant_id)
    chain = await second_brain.memories.lineage(tenant_id, first.id)
    assert [(c.memory.content, c.reason, c.current) for c in chain] == [
        ("We deploy to Heroku", None, False),
        ("We deploy to Render", "moved", False),
        ("We deploy to AWS", "moved again", True),
    ]
    g2 = second_brain.graph.tenant(tenant_id)
    assert [e.id for e in await g2.find_by_alias("pete")] == [peter.id]  # merge still applies
    assert [e.id for e in await g2.find_by_alias("p smith")] == [smith.id]  # undone stays undone
    assert (await g2.get_merge(kept.id)).undone_at is None
    assert [e.id for e in await g2.find_by_alias("wobs")] == [wobs.id]
    hits = (
        await second_brain.reads.search(tenant_id, SearchQuery(query="where do we deploy?"))
    ).hits
    assert hits[0].memory.content == "We deploy to AWS"
    assert all(h.memory.id != gone.id for h in hits)
    assert [m.content for m in await second_brain.memories.core(tenant_id)] == [
        "Answer in British English"
    ]
    assert (await second_brain.memories.get(tenant_id, dup_b.id)).merged_into == dup_a.id
    assert (await second_brain.lifecycle.unmerge(tenant_id, dup_b.id)).is_current  # still undoable


async def test_import_over_existing_ids_is_a_conflict_and_changes_nothing(
    brain: Brain, tenant_id: str, other_tenant_id: str, tmp_path: Path
) -> None:
    await brain.memories.remember(tenant_id, NewMemory(content="Peter is a writer"))
    path = tmp_path / "export.jsonl"
    with path.open("w") as f:
        await export_tenant(brain, tenant_id, f)
    with pytest.raises(Conflict, match="another tenant of this database has them"):
        await brain.transfer.import_(other_tenant_id, read_export(path))
    assert (await brain.graph.tenant(other_tenant_id).memory_counts())[0] == 0
    # the same file into the tenant it came from: said plainly, and nothing doubles
    with pytest.raises(Conflict, match=f"tenant '{tenant_id}' has them: the export was imported"):
        await brain.transfer.import_(tenant_id, read_export(path))
    assert (await brain.graph.tenant(tenant_id).memory_counts())[0] == 1


def test_bad_export_files_name_the_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"kind": "header", "version": 1}\n{"kind": "memory"\n')
    with pytest.raises(InvalidInput, match=":2: not JSON"):
        read_export(path)
    path.write_text('{"kind": "header", "version": 99}\n')
    with pytest.raises(InvalidInput, match="unsupported export version"):
        read_export(path)


async def test_imported_tasks_are_listed_and_keep_their_status(
    brain: Brain, second_brain: Brain, tenant_id: str, tmp_path: Path
) -> None:
    said = TurnInput(session_id="s-task", content="TODO: update the style guide for the writers")
    task = (await brain.ingest.turns.record_turn(tenant_id, said)).tasks[0]
    await brain.ingest.tasks.confirm(tenant_id, task.id)
    path = tmp_path / "export.jsonl"
    with path.open("w") as f:
        await export_tenant(brain, tenant_id, f)
    await second_brain.transfer.import_(tenant_id, read_export(path))
    listed = await second_brain.ingest.tasks.page(tenant_id)
    assert [(t.id, t.status) for t in listed] == [(task.id, TaskStatus.CONFIRMED)]
    assert await second_brain.graph.tenant(tenant_id).confirmed_task_ids(10) == [task.id]
