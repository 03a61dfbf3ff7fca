"""Tenant graph operations of ``erase``: what an erased subject takes with it, and the delete.

An erase starts from some memories (named, about an entity, or by a user) and closes over
everything holding the same text: earlier versions in their supersede chains, merged
duplicates on either side, memories extracted from erased turns, and patterns summarizing
an erased episode. ``erase_graph`` then deletes that set in ONE transaction together with
every other record naming it: conflicts, queued jobs, session windows and tracker state,
document chunk lists, feedback records, entity relationships learned from it, and the erased
entities with their aliases and merge records. Survivors are repaired in the same
transaction: a pattern's other source episodes become current again, later versions start
their chain afresh, and profiles that may quote erased text are cleared and marked stale.

Statements are ``cypher/erase_*.cypher`` (plus ``memory_erase`` and ``entity_erase``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from core.clock import NEVER
from graph.runner import Rows
from graph.scoped import Scoped

Step = tuple[str, dict[str, Any]]


@dataclass(frozen=True)
class GraphErasure:
    """What ``erase_graph`` removed and repaired."""

    memories: dict[str, str] = field(default_factory=dict)  # erased memory id → type
    texts: tuple[str, ...] = ()  # their contents (what the on-disk check looks for)
    restored: dict[str, float] = field(default_factory=dict)  # source id → its superseded_at
    conflicts: int = 0
    jobs: int = 0
    sessions: int = 0
    documents: int = 0
    feedback: int = 0
    relations: int = 0


class EraseOps(Scoped):
    async def entity_family(self, entity_id: str) -> list[str]:
        """The entity and every entity merged into it (empty when unknown)."""
        rows = await self.read("erase_entity_family", entity_id=entity_id)
        return sorted(str(r["id"]) for r in rows)

    async def erase_closure(self, ids: Iterable[str]) -> set[str]:
        """``ids`` (existing memories) and every memory that must go with them.

        Breadth-first: each round asks for the versions, duplicates, patterns and
        extractions of the memories found in the previous round (two reads, run together).
        """
        found = set(ids)
        frontier = sorted(found)
        while frontier:
            related, derived = await asyncio.gather(
                self.read("erase_expand", ids=frontier),
                self.read("erase_expand_derived", ids=frontier),
            )
            new = {str(r["id"]) for r in (*related, *derived)} - found
            found |= new
            frontier = sorted(new)
        return found

    async def erase_affected_entities(
        self, memory_ids: Sequence[str], entity_ids: Sequence[str]
    ) -> list[str]:
        """Surviving entities whose profile may quote the erased memories."""
        rows = await self.read(
            "erase_affected_entities", ids=list(memory_ids), entity_ids=list(entity_ids)
        )
        return sorted({str(r["id"]) for r in rows})

    async def erase_graph(
        self,
        memory_ids: Sequence[str],
        entity_ids: Sequence[str] = (),
        user_id: str | None = None,
        reprofile_ids: Sequence[str] = (),
    ) -> GraphErasure:
        """Delete memories and entities with everything naming them, in one transaction.

        ``memory_ids`` must already be closed over (``erase_closure``). The profiles of
        ``reprofile_ids`` are cleared and marked stale in the same transaction, so no
        profile quoting erased text outlives the commit, even if rebuilding it never runs.
        Idempotent: ids that no longer exist match nothing.
        """
        ids = sorted(set(memory_ids))
        entities = sorted(set(entity_ids))
        subjects = [*entities, *([f"user:{user_id}"] if user_id is not None else [])]
        steps: list[Step] = [
            ("erase_restore_sources", {"ids": ids}),
            ("erase_repair_chains", {"ids": ids}),
            ("erase_conflicts", {"ids": ids, "subjects": subjects}),
            ("erase_jobs", {"ids": [*ids, *entities]}),
            ("erase_sessions", {"ids": ids, "entity_ids": entities, "user_id": user_id}),
            ("erase_documents", {"ids": ids}),
            ("erase_feedback", {"ids": ids}),
            ("erase_relations", {"ids": ids}),
            ("memory_erase", {"ids": ids}),
            *(("entity_erase", {"id": e}) for e in entities),
        ]
        if entities:
            steps.append(("erase_entity_merges", {"entity_ids": entities}))
            steps.append(("erase_entity_children", {"entity_ids": entities}))
        steps.append(("erase_identity_decisions", {"ids": ids, "entity_ids": entities}))
        if reprofile_ids:
            steps.append(("erase_reset_profiles", {"entity_ids": sorted(set(reprofile_ids))}))
        results = await self.write_many(steps)
        restored, _heads, conflicts, jobs, sessions, documents, feedback, relations, erased = (
            results[:9]
        )
        return GraphErasure(
            memories={str(r["id"]): str(r["type"]) for r in erased},
            texts=tuple(str(r["content"]) for r in erased if r["content"]),
            restored={str(r["id"]): _superseded_at(r["superseded_at"]) for r in restored},
            conflicts=_count(conflicts, "conflicts"),
            jobs=_count(jobs, "jobs"),
            sessions=_count(sessions, "sessions"),
            documents=_count(documents, "documents"),
            feedback=_count(feedback, "feedback"),
            relations=_count(relations, "relations"),
        )

    async def audit(self) -> tuple[Rows, Rows]:
        """Every node (``labels``, ``props``) and relationship (``type``, ``props``) of the
        tenant: what an erase verification or a data-subject audit reads."""
        nodes, relations = await asyncio.gather(
            self.read("erase_audit_nodes"), self.read("erase_audit_relations")
        )
        return nodes, relations


def _count(rows: Rows, column: str) -> int:
    return int(rows[0][column] or 0) if rows else 0


def _superseded_at(value: float | None) -> float:
    """A restored source's superseded_at: null in the graph is "never"."""
    return NEVER if value is None else float(value)
