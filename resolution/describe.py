"""One line that tells same-named entities apart: "Sarah, designer at Brightpath Media".

Used wherever a person has to choose between candidates (a clarification, an identity
question) and wherever the model is told who a resolved name is (the assembled context).
Built from the declared facts only: roles, organisation (the parent), the relation to the
speaker; the profile's newest sentence (without its day) when none is declared: the first
is the most important, and often what a later change replaced.

>>> describe(Entity(id="1", tenant_id="t", name="Sarah", type=EntityType.PERSON,
...     context_tags=("related_to_speaker:cousin",), first_seen=0, last_seen=0), None)
"Sarah, the user's cousin"
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from core.types import Entity, EntityType
from resolution.summary import newest_statement
from resolution.tags import KIN, ROLE

MAX_FALLBACK = 80  # characters of the profile quoted when no fact is declared


def facts(entity: Entity, parent: Entity | None) -> list[str]:
    """The distinguishing facts: "designer at Brightpath Media", "the user's cousin"."""
    roles = [t[len(ROLE) :] for t in entity.context_tags if t.startswith(ROLE)]
    kin = [t[len(KIN) :] for t in entity.context_tags if t.startswith(KIN)]
    out: list[str] = []
    if roles and parent is not None:
        out.append(f"{' and '.join(roles)} at {parent.name}")
    elif roles:
        out.append(" and ".join(roles))
    elif parent is not None:
        out.append(
            f"{'works for' if entity.type is EntityType.PERSON else 'part of'} {parent.name}"
        )
    out.extend(f"the user's {k}" for k in kin)
    return out


def describe(entity: Entity, parent: Entity | None) -> str:
    """The entity's name with its distinguishing facts (or the start of its profile)."""
    found = facts(entity, parent)
    said = newest_statement(entity.profile_summary or "") if not found else ""
    if said:
        found = [said if len(said) <= MAX_FALLBACK else said[: MAX_FALLBACK - 1] + "…"]
    return ", ".join([entity.name, *found])


def describe_all(entities: Sequence[Entity], parents: Mapping[str, Entity]) -> dict[str, str]:
    """``describe`` for each entity, parents looked up in ``parents`` by id."""
    return {e.id: describe(e, parents.get(e.parent_id) if e.parent_id else None) for e in entities}
