"""Supersede on correction: decide what a newly stated fact does to the current ones.

Only a fact with the *same subject* (an entity id, or ``user:<id>`` for preferences) and the
*same single-valued predicate* (``IngestSettings.single_valued_predicates``; ``preference``
covers every ``preference:<topic>``) replaces the current value, with a reason. A contradiction
on a predicate that may hold several values ("likes", "belongs_to" …) is never overwritten: it
is recorded as a conflict for review. A repeated statement adds nothing.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from enum import StrEnum

from core.text import normalize_name
from core.types import Memory


class Action(StrEnum):
    CREATE = "create"
    SKIP = "skip"  # the same value is already current
    SUPERSEDE = "supersede"
    CONFLICT = "conflict"


@dataclass(frozen=True)
class FactPlan:
    action: Action
    existing: tuple[Memory, ...] = ()
    reason: str | None = None


def negated_object(obj: str) -> str:
    """How a negated value is stored: "Peter is no longer a writer" → role = "not writer"."""
    return f"not {obj}"


def is_single_valued(predicate: str, single_valued: Collection[str]) -> bool:
    return predicate in single_valued or predicate.split(":", 1)[0] in single_valued


def plan_fact(
    subject: str,
    predicate: str,
    obj: str,
    negated: bool,
    correction: bool,
    existing: Sequence[Memory],
    single_valued: Collection[str],
) -> FactPlan:
    """What to do with the fact (subject, predicate, obj) given the current facts.

    ``existing`` may hold facts of other subjects or predicates; they are ignored here, so
    nothing is ever superseded across subjects.
    """
    current = [m for m in existing if m.subject == subject and m.predicate == predicate]
    value = normalize_name(negated_object(obj) if negated else obj)
    opposite = normalize_name(obj if negated else negated_object(obj))
    same = [m for m in current if normalize_name(m.object or "") == value]
    if same:
        return FactPlan(Action.SKIP, tuple(same), "already current")
    if is_single_valued(predicate, single_valued):
        if negated:
            retracted = [m for m in current if normalize_name(m.object or "") == opposite]
            if retracted:
                return FactPlan(
                    Action.SUPERSEDE, tuple(retracted), f"retracted: {predicate} is not {obj!r}"
                )
            return FactPlan(Action.CREATE)
        if current:
            before = ", ".join(sorted({repr(m.object) for m in current}))
            return FactPlan(
                Action.SUPERSEDE,
                tuple(current),
                f"correction: {predicate} changed from {before} to {obj!r}",
            )
        return FactPlan(Action.CREATE)
    contradicted = [m for m in current if normalize_name(m.object or "") == opposite]
    if contradicted:
        return FactPlan(
            Action.CONFLICT,
            tuple(contradicted),
            f"contradiction on multi-valued {predicate!r}: {obj!r} "
            f"{'negated' if negated else 'asserted'} against an earlier statement",
        )
    if correction and current:
        return FactPlan(
            Action.CONFLICT,
            tuple(current),
            f"possible correction of multi-valued {predicate!r}: {obj!r} said as a correction",
        )
    return FactPlan(Action.CREATE)
