"""ingestDocument on the real engines: hash no-op, structure-aware chunks within bounds,
entity links, supersession of the previous version, bad input, tenant isolation."""

from __future__ import annotations

import asyncio

import pytest

from api.brain import Brain
from core.errors import InvalidInput
from core.retrieval_types import SearchQuery
from core.tokens import token_counter
from core.types import MemoryType
from ingest.service import IngestService
from resolution.resolver import Resolver
from tests.integration.ingest.conftest import build_ingest

pytestmark = pytest.mark.integration


def handbook(extra: str = "") -> str:
    intro = " ".join(
        f"Wolf of Blog Street builds links for client number {i} with outreach and guest posts."
        for i in range(40)
    )
    writers = " ".join(
        f"Then Peter reviews draft {i} for tone, originality and whether it passes as human."
        for i in range(40)
    )
    code = (
        "```bash\n" + "\n".join(f"deploy --target fly.io --shard {i}" for i in range(25)) + "\n```"
    )
    return (
        f"# WOBS handbook\n\n{intro}\n\n## Writers\n\n{writers}\n\n{code}\n\n"
        f"## Checklist\n\n- brief the writer\n- check the anchors\n- send the report\n{extra}"
    )


async def test_document_chunks_are_bounded_structured_linked_and_searchable(
    ingest: IngestService, brain: Brain, tenant_id: str
) -> None:
    result = await ingest.ingest_document(tenant_id, "docs/handbook.md", handbook(), "p1")
    chunks = result.chunks
    assert len(chunks) >= 3 and not result.unchanged and result.document.version == 1
    count = token_counter().count
    sizes = [count(c.content) for c in chunks]
    assert all(s <= 512 for s in sizes), sizes
    assert all(s >= 256 for s in sizes[:-1]), sizes
    fenced = [c.content for c in chunks if "```bash" in c.content]
    assert len(fenced) == 1 and fenced[0].count("```") == 2  # the code block is whole
    assert any(
        "- brief the writer\n- check the anchors\n- send the report" in c.content for c in chunks
    )
    # ~10 % overlap: the second chunk repeats the end of the first one's prose.
    first_tail = chunks[0].content.split(". ")[-1].strip(". ")
    assert first_tail in chunks[1].content
    assert all(c.type is MemoryType.DOCUMENT and c.project_id == "p1" for c in chunks)
    peter = await brain.graph.tenant(tenant_id).find_by_alias("Peter")
    assert peter and any(peter[0].id in c.entity_ids for c in chunks)
    hits = await brain.reads.search(tenant_id, SearchQuery(query="who reviews drafts for tone?"))
    assert hits.hits and hits.hits[0].memory.id in {c.id for c in chunks}


async def test_unchanged_is_a_no_op_and_a_change_supersedes_old_chunks(
    ingest: IngestService, brain: Brain, tenant_id: str
) -> None:
    v1 = await ingest.ingest_document(tenant_id, "h.md", handbook())
    total, _ = await brain.graph.tenant(tenant_id).memory_counts()
    again = await ingest.ingest_document(tenant_id, "h.md", handbook() + "\n")
    assert again.unchanged and again.chunks == () and again.document.id == v1.document.id
    assert (await brain.graph.tenant(tenant_id).memory_counts())[0] == total
    v2 = await ingest.ingest_document(tenant_id, "h.md", handbook("- archive the brief\n"))
    assert v2.document.version == 2 and v2.document.id == v1.document.id
    assert v2.superseded == len(v1.chunks)
    for old in v1.chunks:
        stored = await brain.memories.get(tenant_id, old.id)
        assert stored.superseded_by in {c.id for c in v2.chunks}  # superseded, not deleted
    chain = await brain.memories.lineage(tenant_id, v1.chunks[0].id)
    assert "version 1" in (chain[-1].reason or "")
    hits = await brain.reads.search(
        tenant_id, SearchQuery(query="check the anchors send the report")
    )
    found = {h.memory.id for h in hits.hits}
    assert found and found <= {c.id for c in v2.chunks} | {
        m.id
        for m in (await brain.graph.tenant(tenant_id).get_memories(list(found))).values()
        if m.type is not MemoryType.DOCUMENT
    }


async def test_versions_of_one_document_ingested_at_once_take_turns(
    ingest: IngestService, brain: Brain, tenant_id: str
) -> None:
    v1 = await ingest.ingest_document(tenant_id, "h.md", handbook())
    edits = [handbook(f"- step {i}\n") for i in range(3)]
    results = await asyncio.gather(
        *(ingest.ingest_document(tenant_id, "h.md", text) for text in edits)
    )
    # Was: three "version 2"s, each superseding version 1, all their chunks current.
    assert sorted(r.document.version for r in results) == [2, 3, 4]
    last = max(results, key=lambda r: r.document.version)
    stored = await brain.graph.tenant(tenant_id).get_document("h.md")
    assert stored is not None and stored.version == 4
    assert list(stored.chunk_ids) == [c.id for c in last.chunks]
    every = [c.id for r in (v1, *results) for c in r.chunks]
    memories = await brain.graph.tenant(tenant_id).get_memories(every)
    current = {i for i, m in memories.items() if m.superseded_by is None}
    assert current == {c.id for c in last.chunks}


@pytest.mark.parametrize(
    ("path", "text"),
    [("", "text"), ("a.md", "   "), ("a.md", "nul \x00"), ("x" * 1001, "text")],
    ids=["no-path", "blank", "nul", "long-path"],
)
async def test_bad_documents_are_rejected(
    ingest: IngestService, brain: Brain, tenant_id: str, path: str, text: str
) -> None:
    with pytest.raises(InvalidInput):
        await ingest.ingest_document(tenant_id, path, text)
    assert await brain.graph.tenant(tenant_id).memory_counts() == (0, 0)


async def test_documents_are_tenant_scoped(
    ingest: IngestService, brain: Brain, tenant_id: str, other_tenant_id: str
) -> None:
    mine = await ingest.ingest_document(tenant_id, "shared.md", handbook())
    assert await brain.graph.tenant(other_tenant_id).get_document("shared.md") is None
    theirs = await ingest.ingest_document(other_tenant_id, "shared.md", handbook())
    assert not theirs.unchanged and theirs.superseded == 0  # same path, separate tenants
    for chunk in mine.chunks:
        assert (await brain.memories.get(tenant_id, chunk.id)).is_current


async def test_versions_written_by_two_replicas_at_once_take_turns(
    ingest: IngestService, brain: Brain, resolver: Resolver, tenant_id: str
) -> None:
    # Another service on the same engines is another API replica: the in-process path lock
    # does not order its writes; the version check under the tenant node's write does.
    replica = build_ingest(brain, resolver)
    await replica.start(tenants=[])
    edits = [handbook(f"- step {i}\n") for i in range(4)]
    try:
        results = await asyncio.gather(  # a new path: the first versions race as well
            *(
                service.ingest_document(tenant_id, "r.md", text)
                for service, text in zip((ingest, replica, ingest, replica), edits, strict=True)
            )
        )
    finally:
        await replica.stop()
    assert sorted(r.document.version for r in results) == [1, 2, 3, 4]
    last = max(results, key=lambda r: r.document.version)
    stored = await brain.graph.tenant(tenant_id).get_document("r.md")
    assert stored is not None and stored.version == 4
    assert list(stored.chunk_ids) == [c.id for c in last.chunks]
    every = [c.id for r in results for c in r.chunks]
    memories = await brain.graph.tenant(tenant_id).get_memories(every)
    assert len(memories) == len(every)  # the chunks of a given-up write were rolled back
    current = {i for i, m in memories.items() if m.superseded_by is None}
    assert current == {c.id for c in last.chunks}
