"""The values a chain no longer holds, and the lines that still say them
(``retrieval/slots.settle``): a hit that mentions only a replaced value of a chain placed in
the result goes after the chain's current version, labelled earlier."""

from __future__ import annotations

from core.statements import Value
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
