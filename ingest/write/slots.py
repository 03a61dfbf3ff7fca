"""Supersession by slot: a user's statement replaces the earlier values of its slot, whatever
the words of either (``ingest/slots/``).

For each statement of a user turn that asserts or requests a value, the planner looks for the
statements it replaces among

- the session's recent turns (a correction binds there: "sorry, 4, not 3"), and
- the user's earlier memories that share the statement's frame words or the value it says is
  not so (one keyword query of the vector index per statement),

compares them by slot (``ingest/slots/matching.py``), and writes the outcome with the turn:

- the new value as a memory of its own (a *statement memory*, type ``fact``, with its
  ``slot``): the sentence as said, or, for a correction that names no subject, the corrected
  sentence written out ("The call is at 4");
- the old value's statement memory, made now if the old value was only ever said inside a
  turn (its id is derived from the turn and the sentence, so it is made once, and its
  validity starts when the turn was said: ``asOf`` sees it for exactly its interval);
- a supersede link from each old one to the new one. The turn that said the old value stays
  as it was said and is marked corrected, with the chain that replaced it
  (``corrected_chains``), so a read puts the current value first.

Only a user's statement replaces anything; an assistant's statements are kept as things a
correction can bind to ("It's Jenna, not Jen"), and never supersede.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from core.slots import GENERIC, Replacement, corrects, same_slot, substitute
from core.statements import (
    CONDITIONAL,
    HISTORY,
    MODAL,
    PLAN,
    QUESTION,
    REPORTED,
    SLOTTED,
    Statement,
    Value,
    normal,
    statement_id,
)
from core.types import Memory, MemoryType, NewMemory
from graph.tenant import TenantGraph
from graph.write_ops import SupersedeLink
from ingest.extract.extraction import Candidate
from ingest.extract.rules import Extracted
from vectors.vector_index import VectorFilter, VectorIndex

log = logging.getLogger(__name__)

CANDIDATES = 8  # memories per keyword query
RECENT_TURNS = 6  # the session's last turns a correction may bind to
STATEMENT_IMPORTANCE = 0.6


@dataclass
class SlotWrite:
    """What one turn's statements add to its write: new statement memories and links."""

    memories: list[NewMemory] = field(default_factory=list)
    ids: list[str] = field(default_factory=list)  # the chosen id of each memory, in order
    speakers: list[str | None] = field(default_factory=list)  # who said each, as its turn
    pairs: list[SupersedeLink] = field(default_factory=list)


@dataclass
class SlotPlan:
    """Each statement of a turn with what it replaces (``SlotPlanner.plan``); ``write``
    makes the memories and links of it."""

    episode: Memory | None = None
    at: float = 0.0
    found: list[tuple[Statement, list[tuple[_Said, Replacement]]]] = field(default_factory=list)

    def replaced_ids(self) -> set[str]:
        """The statement ids (``statement_id``) of the earlier statements this turn
        replaces: what learned core items came from (``ingest/learned/planning.py``)."""
        return {f.own_id for _, replaced in self.found for f, _ in replaced}

    def write(self, covered: Mapping[int, set[str]] | None = None) -> SlotWrite:
        """The statement memories and supersede links, without the replacements of turns
        the rules' facts of the same sentence already superseded (``covered``: sentence
        start -> those turns' ids): one correction, one link."""
        out = SlotWrite()
        if self.episode is None:
            return out
        for statement, replaced in self.found:
            done = (covered or {}).get(statement.start, set())
            kept = [(f, r) for f, r in replaced if f.turn_id not in done]
            if kept:
                _add(out, self.episode, statement, kept, self.at)
        return out


@dataclass(frozen=True)
class _Said:
    """A statement as found in a memory: the statement, the memory, and its own memory's id."""

    statement: Statement
    memory: Memory
    by_user: bool
    turn_id: str  # the turn that said it

    @property
    def own_id(self) -> str:
        """The id of the memory that holds this statement alone (a statement memory already,
        or the one ``statement_id`` names for a sentence of a turn)."""
        if self.memory.type is MemoryType.EPISODIC:
            return statement_id(self.memory.id, self.statement.start)
        return self.memory.id


class SlotPlanner:
    """Plans the supersessions a user turn's statements make (see the module docstring)."""

    def __init__(self, index: VectorIndex) -> None:
        self.index = index

    async def plan(
        self,
        tenant: TenantGraph,
        episode: Memory,
        said: Sequence[Statement],
        window: Sequence[str],
        at: float,
    ) -> SlotPlan:
        """The statement memories and supersede links of ``episode`` (a user turn) whose
        statements are ``said``; ``window`` holds the session's recent turn ids."""
        mine = [s for s in said if s.mood in SLOTTED and s.values]
        if not mine:
            return SlotPlan()
        window = list(window)[-RECENT_TURNS:]  # a correction binds to what was just said
        found = await self._candidates(tenant, episode, mine, window)
        recent = [f for f in found if f.turn_id in set(window)]
        recent.sort(key=lambda f: (-f.memory.created_at, -f.statement.start))
        older = sorted(found, key=lambda f: (-f.memory.created_at, -f.statement.start))
        plan = SlotPlan(episode, at)
        taken: set[str] = set()
        for statement in mine:
            replaced = self._replaced(statement, recent, older)
            replaced = [(f, r) for f, r in replaced if f.own_id not in taken]
            if not replaced:
                continue
            taken.update(f.own_id for f, _ in replaced)
            plan.found.append((statement, replaced))
        return plan

    def _replaced(
        self, statement: Statement, recent: list[_Said], older: list[_Said]
    ) -> list[tuple[_Said, Replacement]]:
        """What ``statement`` replaces: a correction's targets in the session, else the
        current statements of its slot."""
        bound = corrects(statement, [(f.statement, f.by_user) for f in recent])
        if bound:
            return [(recent[i], r) for i, r in bound if r.changed]
        out: list[tuple[_Said, Replacement]] = []
        seen: set[str] = set()
        for f in older:
            match = same_slot(statement, f.statement)
            if match is None or f.own_id in seen:
                continue
            seen.add(f.own_id)
            if match.changed:
                out.append((f, match))
        return out

    async def _candidates(
        self,
        tenant: TenantGraph,
        episode: Memory,
        mine: Sequence[Statement],
        window: Sequence[str],
    ) -> list[_Said]:
        """The statements of the session's recent turns and of the user's memories that share
        a frame word or a named old value with one of ``mine``."""
        flt = VectorFilter(
            tenant_id=episode.tenant_id,
            user_scope=episode.user_id,
            types=[MemoryType.EPISODIC.value, MemoryType.FACT.value],
            live_at=episode.created_at,
        )
        queries = {query_of(s) for s in mine} - {""}
        searches = [self.index.keyword_search(q, flt, CANDIDATES, payload=False) for q in queries]
        try:
            results = await asyncio.gather(*searches)
        except Exception:  # the index is derived: a failed lookup only misses a link
            log.exception("slot candidates: keyword search failed")
            results = []
        ids = list(dict.fromkeys([*window, *(h.id for r in results for h in r)]))
        ids = [i for i in ids if i != episode.id]
        memories = await tenant.get_memories(ids) if ids else {}
        own = {
            statement_id(m.id, int(line.split(",", 2)[0].lstrip("[")))
            for m in memories.values()
            if m.type is MemoryType.EPISODIC
            for line in m.statements
        }
        made = await tenant.get_memories(list(own)) if own else {}
        out: list[_Said] = []
        for m in memories.values():
            if not m.is_current or not m.statements or m.created_at > episode.created_at:
                continue
            if not _same_voice(m, episode):
                continue  # "my favourite book is ..." said by another person is theirs
            by_user = (m.source or "").startswith("turn:user") or m.type is MemoryType.FACT
            for line in m.statements:
                try:
                    s = Statement.loads(line, m.content)
                except (ValueError, TypeError, IndexError):
                    continue
                if m.type is MemoryType.EPISODIC:
                    sid = statement_id(m.id, s.start)
                    existing = made.get(sid)
                    if existing is not None:
                        if not existing.is_current or not existing.statements:
                            continue  # replaced already: its chain's current value speaks
                        s = Statement.loads(existing.statements[0], existing.content)
                        out.append(_Said(s, existing, by_user, m.id))
                        continue
                out.append(_Said(s, m, by_user, _turn_of(m)))
        return out


# Moods that state no fact: a rule's reading of such a sentence is not stored as one.
UNASSERTED = frozenset({QUESTION, CONDITIONAL, MODAL, PLAN, REPORTED, HISTORY})


def asserted(extracted: Sequence[Extracted], said: Sequence[Statement]) -> list[Extracted]:
    """The rules' facts said as facts: not those of a question, a condition, a plan or a
    possibility, someone else's view or history ("next quarter we'll switch the CRM to
    Salesforce" is not what the CRM is). Preferences, procedures and the rest pass."""
    out = []
    for ex in extracted:
        statement = next((s for s in said if s.start <= ex.start < s.end), None)
        if ex.kind == "fact" and statement is not None and statement.mood in UNASSERTED:
            continue
        out.append(ex)
    return out


def sentence_of(
    candidate: Candidate, said: Sequence[Statement], episode_id: str, made: dict[int, str]
) -> tuple[NewMemory, str | None]:
    """A rule-extracted memory as the statement memory of its sentence, when its content is
    the sentence as said: it gets the sentence's statement and slot and the id
    ``statement_id`` gives that sentence (recorded in ``made``), so a later statement finds
    and supersedes it like any other. Otherwise the item as it is, with a fresh id."""
    item = candidate.item
    if candidate.extracted.kind != "fact":
        return item, None  # a preference, a procedure: not a value of a slot
    start = candidate.extracted.start
    statement = next((s for s in said if s.start <= start < s.end), None)
    offset = statement.start if statement is not None else start
    if statement is None or _flat(item.content) != _flat(statement.text):
        statement, offset = _one_valued(candidate, said), start
    if statement is None or statement.start in made or not statement.values:
        return item, None
    memory_id = statement_id(episode_id, statement.start)
    made[statement.start] = memory_id
    stored = _shifted(statement, offset)
    return item.model_copy(update={"statements": [stored], "slot": " ".join(statement.frame)}), (
        memory_id
    )


def _one_valued(candidate: Candidate, said: Sequence[Statement]) -> Statement | None:
    """The one statement giving values in a sentence the parse cut in parts ("found my
    passport in the drawer - the expiry date is actually 14 Aug 2026"), when the memory's
    content is that sentence: the sentence is that statement's memory. Two parts giving
    values ("the office is in Bristol, the team has 14 people") are two slots, which one
    memory cannot stand for."""
    ex, content = candidate.extracted, candidate.item.content
    if ex.end <= ex.start or len(content) != ex.end - ex.start:
        return None
    inside = [s for s in said if ex.start <= s.start and s.end <= ex.end]
    valued = [s for s in inside if s.values]
    if len(valued) != 1 or not inside:
        return None
    (statement,) = valued
    at = statement.start - ex.start
    if _flat(content[at : at + len(statement.text)]) != _flat(statement.text):
        return None
    return statement


def _flat(text: str) -> str:
    return " ".join(text.split()).casefold().rstrip(".!")


def _add(
    plan: SlotWrite,
    episode: Memory,
    statement: Statement,
    replaced: list[tuple[_Said, Replacement]],
    at: float,
) -> None:
    first, match = replaced[0]
    elliptical = statement.words < first.statement.words  # "1800 subscribers now"
    short = len(statement.words - GENERIC) <= 3
    # Written out over the target only when the target is a simple statement of the user's or
    # an assistant's assertion: a question, or a sentence of many values (some of which may
    # have changed since), would carry its other values as current.
    simple = len(first.statement.values) <= 2 and first.statement.mood != QUESTION
    if simple and (elliptical or match.reason.startswith("correction") and short):
        content, stored = _corrected(first.statement, match.changed)
    else:
        content, stored = statement.text, _shifted(statement, statement.start)
    new_id = statement_id(episode.id, statement.start)
    plan.memories.append(_statement_memory(episode, content, stored, at, at, episode.id))
    plan.ids.append(new_id)
    plan.speakers.append(episode.turn_speaker)
    pairs: list[SupersedeLink] = []
    for f, r in replaced:
        old_id = f.own_id
        if f.memory.type is MemoryType.EPISODIC and f.memory.id != old_id:
            plan.memories.append(
                _statement_memory(
                    f.memory,
                    f.statement.text,
                    _shifted(f.statement, f.statement.start),
                    f.memory.created_at,
                    f.memory.valid_from,
                    f.memory.id,
                )
            )
            plan.ids.append(old_id)
            plan.speakers.append(f.memory.turn_speaker)
        pairs.append(SupersedeLink(old_id, new_id, r.reason))
    # The first pair sets the new memory's place in a chain last (the supersede statement
    # sets ``supersedes`` and ``chain_id`` for each pair in turn): the primary target.
    plan.pairs.extend(reversed(pairs))


def _same_voice(m: Memory, episode: Memory) -> bool:
    """Whether ``m`` was said by the turn's speaker (or is an assistant's turn, which a
    correction may bind to): one user id may hold several people's turns (a conversation
    recorded with speakers), and "I", "my", "we" are each speaker's own."""
    if (m.source or "").startswith("turn:assistant"):
        return True
    return m.turn_speaker == episode.turn_speaker


def _turn_of(m: Memory) -> str:
    """The turn a memory was said in: itself, or the turn a statement memory came from."""
    if m.type is MemoryType.EPISODIC:
        return m.id
    return (m.source or "").rsplit(":", 1)[-1]


def query_of(statement: Statement) -> str:
    """What a statement's earlier values are found by: its frame words and the values it
    says are not so."""
    words = [w for w in statement.frame if not w.startswith("<")]
    return " ".join([*words, *(v.text for v in statement.negated)])


def _shifted(statement: Statement, offset: int) -> str:
    """``statement`` stored relative to a memory that holds its sentence alone."""
    moved = Statement(
        text=statement.text,
        start=statement.start - offset,
        end=statement.end - offset,
        mood=statement.mood,
        frame=statement.frame,
        subject=statement.subject,
        values=tuple(_moved(v, -offset) for v in statement.values),
        negated=(),
        named=tuple(_moved(v, -offset) for v in statement.named),
        correction=statement.correction,
        change=statement.change,
        words=statement.words,
    )
    return moved.dumps()


def _moved(v: Value, by: int) -> Value:
    return Value(v.text, v.kind, v.norm, v.start + by, v.end + by, v.first, v.last)


def _corrected(target: Statement, changed: Sequence[tuple[Value, Value]]) -> tuple[str, str]:
    """The corrected sentence ("The call is at 4.") and its statement: the target's sentence
    and frame, with the new values in place of the old."""
    content = substitute(target.text, changed, target.start)
    values: list[Value] = []
    shift = -target.start
    for v in sorted(target.values, key=lambda v: v.start):
        start = v.start + shift
        # the value's text as corrected: all of it, or the part a correction gave ("it's the
        # 8th" of "march 3rd"), written as the sentence writes it ("for the 9th", not "for the
        # the 9th"): the sentence corrected in this value alone, less what is before and after
        inside = [(o, n) for o, n in changed if v.start <= o.start <= o.end <= v.end]
        alone = substitute(target.text, inside, target.start)
        said = alone[v.start - target.start : len(alone) - len(target.text) + v.end - target.start]
        if said == v.text:
            values.append(_moved(v, shift))
            continue
        whole = next((n for o, n in changed if (o.start, o.end) == (v.start, v.end)), None)
        kind, norm = (whole.kind, whole.norm) if whole else (v.kind, normal(said, v.kind))
        values.append(Value(said, kind, norm, start, start + len(said), -1, -1))
        shift += len(said) - (v.end - v.start)
    stored = Statement(
        text=content,
        start=0,
        end=len(content),
        mood=target.mood,
        frame=target.frame,
        subject=target.subject,
        values=tuple(values),
        named=tuple(
            _moved(v, -target.start)
            for v in target.named
            if not any((o.start, o.end) == (v.start, v.end) for o, _ in changed)
        ),
        correction=False,
        change=True,
        words=target.words,
    )
    return content, stored.dumps()


def _statement_memory(
    source: Memory,
    content: str,
    stored: str,
    created_at: float,
    valid_from: float,
    episode_id: str,
) -> NewMemory:
    statement = Statement.loads(stored, content)
    return NewMemory(
        content=content,
        type=MemoryType.FACT,
        user_id=source.user_id,
        project_id=source.project_id,
        session_id=source.session_id,
        importance=STATEMENT_IMPORTANCE,
        created_at=created_at,
        valid_from=valid_from,
        source=f"rule:statement:{episode_id}",
        entity_ids=list(source.entity_ids),
        predicate="slot",
        object=", ".join(v.text for v in statement.values) or None,
        statements=[stored],
        slot=" ".join(statement.frame),
    )
