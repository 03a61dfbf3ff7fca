"""What the core-memory recognisers share (``ingest/learned/recognise.py``): the kinds, the
item a sentence makes, and small helpers over its tokens."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from core.statements import (
    Statement,
)
from ingest.extract.statements import parts
from ingest.extract.statements.words import SUBJECTS
from ingest.slots.grammar import MARKERS
from ingest.slots.values import tokens_in

Token = Any  # spacy.tokens.Token; spaCy is untyped here

BUSINESS, SELF, PROJECT, RULE = "business", "self", "project", "rule"

KINDS = (BUSINESS, SELF, PROJECT, RULE)

# Slots with one value at a time: a later statement of one replaces the earlier.
SINGLE = frozenset({"business:name", "self:name", "self:role"})
MAX_CHARS = 280  # a longer sentence is a story, not a line of core memory

GENERIC_WORK = frozenset(
    {"project", "team", "company", "work", "thing", "way", "half", "lot", "bit"}
)


@dataclass(frozen=True)
class Learned:
    """One line of core memory a turn states.

    ``slot`` says what it gives a value of ("business:name", "self:role"; a project by its
    nouns, "project:billi paddl"; a rule by its topic or words); ``key`` what a restatement of
    it shares (its kind, slot and content words), so an unpinned item said again is known.
    """

    kind: str
    slot: str
    text: str
    start: int  # the sentence's span in the turn (its statement's)
    end: int
    key: str
    change: bool = False  # said as a change ("now", "switched to"): replaces its kind's lines

    @property
    def personal(self) -> bool:
        """About the speaker (their name, role, rules): scoped to the user."""
        return self.kind in (SELF, RULE)

    @property
    def single(self) -> bool:
        return self.slot in SINGLE


def item_of(
    doc: Any,
    kind: str,
    slot: str,
    s: Statement,
    text: str | None = None,
    span: tuple[int, int] | None = None,
) -> Learned:
    a, b = span or (s.start, s.end)
    words = sorted(
        {
            t.lemma_.lower()
            for t in tokens_in(doc, a, b)
            if not (t.is_punct or t.is_space or t.is_stop) and t.lower_ not in MARKERS
        }
    )
    line = " ".join((text if text is not None else s.text).split())
    key = f"{kind}|{slot}|{' '.join(words)}"
    return Learned(kind, slot, line, s.start, s.end, key, s.change)


def root_of(tokens: Sequence[Token], verbs_only: bool = True) -> Token | None:
    """The clause's main verb (its first root that is a verb); else, unless ``verbs_only``,
    its first root ("My name's Oliver Grant" has a name for its root)."""
    inside = {t.i for t in tokens}
    roots = [t for t in tokens if t.head.i == t.i or t.head.i not in inside]
    verbs = [r for r in roots if r.pos_ in ("VERB", "AUX")]
    if verbs:
        return verbs[0]
    return roots[0] if roots and not verbs_only else None


def subject_of(verb: Token) -> Token | None:
    said = [c for c in verb.children if c.dep_ in SUBJECTS]
    before = [c for c in said if c.i < verb.i]
    return before[0] if before else None


def present(verb: Token) -> bool:
    """Said of now: a present tense ("we are", "I'm", "we've become"), no modal, no past."""
    aux = [c for c in verb.children if c.dep_ in ("aux", "auxpass")]
    if any(a.tag_ in ("VBD", "MD") for a in aux):
        return False
    return verb.tag_ in ("VBP", "VBZ") or any(a.tag_ in ("VBP", "VBZ") for a in aux)


def has_aux(verb: Token) -> bool:
    return any(c.dep_ in ("aux", "auxpass") for c in verb.children)


def negated(verb: Token) -> bool:
    return any(c.dep_ == "neg" for c in verb.children)


def proper(tok: Token) -> bool:
    """A name: a proper noun, or a noun phrase with one ("Wolf of Blog Street")."""
    return tok.pos_ == "PROPN" or any(
        c.dep_ == "compound" and c.pos_ == "PROPN" for c in tok.children
    )


def named_after(verb: Token, preps: tuple[str, ...]) -> Token | None:
    """The object of one of ``preps`` hung on the verb ("renamed *to* X")."""
    for c in verb.children:
        if c.dep_ in ("prep", "dative") and c.lower_ in preps:
            pobj = parts.pobj_of(c)
            if pobj is not None:
                return pobj
    return None


def object_is(verb: Token, lemma: str) -> bool:
    return any(c.dep_ == "dobj" and c.lemma_.lower() == lemma for c in verb.children)
