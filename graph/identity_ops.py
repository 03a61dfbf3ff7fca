"""Identity operations of a tenant: entities born from conversation, their open questions.

The write path creates a new or provisional entity for a name it cannot link to a known one
(``create_identity``), records every automatic decision with its scores
(``save_identity_decisions``), and curation answers the questions: "same" is the recorded
merge of ``EntityOps`` followed by ``identity_same``; "different" is a ``DISTINCT_FROM`` link
(``confirm_distinct``). Statements are ``cypher/identity_*.cypher``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from core.clock import now
from core.errors import InvalidInput, NotFound
from core.ids import new_id
from core.resolution_types import IdentityDecision, NewIdentity
from core.types import Entity, EntityType
from graph.entities import EntityOps
from graph.records import entity_from, identity_decision_from
from graph.write_ops import create_identities, save_identity_decisions

MAX_REASON = 500


@dataclass(frozen=True)
class PossibleIdentity:
    """A candidate a provisional entity may be, with the write path's score."""

    entity: Entity
    score: float
    at: float
    proposed: bool = False  # the batch job found the profiles converged on this candidate


@dataclass(frozen=True)
class IdentityQuestion:
    """A provisional entity and the known entities it may be, best score first."""

    entity: Entity
    candidates: tuple[PossibleIdentity, ...]


@dataclass(frozen=True)
class IdentityProposal:
    """A question's candidate rescored by profile similarity; ``proposed`` marks the one the
    profiles converged on (``ingest/lifecycle/identities.py``)."""

    entity_id: str  # the provisional entity
    candidate_id: str
    score: float
    proposed: bool


def identity_entity(
    tenant_id: str, name: str, type: EntityType, provisional: bool, at: float | None
) -> Entity:
    """An entity born from a mention that matched known ones, as ``create_identities``
    writes it: known by that name alone, seen first at ``at`` (now when None)."""
    text = name.strip()
    when = now() if at is None else at
    return Entity(
        id=new_id(),
        tenant_id=tenant_id,
        name=text,
        type=type,
        aliases=(text,),
        first_seen=when,
        last_seen=when,
        provisional=provisional,
    )


class IdentityOps(EntityOps):
    async def create_identity(
        self,
        name: str,
        type: EntityType,
        provisional: bool,
        links: Sequence[tuple[str, float]] = (),
        at: float | None = None,
        decisions: Sequence[dict[str, Any]] = (),
    ) -> Entity:
        """A new entity called ``name`` even though entities of that name exist (the turn
        said it is someone else, or could not tell); ``provisional`` with a scored
        ``POSSIBLY_SAME_AS`` link to each of ``links`` (candidate id, score), and the
        ``decisions`` that led to it (``save_identity_decisions``; an ``entity_id`` of None
        is this entity). One transaction; a turn puts the same steps in its own
        (``create_identities``)."""
        entity = identity_entity(self.tenant_id, name, type, provisional, at)
        steps = create_identities(self.tenant_id, [NewIdentity(entity, tuple(links))], None)
        if decisions:
            rows = [{**d, "entity_id": d["entity_id"] or entity.id} for d in decisions]
            steps.append(save_identity_decisions(rows))
        created, *_ = await self.write_many(steps)
        return entity_from(created[0]["e"])

    async def save_identity_decisions(self, rows: Sequence[dict[str, Any]]) -> None:
        """Store decision records (``IdentityDecision`` nodes; see the statement's header)."""
        if rows:
            await self.write("identity_decisions_save", rows=list(rows))

    async def identity_decisions(self, entity_id: str, limit: int = 50) -> list[IdentityDecision]:
        """The automatic decisions that chose, created or weighed ``entity_id``, newest first."""
        rows = await self.read("identity_decisions_of", id=entity_id, limit=int(limit))
        return [identity_decision_from(r["d"]) for r in rows]

    async def identity_questions(
        self, first: int, after: str | None = None
    ) -> list[IdentityQuestion]:
        """Open questions: live provisional entities with live candidates, in id order."""
        rows = await self.read("identity_questions", after=after or "", limit=int(first))
        found: dict[str, tuple[Entity, list[PossibleIdentity]]] = {}
        for row in rows:
            entity = entity_from(row["e"])
            _, candidates = found.setdefault(entity.id, (entity, []))
            score, at = float(row["score"] or 0.0), float(row["at"] or 0.0)
            candidates.append(
                PossibleIdentity(entity_from(row["c"]), score, at, bool(row["proposed"]))
            )
        return [
            IdentityQuestion(e, tuple(sorted(cs, key=lambda c: (-c.score, c.entity.id))))
            for _, (e, cs) in sorted(found.items())
        ]

    async def propose_identities(self, proposals: Sequence[IdentityProposal], at: float) -> int:
        """Rescore open questions' links; returns how many links changed."""
        if not proposals:
            return 0
        rows = [
            {
                "id": p.entity_id,
                "candidate": p.candidate_id,
                "score": p.score,
                "proposed": p.proposed,
            }
            for p in proposals
        ]
        found = await self.write("identity_propose", rows=rows, at=at)
        return int(found[0]["updated"]) if found else 0

    async def distinct_pairs(self, ids: Sequence[str]) -> set[frozenset[str]]:
        """Pairs among ``ids`` already answered "different"."""
        if len(ids) < 2:
            return set()
        rows = await self.read("identity_distinct_of", ids=list(dict.fromkeys(ids)))
        return {frozenset((str(r["a"]), str(r["b"]))) for r in rows}

    async def confirm_distinct(self, entity_id: str, other_id: str, reason: str | None) -> None:
        """Record that two entities are different people: never proposed as one again.

        Raises:
            InvalidInput: the same id twice, or a reason too long.
            NotFound: either entity is not in this tenant.
        """
        if entity_id == other_id:
            raise InvalidInput("an entity is not distinct from itself", field="otherId")
        if reason is not None and len(reason) > MAX_REASON:
            raise InvalidInput(f"a reason is limited to {MAX_REASON} characters", field="reason")
        rows = await self.write(
            "identity_distinct", a=entity_id, b=other_id, reason=reason or "", at=now()
        )
        if not rows:
            missing = {entity_id, other_id} - set(await self.get_entities([entity_id, other_id]))
            raise NotFound("entity", sorted(missing)[0] if missing else entity_id)

    async def settle_same(self, keep_id: str, drop_id: str) -> None:
        """After the recorded merge of ``drop_id`` into ``keep_id``: their question is closed."""
        await self.write("identity_same", keep=keep_id, drop=drop_id)
