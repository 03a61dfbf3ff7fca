"""Which statements are about what a question asks, whatever their words.

The question's slot (``retrieval/slots._by_question``) needs to know which of a result's
statements answer the question. Shared words find "the Boots on Carlton Road gets her repeat
prescriptions" for "who fills my mother's prescriptions?", but not the later "we've moved
mum's repeat scripts over to Wellway Pharmacy", and then the old value leads. So the first
hits' statements that give a value of the kind the question asks for are also compared by
meaning (the embedder's similarity), in two ways:

- **with the question**: a statement among the closest of them (within ``MARGIN`` of the
  closest) and close in itself (``FLOOR``);
- **with each other**: an older statement as close as ``PAIR`` to one that is about the
  question (by the first way, by sharing the question's words, or by kinship with such a
  one), or sharing a content word with it ("our babysitter is Lucy" beside "we've got a new
  sitter, Maya", when the question asks "who's minding the children on date night?" and
  only names what the newest one says). A value is often changed in words of its own, and
  the question need not echo the old ones. Kinship only reaches back in time: it marks a
  value earlier and never makes one current (a newer "staging box: Ubuntu 24.04" is kin to
  "the production server runs Ubuntu 22.04", not its new value), but for a value said again
  with a slip fixed ("it's 7KLN392, N not M" after "plate 7KLM392"): that is one value; or
  by a change that says what it changes (``_anchored``), or by a change of what the earlier
  one's subject names, in fewer words ("the club now wraps up at quarter to six" after "mia's
  after school club finishes at 5:15": ``_narrowed``).

Every other check of ``Focus.relevant`` still applies (it names what the question names, it
is not about another subject of the same kind), and only a statement said as so can hold
the current value.

Sentences are embedded as queries are (``Embedder.embed_query``: batched with concurrent
requests, and cached by text, so a sentence read again costs nothing).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from core.slots import GENERIC, Focus, matching, stem
from core.statements import EVENT, NUMBER, Statement, Value, normal, slips
from core.types import Hit


@dataclass(frozen=True)
class Similarities:
    """Cosine similarities of some texts: to the question, and to each other (by index)."""

    to_query: list[float]
    pairwise: list[list[float]]


@dataclass(frozen=True)
class About:
    """The statements (their texts) about the question by meaning; of them, ``kin`` were
    found only through another one, or are surely one slot with another (they need not name
    what the question names: the one they are kin to does)."""

    texts: frozenset[str] = frozenset()
    kin: frozenset[str] = frozenset()
    first: frozenset[str] = frozenset()  # of the search's first hits, nearly as close (``WIDE``)
    # pairs of statements surely one slot (a slip fixed, a change that says what it changes)
    pairs: frozenset[frozenset[str]] = frozenset()


NOTHING = About()  # no statement about the question by meaning

# The similarities of texts (in their order) to the question and to each other.
Similar = Callable[[Sequence[str]], Awaitable[Similarities]]
FIRST = 8  # hits whose statements are compared
FLOOR = 0.35  # a statement this close to the question or closer ...
MARGIN = 0.1  # ... and at most this much less close than the closest one
PAIR = 0.45  # a statement this close to one about the question is about it too
FIRST_FOUND = 4  # the search's first hits: about the question by its own measure ...
WIDE = 0.2  # ... for a statement this near the closest one ...
WIDE_FLOOR = 0.2  # ... and at least this close to the question
MOST = 24  # statements compared at most (the closest hits' first)
_GENERIC = frozenset(stem(w) for w in GENERIC)
_COUNTED = re.compile(r"\s+([a-z]{3,})\b", re.I)  # the word a number counts: "40 *guests*"
_DIGITS = re.compile(r"\d+(?:\.\d+)?")
# a number, in digits or a word, and the word after it (overlapping: "party of forty guests")
_COUNT = re.compile(r"(?<![\w.,:'’-])(?=(\d[\d,]*|[a-z]+(?:-[a-z]+)?)\s+([a-z]{3,})\b)", re.I)
# A turn's heading: a few words and a colon ("offsite update:", "reorg news:")
_HEADING = re.compile(r"\s*((?:[\w'’-]+\s+){0,4}[\w'’-]+)\s*:\s")
# The words a spaced dash leads into a statement from, back to the sentence's start
_LEAD_IN = re.compile(r"(?:^|[.!?]\s)([^.!?]+?)\s[-–—]\s*$")
# words that say a heading is one, not what it is about
_HEADINGS = frozenset(
    stem(w) for w in ("update", "news", "note", "info", "stuff", "basics", "quick", "fyi", "record")
)


async def close_to(
    hits: Sequence[Hit],
    said: dict[str, list[Statement]],
    focus: Focus,
    similar: Similar,
    by_user: Callable[[Hit], bool],
    as_of: bool = False,
) -> About:
    """The statements of the first ``FIRST`` hits (by the user, said as so,
    giving a value of the kind the question asks for) that are about the question by
    meaning. Fewer than two such statements: none (one value has nothing to replace).
    ``as_of`` (a question about a past time): kinship reaches forward too, to a statement
    said as a change ("pipelines have moved over to GitHub Actions" after "CI runs on the
    old Jenkins box"): the value then is the newest of the chain before that time."""
    pool: list[tuple[str, Statement, Hit]] = []  # (text, statement, its hit)
    for h in hits[:FIRST]:
        if h.memory.earlier_until is not None or not by_user(h):
            continue
        for s in said.get(h.memory.id, []):
            if (
                (s.slotted or s.mood == EVENT)
                and focus.answers(s)
                and all(s.text != p[0] for p in pool)
            ):
                pool.append((s.text, s, h))
    pool = pool[:MOST]
    if len(pool) < 2:
        return NOTHING
    sims = await similar([text for text, _, _ in pool])
    top = max(sims.to_query)
    near = {
        i for i, sim in enumerate(sims.to_query) if sim >= max(FLOOR, top - MARGIN)
    }  # by meaning; and by the question's words:
    seeds = near | {
        i for i, (_, s, h) in enumerate(pool) if focus.relevant(s, h.memory.indexed_text)
    }
    leading = {h.memory.id for h in hits[:FIRST_FOUND]}
    first = frozenset(
        text
        for (text, _, h), sim in zip(pool, sims.to_query, strict=True)
        if h.memory.id in leading and sim >= max(WIDE_FLOOR, top - WIDE)
    )
    if not seeds:
        return About(first=first)
    # kinship only reaches back from the newest statement about the question
    newest = max(pool[i][2].memory.valid_from for i in seeds)
    words = [_words(p) for p in pool]  # each statement's, read once
    # the pairs surely one slot, whichever of the two is about the question already
    sure = {
        (i, j)
        for i in range(len(pool))
        for j in range(len(pool))
        if i != j and (_same_slot(pool[i], pool[j]) or _same_slot(pool[j], pool[i]))
    }
    about, todo = set(seeds), list(seeds)
    while todo:  # and whatever is kin to one of them, and so on
        i = todo.pop()
        for j in range(len(pool)):
            if j in about:
                continue
            _, b, later = pool[j]
            one = (i, j) in sure
            if (later.memory.valid_from < newest or one or as_of and b.change) and (
                one or sims.pairwise[i][j] >= PAIR or _share_words(words[i], words[j])
            ):
                about.add(j)
                todo.append(j)
    # what the search ranked first is about the question by its own measure: a statement
    # surely one slot with one of those is about it too ("the band is The Velvet Tones" found
    # first, "we had to let the band go ... the Harbour Lights are playing instead")
    about |= {j for i, j in sure if pool[i][0] in first}
    kin = about - seeds
    # a statement one of them is surely the same slot as stands for it: it names what that
    # one's statement names ("we're now at 55 guests" counts Dad's party's guests)
    bound = {i for i in near - kin if any((i, j) in sure for j in about)}
    return About(
        frozenset(pool[i][0] for i in near | kin),
        frozenset(pool[i][0] for i in (kin - near) | bound),
        first,
        frozenset(frozenset((pool[i][0], pool[j][0])) for i, j in sure),
    )


def _same_slot(one: tuple[str, Statement, Hit], other: tuple[str, Statement, Hit]) -> bool:
    """Whether ``other`` is surely a value of ``one``'s slot, whatever their similarity: one
    value said again with a slip fixed, or a later change of it that says what it changes,
    names its subject in fewer words, or counts the same things again."""
    a, b = one[1], other[1]
    return (
        bool(slips(a, b) or slips(b, a))
        or _anchored(one, other)
        or _narrowed(one, other)
        or _recounted(one, other)
    )


def _share_words(mine: set[str], theirs: set[str]) -> bool:
    """Whether two statements' content words meet: as stems (``matching``), or one word
    ending the other ("sitter" and "babysitter")."""
    return bool(matching(mine, frozenset(theirs))) or any(
        min(len(w), len(o)) >= 5 and (w.endswith(o) or o.endswith(w)) for w in mine for o in theirs
    )


def _words(said: tuple[str, Statement, Hit]) -> set[str]:
    """A statement's content words, with those of its turn's heading when it has one
    ("offsite update: ... it's Porto now") and of the words a dash leads in from ("found my
    passport - the expiry date is actually 14 Aug"), other than the most general ones."""
    _, s, h = said
    out = {stem(w) for w in (*s.words, *s.subject)}
    content = h.memory.content
    head = _HEADING.match(content)
    if head and head.end() <= s.start + 1:
        out |= {w for w in Focus.of(head.group(1)).words if w not in _HEADINGS}
    lead = _LEAD_IN.search(content[: s.start])
    if lead:
        out |= {w for w in Focus.of(lead.group(1)).words if w not in _HEADINGS}
    return out - _GENERIC


def _narrowed(old: tuple[str, Statement, Hit], new: tuple[str, Statement, Hit]) -> bool:
    """Whether a later statement said as a change is about what the earlier one's subject
    names, in fewer words: its subject is part of the earlier one's ("the club now wraps up
    at quarter to six" after "mia's after school club finishes at 5:15") or its words name
    the earlier subject's head ("moving standup to 10:15 starting monday" after "daily
    standup is at 9:30", whatever the parse took for its subject; without a subject of its
    own, the words of its turn before it count: "we had to let the band go ... the Harbour
    Lights are playing instead"), and it gives a value of a kind the earlier one gave. A
    subject of its own ("the staging box") is not."""
    (_, o, was), (_, n, now) = old, new
    if now.memory.valid_from <= was.memory.valid_from or not n.change:
        return False
    mine, theirs = {stem(w) for w in n.subject}, {stem(w) for w in o.subject}
    head = stem(o.subject[-1]) if o.subject else ""
    named = bool(mine - _GENERIC) and mine <= theirs
    words = {stem(w) for w in n.words}
    if not mine - _GENERIC:  # no subject of its own: its turn's words before it count too
        words |= _words_before(now.memory.content, n.start)  # ("let the band go. ...")
    if not named and head not in _GENERIC and head in words:
        named = True  # its words name the earlier one's subject ("moving standup to 10:15")
    return named and any(v.family == w.family for v in n.values for w in o.values)


@lru_cache(maxsize=4096)
def _words_before(content: str, start: int) -> frozenset[str]:
    """The content words of a turn before a statement of it, as a question's are read."""
    return Focus.of(content[:start]).words


def _recounted(old: tuple[str, Statement, Hit], new: tuple[str, Statement, Hit]) -> bool:
    """Whether a later statement said as a change counts again what the earlier one counted,
    another number of the same things: "we're now at 55 guests" after "Saturday the 12th, at
    Rosa's Cantina back room, 40 guests, budget £800" (read in the earlier one's words, as
    the parse may have taken its count for a subject)."""
    (_, o, was), (_, n, now) = old, new
    if now.memory.valid_from <= was.memory.valid_from or not (n.change or n.correction):
        return False
    counted = {(_counts(now.memory.content, v), v.norm) for v in n.values if v.kind == NUMBER} - {
        ("", v.norm) for v in n.values
    }
    said = _counted_in(o.text)
    return any(
        noun == thing and was_norm != norm and _DIGITS.fullmatch(was_norm) is not None
        for was_norm, noun in said
        for thing, norm in counted
    )


@lru_cache(maxsize=4096)
def _counted_in(text: str) -> tuple[tuple[str, str], ...]:
    """Each number of ``text`` (as its normal form) with the word after it, as a stem."""
    return tuple((normal(number, NUMBER), stem(noun)) for number, noun in _COUNT.findall(text))


def _counts(content: str, v: Value) -> str:
    """The noun right after a number (its text at the value's offsets), as a stem: "guest"
    of "40 guests"; "" when none follows."""
    after = _COUNTED.match(content, v.end)
    return stem(after.group(1)) if after and content[v.start : v.end] == v.text else ""


def _anchored(old: tuple[str, Statement, Hit], new: tuple[str, Statement, Hit]) -> bool:
    """Whether a later statement said as a change says what it changes: it gives again a
    value of the earlier one beside its new value ("it comes to Marlowe Road at 8:10 instead"
    after "the bus collects from Marlowe Road at 7:45"), or its turn names the earlier one's
    value ("ironclad was always packed, cancelled it. joined PeakForm Studio instead")."""
    (_, o, was), (_, n, now) = old, new
    if now.memory.valid_from <= was.memory.valid_from or not (n.change or n.correction):
        return False
    if any(v.same(w) for v in o.values for w in n.values):
        return True
    said = now.memory.content.lower()
    return any(
        len(word) >= 4 and re.search(rf"(?<!\w){re.escape(word)}(?!\w)", said) is not None
        for v in o.values
        if v.family == "thing" and not any(v.same(w) for w in n.values)
        for word in v.text.lower().split()[:1]
    )
