"""The one place that makes the vector index agree with the graph.

Every writer changes the graph first and leaves what it touched ``indexed=false``: new
memories are created so (``cypher/memory_create.cypher``), and a statement that changes a
property the vector payload carries sets it. Then it hands the memories here: ``show`` embeds
and upserts the new ones, merges the changed payload fields into the points of the others,
and marks them all ``indexed=true`` (at once, or batched off the request path by
``IndexMarks``); ``remove`` deletes the points of erased memories. A crash between the graph
write and the end of ``show`` leaves unindexed memories that the reconciler
(``ingest/write/reconcile.py``) finishes with ``show`` again: nothing is lost, and nothing is
in the vector index that the graph does not know.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from core.types import Memory
from graph.store import GraphStore
from ingest.write.marks import IndexMarks
from vectors.embedding.embedder import Embedder
from vectors.payload import payload_of
from vectors.vector_index import VectorIndex, VectorPoint

# When ``show`` marks the memories indexed: in its own statement now, batched shortly after
# (``IndexMarks``: the ingest path, whose caller does not wait for it), or not at all (a
# repair of memories the graph marks indexed already).
Mark = Literal["now", "later", "none"]
# Memory id → the payload fields a graph write changed.
Changes = Mapping[str, Mapping[str, Any]]


class IndexSync:
    """Brings the vector index in line with graph writes: new, changed and removed memories."""

    def __init__(self, graph: GraphStore, index: VectorIndex, embedder: Embedder) -> None:
        self.graph = graph
        self.index = index
        self.embedder = embedder
        self.marks = IndexMarks(graph)  # the ingest path's deferred ``indexed`` marks

    async def embed(self, memories: Sequence[Memory]) -> list[list[float]]:
        """The vectors of these memories, in order (what ``show`` upserts); a text is
        embedded once however many of them have it."""
        texts = [m.indexed_text for m in memories]
        distinct = list(dict.fromkeys(texts))
        if len(distinct) == len(texts):
            return await self.embedder.embed_documents(texts)
        vectors = dict(zip(distinct, await self.embedder.embed_documents(distinct), strict=True))
        return [vectors[t] for t in texts]

    async def show(
        self,
        tenant_id: str,
        new: Sequence[Memory] = (),
        changes: Changes | None = None,
        *,
        vectors: Sequence[Sequence[float]] | None = None,
        present_only: bool = False,
        mark: Mark = "now",
    ) -> None:
        """Make the index show what the graph committed, then mark the memories indexed.

        ``new`` memories are embedded (or take ``vectors``, computed beforehand, in order) and
        upserted with their whole payload: idempotent, so re-running replaces the same points.
        ``changes`` are merged into existing points; memories with the same change share one
        engine call. With ``present_only`` a changed memory without a point (an earlier write
        never reached the index) is left unindexed: the reconciler embeds it from the graph,
        changes included.
        """
        if new:
            dense = vectors if vectors is not None else await self.embed(new)
            await self.index.upsert(
                [
                    VectorPoint(id=m.id, dense=list(v), text=m.indexed_text, payload=payload_of(m))
                    for m, v in zip(new, dense, strict=True)
                ]
            )
        changed = dict(changes or {})
        if present_only and changed:
            present = set(await self.index.retrieve(tenant_id, list(changed)))
            changed = {i: c for i, c in changed.items() if i in present}
        groups: dict[tuple[tuple[str, Any], ...], list[str]] = defaultdict(list)
        for memory_id, payload in changed.items():
            groups[tuple(sorted(payload.items()))].append(memory_id)
        for items, ids in groups.items():
            await self.index.set_payload(tenant_id, ids, dict(items))
        ids = [*(m.id for m in new), *changed]
        if mark == "later":
            self.marks.add(tenant_id, ids)
        elif mark == "now" and ids:
            await self.graph.tenant(tenant_id).mark_indexed(sorted(set(ids)))

    async def remove(self, tenant_id: str, ids: Sequence[str]) -> int:
        """Delete the points of erased memories; returns how many there were."""
        points = len(await self.index.retrieve(tenant_id, ids))
        await self.index.delete(tenant_id, ids)
        return points

    async def removed(self, tenant_id: str, ids: Sequence[str]) -> bool:
        """True when neither engine holds these erased memories. A point re-created meanwhile
        (a re-index racing the erase) is an orphan now: it is deleted here."""
        if not ids:
            return True
        if await self.index.retrieve(tenant_id, ids):
            await self.index.delete(tenant_id, ids)
        left = await self.graph.tenant(tenant_id).existing_memory_ids(ids)
        return not left and not await self.index.retrieve(tenant_id, ids)
