"""The ingest side's transaction: what one turn, LLM extraction or document version commits.

Turns, LLM extractions and documents all end here. Step one writes the new memories
(``indexed=false``, ``cypher/memory_create.cypher``) with any extra graph properties, their
entity links, supersede links, conflicts and whatever extra statements the caller adds — in
one transaction, which also carries the tenant's pending ``indexed`` marks. Step two hands the
new memories and the replaced ones to ``IndexSync.show`` (``ingest/write/sync.py``), whose marks
are batched in the background or carried by the tenant's next ingest write, in its
``memory_create`` (``ingest/write/marks.py``). A failure after step one leaves unindexed
memories for the reconciler: the write is durable once step one commits.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass, field
from typing import Any

from core.errors import BackendError
from core.ingest_types import FactConflict
from core.types import Memory
from graph.memories import create_step
from graph.scoped import Check, Step
from graph.write_ops import (
    SupersedeLink,
    create_conflicts,
    ensure_tenant,
    mark_indexed,
    supersede,
    written,
)
from ingest.write.sync import IndexSync
from ingest.write.writer import MemoryWriter

log = logging.getLogger(__name__)


@dataclass
class WriteSet:
    """Everything one ingest call commits together."""

    memories: list[Memory] = field(default_factory=list)
    extras: dict[str, dict[str, Any]] = field(default_factory=dict)  # memory id → properties
    pairs: list[SupersedeLink] = field(default_factory=list)
    conflicts: list[FactConflict] = field(default_factory=list)
    # Steps (``graph/write_ops.py``) run before the memories, and after the links.
    before: list[Step] = field(default_factory=list)
    after: list[Step] = field(default_factory=list)
    # Vectors already being computed (memory id → its vector), e.g. a turn's own text,
    # started before the rest of the write was known.
    vectors: dict[str, Awaitable[list[float]]] = field(default_factory=dict)
    # Changes to existing memories' vector payloads once the graph has them (memory id →
    # payload fields), e.g. learned core items a turn took out of core (``pinned``).
    changes: dict[str, dict[str, Any]] = field(default_factory=dict)
    # The memories the write superseded, set by ``persist``: the pairs' old ones, or the
    # current end of their chain when a concurrent write superseded one first.
    superseded: list[str] = field(default_factory=list)
    # New tasks another writer had created too, set by ``persist``: new id → the task that
    # absorbed it (the new one is gone; see ``graph.write_ops.dedupe_tasks``).
    folded: dict[str, str] = field(default_factory=dict)
    # Memories of the write that another write had made first, set by ``persist`` (ids a
    # write chooses itself: the statement memory of an earlier turn that two turns
    # correcting it both make): left as that write made them, and indexed by it.
    elsewhere: set[str] = field(default_factory=set)
    # Sees each statement's rows inside the transaction; raising gives the write up.
    check: Check | None = None


def steps_of(ws: WriteSet, at: float, marks: Sequence[str] = ()) -> list[Step]:
    """The statements of the transaction; each is a round trip, so the memories, their links,
    the tenant's registration and earlier writes' ``indexed`` marks (``marks``) go in one."""
    steps: list[Step] = list(ws.before)
    if ws.memories:
        steps.append(create_step(ws.memories, at, ws.extras, marks))
    else:
        steps.insert(0, ensure_tenant(at))
        if marks:
            steps.append(mark_indexed(marks))
    if ws.pairs:
        steps.append(supersede(ws.pairs, at))
    if ws.conflicts:
        steps.append(create_conflicts(ws.conflicts))
    return [*steps, *ws.after]


async def persist(writer: MemoryWriter, tenant_id: str, ws: WriteSet, at: float) -> bool:
    """Commit ``ws`` durably; returns whether the vector side finished too.

    Embedding (CPU, in a worker thread) overlaps the graph transaction (I/O); the vectors are
    upserted only after the graph has committed, so the order of durability is unchanged.
    Vectors the caller started earlier (``ws.vectors``) are used as they are.
    """
    indexing = await commit(writer, tenant_id, ws, at)
    return await indexing.run()


async def commit(writer: MemoryWriter, tenant_id: str, ws: WriteSet, at: float) -> Indexing:
    """Step one of ``persist``: the graph transaction (``ws`` learns what it superseded,
    folded and found made already). Returns step two, the vector side, for the caller to run
    once it has let the next writer of the same statements plan
    (``ingest/write/ordering.py``); not run, the memories stay unindexed for the reconciler."""
    tenant = writer.graph.tenant(tenant_id)
    sync = writer.sync
    embedding = asyncio.ensure_future(_vectors(sync, ws, list(ws.memories)))
    try:
        # Not beside a mark statement of the tenant (they would conflict, ``marks.py``); earlier
        # writes' pending marks ride along instead: one transaction instead of two.
        async with sync.marks.writing(tenant_id):
            carried = sync.marks.take(tenant_id)
            steps = steps_of(ws, at, carried)
            try:
                results = await tenant.write_many(steps, ws.check)
            except BaseException:
                sync.marks.add(tenant_id, carried)  # still pending: the batch takes them
                raise
    except BaseException:
        embedding.cancel()
        raise
    outcome = written(steps, results)
    ws.superseded, ws.folded = outcome.superseded, outcome.folded
    ws.elsewhere = _made_elsewhere(ws.memories, outcome.created)
    gone = set(ws.folded) | ws.elsewhere
    computed = _without(embedding, ws, gone) if gone else embedding
    return Indexing(sync, tenant_id, ws, at, computed)


class Indexing:
    """Step two of ``persist``: the vector index shows a committed write (``IndexSync.show``:
    new memories upserted, ``superseded_at`` merged into the replaced ones' points)."""

    def __init__(
        self,
        sync: IndexSync,
        tenant_id: str,
        ws: WriteSet,
        at: float,
        vectors: Awaitable[list[list[float]]],
    ) -> None:
        self._sync = sync
        self._tenant_id = tenant_id
        self._ws = ws
        self._at = at
        self._vectors = vectors

    async def run(self) -> bool:
        """Whether the vector side finished (a failure leaves it to the reconciler)."""
        ws = self._ws
        try:
            # The caller does not wait for the mark (``ingest/write/marks.py``): the memories
            # are searchable now, and an unwritten mark only makes the reconciler upsert them
            # again.
            await self._sync.show(
                self._tenant_id,
                new=ws.memories,
                changes={
                    **ws.changes,
                    **{i: {"superseded_at": self._at} for i in ws.superseded},
                },
                vectors=await self._vectors,
                mark="later",
            )
        except BackendError:
            log.exception(
                "indexing after a durable ingest write failed; the reconciler finishes it"
            )
            return False
        return True


def _made_elsewhere(memories: Sequence[Memory], created: frozenset[str]) -> set[str]:
    """The memories of a committed write that the graph held before it (``memory_create``
    leaves them as they are). When the write's own first memory is among them (a fresh id
    no other write has), an earlier try of this very write committed before its caller
    heard: the memories are its own, and still to index."""
    if not memories:
        return set()
    held = {m.id for m in memories} - created
    return set() if memories[0].id in held else held


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


async def _vectors(sync: IndexSync, ws: WriteSet, memories: list[Memory]) -> list[list[float]]:
    """One vector per memory of ``memories`` (``ws``'s when the write began), in order: the
    ones started early, the rest in a batch. A memory with the text of one started early
    shares its vector (a preference or fact extracted from a turn is often the whole turn:
    "I prefer short summaries."). ``_without`` may narrow ``ws.memories`` while this runs, and
    its indexes are into the list given here (reading ``ws.memories`` at the end gave fewer
    vectors than it indexes: "list index out of range" under concurrent writers)."""
    early = {m.indexed_text: ws.vectors[m.id] for m in memories if m.id in ws.vectors}
    rest = [m for m in memories if m.indexed_text not in early]
    fresh = asyncio.ensure_future(sync.embed(rest))
    try:
        started = {text: await v for text, v in early.items()}
    except BaseException:
        fresh.cancel()
        raise
    computed = dict(zip((m.id for m in rest), await fresh, strict=True))
    return [computed[m.id] if m.id in computed else started[m.indexed_text] for m in memories]
