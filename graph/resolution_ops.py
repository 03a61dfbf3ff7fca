"""Tenant graph operations of the resolve step: the name cache, profiles, tracker state.

Statements are ``cypher/resolution_*.cypher``; this mixin is composed into ``TenantGraph``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from core.clock import now
from core.types import Entity
from graph.records import entity_from
from graph.scoped import Scoped


class ProfileMemory(NamedTuple):
    """One current memory a profile is built from."""

    content: str
    importance: float
    created_at: float


class Replaced(NamedTuple):
    """A statement a correction replaced (an earlier version in a supersede chain), and when:
    a memory said before then that says it again holds the old value."""

    content: str
    replaced_at: float


ProfileMaterial = list[ProfileMemory]


class ProfileSources(NamedTuple):
    """What a profile is built from: the memories' texts, and their ids, which the profile's
    write checks still exist (``save_profiles``); and what corrections in their supersede
    chains replaced."""

    material: ProfileMaterial
    memory_ids: list[str]
    replaced: tuple[Replaced, ...] = ()


class ResolutionOps(Scoped):
    async def alias_index(self) -> list[dict[str, Any]]:
        """Every alias of the tenant's live entities: ``{text, norm, entity_id, type}``."""
        return await self.read("resolution_alias_index")

    async def resolution_entities(
        self, ids: Sequence[str], full: Sequence[str] = ()
    ) -> dict[str, Entity]:
        """Entities by id (one round trip) without their profile embedding, except those in
        ``full`` (the candidates context may have to separate): decoding hundreds of floats
        per entity is most of the cost of a read."""
        if not ids:
            return {}
        rows = await self.read(
            "resolution_entity_get", ids=list(dict.fromkeys(ids)), full=sorted(set(full))
        )
        return {e["id"]: entity_from(e) for r in rows for e in r["es"]}

    async def renewal_entities(
        self, ids: Sequence[str], full: Sequence[str] = ()
    ) -> dict[str, tuple[Entity, tuple[float, ...] | None]]:
        """Entities by id without their profile embedding, each with the first numbers of
        its embedding for those in ``full`` (None when it has none): what renewing the
        entity cache compares with what it kept."""
        if not ids:
            return {}
        rows = await self.read(
            "resolution_entity_renew", ids=list(dict.fromkeys(ids)), full=sorted(set(full))
        )
        return {
            e["id"]: (entity_from(e), tuple(e["profile_head"]) if e.get("profile_head") else None)
            for r in rows
            for e in r["es"]
        }

    async def entity_memories(
        self, ids: Sequence[str], limit: int, at: float | None = None
    ) -> dict[str, ProfileSources]:
        """Up to ``limit`` current memories about each entity, each once, most important
        first, with what corrections replaced in their chains."""
        if not ids:
            return {}
        rows = await self.read(
            "resolution_entity_memories",
            ids=list(dict.fromkeys(ids)),
            at=now() if at is None else at,
            limit=int(limit),
        )
        out: dict[str, ProfileSources] = {}
        for row in rows:
            kept = [m for m in row["memories"] if m[0] is not None]
            replaced = {
                (str(c), float(t or 0.0))
                for olds in row["replaced"] or []
                for c, t in olds
                if c is not None
            }
            out[row["entity_id"]] = ProfileSources(
                [
                    ProfileMemory(str(c), float(i if i is not None else 0.5), float(t or 0.0))
                    for c, i, t, _ in kept
                ],
                [str(m[3]) for m in kept],
                tuple(Replaced(c, t) for c, t in sorted(replaced)),
            )
        return out

    async def entity_id_page(self, after: str, limit: int) -> list[str]:
        rows = await self.read("resolution_entity_page", after=after, limit=int(limit))
        return [str(r["id"]) for r in rows]

    async def save_profiles(self, rows: Sequence[dict[str, Any]]) -> int:
        """Store ``{id, summary, embedding, tags, sources}`` rows, each only while all its
        ``sources`` (memory ids) exist; returns how many were stored."""
        if not rows:
            return 0
        return len(await self.write("resolution_profile_update", rows=list(rows)))

    async def session_tracker(self, session_id: str) -> tuple[str, int] | None:
        """The stored tracker JSON and turn number of a session, or None."""
        rows = await self.read("resolution_session_get", session_id=session_id)
        if not rows or rows[0]["tracker"] is None:
            return None
        return str(rows[0]["tracker"]), int(rows[0]["turn"] or 0)

    async def save_session_tracker(self, session_id: str, tracker: str, turn: int) -> None:
        await self.write(
            "resolution_session_save",
            session_id=session_id,
            tracker=tracker,
            turn=turn,
            at=now(),
        )
