"""Topics as entities: "staging server", "deploy target" become ``concept`` entities.

A statement whose subject is a topic rather than a name (``Extracted.subject_kind ==
"topic"``) needs an entity to hang its supersede chain on. The topic's words are its alias:
the next statement about "the staging server" finds the same concept, in any session.
"""

from __future__ import annotations

from collections.abc import Sequence

from core.text import normalize_name
from core.types import Entity, EntityType
from graph.tenant import TenantGraph
from ingest.extract.rules import Extracted


async def topic_entities(
    tenant: TenantGraph, statements: Sequence[Extracted], at: float
) -> dict[str, Entity]:
    """The concept entity of each topic the statements are about, by normalized topic name;
    found by alias (one concept of that name), else created. Reads only when every topic is
    known, so a turn about known topics writes no entity."""
    names: dict[str, str] = {}
    for ex in statements:
        if ex.kind == "fact" and ex.subject_kind == "topic" and ex.subject:
            names.setdefault(normalize_name(ex.subject), ex.subject)
    out: dict[str, Entity] = {}
    for norm, name in names.items():
        known = [e for e in await tenant.find_by_alias(name) if e.type is EntityType.CONCEPT]
        if len(known) == 1:
            out[norm] = known[0]
            continue
        entity, _ = await tenant.create_entity_once(
            name, EntityType.CONCEPT, EntityType.CONCEPT, at=at
        )
        out[norm] = entity
    return out
