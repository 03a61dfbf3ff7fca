"""Memory operations of a tenant: create, hydrate, supersede chains, forget, erase, index state."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from core.clock import now
from core.errors import Conflict, InvalidInput, NotFound
from core.types import LineageLink, Memory
from graph.records import memory_from, memory_row
from graph.runner import Rows
from graph.scoped import Scoped, Step

CREATE = "memory_create"


def create_step(
    memories: Sequence[Memory],
    at: float,
    extras: Mapping[str, Mapping[str, Any]] | None = None,
    marks: Sequence[str] = (),
) -> Step:
    """The one statement that creates memories (``cypher/memory_create.cypher``), with each
    memory's extra graph properties (``extras``: memory id → properties; None values left
    out) and its entity links; it registers the tenant at ``at`` on its first write, and marks
    the memories ``marks`` (earlier writes' ids) indexed. A memory whose id the tenant holds
    already is left as it is; the statement's rows name the memories it made."""
    extra = extras or {}
    rows = [
        {
            "props": {
                **memory_row(m),
                **{k: v for k, v in extra.get(m.id, {}).items() if v is not None},
            },
            "entity_ids": list(m.entity_ids),
        }
        for m in memories
    ]
    return Step(CREATE, {"rows": rows, "at": at, "marks": list(marks)})


class _Unlinked(Exception):
    """A supersede found its old memory changed: the transaction is rolled back."""


def _linked(name: str, rows: Rows) -> None:
    if name == "memory_supersede" and not rows:
        raise _Unlinked


class MemoryOps(Scoped):
    async def existing_entity_ids(self, ids: Iterable[str]) -> set[str]:
        rows = await self.read("entity_get", ids=sorted(set(ids)))
        return {r["e"]["id"] for r in rows}

    async def _check_entities(self, ids: Iterable[str]) -> None:
        wanted = set(ids)
        if not wanted:
            return
        missing = wanted - await self.existing_entity_ids(wanted)
        if missing:
            raise InvalidInput(f"unknown entity ids: {sorted(missing)}", field="entities")

    async def create_memories(self, memories: Sequence[Memory]) -> None:
        """Store new memories (``indexed=false``) with their ABOUT links, in one transaction."""
        if not memories:
            return
        if any(m.tenant_id != self.tenant_id for m in memories):
            raise InvalidInput("memory belongs to another tenant")
        await self._check_entities(e for m in memories for e in m.entity_ids)
        await self.write_many([create_step(memories, now())])

    async def get_memories(self, ids: Sequence[str]) -> dict[str, Memory]:
        """Memories by id (one round trip); unknown and other tenants' ids are absent."""
        if not ids:
            return {}
        rows = await self.read("memory_get", ids=list(dict.fromkeys(ids)))
        return {r["m"]["id"]: memory_from(r["m"], r["entity_ids"]) for r in rows}

    async def get_memory(self, memory_id: str) -> Memory:
        found = await self.get_memories([memory_id])
        if memory_id not in found:
            raise NotFound("memory", memory_id)
        return found[memory_id]

    async def mark_indexed(self, ids: Sequence[str], indexed: bool = True) -> None:
        if ids:
            await self.write("memory_mark_indexed", ids=list(ids), indexed=indexed)

    async def supersede(self, old_id: str, new: Memory, reason: str | None) -> Memory:
        """Create ``new`` as the replacement of the current, live memory ``old_id``.

        Raises NotFound for an unknown id, and Conflict when ``old_id`` is already superseded
        (supersede the chain's live end instead: its id is the error's ``current_id``) or is
        forgotten (a forgotten memory stays forgotten: a new version of it would be a
        "current" memory no read returns).
        """
        await self._check_entities(new.entity_ids)
        link = {"old_id": old_id, "new_id": new.id, "reason": reason}
        steps = [
            create_step([new.model_copy(update={"supersedes": None})], now()),
            ("memory_supersede", {**link, "at": new.created_at, "now": now()}),
        ]
        # Check first so a refused supersede sends no write at all.
        await self._check_supersedable(await self.get_memory(old_id))
        try:
            await self.write_many(steps, _linked)
        except _Unlinked:  # lost a race with another supersede or a forget: nothing was made
            await self._check_supersedable(await self.get_memory(old_id))
            raise Conflict(f"memory {old_id} changed during the supersede") from None
        return await self.get_memory(new.id)

    async def _check_supersedable(self, old: Memory) -> None:
        """Raise Conflict unless ``old`` is current and live (see ``supersede``)."""
        if old.superseded_by is not None:
            end = await self.live_end(old.id)
            raise Conflict(
                f"memory {old.id} is already superseded; the current version is {end.id}"
                if end is not None
                else f"memory {old.id} is already superseded, and its chain is forgotten",
                current_id=end.id if end is not None else None,
            )
        if not old.is_live(now()):
            raise Conflict(f"memory {old.id} is forgotten", current_id=None)

    async def live_end(self, memory_id: str) -> Memory | None:
        """The version that stands for ``memory_id`` now: ``superseded_by`` followed through
        corrections, duplicate merges and pattern compression to the version nothing replaced.
        None when that version is forgotten (or the pointers run in a circle, which no write
        makes)."""
        cursor = await self.get_memory(memory_id)
        seen = {cursor.id}
        while cursor.superseded_by is not None:
            nxt = (await self.get_memories([cursor.superseded_by])).get(cursor.superseded_by)
            if nxt is None or nxt.id in seen:  # erased meanwhile, or a cycle
                return None
            seen.add(nxt.id)
            cursor = nxt
        return cursor if cursor.is_live(now()) else None

    async def chain(self, memory_id: str) -> list[LineageLink]:
        """The supersede chain through ``memory_id``, oldest first; the last one is current."""
        rows = await self.read("memory_chain", id=memory_id)
        if not rows:
            raise NotFound("memory", memory_id)
        hydrated = await self.get_memories([r["m"]["id"] for r in rows])
        return _ordered_chain(rows, hydrated)

    async def chains(self, chain_ids: Sequence[str]) -> list[list[LineageLink]]:
        """Several whole chains in one round trip, each oldest first."""
        if not chain_ids:
            return []
        rows = await self.read("memory_chains", chain_ids=list(dict.fromkeys(chain_ids)))
        by_chain: dict[str, list[dict[str, Any]]] = {}
        for r in rows:
            by_chain.setdefault(r["m"]["chain_id"], []).append(r)
        out = []
        for chain_rows in by_chain.values():
            hydrated = {r["m"]["id"]: memory_from(r["m"], r["entity_ids"]) for r in chain_rows}
            out.append(_ordered_chain(chain_rows, hydrated))
        return sorted(out, key=lambda links: links[0].memory.created_at)

    async def entity_chains(
        self, entity_id: str, predicate: str | None = None
    ) -> list[list[LineageLink]]:
        """Supersede chains of the memories about an entity (optionally one predicate)."""
        rows = await self.read("entity_chain_ids", entity_id=entity_id, predicate=predicate)
        return await self.chains([r["chain_id"] for r in rows])

    async def as_of(self, memory_id: str, at: float) -> Memory | None:
        """The version of this memory's fact that was current at ``at`` (None: not yet stated)."""
        for link in await self.chain(memory_id):
            if link.memory.valid_at(at):
                return link.memory
        return None

    async def forget(self, ids: Sequence[str], at: float | None = None) -> list[str]:
        """Soft delete: the memories expire now (or at ``at``) and leave every read."""
        rows = await self.write("memory_set_expiry", ids=list(ids), at=now() if at is None else at)
        return [r["id"] for r in rows]

    async def erase_memories(self, ids: Sequence[str]) -> list[str]:
        """Hard delete from the graph; returns the ids that existed."""
        if not ids:
            return []
        return [r["id"] for r in await self.write("memory_erase", ids=list(ids))]

    async def memory_ids_by_user(self, user_id: str) -> list[str]:
        return [r["id"] for r in await self.read("memory_ids_by_user", user_id=user_id)]

    async def memory_ids_about(self, entity_id: str) -> list[str]:
        return [r["id"] for r in await self.read("memory_ids_about_entity", entity_id=entity_id)]

    async def unindexed_ids(self, limit: int = 1000) -> list[str]:
        return [r["id"] for r in await self.read("memory_unindexed", limit=limit)]

    async def existing_memory_ids(self, ids: Sequence[str]) -> set[str]:
        return {r["id"] for r in await self.read("memory_existing_ids", ids=list(ids))}

    async def memory_counts(self) -> tuple[int, int]:
        """(total, unindexed) memories of the tenant."""
        rows = await self.read("memory_count")
        return (int(rows[0]["total"] or 0), int(rows[0]["unindexed"] or 0)) if rows else (0, 0)


def _ordered_chain(
    rows: Sequence[dict[str, Any]], hydrated: dict[str, Memory]
) -> list[LineageLink]:
    """Order a chain's versions by walking back from the newest along ``supersedes``."""
    by_id = {r["m"]["id"]: r for r in rows}
    newest = max(rows, key=lambda r: (r["m"].get("superseded_by") is None, r["m"]["created_at"]))
    order: list[str] = []
    cursor: str | None = newest["m"]["id"]
    while cursor is not None and cursor in by_id and cursor not in order:
        order.append(cursor)
        cursor = by_id[cursor]["m"].get("supersedes")
    order.reverse()
    return [
        LineageLink(
            memory=hydrated[mid],
            reason=by_id[mid]["reason"],
            replaced_at=by_id[mid]["at"],
            current=mid == order[-1] and hydrated[mid].is_current,
        )
        for mid in order
    ]
