"""Plan extracted statements against the current facts (one read per kind, concurrent)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from core.ids import new_id
from core.ingest_types import FactConflict
from core.settings import IngestSettings
from core.types import Memory, NewMemory
from graph.tenant import TenantGraph
from graph.write_ops import SupersedeLink
from ingest.extract.corrections import Action, FactPlan, plan_fact
from ingest.extract.extraction import Candidate
from ingest.extract.procedures import QUANTITY, parameter_update
from ingest.extract.procedures import SUBJECT as PROCEDURES
from ingest.write.persist import WriteSet


@dataclass(frozen=True)
class PlannedFact:
    candidate: Candidate
    plan: FactPlan


class FactPlanner:
    """Decides create / skip / supersede / conflict for each extracted statement."""

    def __init__(self, settings: IngestSettings) -> None:
        self.single_valued = frozenset(settings.single_valued_predicates)

    async def plan(
        self,
        tenant: TenantGraph,
        found: Sequence[Candidate],
        user_id: str | None,
        at: float,
    ) -> list[PlannedFact]:
        keys: list[dict[str, str]] = [
            {
                "entity_id": c.subject_entity.id,
                "subject": c.item.subject or "",
                "predicate": c.item.predicate or "",
            }
            for c in found
            if c.subject_entity is not None and c.item.predicate
        ]
        keys += [
            {"subject": PROCEDURES, "predicate": c.item.predicate}
            for c in found
            if c.item.subject == PROCEDURES and c.item.predicate
        ]
        prefs = sorted(
            {
                c.item.predicate
                for c in found
                if c.item.subject and c.item.subject.startswith("user:") and c.item.predicate
            }
        )
        facts, preferences = await asyncio.gather(
            tenant.current_facts(keys, at),  # no round trip without keys
            tenant.current_preferences(user_id, prefs, at) if user_id else _none(),
        )
        existing: list[Memory] = [*facts, *preferences]
        out: list[PlannedFact] = []
        seen: set[tuple[str | None, str | None, str | None]] = set()
        for c in found:
            item = c.item
            key = (item.subject, item.predicate, item.object)
            if item.subject and item.predicate and item.object is not None:
                if key in seen:
                    continue
                seen.add(key)
                raw = c.extracted.object or ""
                plan = plan_fact(
                    item.subject,
                    item.predicate,
                    raw,
                    c.extracted.negated,
                    c.extracted.correction,
                    existing,
                    self.single_valued,
                )
            else:
                plan = FactPlan(Action.CREATE)
            out.append(PlannedFact(c, plan))
        return out

    async def parameter_changes(
        self, tenant: TenantGraph, planned: Sequence[PlannedFact], at: float
    ) -> list[tuple[Memory, NewMemory, str]]:
        """New versions of the procedures whose parameter a topic's new value changes ("the
        threshold is now 90%" after "... reject anything under 80% human"): (old, new,
        reason). Only a numeric value with a unit matching exactly one parameter of a
        procedure counts, so other statements never touch a procedure."""
        changes = [
            p
            for p in planned
            if p.plan.action in (Action.CREATE, Action.SUPERSEDE)
            and p.candidate.extracted.subject_kind == "topic"
            and p.candidate.item.predicate == "value"
            and QUANTITY.fullmatch((p.candidate.item.object or "").strip())
        ]
        if not changes:
            return []
        procedures = await tenant.current_procedures(PROCEDURES, at)
        out: list[tuple[Memory, NewMemory, str]] = []
        for p in changes:
            old_value = next((m.object for m in p.plan.existing), None)
            new_value = p.candidate.item.object or ""
            for procedure in procedures:
                updated = parameter_update(procedure, old_value, new_value)
                if updated is None:
                    continue
                item = NewMemory(
                    content=updated.content,
                    type=procedure.type,
                    user_id=procedure.user_id,
                    project_id=procedure.project_id,
                    session_id=p.candidate.item.session_id,
                    importance=procedure.importance,
                    created_at=at,
                    valid_from=at,
                    source=p.candidate.item.source,
                    entity_ids=[*procedure.entity_ids, *p.candidate.item.entity_ids],
                    subject=procedure.subject,
                    predicate=procedure.predicate,
                    object=" | ".join(updated.steps),
                    confidence=procedure.confidence,
                    trigger=procedure.trigger,
                    steps=list(updated.steps),
                )
                topic = p.candidate.extracted.subject
                out.append((procedure, item, f"parameter changed: {topic} is now {new_value}"))
                break  # one procedure per changed value
        return out

    def link(self, ws: WriteSet, memory: Memory, plan: FactPlan, at: float) -> None:
        """Add what ``plan`` asks of the new ``memory`` to the write: a supersede link to each
        fact it replaces, or a conflict with each fact it contradicts."""
        for old in plan.existing:
            if plan.action is Action.SUPERSEDE:
                ws.pairs.append(SupersedeLink(old.id, memory.id, plan.reason))
            elif plan.action is Action.CONFLICT:
                ws.conflicts.append(self.conflict(memory, old, plan, at))

    @staticmethod
    def conflict(memory: Memory, old: Memory, plan: FactPlan, at: float) -> FactConflict:
        return FactConflict(
            id=new_id(),
            memory_id=memory.id,
            existing_id=old.id,
            subject=memory.subject or "",
            predicate=memory.predicate or "",
            reason=plan.reason or "contradiction",
            at=at,
        )


def fact_keys(tenant_id: str, found: Iterable[Candidate]) -> list[tuple[str, ...]]:
    """The statement-lock keys of these candidates (``MemoryWriter.statements``): one per
    subject and predicate, the unit a correction supersedes."""
    return [
        ("fact", tenant_id, c.item.subject, c.item.predicate)
        for c in found
        if c.item.subject and c.item.predicate
    ]


async def _none() -> list[Memory]:
    return []
