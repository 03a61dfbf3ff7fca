"""Tenant graph operations of core memory learned from conversation (``ingest/learned/``):
the learned items in core now, which keys were removed from core, and remembering a removal.

A learned item is a pinned memory with four extra properties: ``core_slot`` (what it gives a
value of), ``core_key`` (what a restatement of it shares: its scope and its words; no tenant
id, so an export imported into another tenant keeps it), ``core_scope``
(whose it is: a user and speaker, or the tenant's project) and ``core_from`` (the statement
memory id of the sentence it came from). ``unpinCore`` adds ``core_dismissed`` (indexed).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from graph.scoped import Scoped, Step


@dataclass(frozen=True)
class LearnedCore:
    """A learned core item as the write side compares it with a new one."""

    id: str
    slot: str
    key: str
    scope: str
    source_statement: str | None
    created_at: float


def pinned_keys(tenant_id: str, user_id: str | None) -> list[str]:
    """The ``pinned_key`` values core memory is found by: the tenant id (what the tenant
    shares, and everything ``pinCore`` pins), and with a user, that user's own learned lines'
    key, so reading one user's core does not read every other user's."""
    return [tenant_id] if user_id is None else [tenant_id, user_pinned_key(tenant_id, user_id)]


def user_pinned_key(tenant_id: str, user_id: str) -> str:
    """The ``pinned_key`` of a user's own learned core line (their name, role, rules)."""
    return f"{tenant_id}|user|{user_id}"


class CoreOps(Scoped):
    async def learned_core(self, at: float, user_id: str | None) -> list[LearnedCore]:
        """The learned items in core at ``at`` (pinned, current, live) that a turn of
        ``user_id`` may replace (the tenant's shared ones and that user's), oldest first."""
        keys = pinned_keys(self.tenant_id, user_id)
        rows = await self.read("core_learned", keys=keys, at=at)
        found = [
            LearnedCore(
                id=r["id"],
                slot=r["slot"],
                key=r["key"] or "",
                scope=r["scope"] or "",
                source_statement=r["source_statement"],
                created_at=float(r["created_at"] or 0.0),
            )
            for r in rows
        ]
        return sorted(found, key=lambda c: (c.created_at, c.id))

    async def dismissed_core(self, keys: Sequence[str]) -> set[str]:
        """The keys among ``keys`` whose item someone removed from core."""
        if not keys:
            return set()
        return {r["key"] for r in await self.read("core_dismissed", keys=list(keys))}

    async def dismiss_core(self, memory_id: str) -> bool:
        """Remember that a learned item was removed from core; False for a memory that was
        not learned from conversation."""
        return bool(await self.write("core_dismiss", id=memory_id))


def unpin(ids: Sequence[str]) -> Step:
    """A step of a turn's transaction that takes memories out of core (a kind's oldest
    learned items past its cap); not remembered as a removal."""
    return Step("memory_set_pinned", {"ids": list(ids), "pinned": False})
