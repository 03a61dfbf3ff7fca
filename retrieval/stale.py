"""The values a chain no longer holds, and the lines that still say them
(``retrieval/slots.settle``): a hit that mentions only a replaced value of a chain placed in
the result goes after the chain's current version, labelled earlier."""

from __future__ import annotations

import re

from core.slots import GENERIC
from core.statements import ASSERT, EVENT, WORD, Value
from core.types import Hit, LineageLink, Memory
from retrieval.pairs import earlier as marked_earlier
from retrieval.pairs import statements_of


def old_values(links: list[LineageLink], at: float) -> list[Value]:
    """The values the chain held before the version valid at ``at``."""
    return [
        v
        for link in links
        if link.memory.superseded_at <= at
        for s in statements_of(link.memory)
        for v in s.values
    ]


def replaced(old: list[Value], head: Memory) -> tuple[set[str], set[str]]:
    """What the chain no longer holds, and what only its current version holds, as normal
    forms: of the earlier values only those of a kind the current version gives again ("make
    it 17:45" after "a table for 2 at California Cafe in Los Gatos for 5:15" replaces the
    time; the place and the party still hold)."""
    now = [v for s in statements_of(head) for v in s.values]
    kinds = {v.family for v in now}
    held = {v.norm for v in now}
    was = {v.norm for v in old}
    return {v.norm for v in old if v.family in kinds} - held, held - was


def _mentioned(m: Memory) -> set[str]:
    """Normal forms of the values ``m`` says, as values or in what its statements are about
    ("the cron fires at 02:30 server time, dumps to ..." is about 02:30)."""
    return {v.norm for s in statements_of(m) for v in (*s.values, *s.named)}


def passing_mentions(hits: list[Hit], stale: list[tuple[str, set[str], set[str]]]) -> list[Hit]:
    """A hit that holds a replaced value of a placed chain and not its current value goes
    right after the chain's current version."""
    out = list(hits)
    for head_id, gone, kept in stale:
        if not gone:
            continue
        index = next((i for i, h in enumerate(out) if h.memory.id == head_id), None)
        if index is None:
            continue
        until = out[index].memory.valid_from

        def passing(m: Memory, gone: set[str] = gone, kept: set[str] = kept) -> bool:
            held = _mentioned(m)
            return bool(held & gone) and not held & kept and m.earlier_until is None

        for i in range(index):
            if passing(out[i].memory):
                hit = out.pop(i)
                index -= 1
                out.insert(index + 1, marked_earlier(hit, until))
                break
        for i in range(index + 1, len(out)):  # below it: labelled where it is, when it
            m = out[i].memory  # repeats most of what was replaced (an echo of the old value)
            if passing(m) and m.valid_from < until and len(_mentioned(m) & gone) * 2 > len(gone):
                out[i] = marked_earlier(out[i], until)
    return out


SAID_SO = frozenset({ASSERT, EVENT})  # moods a current value is said in


def restating(hit: Hit, old: list[Value], current: list[Value]) -> Hit:
    """The hit holding a slot's current value, marked with that value and the earlier one
    its own words name before it ("ok so ironclad was always packed, cancelled it. joined
    PeakForm Studio instead": read as written, the old name comes first) or deny ("it's
    codeine, not the sulfa ones"). Unmarked when it names none, when the current value is
    not said as a change in its words, or when which is which is not clear."""
    text = hit.memory.content.lower()
    statements = statements_of(hit.memory)
    denied = [v for s in statements for v in s.negated]
    # what it gives itself is no earlier value of it ("It's 12B. ... 12D is the unit next door")
    spans = [(v.start, v.end) for s in statements for v in s.values]
    so = [
        v for s in statements if s.mood in SAID_SO and (s.change or s.correction) for v in s.values
    ]
    now = [n for n in current if any(n.same(v) for v in so) and says(text, n.text.lower())]
    if not now:
        return hit
    first = min(text.find(n.text.lower()) for n in now)
    named: list[Value] = []
    for v in old:
        if v.kind == WORD or any(v.same(n) for n in named):
            continue
        at = _mention(text, v.text)
        if at < 0 or any(a <= at < b for a, b in spans) and not any(v.same(d) for d in denied):
            continue
        if at < first or any(v.same(d) for d in denied):
            named.append(v)
    now = [n for n in now if any(n.family == v.family for v in named)]
    texts = list(dict.fromkeys(n.text for n in now))
    if len(named) != 1 or not texts or len(texts) > 2:
        return hit
    update = {"now_value": ", ".join(texts), "names_earlier": (named[0].text,)}
    return hit.model_copy(update={"memory": hit.memory.model_copy(update=update)})


def _mention(text: str, value: str) -> int:
    """Where ``text`` (lowered) says ``value`` whole, or the first word of four letters or
    more of a value of several words, that is no general word ("ironclad" of "Ironclad
    Fitness"); -1 when it does not."""
    low = value.lower().strip("£$€")
    if len(low) < 4:
        return -1
    found = _whole(low).search(text)
    if found:
        return found.start()
    word = next((w for w in re.findall(r"[a-z][a-z'’-]+", low) if len(w) >= 4), None)
    if word is None or word in GENERIC or " " not in low:
        return -1
    found = _whole(word).search(text)
    return found.start() if found else -1


def _whole(value: str) -> re.Pattern[str]:
    """``value`` as a whole word or words, not part of a longer one."""
    return re.compile(rf"(?<!\w){re.escape(value)}(?!\w)")


def says(text: str, value: str) -> bool:
    """Whether ``text`` says ``value`` whole ("4b" in "room 4b", not in "14b")."""
    return _whole(value).search(text) is not None
