"""Sentence splitting and the small word lists the rule extractors share."""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.text import NOT_ABBREVIATION

# A stop, then a capital or a digit: a new sentence; not after a title, an initial or "e.g."
_SPLIT = re.compile(r"(?<=[.!?])" + NOT_ABBREVIATION + r"\s+(?=[\"'(\[]?[A-Z0-9])|\n+|;\s+")
_WORD = re.compile(r"[A-Za-z0-9][\w'&.-]*")

STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "if",
        "then",
        "so",
        "to",
        "of",
        "in",
        "on",
        "at",
        "by",
        "for",
        "with",
        "about",
        "from",
        "into",
        "onto",
        "over",
        "under",
        "up",
        "down",
        "out",
        "off",
        "as",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "am",
        "do",
        "does",
        "did",
        "done",
        "have",
        "has",
        "had",
        "it",
        "its",
        "it's",
        "this",
        "that",
        "these",
        "those",
        "there",
        "here",
        "i",
        "me",
        "my",
        "mine",
        "we",
        "us",
        "our",
        "ours",
        "you",
        "your",
        "yours",
        "he",
        "him",
        "his",
        "she",
        "her",
        "hers",
        "they",
        "them",
        "their",
        "theirs",
        "what",
        "which",
        "who",
        "whom",
        "whose",
        "when",
        "where",
        "why",
        "how",
        "all",
        "any",
        "some",
        "no",
        "not",
        "just",
        "very",
        "really",
        "also",
        "too",
        "can",
        "could",
        "would",
        "should",
        "will",
        "shall",
        "may",
        "might",
        "must",
        "get",
        "got",
        "go",
        "going",
        "gone",
        "make",
        "made",
        "let",
        "lets",
        "let's",
        "thing",
        "things",
        "stuff",
        "something",
        "anything",
        "everything",
        "maybe",
        "probably",
        "please",
        "now",
        "today",
        "later",
        "soon",
        "again",
        "more",
        "most",
        "much",
        "many",
        "one",
        "two",
        "first",
        "last",
        "next",
        "back",
        "still",
        "even",
        "only",
        "well",
    ]
)


@dataclass(frozen=True)
class Sentence:
    text: str
    start: int  # offset in the whole text
    end: int


def split_sentences(text: str) -> list[Sentence]:
    """Sentences (and lines / semicolon clauses) with their offsets in ``text``."""
    out: list[Sentence] = []
    pos = 0
    for piece in [*_SPLIT.split(text)]:
        if piece is None:
            continue
        start = text.find(piece, pos)
        if start < 0:
            start = pos
        stripped = piece.strip()
        if stripped:
            lead = len(piece) - len(piece.lstrip())
            out.append(Sentence(stripped, start + lead, start + lead + len(stripped)))
        pos = start + len(piece)
    return out


def content_words(text: str) -> list[str]:
    """Words that carry meaning: not stopwords, at least 3 characters."""
    return [w for w in _WORD.findall(text) if len(w) >= 3 and w.casefold() not in STOPWORDS]


_PLEASANTRY = re.compile(
    r"^(?:(?:hi|hello|hey|yo|hiya|good (?:morning|afternoon|evening|night)|thanks|thank you"
    r"|thanks (?:a lot|so much)|thank you (?:so much|very much)"
    r"|thx|ty|cheers|ok|okay|k|sure|great|cool|nice|awesome|perfect|got it|sounds good"
    r"|no problem|np|you're welcome|youre welcome|welcome|bye|goodbye|see you|see ya|lol"
    r"|haha|yes|yeah|yep|no|nope|alright|all right|will do|noted|much appreciated"
    r"|appreciate it|have a (?:nice|good|great) (?:day|one|weekend)|how are you"
    r"|i'm fine|im fine|fine|doing well)\b[\s,.!?]*)+(?:\w+[.!?]*)?$",
    re.IGNORECASE,
)


def is_pleasantry(text: str) -> bool:
    """Greetings, thanks and acknowledgements: nothing worth remembering beyond the turn."""
    stripped = text.strip()
    return len(stripped.split()) <= 8 and bool(_PLEASANTRY.match(stripped))
