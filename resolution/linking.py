"""The write side of resolution: create new entities, record declared aliases and relations.

Runs only with ``create_missing=True`` (the write path). A name is created only when nothing
matched it — an ambiguous name is never created again nor merged into a guess — and only when
the text says what it is (a declaration, a typed entity, or the subject of a relation).
"Peter is one of our writers" tags Peter ``role:writer`` and relates him ``works_for`` the
session's scene organisation (or the one organisation named in the same text), which also
becomes his parent entity.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from core.resolution_types import NewRelation
from core.text import normalize_name
from core.types import Entity, EntityType
from resolution.cues import OURS
from resolution.gazetteer import KnownName
from resolution.identity import settle, states_change
from resolution.names import plausible_name
from resolution.patterns import find_type_declarations
from resolution.tags import ROLE
from resolution.turn import Linking, Turn
from resolution.types import Mention, ResolvedMention

_RELATION_TYPES = {"works_for", "belongs_to", "located_in", "client_of"}
# Relations kept as declared tags of the subject ("role:designer", "related_to_speaker:cousin").
_TAG_RELATIONS = {"role", "related_to_speaker"}


async def link_new(resolver: Linking, turn: Turn, names: Sequence[tuple[int, Mention]]) -> None:
    tenant = resolver.graph.tenant(turn.tenant_id)
    parsed = turn.parsed
    created: list[Entity] = []
    changed: set[str] = set()
    subjects = {normalize_name(r.subject) for r in parsed.relations if r.relation != "client_of"}
    objects = {
        normalize_name(r.object): EntityType.PLACE if r.relation == "located_in" else EntityType.ORG
        for r in parsed.relations
        if r.relation in _RELATION_TYPES and r.object != OURS
    }
    objects |= {
        normalize_name(r.subject): EntityType.ORG
        for r in parsed.relations
        if r.relation == "client_of"
    }

    def entity_for(text: str) -> Entity | None:
        key = normalize_name(text)
        for index, m in names:
            r = turn.resolved.get(index)
            if normalize_name(m.text) == key and r is not None and r.entity is not None:
                return r.entity
        return None

    def set_all(text: str, entity: Entity, method: str) -> None:
        key = normalize_name(text)
        for index, m in names:
            if normalize_name(m.text) == key:
                turn.resolved[index] = ResolvedMention(m, entity, 1.0, method)

    async def create(m: Mention, etype: EntityType) -> Entity:
        # Turns of other sessions, here or in another replica, may meet the same new name at
        # the same time: one creates it and the others take what it created, as resolution
        # would have (else "Zephyr Labs" named in four sessions at once became three
        # entities). The graph statement decides; the lock only spares this process's turns
        # the engine's retries.
        agree = None if m.source == "ruler" else m.entity_type  # as type_filter agrees
        async with resolver.creating(turn.tenant_id):
            entity, fresh = await tenant.create_entity_once(m.text, etype, agree, at=turn.at)
        if not fresh:
            turn.entities[entity.id] = entity
            set_all(m.text, entity, "alias")
            return entity
        created.append(entity)
        turn.entities[entity.id] = entity
        set_all(m.text, entity, "created")
        return entity

    # Declared aliases first: "Wolf of Blog Street, also known as WOBS" is one entity.
    alias_keys = {normalize_name(a.alias) for a in parsed.aliases}
    for decl in parsed.aliases:
        entity = entity_for(decl.name)
        if entity is None:
            found = [
                (i, m) for i, m in names if normalize_name(m.text) == normalize_name(decl.name)
            ]
            r = turn.resolved.get(found[0][0]) if found else None
            if not found or r is None or r.candidates:
                continue  # ambiguous: never attach an alias to a guess
            if not _may_create(turn, found[0][1]):
                continue
            etype = found[0][1].entity_type
            if etype is None:
                etype = EntityType.ORG if decl.alias.isupper() else EntityType.CONCEPT
            entity = await create(found[0][1], etype)
        if normalize_name(decl.alias) not in {normalize_name(a) for a in entity.aliases}:
            entity = await tenant.add_alias(entity.id, decl.alias)
            turn.entities[entity.id] = entity
            changed.add(entity.id)
        set_all(decl.alias, entity, "declared")
    # New names: unmatched (not ambiguous) and typed by the text or a relation subject.
    for index, m in names:
        r = turn.resolved.get(index)
        if r is None or r.entity is not None or r.candidates or entity_for(m.text):
            continue
        if normalize_name(m.text) in alias_keys:
            continue
        if not _may_create(turn, m):
            continue  # not a name, or a document's word without the evidence of one
        etype = m.entity_type
        if etype is None:
            etype = objects.get(normalize_name(m.text))
        if etype is None and normalize_name(m.text) in subjects:
            etype = EntityType.PERSON
        if etype is not None:
            await create(m, etype)
    for typed in find_type_declarations(parsed.text):
        entity = entity_for(typed.name)
        if entity is not None and entity.type is EntityType.ORG:
            turn.scene_hints.add(entity.id)
    # Known people's names: new, known or provisional, now that the turn's organisations exist.
    created.extend(await settle(resolver, turn, names, entity_for, _our_org(turn)))
    changed |= await _relations(resolver, turn, entity_for)
    _current(turn, changed)
    changed -= set(turn.introduced)  # named and profiled once the caller created them
    fresh = {e.id: turn.entities.get(e.id, e) for e in created}
    if fresh or changed:
        resolver.names.extend_soon(
            turn.tenant_id,
            [KnownName(a, e.id, e.type) for e in fresh.values() for a in (e.name, *e.aliases)]
            + [
                KnownName(a, i, turn.entities[i].type)
                for i in changed
                for a in turn.entities[i].aliases
            ],
        )
        if turn.profiles_later:
            return
        for e in await resolver.profiles.refresh(turn.tenant_id, [*fresh, *changed]):
            turn.entities[e.id] = e
        _current(turn, {*fresh, *changed})


def _may_create(turn: Turn, m: Mention) -> bool:
    """May this unknown name become an entity? (``names.py``: a document must vouch for it.)"""
    span = (m.start, m.end)
    if not plausible_name(m.text) or span in turn.parsed.by_place:
        return False
    if turn.document is None:
        return not m.text.startswith("@")  # a handle in a turn names no one new
    return span not in turn.parsed.modifiers and turn.document.admits(m, turn.parsed.named)


def _current(turn: Turn, ids: set[str]) -> None:
    """Point the turn's resolved mentions of ``ids`` at the entities as they are now (tags,
    parent and profile this turn changed)."""
    for index, r in list(turn.resolved.items()):
        if r.entity is not None and r.entity.id in ids and r.entity.id in turn.entities:
            e = turn.entities[r.entity.id]
            turn.resolved[index] = ResolvedMention(
                r.mention, e, r.confidence, r.method, r.candidates
            )


async def _relations(
    resolver: Linking, turn: Turn, lookup: Callable[[str], Entity | None]
) -> set[str]:
    """Record role tags and works-for / belongs-to / located-in relations; returns changed ids."""
    tenant = resolver.graph.tenant(turn.tenant_id)
    changed: set[str] = set()
    if turn.state is not None and turn.parsed.relations:
        scene = [i for i, s in turn.state.scope.items() if s == "scene"]
        await resolver.turn_entities(turn, scene)
    for rel in turn.parsed.relations:
        subject = lookup(rel.subject)
        if subject is None:
            continue
        new = subject.id in turn.introduced  # not in the graph yet: its creation says it all
        if rel.relation in _TAG_RELATIONS:
            tag = f"{rel.relation}:{rel.object}"
            current = turn.entities.get(subject.id, subject)
            if tag not in current.context_tags:
                kept = list(current.context_tags)
                if rel.relation == "role" and states_change(turn.parsed.text):
                    kept = [t for t in kept if not t.startswith(ROLE)]  # "an editor now"
                if new:
                    updated = current.model_copy(update={"context_tags": (*kept, tag)})
                else:
                    updated = await tenant.update_entity(subject.id, context_tags=[*kept, tag])
                turn.entities[subject.id] = updated
                changed.add(subject.id)
            continue
        if rel.relation not in _RELATION_TYPES:
            continue
        target = _our_org(turn) if rel.object == OURS else lookup(rel.object)
        if target is None or target.id == subject.id:
            continue
        if new:
            _relate_new(turn, subject.id, target, rel.relation)
            changed.add(subject.id)
            continue
        # A relation stated again (the usual case) is found in the entity cache, or costs
        # this read once; a new one, one write that checks again under the source's lock
        # (turns stating it at once record it once).
        stated = (subject.id, target.id, rel.relation)
        writes = resolver.graph.entity_writes_of(turn.tenant_id)
        if resolver.entities.related(turn.tenant_id, writes, stated):
            continue
        existing = await tenant.relations(subject.id)
        known = [(r.source_id, r.target_id, r.relation) for r in existing]
        if resolver.graph.entity_writes_of(turn.tenant_id) == writes:
            resolver.entities.note_relations(turn.tenant_id, writes, known)
        if stated in known:
            continue
        created, current = await tenant.relate_once(
            subject.id,
            target.id,
            rel.relation,
            since=turn.at,
            source_memory_id=turn.source_memory_id,
            set_parent=rel.relation in ("works_for", "belongs_to"),
        )
        if resolver.graph.entity_writes_of(turn.tenant_id) == writes:
            resolver.entities.note_relations(turn.tenant_id, writes, [stated])
        if created:
            turn.entities[subject.id] = current
            changed.add(subject.id)
            if current.parent_id != subject.parent_id:  # not an entity write: ENTITY_NEUTRAL
                resolver.entities.replace(turn.tenant_id, writes, [current])
    return changed


def _relate_new(turn: Turn, subject_id: str, target: Entity, relation: str) -> None:
    """A relation of a person this turn introduces, created with them; works-for and
    belongs-to make the target their organisation, as ``relate_once`` would."""
    stated = turn.introduced_relations.setdefault(subject_id, [])
    if any(r.target_id == target.id and r.relation == relation for r in stated):
        return
    stated.append(NewRelation(target.id, relation, turn.at))
    current = turn.entities[subject_id]
    if relation in ("works_for", "belongs_to") and current.parent_id is None:
        turn.entities[subject_id] = current.model_copy(update={"parent_id": target.id})


def _our_org(turn: Turn) -> Entity | None:
    """The speaker's organisation: the session's scene, else the one org named in this text."""
    orgs = {
        r.entity.id: r.entity
        for r in turn.resolved.values()
        if r.entity is not None and r.entity.type is EntityType.ORG
    }
    for ident in turn.scene_hints:
        if ident in orgs:
            return orgs[ident]
    if turn.state is not None:
        for ident, scope in turn.state.scope.items():
            if scope == "scene" and ident in turn.entities:
                return turn.entities[ident]
    return next(iter(orgs.values())) if len(orgs) == 1 else None
