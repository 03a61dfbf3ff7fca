"""Identity on the read path: a cue settles a name, namesakes stay out, entities are described.

- "Ask Sarah from Brightpath for the logo": the stated attributes (``identity.py``) pick the
  one Sarah they support when context alone left the name ambiguous.
- Once a person's name is resolved, the other people who share the name are its
  *namesakes*: retrieval leaves out memories about them unless they are also about someone
  the query resolved (``Resolution.namesakes``).
- Each resolved entity, and each candidate of a clarification, is described by its key facts
  ("Sarah, designer at Brightpath Media"), so the model and the user know who is meant.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from core.resolution_types import Clarification
from core.text import normalize_name
from core.types import Entity, EntityType
from resolution.describe import describe_all
from resolution.identity import decide_weighed, stated_about, weigh
from resolution.turn import EntityRead, Turn
from resolution.types import Mention, ResolvedMention


def settle_by_cues(turn: Turn, names: Sequence[tuple[int, Mention]]) -> None:
    """Settle same-named candidates by what the query states ("Sarah from Brightpath",
    "Sarah over at Ashford Partners"): exactly one supported candidate is the one meant, even
    where context scoring had guessed another."""

    def lookup(text: str) -> Entity | None:
        key = normalize_name(text)
        for r in turn.resolved.values():
            if r.entity is not None and normalize_name(r.mention.text) == key:
                return r.entity
        return None

    settled: set[str] = set()
    for index, m in names:
        r = turn.resolved.get(index)
        if r is None or len(r.candidates) < 2:  # a cue outweighs a context guess too
            continue
        key = normalize_name(m.text)
        stated = stated_about(turn, key, m, lookup, None)
        # Nothing stated and nothing named near the name (the usual read): no namesake is
        # weighed at all. Otherwise every candidate is weighed once.
        if not (stated.stated or stated.near_orgs or stated.near_kin):
            continue
        weighed = tuple(weigh(stated, c) for c in r.candidates)
        verdict = decide_weighed(weighed, stated.changing) if stated.stated else None
        if verdict is not None and verdict.outcome == "linked" and verdict.entity is not None:
            chosen = verdict.entity
        else:
            # Named near the name without a stated relation ("Sarah over at Ashford
            # Partners", "Sarah (my friend)"): the one candidate it supports, if only one.
            if not (stated.near_orgs or stated.near_kin):
                continue
            near = [w for w in weighed if w.support]
            if len(near) != 1 or near[0].contradict:
                continue
            chosen = near[0].entity
        turn.resolved[index] = ResolvedMention(m, chosen, 1.0, "cue", r.candidates)
        settled.add(key)
    if turn.clarification is not None and normalize_name(turn.clarification.mention) in settled:
        turn.clarification = next(
            (
                Clarification(f"Which {r.mention.text}?", r.mention.text, r.candidates[:50])
                for r in turn.resolved.values()
                if r.method == "ambiguous" and normalize_name(r.mention.text) not in settled
            ),
            None,
        )


def namesakes(turn: Turn) -> set[str]:
    """People sharing a resolved person's name (first name or full name) who were not meant;
    provisional entities (possibly the one meant) are not among them."""
    g = turn.gazetteer
    found: set[str] = set()
    meant: set[str] = set()
    for r in turn.resolved.values():
        if r.entity is None or r.mention.source == "pronoun":
            continue
        meant.add(r.entity.id)
        if r.entity.type is not EntityType.PERSON:
            continue
        words = normalize_name(r.mention.text).split()
        with g.lock:
            ids = set(g.by_token.get(words[0], ())) if words else set()
            ids |= g.by_norm.get(normalize_name(r.mention.text), set())
        ids |= {c.id for c in r.candidates}
        found |= {i for i in ids if g.types.get(i, EntityType.PERSON) is EntityType.PERSON}
    # A provisional entity may be the person meant: an open question is no namesake.
    known = {**{c.id: c for r in turn.resolved.values() for c in r.candidates}, **turn.entities}
    open_questions = {i for i in found if i in known and known[i].provisional}
    return found - meant - open_questions


async def describe_turn(turn: Turn, read: EntityRead) -> tuple[str, ...]:
    """Describe the resolved entities (returned, in order of mention) and the clarification's
    candidates (set on it): names with their key facts. One read (``read``, the turn's entity
    read) for parents not at hand."""
    resolved = list(
        {
            r.entity.id: r.entity
            for _, r in sorted(turn.resolved.items())
            if r.entity is not None and r.mention.source != "pronoun"
        }.values()
    )
    asked = list(turn.clarification.candidates) if turn.clarification else []
    everyone = [*resolved, *asked]
    parent_ids = [e.parent_id for e in everyone if e.parent_id]
    parents = await read(turn, parent_ids) if parent_ids else {}
    described = describe_all(everyone, parents)
    if turn.clarification is not None:
        turn.clarification = replace(
            turn.clarification,
            descriptions=tuple(described[c.id] for c in turn.clarification.candidates),
        )
    return tuple(described[e.id] for e in resolved)
