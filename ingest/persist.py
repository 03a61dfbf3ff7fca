"""The one durable write of the ingest side: a graph transaction, then vectors, then marks.

Turns, LLM extractions and documents all end here. Step one writes the new memories
(``indexed=false``) with any extra graph properties, their entity links, supersede links,
conflicts and whatever extra statements the caller adds — in one transaction. Step two embeds
and upserts the new memories and stamps ``superseded_at`` on the replaced ones in the vector
payload; step three marks all of them indexed, batched in the background or carried by the tenant's
next ingest write (``ingest/marks.py``). A failure after step one leaves unindexed
memories for the reconciler (``ingest/reconcile.py``): the write is durable once step one
commits.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Mapping
from dataclasses import dataclass, field
from typing import Any

from core.errors import BackendError
from core.types import Memory
from graph.records import memory_row
from graph.scoped import Check
from ingest.writer import MemoryWriter
from retrieval.payload import payload_of
from retrieval.vector_index import VectorPoint

log = logging.getLogger(__name__)

Step = tuple[str, dict[str, Any]]
SUPERSEDE = "ingest_supersede_batch"
TASK_DEDUPE = "ingest_task_dedupe"


@dataclass
class WriteSet:
    """Everything one ingest call commits together."""

    memories: list[Memory] = field(default_factory=list)
    extras: dict[str, dict[str, Any]] = field(default_factory=dict)  # memory id → properties
    pairs: list[dict[str, Any]] = field(default_factory=list)  # {old_id, new_id, reason}
    conflicts: list[dict[str, Any]] = field(default_factory=list)
    before: list[Step] = field(default_factory=list)  # statements run before the memories
    after: list[Step] = field(default_factory=list)  # statements run after the links
    # Vectors already being computed (memory id → its vector), e.g. a turn's own text,
    # started before the rest of the write was known.
    vectors: dict[str, Awaitable[list[float]]] = field(default_factory=dict)
    # The memories the write superseded, set by ``persist``: the pairs' old ones, or the
    # current end of their chain when a concurrent write superseded one first.
    superseded: list[str] = field(default_factory=list)
    # New tasks another writer had created too, set by ``persist``: new id → the task that
    # absorbed it (the new one is gone; see ``TASK_DEDUPE``).
    folded: dict[str, str] = field(default_factory=dict)
    # Sees each statement's rows inside the transaction; raising gives the write up.
    check: Check | None = None


def steps_of(ws: WriteSet, at: float) -> list[Step]:
    """The statements of the transaction; each is a round trip, so the memories, their links
    and the tenant's registration go in one."""
    rows = [
        {
            "props": {**memory_row(m), **_clean(ws.extras.get(m.id, {}))},
            "entity_ids": list(m.entity_ids),
        }
        for m in ws.memories
    ]
    steps: list[Step] = list(ws.before)
    if rows:
        steps.append(("ingest_memories_create", {"rows": rows, "at": at}))
    else:
        steps.insert(0, ("tenant_ensure", {"at": at}))
    if ws.pairs:
        pairs = [{**p, "reason_after_another": _after_another(p["reason"])} for p in ws.pairs]
        steps.append((SUPERSEDE, {"pairs": pairs, "at": at}))
    if ws.conflicts:
        steps.append(("ingest_conflict_create", {"rows": ws.conflicts}))
    return [*steps, *ws.after]


async def persist(writer: MemoryWriter, tenant_id: str, ws: WriteSet, at: float) -> bool:
    """Commit ``ws`` durably; returns whether the vector side finished too.

    Embedding (CPU, in a worker thread) overlaps the graph transaction (I/O); the vectors are
    upserted only after the graph has committed, so the order of durability is unchanged.
    Vectors the caller started earlier (``ws.vectors``) are used as they are.
    """
    tenant = writer.graph.tenant(tenant_id)
    embedding = asyncio.ensure_future(_vectors(writer, ws))
    try:
        # Not beside a mark statement of the tenant (they would conflict, ``ingest/marks.py``);
        # earlier writes' pending marks ride along instead: one transaction instead of two.
        async with writer.marks.writing(tenant_id):
            carried = writer.marks.take(tenant_id)
            marks = [("memory_mark_indexed", {"ids": carried, "indexed": True})] if carried else []
            steps = steps_of(ws, at)
            try:
                results = await tenant.write_many([*steps, *marks], ws.check)
            except BaseException:
                writer.marks.add(tenant_id, carried)  # still pending: the batch takes them
                raise
    except BaseException:
        embedding.cancel()
        raise
    made = zip(steps, results[: len(steps)], strict=True)
    linked, folded = [], []
    for (name, _), rows in made:
        if name == SUPERSEDE:
            linked.append(rows)
        elif name == TASK_DEDUPE:
            folded.extend(rows)
    ws.superseded = list(dict.fromkeys(r["old_id"] for rows in linked for r in rows))
    ws.folded = {r["id"]: r["into"] for r in folded}
    computed = _without(embedding, ws, set(ws.folded)) if ws.folded else embedding
    try:
        vectors = await computed
        if ws.memories:
            await writer.index.upsert(
                [
                    VectorPoint(id=m.id, dense=v, text=m.indexed_text, payload=payload_of(m))
                    for m, v in zip(ws.memories, vectors, strict=True)
                ]
            )
        if ws.superseded:
            await writer.index.set_payload(tenant_id, ws.superseded, {"superseded_at": at})
        # The caller does not wait for the mark (``ingest/marks.py``): the memories are
        # searchable now, and an unwritten mark only makes the reconciler upsert them again.
        writer.marks.add(tenant_id, [*(m.id for m in ws.memories), *ws.superseded])
    except BackendError:
        log.exception("indexing after a durable ingest write failed; the reconciler finishes it")
        return False
    return True


def _without(
    embedding: Awaitable[list[list[float]]], ws: WriteSet, gone: set[str]
) -> Awaitable[list[list[float]]]:
    """``ws.memories`` without ``gone``, and their vectors to match."""
    kept = [i for i, m in enumerate(ws.memories) if m.id not in gone]
    ws.memories = [ws.memories[i] for i in kept]

    async def vectors() -> list[list[float]]:
        computed = await embedding
        return [computed[i] for i in kept]

    return vectors()


async def _vectors(writer: MemoryWriter, ws: WriteSet) -> list[list[float]]:
    """One vector per memory of ``ws``, in order: the ones started early, the rest in a batch."""
    rest = [m for m in ws.memories if m.id not in ws.vectors]
    fresh = asyncio.ensure_future(writer.embedder.embed_documents([m.indexed_text for m in rest]))
    try:
        early = {i: await v for i, v in ws.vectors.items()}
    except BaseException:
        fresh.cancel()
        raise
    computed = dict(zip((m.id for m in rest), await fresh, strict=True))
    return [early[m.id] if m.id in early else computed[m.id] for m in ws.memories]


def _clean(extra: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in extra.items() if v is not None}


def _after_another(reason: str | None) -> str:
    """The reason of a link made to the end of a chain another write extended since the
    caller read it (``cypher/ingest_supersede_batch.cypher``)."""
    return f"{reason or 'superseded'} (after a concurrent change)"
