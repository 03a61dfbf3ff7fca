"""Names as a turn speaks them: what a sentence's first word, quotes and proper-noun runs say.

A turn's word that opens a sentence is capitalised by its place, whatever it is ("Glad you
came", "Clay is incredible", "Woohoo!"): an unknown one-word name there becomes an entity only
when the parse and the model's own word lists agree it is no common word (``Lexicon``,
``capitalised_by_place``, collected by ``places``); said again inside a sentence, or declared
("Frank is my brother"), it is a name as anywhere. A title in quotes is one name ("Charlotte's
Web", not "Charlotte": ``quoted_titles``). A run of proper nouns is one name ("Wolf of Blog
Street", "the Anderson order"), a capitalised preposition or article inside a sentence its
first word ("brands like Under Armour": ``propn_runs``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from spacy.lang.en.stop_words import STOP_WORDS

from core.types import EntityType
from resolution.cues import LEADING
from resolution.names import looks_like_name, possessive
from resolution.types import Mention

# The interjections and spoken contractions a turn opens with, which the small model tags as
# proper nouns and often as people ("Woohoo", "Wanna"): a closed class of the language.
INTERJECTIONS = frozenset({
    "aw", "aww", "awww", "woohoo", "woo", "wow", "yay", "yep", "yup", "nope", "hey", "hi",
    "hiya", "oof", "ugh", "whoa", "hmm", "haha", "lol", "omg", "ooh", "oh", "ah", "cheers",
    "congrats", "thanks", "thx", "wanna", "gonna", "gotta", "lemme", "gimme", "dunno", "kinda",
    "sorta", "btw", "bye", "okay", "ok", "yeah", "yikes", "phew", "oops", "ha", "meh", "nah",
    "fyi", "looky", "yo", "aha", "duh", "geez", "gosh", "wowza", "omw", "tbh", "imo", "idk",
})  # fmt: skip
_ELONGATED = re.compile(r"(\w)\1\1", re.I)  # "Awww", "Sooo": a word stretched in speech
_QUOTED = re.compile(r"[\"“]([^\"“”\n]{2,80}?)[.,!?]?[\"”]")
# Sentence-internal punctuation after which a word opens a clause as a sentence's first does.
_CLAUSE_OPENERS = frozenset({".", "!", "?", ":", ";", "-", "–", "—", "(", '"', "“", "\n"})
# Proper-noun runs: the nouns that make a project of a name ("the Anderson order"), the
# lower-case words inside a name, and the capitalised words that are none.
_PROJECT_NOUNS = frozenset(
    {"order", "project", "account", "campaign", "deal", "contract", "launch", "migration"}
)
RUN_CONNECTORS = frozenset({"of", "the", "&", "de", "van", "von", "for"})
_DETERMINERS = frozenset({"the", "our", "their", "this", "that", "my", "his", "her"})
_NOT_NAMES = frozenset(
    {"i", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
     "january", "february", "march", "april", "june", "july", "august", "september",
     "october", "november", "december", "ok", "okay", "thanks", "hi", "hello", "todo"}
)  # fmt: skip


class Lexicon:
    """The English words the parser's model ships with: its lemmatizer's index of adjectives,
    adverbs and verbs (WordNet's). A name is rarely an adjective or an adverb ("Glad",
    "Awesome", "Blue", "Cozy") or a verb's participle ("Deferred", "Unsupported"); the index
    of nouns is no help, as it holds given names and places too ("John", "Paris"), nor are
    verbs themselves ("Mark", "Bill", "Rob"). Empty when the model has no such table (then
    only the parse decides)."""

    def __init__(self, nlp: object) -> None:
        self.modifiers: frozenset[str] = frozenset()
        self.verbs: frozenset[str] = frozenset()
        try:
            table = nlp.get_pipe("lemmatizer").lookups.get_table("lemma_index")  # type: ignore[attr-defined]
            self.modifiers = frozenset(table["adj"]) | frozenset(table["adv"])
            self.verbs = frozenset(table["verb"])
        except (KeyError, ValueError, AttributeError):
            pass

    def common(self, word: str) -> bool:
        """Is ``word`` (any case) an adjective, an adverb or a verb's participle?"""
        low = word.lower()
        return low in self.modifiers or self.participle(low)

    def participle(self, low: str) -> bool:
        """Is ``low`` (lower case) a verb's -ed or -ing form ("deferred", "acting")?"""
        for ending in ("ed", "ing"):
            stem = low.removesuffix(ending)
            if stem == low or len(stem) < 3:
                continue
            doubled = stem[:-1] if len(stem) > 3 and stem[-1] == stem[-2] else stem
            if {stem, stem + "e", doubled, low[:-1]} & self.verbs:
                return True
        return False


def _opens_clause(doc: Any, i: int) -> bool:
    """Does token ``i`` open a sentence or a clause set off by punctuation?"""
    if i == 0 or doc[i].is_sent_start:
        return True
    before = doc[i - 1]
    return before.text in _CLAUSE_OPENERS or "\n" in before.text_with_ws


def capitalised_by_place(
    doc: Any, m: Mention, lexicon: Lexicon, declared: bool = False, parsed: bool = True
) -> bool:
    """Is ``m``, a one-word name opening a sentence, a common word there rather than a name?
    It is an interjection ("Woohoo!", "Awww", "Nah") or a verb's participle ("Acting is my
    passion"); or the parse says so (a noun, verb or adjective, not a proper noun: "Clay is
    incredible", "Kickboxing is a way to…"), or the word is an adjective or adverb of the
    model's lexicon ("Glad you came", "Blue's my fave"). A name a pattern declared ("Frank
    is my brother") is one only by the first two, or by the parse where the model found it
    too ("Dance is my passion"; ``parsed``): a declared name the model did not find is often
    a common noun to the parse and a name all the same ("Stripe is our payment provider")."""
    span = doc.char_span(m.start, m.end)
    if span is None or len(span) != 1 or not _opens_clause(doc, span[0].i):
        return False
    tok = span[0]
    low = tok.lower_
    if low in INTERJECTIONS or lexicon.participle(low):
        return True
    if any(c.isupper() for c in m.text[1:]):
        return False  # "VAT", "GitHub": capitals beyond the first are not the place's
    if parsed and tok.pos_ != "PROPN":
        return True
    if declared:
        return False
    if lexicon.common(low):
        return True
    return _ELONGATED.search(low) is not None


def quoted_titles(text: str) -> list[Mention]:
    """Titles in quotes ("Charlotte's Web", “Little Women”): capitalised words, neither the
    first nor the last a function word (so not "In Review" or "Thank You"), one name."""
    out: list[Mention] = []
    for m in _QUOTED.finditer(text):
        title = m.group(1).strip()
        words = title.split()
        if not looks_like_name(title) or possessive(words[-1]):
            continue
        first, last = words[0].lower(), words[-1].lower()
        if (first in STOP_WORDS and first not in ("the", "a", "an")) or last in STOP_WORDS:
            continue
        start = text.index(title, m.start(1))
        out.append(Mention(title, start, start + len(title), EntityType.CONCEPT, "heuristic"))
    return out


def places(
    doc: Any, found: Sequence[Mention], declared: Sequence[Mention], lexicon: Lexicon
) -> tuple[tuple[int, int], ...]:
    """Spans of the names capitalised by their place (``capitalised_by_place``), found by the
    model or declared by a pattern; a name the tenant knows (the ruler's) is never one."""
    declared_at = {(m.start, m.end) for m in declared}
    known_at = {(m.start, m.end) for m in found if m.source == "ruler"}
    model_at = {(m.start, m.end) for m in found if m.source in ("ner", "heuristic")}
    spans = {
        (m.start, m.end)
        for m in found
        if (m.start, m.end) in model_at
        and capitalised_by_place(doc, m, lexicon, (m.start, m.end) in declared_at)
    }
    spans |= {
        (m.start, m.end)
        for m in declared
        if (m.start, m.end) not in model_at
        and capitalised_by_place(doc, m, lexicon, declared=True, parsed=False)
    }
    return tuple(sorted(spans - known_at))


def _leading_word(doc: Any, i: int) -> bool:
    """A capitalised sentence-initial word like "Email" or "Ask" before a proper noun."""
    first = i == 0 or doc[i - 1].text in {".", "!", "?", "\n", ":"}
    return first and doc[i].lower_ in LEADING and i + 1 < len(doc) and doc[i + 1].pos_ == "PROPN"


def propn_runs(doc: Any) -> list[tuple[int, int, EntityType | None]]:
    """Character spans of proper-noun runs ("Wolf of Blog Street", "the Anderson order")."""
    runs: list[tuple[int, int, EntityType | None]] = []
    i, n = 0, len(doc)
    while i < n:
        tok = doc[i]
        if tok.pos_ != "PROPN" or tok.lower_ in _NOT_NAMES or not tok.text[:1].isalnum():
            i += 1
            continue
        if _leading_word(doc, i):  # "Email Peter later": the verb is not part of the name
            i += 1
            continue
        j = i + 1
        while j < n:
            if doc[j].pos_ == "PROPN" and doc[j].lower_ not in _NOT_NAMES:
                j += 1
            elif (
                doc[j].lower_ in RUN_CONNECTORS
                and j + 1 < n
                and doc[j + 1].pos_ == "PROPN"
                and doc[j + 1].text[:1].isupper()
            ):
                j += 2
            else:
                break
        etype: EntityType | None = None
        after_det = i > 0 and doc[i - 1].lower_ in _DETERMINERS
        if j < n and doc[j].lower_ in _PROJECT_NOUNS and after_det:
            j, etype = j + 1, EntityType.PROJECT
        elif j - i > 1 and doc[j - 1].text == "Project":
            etype = EntityType.PROJECT  # "the Astropy Project", "the Django Project"
        start = doc[i].idx
        if i > 1 and _title_word(doc[i - 1]):  # "brands like Under Armour", "read The Hobbit"
            start = doc[i - 1].idx
        runs.append((start, doc[j - 1].idx + len(doc[j - 1].text), etype))
        i = j
    return runs


def _title_word(tok: Any) -> bool:
    """A capitalised preposition or article inside a sentence: the first word of a name."""
    return (
        tok.text[:1].isupper()
        and tok.text != "I"
        and tok.is_stop
        and tok.pos_ in ("ADP", "DET")
        and not tok.is_sent_start
        and tok.doc[tok.i - 1].text not in (".", "!", "?", ":", ";", '"', "“", "(", "-")
    )
