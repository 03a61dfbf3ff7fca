"""New or known: the write path's identity decision for a person's name that matches entities.

A turn that names "Sarah" when Sarahs are known states attributes of her (``cues.py``: role,
organisation, relation to the speaker, surname). Each candidate is weighed on them against
what is known of it (its ``role:`` and ``related_to_speaker:`` tags, its organisation, its
names): an attribute it shares supports it, one it has a different value for contradicts it.

- Contradicted by every candidate: a **new** entity ("my cousin Sarah" when the known Sarahs
  are a designer and a procurement head).
- Exactly one supported candidate (none contradicts it): **linked** ("Sarah from Brightpath").
- No attribute stated: one candidate is the answer; among several, the one in the
  conversation's focus, else a clear context winner (``disambiguate.py``).
- Anything else is undecidable: a **provisional** entity with a scored ``POSSIBLY_SAME_AS``
  link to each candidate still possible. The statement is stored about it; nothing waits on
  a question and nothing links to a guess.

Every decision that weighed something is recorded with each candidate's score and reasons
(``IdentityDecision``), so a wrong link can be found and undone.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from core.ids import new_id
from core.text import normalize_name
from core.types import Entity, EntityType
from graph.identity_ops import identity_entity
from resolution.cues import KIN as KIN_WORDS
from resolution.cues import OURS
from resolution.disambiguate import Scored
from resolution.tags import KIN, ROLE
from resolution.tracker import FOCUSED
from resolution.turn import PENDING, Deciding, Turn
from resolution.types import Mention, ResolvedMention

UNDECIDED_SCORE = 0.5  # a provisional link's score when context was not measured
_WORDS = re.compile(r"[a-z][a-z-]*")


# "Actually, Peter is an editor now", "Anna moved to Globex": a change of role or employer
# is news about a known person, so a differing role or organisation contradicts no one.
_CHANGE = re.compile(
    r"\b(?:now|actually|promoted|became|become|becomes|moved|moving|joined|joins|switched|"
    r"no longer|new role|new job|left|leaves|anymore|any more)\b",
    re.I,
)


def states_change(text: str) -> bool:
    """Does the text say something changed ("now", "promoted", "moved", "no longer")?"""
    return bool(_CHANGE.search(text))


@dataclass(frozen=True)
class Attributes:
    """What is stated about, or known of, one person (organisations as entity ids).
    ``changing``: the text states a change, so a differing role or organisation is news."""

    roles: frozenset[str] = frozenset()
    kin: frozenset[str] = frozenset()
    orgs: frozenset[str] = frozenset()
    surnames: frozenset[str] = frozenset()
    changing: bool = False
    # Named in the same sentence without a stated relation ("Peter over at Kestrel Media",
    # "Sarah (my cousin)"): support for a candidate who has them, never a contradiction.
    near_orgs: frozenset[str] = frozenset()
    near_kin: frozenset[str] = frozenset()

    @property
    def work(self) -> bool:
        return bool(self.roles or self.orgs)

    @property
    def stated(self) -> bool:
        """Something said about the person themselves. A kin word or an organisation merely
        near the name ("Thanks, Caroline! My family loved it") only supports a candidate who
        has it; it is never enough to doubt the one known person of that name."""
        return bool(self.roles or self.kin or self.orgs or self.surnames)


def known_attributes(entity: Entity, names: bool = True) -> Attributes:
    """A candidate's attributes: declared tags, its organisation, the words after its first
    name in each of its names ("Sarah Okafor" → okafor; only when ``names``)."""
    return _known(
        entity.name, entity.aliases if names else None, entity.parent_id, entity.context_tags
    )


@lru_cache(maxsize=8192)
def _known(
    name: str, aliases: tuple[str, ...] | None, parent_id: str | None, tags: tuple[str, ...]
) -> Attributes:
    """``known_attributes`` by value: a read weighs hundreds of namesakes whose attributes
    rarely change between turns (``aliases`` None: names are not compared)."""
    surnames = (
        {" ".join(n.split()[1:]) for n in map(normalize_name, (name, *aliases))}
        if aliases is not None
        else set()
    )
    return Attributes(
        # compared as the turn's are, in lower case ("role:CTO" is the "cto" said again)
        roles=frozenset(t[len(ROLE) :].lower() for t in tags if t.startswith(ROLE)),
        kin=frozenset(t[len(KIN) :].lower() for t in tags if t.startswith(KIN)),
        orgs=frozenset([parent_id] if parent_id else []),
        surnames=frozenset(s for s in surnames if s),
    )


def _role_head(role: str) -> str:
    return role.split()[-1] if " of " not in role else role


@dataclass
class Weighed:
    entity: Entity
    support: list[str] = field(default_factory=list)
    contradict: list[str] = field(default_factory=list)
    score: float = UNDECIDED_SCORE

    @property
    def reasons(self) -> str:
        return " ".join([*(f"+{s}" for s in self.support), *(f"-{c}" for c in self.contradict)])


def weigh(stated: Attributes, entity: Entity) -> Weighed:
    """Which stated attributes support ``entity`` and which contradict it."""
    known = known_attributes(entity, names=bool(stated.surnames))
    out = Weighed(entity)

    def compare(kind: str, said: frozenset[str], have: frozenset[str], news: bool = False) -> None:
        if said and have and said & have:
            out.support.append(kind)
        elif said and have and not news:
            out.contradict.append(kind)

    compare("surname", stated.surnames, known.surnames)
    compare("org", stated.orgs, known.orgs, stated.changing)
    compare(
        "role",
        frozenset(map(_role_head, stated.roles)),
        frozenset(map(_role_head, known.roles)),
        stated.changing,
    )
    compare("relation", stated.kin, known.kin)
    if "org" not in out.support and known.orgs & stated.near_orgs:
        out.support.append("org-named")
    if "relation" not in out.support and known.kin & stated.near_kin:
        out.support.append("relation-named")
    # Family or friend against someone known only through work, and the other way round.
    if stated.kin and not known.kin and known.work:
        out.contradict.append("family-vs-work")
    if stated.work and not stated.kin and known.kin and not known.work:
        out.contradict.append("work-vs-family")
    out.score = 0.0 if out.contradict else 1.0 if out.support else UNDECIDED_SCORE
    return out


@dataclass(frozen=True)
class Verdict:
    outcome: str  # linked | new | provisional
    entity: Entity | None  # the linked candidate
    weighed: tuple[Weighed, ...]
    possible: tuple[Weighed, ...]  # the candidates a provisional entity may be
    method: str = ""


def decide_attributes(stated: Attributes, candidates: Sequence[Entity]) -> Verdict | None:
    """The verdict the stated attributes alone reach, or None when context has to choose
    (nothing stated, or several candidates supported)."""
    if not stated.stated:
        return None
    return decide_weighed(tuple(weigh(stated, c) for c in candidates), stated.changing)


def decide_weighed(weighed: tuple[Weighed, ...], changing: bool) -> Verdict | None:
    """``decide_attributes`` on candidates already weighed on something stated."""
    viable = tuple(w for w in weighed if not w.contradict)
    if not viable:
        return Verdict("new", None, weighed, ())
    supported = [w for w in viable if w.support]
    if len(supported) == 1:
        return Verdict("linked", supported[0].entity, weighed, (), "cue")
    if not supported and not changing:
        return Verdict("provisional", None, weighed, viable)
    return None  # several supported, or news about someone known: context chooses


def stated_about(
    turn: Turn,
    key: str,
    mention: Mention,
    lookup: Callable[[str], Entity | None],
    ours: Entity | None,
) -> Attributes:
    """The attributes the turn states about the name ``key`` (organisations resolved)."""
    roles: set[str] = set()
    kin: set[str] = set()
    orgs: set[str] = set()
    for rel in turn.parsed.relations:
        if normalize_name(rel.subject) != key:
            continue
        if rel.relation == "role":
            roles.add(rel.object.lower())
        elif rel.relation == "related_to_speaker":
            kin.add(rel.object.lower())
        elif rel.relation == "works_for":
            org = ours if rel.object == OURS else lookup(rel.object)
            if org is not None:
                orgs.add(org.id)
    words = normalize_name(mention.text).split()
    surnames = frozenset([" ".join(words[1:])]) if len(words) > 1 else frozenset()
    changing = states_change(turn.parsed.text)
    near_orgs = {
        r.entity.id
        for r in turn.resolved.values()
        if r.entity is not None and r.entity.type is EntityType.ORG
    }
    said = set(_WORDS.findall(turn.parsed.text.lower()))
    return Attributes(
        frozenset(roles),
        frozenset(kin),
        frozenset(orgs),
        surnames,
        changing,
        frozenset(near_orgs),
        frozenset(said & KIN_WORDS),
    )


Context = Callable[[Mention, list[Entity]], Awaitable[tuple[Scored | None, list[Scored]]]]


async def decide(
    stated: Attributes,
    mention: Mention,
    candidates: Sequence[Entity],
    focused: set[str],
    context: Context,
) -> Verdict:
    """The identity verdict for one name: attributes first, then focus, then context."""
    verdict = decide_attributes(stated, candidates)
    if verdict is not None and verdict.outcome != "provisional":
        return verdict
    weighed = verdict.weighed if verdict else tuple(weigh(stated, c) for c in candidates)
    viable = [w for w in weighed if not w.contradict]
    if verdict is None:
        supported = [w for w in viable if w.support]
        pool = supported or viable
        if len(pool) == 1 and (not stated.stated or stated.changing):
            return Verdict("linked", pool[0].entity, weighed, (), "alias")
        in_focus = [w for w in pool if w.entity.id in focused]
        if len(in_focus) == 1:
            return Verdict("linked", in_focus[0].entity, weighed, (), "tracker")
        best, ranked = await context(mention, [w.entity for w in pool])
        _score(pool, ranked)
        if best is not None:
            return Verdict("linked", best.entity, weighed, (), "context")
        return Verdict("provisional", None, weighed, tuple(pool))
    if len(viable) > 1:
        _score(viable, (await context(mention, [w.entity for w in viable]))[1])
    return verdict


def _score(weighed: Sequence[Weighed], ranked: Sequence[Scored]) -> None:
    scores = {s.entity.id: s.score for s in ranked}
    for w in weighed:
        w.score = round(float(scores.get(w.entity.id, UNDECIDED_SCORE)), 4)


async def settle(
    resolver: Deciding,
    turn: Turn,
    names: Sequence[tuple[int, Mention]],
    lookup: Callable[[str], Entity | None],
    ours: Entity | None,
) -> list[Entity]:
    """Decide every pending name of the turn (each distinct name once); returns the entities
    created. Sets the mentions' resolution and records the decisions."""
    tenant = resolver.graph.tenant(turn.tenant_id)
    focused = _focused(turn)
    created: list[Entity] = []
    decisions: list[dict[str, object]] = []
    done: dict[str, ResolvedMention] = {}
    for index, m in names:
        r = turn.resolved.get(index)
        if r is None or r.method != PENDING:
            continue
        key = normalize_name(m.text)
        if key not in done:
            stated = stated_about(turn, key, m, lookup, ours)

            async def context(
                mention: Mention, pool: list[Entity]
            ) -> tuple[Scored | None, list[Scored]]:
                return await resolver.by_context(turn, mention, pool)

            # A provisional entity is a "possibly the same as" of the people it was weighed
            # against, not one more candidate: counting it would make every later mention
            # of the name more ambiguous, and each would make another. Unless the turn
            # states what it is known by ("Tom from Globex" again): then it is the one meant.
            pool = [
                c
                for c in r.candidates
                if not c.provisional or ((w := weigh(stated, c)).support and not w.contradict)
            ]
            verdict = await decide(stated, m, pool or list(r.candidates), focused, context)
            entity = verdict.entity
            by_place = (m.start, m.end) in turn.parsed.by_place
            if entity is None and (turn.document is not None or by_place):
                # A document links a known person on a clear fit only: it neither opens an
                # identity question nor makes a namesake of a name it merely mentions. Nor
                # does a turn's word capitalised by its place ("Dance is my passion").
                done[key] = ResolvedMention(m, None, 0.0, "unsettled", r.candidates)
            elif entity is None:
                links = [(w.entity.id, w.score) for w in verdict.possible]
                provisional = verdict.outcome == "provisional"
                if turn.source_memory_id is not None:
                    # Created by the caller's transaction, with the memory that names them.
                    entity = _introduce(turn, m.text, provisional, links)
                    decisions.append(_decision(turn, m, entity, verdict))
                else:
                    # The decisions so far and this one go in the creation's transaction.
                    decisions.append(_decision(turn, m, None, verdict))
                    async with resolver.creating(turn.tenant_id):
                        entity = await tenant.create_identity(
                            m.text, EntityType.PERSON, provisional, links, turn.at, decisions
                        )
                    decisions = []
                    created.append(entity)
                turn.entities[entity.id] = entity
            elif not _obvious(verdict):
                decisions.append(_decision(turn, m, entity, verdict))
            if key not in done:
                confidence = 1.0 if verdict.outcome != "linked" else _confidence(verdict)
                method = verdict.method or (
                    "created" if verdict.outcome == "new" else "provisional"
                )
                done[key] = ResolvedMention(m, entity, confidence, method, r.candidates)
        d = done[key]
        turn.resolved[index] = ResolvedMention(m, d.entity, d.confidence, d.method, d.candidates)
    if turn.source_memory_id is not None:  # stored with the text's memory by the caller
        turn.decisions.extend(decisions)
    else:
        await tenant.save_identity_decisions(decisions)
    return created


def _introduce(
    turn: Turn, name: str, provisional: bool, links: Sequence[tuple[str, float]]
) -> Entity:
    """A person for the caller's transaction to create (``Turn.introduced``)."""
    entity = identity_entity(turn.tenant_id, name, EntityType.PERSON, provisional, turn.at)
    turn.introduced[entity.id] = tuple(links)
    return entity


def _obvious(verdict: Verdict) -> bool:
    """The one candidate linked with nothing weighed but its own full name ("Anna Weber"
    again): no decision worth a record (and no extra write on the turn's path)."""
    if verdict.outcome != "linked" or len(verdict.weighed) != 1:
        return False
    only = verdict.weighed[0]
    return not only.contradict and set(only.support) <= {"surname"}


def _confidence(verdict: Verdict) -> float:
    chosen = next((w for w in verdict.weighed if w.entity is verdict.entity), None)
    return 1.0 if chosen is None or chosen.support else max(chosen.score, 0.6)


def _focused(turn: Turn) -> set[str]:
    if turn.state is None:
        return set()
    return {i for i, s in turn.state.salience.items() if s >= FOCUSED}


def _decision(turn: Turn, m: Mention, entity: Entity | None, verdict: Verdict) -> dict[str, object]:
    """The record of one decision; ``entity`` None: the entity the decision creates, whose
    id ``create_identity`` fills in."""
    return {
        "id": new_id(),
        "mention": m.text,
        "memory_id": turn.source_memory_id,
        "entity_id": None if entity is None else entity.id,
        "outcome": verdict.outcome,
        "method": verdict.method,
        "candidates": [w.entity.id for w in verdict.weighed],
        "scores": [w.score for w in verdict.weighed],
        "reasons": [w.reasons for w in verdict.weighed],
        "at": turn.at,
    }
