"""A procedure's parameter changed in conversation: "the approval limit is £2,000 now, not
£1,500", "use 325g water from now on", "the closing line should be 'Shipped with care' going
forward", "the summary goes to Dolores from here on" make a new version of the user's current
procedure with that value replaced (the old version superseded). Its candidates come from one
keyword query of the procedural memories per statement; the parameter is the value the
statement says is no longer so, else the procedure's only value of the new value's kind (an
amount of its unit, a quoted text, a name), or the one said of the same thing ("*within* 3
business days", "*summary* ... to Dolores"). A statement that does not say it changes
anything changes only a value said of the same thing as it: a count of the same things, said
as so ("meeting summaries: 3 bullets tops please" for "keep it to 5 bullets max"), or a value
with the same words around it."""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Sequence

from core.statements import (
    CODE,
    EVENT,
    MODAL,
    NAME,
    NUMBER,
    QUOTE,
    SLOTTED,
    WORD,
    Statement,
    Value,
    amounts,
    unit_of,
    words,
)
from core.types import Memory, MemoryType, NewMemory
from graph.tenant import TenantGraph
from ingest.extract.sentences import content_words
from ingest.write.slots import CANDIDATES, query_of
from vectors.vector_index import VectorFilter, VectorIndex

log = logging.getLogger(__name__)


class ProcedureChanges:
    """Plans the new versions of procedures a user turn's statements change."""

    def __init__(self, index: VectorIndex) -> None:
        self.index = index

    async def plan(
        self, tenant: TenantGraph, episode: Memory, said: Sequence[Statement]
    ) -> list[tuple[Memory, NewMemory, str]]:
        """New versions of the user's current procedures whose parameter a statement
        changes ("the approval limit is £2,000 now, not £1,500"): (old, new, reason). The
        parameter is the one the statement says is no longer so; else the procedure's only
        amount of the new value's unit, when the statement and the procedure share a word
        ("approval", "approve")."""
        changing = [  # "the kickoff call should happen within 3 working days now": a rule;
            s for s in said  # "had two no-shows so we're asking for 30% going forward"
            if s.mood in (*SLOTTED, MODAL, EVENT)
            and (parameters(s.text) or s.change or s.correction)
        ]  # fmt: skip
        if not changing:
            return []
        flt = VectorFilter(
            tenant_id=episode.tenant_id,
            user_scope=episode.user_id,
            types=[MemoryType.PROCEDURAL.value],
            live_at=episode.created_at,
        )
        queries = {f"{query_of(s)} {' '.join(v.text for v in s.values)}".strip() for s in changing}
        # and the turn's words: "post-Christmas change: 45 days to bring things back now,
        # everything else in the returns process is the same" names the procedure elsewhere
        queries.add(" ".join(sorted({w for s in said for w in s.words})))
        queries.discard("")
        try:
            found = await asyncio.gather(
                *(self.index.keyword_search(q, flt, CANDIDATES, payload=False) for q in queries)
            )
        except Exception:
            log.exception("procedure candidates: keyword search failed")
            return []
        ids = list(dict.fromkeys(h.id for r in found for h in r))
        procedures = [
            m for m in (await tenant.get_memories(ids)).values()
            if m.is_current and m.type is MemoryType.PROCEDURAL
        ]  # fmt: skip
        out: list[tuple[Memory, NewMemory, str]] = []
        done: set[str] = set()
        # what the turn is about: "45 days to bring things back now, everything else in the
        # returns process is the same" changes the returns procedure
        turn_words = frozenset(w for s in said for w in s.words) | {
            w.lower() for w in content_words(episode.content)
        }  # (its values' words too: "it only gets 350ml on Sundays now" for the plants)
        for statement in changing:
            for procedure in procedures:
                if procedure.id in done:
                    continue
                change = _parameter(statement, procedure, turn_words) or _substitution(
                    statement, procedure
                )
                if change is None:
                    continue
                old, new = change
                done.add(procedure.id)
                out.append((procedure, _new_version(procedure, episode, old, new), (
                    f"parameter changed: {old.text} to {new.text}"
                )))  # fmt: skip
        return out


def _parameter(
    statement: Statement, procedure: Memory, turn_words: frozenset[str] = frozenset()
) -> tuple[Value, Value] | None:
    """The procedure's value the statement changes, and its new value (the statement, or
    another of its turn, shares a word with the procedure)."""
    said = parameters(statement.text)
    negated = [a for a in said for v in statement.negated if v.start - statement.start <= a.start
               < v.end - statement.start]  # fmt: skip
    fresh = [a for a in said if a not in negated]
    if not fresh or not _shares_stem(statement.words | turn_words, procedure.content):
        return None
    held = parameters(procedure.content)
    if negated:
        olds = [h for h in held for n in negated if h.norm == n.norm]
        new = next((a for a in fresh if _alike(a, olds[0])), None) if olds else None
        return (olds[0], new) if new is not None and new.norm != olds[0].norm else None
    changes = statement.change or statement.correction
    # a past event ("we switched to X") changes what it says changed; else, only a value
    # said of the same thing (the reading of a sentence with a trailing "…, sales complained"
    # takes the complaint's tense)
    for new in fresh:
        olds = [h for h in held if _alike(h, new)]
        near = _said_of(statement.text, new, procedure.content, olds)
        if len(near) == 1:
            old = near[0]  # said of the same thing: whatever the statement's words
        elif len(olds) == 1 and changes:  # (an event said as a change included)
            old = olds[0]  # the only one of its kind, and the statement says it changes
        elif len(olds) == 1 and statement.mood in SLOTTED and _counts_things(new):
            # the only count of the same things, said as so now: the thing counted is what
            # both are said of ("3 bullets tops please" for "keep it to 5 bullets max")
            old = olds[0]
        else:
            continue
        if old.norm != new.norm:
            return old, new
    return None


def parameters(text: str) -> list[Value]:
    """What a procedure or a statement may change: its amounts, its quoted texts and the
    names it gives (capitalised words inside a sentence, not inside a quote)."""
    quoted = [
        Value(m.group(1), QUOTE, m.group(1).lower(), m.start(1), m.end(1), -1, -1)
        for m in _QUOTED.finditer(text)
    ]
    inside = {i for q in quoted for i in range(q.start - 1, q.end + 1)}
    found = [
        Value(m.group(0), CODE, m.group(0).lower(), m.start(), m.end(), -1, -1)
        for pattern in (_RATIO, _CHANNEL)
        for m in pattern.finditer(text)
    ]
    inside |= {i for v in found for i in range(v.start, v.end)}
    found += [a for a in amounts(text) if a.start not in inside]
    found += [
        Value(m.group(0), NUMBER, f"{_WORD_NUMBERS[m.group(1).lower()]} {m.group(2).lower()}",
              m.start(), m.end(), -1, -1)
        for m in _WORD_NUMBER.finditer(text)
        if m.start() not in inside
    ]  # fmt: skip
    found += [
        Value(m.group(0), NAME, m.group(0).lower(), m.start(), m.end(), -1, -1)
        for m in _NAME.finditer(text)
        if m.start() not in inside and m.group(0).lower() not in _NOT_NAMES
    ]
    return sorted([*quoted, *found], key=lambda v: v.start)


# a quoted text: opened after a space, a colon or a bracket, closed before a space or a stop
_QUOTED = re.compile(r"(?:^|(?<=[\s:(]))['\"“‘]([^'\"“”‘’\n]{3,80}?)['\"”’](?=[\s.,;:!?)]|$)")
# a capitalised word (or a run of them) that does not open a sentence
_NAME = re.compile(r"(?<=[a-z0-9,;)] )[A-Z][a-z]+(?: [A-Z][a-z]+)*")
_NOT_NAMES = frozenset({"i", "i'm", "monday", "tuesday", "wednesday", "thursday", "friday",
                        "saturday", "sunday"})  # fmt: skip


_RATIO = re.compile(r"(?<![\w:])\d+(?::\d+){2,}(?![\w:])")  # "1:2:2" (feeds, mixes)
_CHANNEL = re.compile(r"(?<![\w#@])[#@][A-Za-z][\w-]{1,60}")  # "#releases", "@ops-team"
_COUNTED = "zero one two three four five six seven eight nine ten eleven twelve"
_WORD_NUMBERS = {w: i for i, w in enumerate(_COUNTED.split(" "))}
_WORD_NUMBER = re.compile(
    r"\b(" + "|".join(_WORD_NUMBERS) + r")\s+([a-z]{3,})\b", re.IGNORECASE
)  # "three rounds": a number and what it counts


def _alike(a: Value, b: Value) -> bool:
    """Two values of one kind: amounts of one unit, two quoted texts, two names, two
    ratios of as many parts."""
    if a.kind != b.kind:
        return False
    if a.kind == CODE:
        return a.text.count(":") == b.text.count(":")
    return a.kind in (QUOTE, NAME) or _unit(a) == _unit(b)


def _unit(v: Value) -> str:
    """What an amount counts, its number said in digits or in words ("three rounds")."""
    if v.kind == NUMBER and not v.text[:1].isdigit():
        return v.norm.split(" ", 1)[-1].rstrip("s")
    return unit_of(v)


def _counts_things(v: Value) -> bool:
    """Whether an amount counts things named by a word ("3 bullets"), not money, a share or
    a bare number."""
    unit = _unit(v)
    return v.kind == NUMBER and len(unit) >= 3 and unit.isalpha()


_STOP = words("a an the to of in on at for and or with by is are be it its")


def _substitution(statement: Statement, procedure: Memory) -> tuple[Value, Value] | None:
    """A word or three of the procedure said again in the same words around it, with
    something else in their place ("new patients now fill in the *green* form" for "have them
    fill in the *blue* form"): whatever kind of value it is. The words around must hold a
    content word, two words on one side and one on the other at least."""
    said = [(m.group(0).lower(), m.start(), m.end()) for m in _WORD.finditer(statement.text)]
    held = [(m.group(0).lower(), m.start(), m.end()) for m in _WORD.finditer(procedure.content)]
    words = [w for w, _, _ in said]
    for j in range(2, len(held) - 1):
        for k in (1, 2, 3):
            if j + k >= len(held):
                break
            left = [w for w, _, _ in held[j - 2 : j]]
            right = [held[j + k][0]]
            if not any(len(w) >= 4 and w not in _STOP for w in (*left, *right)):
                continue
            for i in range(2, len(said) - 1):
                if words[i - 2 : i] != left:
                    continue
                for n in (1, 2, 3):
                    if i + n >= len(said) or words[i + n] != right[0]:
                        continue
                    old_words = [w for w, _, _ in held[j : j + k]]
                    new_words = words[i : i + n]
                    if old_words[0] == new_words[0] or old_words[-1] == new_words[-1]:
                        continue  # the same word at an end: a smaller span says it
                    if any(
                        w in ("not", "no", "never") or w.endswith("n't")
                        for w in words[max(0, i - 5) : i + n]
                    ):
                        continue  # "they should not fill in the green form"
                    a, b = held[j][1], held[j + k - 1][2]
                    c, d = said[i][1], said[i + n - 1][2]
                    old = Value(procedure.content[a:b], WORD, " ".join(old_words), a, b, -1, -1)
                    new = Value(statement.text[c:d], WORD, " ".join(new_words), c, d, -1, -1)
                    return old, new
    return None


_WORD = re.compile(r"[A-Za-z0-9][\w'/-]*")


def _said_of(text: str, new: Value, procedure: str, olds: list[Value]) -> list[Value]:
    """The procedure's values said of what ``new`` is said of: the word right after it
    ("325g *water*"), else the two words on each side ("*summary* goes to Dolores", "a
    *summary* email to Marcus")."""
    if not olds:
        return []
    for width in (1, 2):
        near = _around(text, new, width)
        found = [h for h in olds if _around(procedure, h, width) & near]
        if len(found) == 1:
            return found
    return []


def _around(text: str, value: Value, width: int) -> set[str]:
    """The first five letters of the words next to a value: the one after it (``width``
    1), or two on each side."""
    after = re.findall(r"[a-z]{3,}", text[value.end :].lower())[:width]
    before = re.findall(r"[a-z]{3,}", text[: value.start].lower())[-2:] if width > 1 else []
    return {w[:5] for w in [*before, *after]} - {"the", "and", "for", "with", "from", "now"}


def _shares_stem(words: frozenset[str], text: str) -> bool:
    """Whether a frame word and a word of ``text`` share their first five letters
    ("approval", "approve")."""
    stems = {w[:5] for w in words if len(w) >= 4}
    return any(w[:5] in stems for w in re.findall(r"[a-z]{4,}", text.lower()))


def _new_version(procedure: Memory, episode: Memory, old: Value, new: Value) -> NewMemory:
    content = procedure.content[: old.start] + new.text + procedure.content[old.end :]
    steps = [step.replace(old.text, new.text, 1) for step in procedure.steps]
    return NewMemory(
        content=content,
        type=MemoryType.PROCEDURAL,
        user_id=procedure.user_id,
        project_id=procedure.project_id,
        session_id=episode.session_id,
        importance=procedure.importance,
        created_at=episode.created_at,
        valid_from=episode.created_at,
        source=f"rule:procedure:{episode.id}",
        entity_ids=list(procedure.entity_ids),
        subject=procedure.subject,
        predicate=procedure.predicate,
        object=" | ".join(steps) if steps else procedure.object,
        confidence=procedure.confidence,
        trigger=procedure.trigger,
        steps=steps,
    )
