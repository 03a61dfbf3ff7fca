"""An entity's profile summary: each current statement about it once, with the day it was said.

A turn's episode and the statements extracted from it say the same sentence; one fact said in
three turns is three memories; a statement extracted from a clause ("Peter Alvarez is the CTO
at our client Brightline") is part of the turn's sentence ("…; he manages the platform team").
The summary keeps one of each: two sentences are the same statement when the content words of
the shorter are nearly all in the longer (``same_statement``), whatever their punctuation,
case or wording around them, and the one kept is the more informative (more content words),
then the newer. A sentence that says what a later correction replaced, said before that
correction, is left out: the turn stays as it was said, but its value is no longer current.

Each sentence in the stored summary starts with its day, ``[2023-01-10] Peter is one of our
writers.``, so a reader knows when it was said; ``statements`` gives the sentences back without
their days, which is what is embedded and what tags are drawn from. For example the
material "Peter Alvarez is the CTO at our client Brightline" (a fact, 2023-01-10), "Peter Alvarez
is the CTO at our client Brightline; he manages the platform team." (its turn) and "peter
alvarez is the CTO at our client Brightline!" (a later turn) is one statement:
``[2023-01-10] Peter Alvarez is the CTO at our client Brightline; he manages the platform team.``
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from spacy.lang.en.stop_words import STOP_WORDS

from core.slots import stem
from core.text import SENTENCE_BREAK, normalize_name
from core.types import Entity
from graph.resolution_ops import ProfileMemory, Replaced

# Two sentences are one statement when this share of the shorter one's content words is in
# the longer one (token-set containment): a restatement with other punctuation or a trailing
# clause is one, "Peter is one of our writers" and "Maria is one of our writers" are two.
SAME_STATEMENT = 0.8
_SENTENCE = SENTENCE_BREAK  # not after "Dr." or an initial
_SPACE = re.compile(r"\s+")
_END = re.compile(r"[.!?…][\"'’”)\]]*$")
_DATE = "[%Y-%m-%d] "
# A day mark starting a statement of a stored summary: ``[2023-01-10] `` (the day kept).
_MARK = re.compile(r"(?:^|\s+)\[(\d{4}-\d{2}-\d{2})\]\s+")
# Stop words that change what a sentence asserts stay content words: negation, number,
# order and time ("Peter is not our writer", "two kids", "formerly our writer").
_NEGATION = frozenset(
    {"no", "not", "never", "none", "nobody", "noone", "nothing", "nowhere", "nor", "neither",
     "cannot", "n't", "n’t", "without"}
)  # fmt: skip
_ASSERTING = _NEGATION | frozenset(
    {"except", "unless", "one", "two", "three", "four", "five", "six", "eight", "nine", "ten",
     "eleven", "twelve", "fifteen", "twenty", "forty", "fifty", "sixty", "hundred", "first",
     "third", "last", "next", "former", "formerly", "before", "after", "until", "since", "less",
     "more", "most", "least", "few", "many"}
)  # fmt: skip
_STOP = frozenset(STOP_WORDS) - _ASSERTING
_NEGATED = frozenset(stem(w) for w in _NEGATION)
_NOT = re.compile(r"n['’]t\b", re.I)  # "isn't" is "is not" (normalizing drops the apostrophe)


def content_terms(sentence: str) -> frozenset[str]:
    """The stemmed content words of a sentence, case and punctuation aside (all its words
    when it has no content word, so "Yes." still compares)."""
    words = normalize_name(_NOT.sub(" not", sentence)).split()
    terms = frozenset(stem(w) for w in words if w not in _STOP)
    return terms or frozenset(words)


def same_statement(a: frozenset[str], b: frozenset[str]) -> bool:
    """Whether two sentences' ``content_terms`` say one statement: equal, or nearly all of
    the shorter's in the longer (a sentence of one or two words must be wholly in it), and
    not one negated where the other is not ("Peter is not one of our writers")."""
    if not a or not b or a & _NEGATED != b & _NEGATED:
        return False
    if a == b:
        return True
    small = min(len(a), len(b))
    return small >= 2 and len(a & b) / small >= SAME_STATEMENT


@dataclass(frozen=True)
class _Said:
    """A sentence of the material: its words, priority (``score``), when and in what order."""

    text: str
    terms: frozenset[str]
    score: float
    at: float
    order: int

    def beats(self, other: _Said) -> bool:
        """More informative (more content words), then newer, then first in the material."""
        return (len(self.terms), self.at, -self.order) > (len(other.terms), other.at, -other.order)


def build_summary(
    entity: Entity,
    memories: Sequence[ProfileMemory],
    max_chars: int,
    replaced: Sequence[Replaced] = (),
) -> str:
    """Extractive summary of distinct current statements, each with its day: sentences
    naming the entity first, then by importance, at most ``max_chars`` with the days.

    ``memories`` are current ones, most important first; ``replaced`` what corrections
    replaced: a sentence saying one of those, said before it was replaced, is left out."""
    names = [normalize_name(a) for a in (entity.name, *entity.aliases) if normalize_name(a)]
    old = [(content_terms(r.content), r.replaced_at) for r in replaced]
    kept: list[_Said] = []
    order = 0
    for content, importance, created in memories:
        for sentence in _SENTENCE.split(content.strip()):
            text = _ended(_SPACE.sub(" ", sentence).strip())
            terms = content_terms(text)
            if not text or any(created <= at and same_statement(terms, t) for t, at in old):
                continue
            padded = f" {normalize_name(text)} "
            named = any(f" {n} " in padded for n in names)
            said = _Said(text, terms, importance + (1.0 if named else 0.0), created, order)
            order += 1
            kept = _keep(kept, said)
    out: list[str] = []
    used = 0
    for said in sorted(kept, key=lambda s: (-s.score, s.order)):
        line = _dated(said)
        if used + len(line) + 1 > max_chars:
            if not out:
                out.append(line[:max_chars])
            break
        out.append(line)
        used += len(line) + 1
    return " ".join(out)


def _keep(kept: list[_Said], said: _Said) -> list[_Said]:
    """``kept`` with ``said`` added, or standing for the statements it repeats: the best
    wording of them stays, in the highest priority and earliest place any of them had."""
    same = [k for k in kept if same_statement(k.terms, said.terms)]
    if not same:
        return [*kept, said]
    best = said
    for k in same:
        if k.beats(best):
            best = k
    covered = [k for k in same if same_statement(k.terms, best.terms)] + [said]
    merged = _Said(
        best.text,
        best.terms,
        max(s.score for s in covered),
        best.at,
        min(s.order for s in covered),
    )
    return [k for k in kept if k not in covered] + [merged]


def _ended(sentence: str) -> str:
    """A sentence ends with a stop: a statement extracted from a clause has none, and glued
    to the next it would run on ("…at Brightline Peter Alvarez is…")."""
    return sentence if not sentence or _END.search(sentence) else sentence + "."


def _dated(said: _Said) -> str:
    if said.at <= 0:  # when it was said is not known
        return said.text
    return datetime.fromtimestamp(said.at, UTC).strftime(_DATE) + said.text


def newest_statement(summary: str) -> str:
    """The sentence of a stored summary said last (the first of those said that day; the
    first sentence when no day is marked): what is so now, more likely than the first."""
    said = _dated_statements(summary)
    newest = max((day for day, _ in said), default="")
    return next((text for day, text in said if day == newest), "")


def statements(summary: str) -> list[str]:
    """A stored summary's sentences without their days (a summary stored before days were
    added reads the same)."""
    return [text for _, text in _dated_statements(summary)]


def _dated_statements(summary: str) -> list[tuple[str, str]]:
    """A stored summary's sentences with the day marked before each (``""``: none)."""
    parts = _MARK.split(summary.strip())  # text, day, text, day, text ...
    out: list[tuple[str, str]] = []
    for k in range(0, len(parts), 2):
        day = parts[k - 1] if k else ""
        out += [(day, x.strip()) for x in _SENTENCE.split(parts[k].strip()) if x.strip()]
    return out
