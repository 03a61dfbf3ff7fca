"""The read path's checks of two hits at a time (``retrieval/slots.settle`` applies them):
a newer statement of the user that gives another value of an older hit's slot puts it after
itself as the earlier value, and a hit that only asks, supposes or plans a value goes after
the hit that states it."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from core.slots import GENERIC, same_slot, stem
from core.statements import CONDITIONAL, MODAL, PLAN, QUESTION, REPORTED, Statement, moved
from core.types import Hit, Memory, MemoryType

NEVER_SO = frozenset({QUESTION, CONDITIONAL, MODAL, PLAN, REPORTED})


def statements_of(m: Memory) -> list[Statement]:
    """``m``'s stored statements, read back (a line that does not read is skipped)."""
    return [s for line in m.statements if (s := _loaded(line, m.content)) is not None]


def with_sentence_statements(hits: Sequence[Hit]) -> list[Hit]:
    """Hits where what the rules drew from a turn without statements of its own (a fact of
    several values, "venue is Hengrave Hall, date is 20 September, the band is The Velvet
    Tones": one memory stands for no one slot; a preference; a sentence kept as an episode)
    reads with the statements the turn holds in its words, when its episode is among the
    hits. The read path's checks then see which of its values a later statement replaced
    (the statements were read from the whole turn: a pronoun stands for whom it names)."""
    episodes = {h.memory.id: h.memory for h in hits if h.memory.type is MemoryType.EPISODIC}
    out = list(hits)
    for k, h in enumerate(hits):
        m = h.memory
        source = m.source or ""
        if m.statements or not source.startswith("rule:"):
            continue
        episode = episodes.get(source.rsplit(":", 1)[-1])
        if episode is None or not episode.statements:
            continue
        at = episode.content.casefold().find(m.content.casefold())
        if at < 0:
            continue
        end = at + len(m.content)
        inside = [
            (line, s)
            for line in episode.statements
            if (s := _loaded(line, episode.content)) is not None and at <= s.start and s.end <= end
        ]
        if any(s.values for _, s in inside):
            lines = [moved(line, -at) for line, _ in inside]
            out[k] = h.model_copy(update={"memory": m.model_copy(update={"statements": lines})})
    return out


@lru_cache(maxsize=8192)
def _loaded(line: str, text: str) -> Statement | None:
    """One stored statement line read back (a ``Statement`` is frozen: each settle pass of a
    read reads the same lines, and they are parsed once)."""
    try:
        return Statement.loads(line, text)
    except (ValueError, TypeError, IndexError):
        return None


def earlier(hit: Hit, until: float, part: tuple[int, int] | None = None) -> Hit:
    """``hit`` as an earlier value, until ``until``; ``part``: only that span of it."""
    update = {"earlier_until": until, "earlier_part": part}
    return hit.model_copy(update={"memory": hit.memory.model_copy(update=update)})


def by_user(m: Memory) -> bool:
    """Said by the user: a user's turn, or what the rules drew from one (they read only
    the user's turns), or a fact."""
    return (m.source or "").startswith(("turn:user", "rule:")) or m.type is MemoryType.FACT


def by_assistant(m: Memory) -> bool:
    """An assistant's own turn (not what the rules extracted from it)."""
    return (m.source or "").startswith("turn:assistant")


def unlinked_pairs(hits: list[Hit]) -> list[Hit]:
    """Move an older current hit after a newer one that gives its slot another value."""
    said = {h.memory.id: statements_of(h.memory) for h in hits}
    out = list(hits)
    moved = True
    rounds = 0
    while moved and rounds < len(hits):
        moved, rounds = False, rounds + 1
        for i, older in enumerate(out):
            if older.memory.earlier_until is not None:
                continue
            for j in range(i + 1, len(out)):
                newer = out[j]
                if newer.memory.created_at <= older.memory.created_at:
                    continue
                if newer.memory.earlier_until is not None or not by_user(newer.memory):
                    continue
                if not replaces(
                    said[newer.memory.id],
                    said[older.memory.id],
                    # each speaker's "I" is their own; a slip fixed is fixed for everyone
                    slots=newer.memory.turn_speaker == older.memory.turn_speaker,
                ):
                    continue
                out.pop(j)
                out.insert(i, newer)
                out[i + 1] = earlier(out[i + 1], newer.memory.valid_from)
                moved = True
                break
            if moved:
                break
    # a pair already in order: the older one is still the earlier value
    for i, older in enumerate(out):
        if older.memory.earlier_until is not None:
            continue
        later = next(
            (
                h
                for h in out[:i]
                if h.memory.created_at > older.memory.created_at
                and h.memory.earlier_until is None
                and by_user(h.memory)
                and replaces(
                    said[h.memory.id],
                    said[older.memory.id],
                    slots=h.memory.turn_speaker == older.memory.turn_speaker,
                )
            ),
            None,
        )
        if later is not None:
            out[i] = earlier(older, later.memory.valid_from)
    return out


def assertions_first(hits: list[Hit]) -> list[Hit]:
    """A hit that only asks, supposes, plans, reports or recalls a value of a slot ("next
    quarter we'll switch the CRM to Salesforce"; "at my old company the lead designer was
    Marco") goes after a hit that states the slot's value (one slot by the frame, or the same
    subject as the parse read it)."""
    said = {h.memory.id: statements_of(h.memory) for h in hits}
    out = list(hits)
    for hit in list(out):
        mine = said[hit.memory.id]
        if not mine or any(s.slotted for s in mine):
            continue
        i = out.index(hit)
        below = next(
            (
                j
                for j in range(i + 1, len(out))
                if any(
                    s.slotted
                    and (same_slot(m, s, any_mood=True) is not None or _same_subject(m, s))
                    for s in said[out[j].memory.id]
                    for m in mine
                )
            ),
            None,
        )
        if below is not None:
            out.insert(below, out.pop(i))
    return out


def _same_subject(a: Statement, b: Statement) -> bool:
    """Whether two statements are of one subject as the parse read it, a few words that say
    what ("at my old company the lead designer was Marco" and "Priya is our lead designer"),
    whatever else their sentences say."""
    mine, theirs = {stem(w) for w in a.subject}, {stem(w) for w in b.subject}
    return len(mine) >= 2 and mine == theirs and bool(mine - GENERIC)


def replaces(new: list[Statement], old: list[Statement], slots: bool = True) -> bool:
    """Whether a statement of ``new`` gives another value of a slot of ``old``: one slot
    by its frame (``slots``), or a value said again with a slip fixed (a digit, a letter:
    whatever the words around it, "its 555-0184" fixes "555-0148")."""
    for n in new:
        for o in old:
            match = same_slot(n, o) if slots else None
            if match is not None and match.changed:
                return True
            if n.mood not in NEVER_SO and any(
                v.misspells(w) for v in (*n.values, *n.named) for w in (*o.values, *o.named)
            ):
                return True
    return False
