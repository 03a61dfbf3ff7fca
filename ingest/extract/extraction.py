"""Turn rule extractions into memories: link subjects and objects to resolved entities.

A fact needs its subject resolved to an entity (a name, a pronoun the resolver's tracker
resolved, or a topic's concept entity from ``topics``); otherwise it is dropped rather than
stored with a guessed subject. A pronoun subject is replaced by the entity's name in the
stored content, so the memory reads on its own years later. Preferences belong to the user
(``subject="user:<user id>"``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from core.ingest_types import user_subject
from core.text import normalize_name
from core.types import Entity, EntityType, NewMemory
from ingest.extract.corrections import negated_object
from ingest.extract.rules import OUR, Extracted
from ingest.extract.statements import OUR_TOPIC
from resolution.types import Mention, Resolution, ResolvedMention


@dataclass(frozen=True)
class Candidate:
    """An extracted statement ready to be planned against current facts."""

    extracted: Extracted
    item: NewMemory
    subject_entity: Entity | None = None


def entities_in_span(resolution: Resolution, start: int, end: int) -> list[Entity]:
    out: dict[str, Entity] = {}
    for r in resolution.resolved:
        if r.entity is not None and r.mention.start < end and r.mention.end > start:
            out.setdefault(r.entity.id, r.entity)
    return list(out.values())


def subject_of(ex: Extracted, resolution: Resolution) -> ResolvedMention | None:
    """The resolved mention at the subject's position (or with its exact text). "Our" is the
    speaker's organisation: the session's scene organisation, else the one organisation the
    text names besides the value; with neither, no subject (a fact about a guess is never
    stored)."""
    if (ex.subject or "").casefold() == OUR:
        return _our_org(resolution, ex.object)
    best: ResolvedMention | None = None
    for r in resolution.resolved:
        if r.entity is None:
            continue
        m = r.mention
        if m.start <= ex.subject_start < m.end or m.start == ex.subject_start:
            return r
        if best is None and ex.subject and m.text.casefold() == ex.subject.casefold():
            best = r
    return best


def _our_org(resolution: Resolution, value: str | None) -> ResolvedMention | None:
    said = (value or "").casefold()
    # An organisation named as the value ("our deploy target is Fly") is not its owner.
    valued = {
        r.entity.id
        for r in resolution.resolved
        if r.entity is not None and r.mention.text.casefold() == said
    }
    orgs = {
        r.entity.id: r
        for r in resolution.resolved
        if r.entity is not None and r.entity.type is EntityType.ORG and r.entity.id not in valued
    }
    for tracked in resolution.tracked:
        entity = tracked.entity
        if tracked.scope == "scene" and entity.type is EntityType.ORG and entity.id not in valued:
            found = orgs.get(entity.id)
            if found is not None:
                return found
            mention = Mention(OUR, -1, -1, EntityType.ORG, "scene")
            return ResolvedMention(mention, entity, tracked.salience, "scene")
    return next(iter(orgs.values())) if len(orgs) == 1 else None


def beside_turn(extracted: Sequence[Extracted], content: str) -> list[Extracted]:
    """The statements worth a memory beside the turn's own episode: an "episode" sentence
    that is the whole turn would store the same text twice (the turn is that episode)."""
    said = " ".join(content.split()).strip()
    return [
        ex
        for ex in extracted
        if not (ex.kind == "episode" and " ".join(ex.content.split()) == said)
    ]


def settle_ours(extracted: Sequence[Extracted], resolution: Resolution) -> list[Extracted]:
    """One reading of each "our ..." sentence: the organisation's fact when the session has an
    organisation, else the topic's ("Our deploy target is staging" in a new tenant)."""
    owned = {
        ex.start
        for ex in extracted
        if ex.kind == "fact" and (ex.subject or "").casefold() == OUR
        if subject_of(ex, resolution) is not None
    }
    out: list[Extracted] = []
    for ex in extracted:
        if ex.subject_kind == OUR_TOPIC:
            if ex.start not in owned:
                out.append(replace(ex, subject_kind="topic"))
        elif not (ex.kind == "fact" and (ex.subject or "").casefold() == OUR) or ex.start in owned:
            out.append(ex)
    return out


def candidates(
    extracted: Sequence[Extracted],
    resolution: Resolution,
    *,
    topics: Mapping[str, Entity] | None = None,
    user_id: str | None,
    project_id: str | None,
    session_id: str | None,
    episode_id: str,
    at: float,
) -> list[Candidate]:
    out: list[Candidate] = []
    for ex in extracted:
        linked = entities_in_span(resolution, ex.start, ex.end)
        subject: str | None = None
        subject_entity: Entity | None = None
        content = ex.content
        if ex.kind == "fact":
            found = subject_of(ex, resolution)
            if found is not None and found.entity is not None:
                subject_entity = found.entity
            elif ex.subject_kind == "topic" and topics and ex.subject:
                subject_entity = topics.get(normalize_name(ex.subject))
            if subject_entity is None:
                continue  # an unresolved subject: never store a fact about a guess
            subject = subject_entity.id
            pronoun = found is not None and found.mention.source == "pronoun"
            if pronoun or (ex.subject or "").lower() in {"he", "she", "they", "it"}:
                offset = ex.subject_at if ex.subject_at is not None else ex.subject_start - ex.start
                content = (
                    content[:offset]
                    + subject_entity.name
                    + content[offset + len(ex.subject or "") :]
                )
            if subject_entity.id not in {e.id for e in linked}:
                linked.insert(0, subject_entity)
        elif ex.kind == "preference":
            subject = user_subject(user_id) if user_id else None
        elif ex.kind == "procedure":
            subject = ex.subject
        obj = ex.object
        if obj is not None and ex.negated:
            obj = negated_object(obj)
        out.append(
            Candidate(
                extracted=ex,
                subject_entity=subject_entity,
                item=NewMemory(
                    content=_sentence_case(content),
                    type=ex.memory_type,
                    user_id=user_id,
                    project_id=project_id,
                    session_id=session_id,
                    importance=ex.importance,
                    created_at=at,
                    valid_from=at,
                    source=f"rule:{ex.kind}:{episode_id}",
                    entity_ids=[e.id for e in linked],
                    subject=subject,
                    predicate=ex.predicate if subject else None,
                    object=obj if subject else None,
                    confidence=ex.confidence,
                    trigger=ex.trigger,
                    steps=list(ex.steps),
                ),
            )
        )
    return out


def _sentence_case(text: str) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    return text[:1].upper() + text[1:]
