"""Choosing among same-named candidates purely by context.

The context is the text with the ambiguous name (and its possessive) cut out, so the name
itself — shared by every candidate — cannot sway the score. Each candidate is scored by the
cosine between that context and its profile embedding. Frequency, recency and creation order
play no part. When the best score is too low, or the best two are closer than the margin, the
answer is a clarification, never a guess.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from core.types import Entity

# Words that say nothing about who someone is: talking to them, and when. A context made only
# of these (and stop words) cannot separate candidates, however the cosines happen to fall.
_GENERIC = frozenset(
    {"call", "calls", "called", "calling", "tell", "told", "email", "emailed", "mail", "text",
     "message", "ping", "remind", "reminder", "ask", "asked", "say", "said", "says", "hello",
     "hi", "hey", "thanks", "thank", "meet", "met", "see", "talk", "speak", "spoke", "chat",
     "contact", "reach", "write", "later", "soon", "tomorrow", "today", "tonight", "yesterday",
     "morning", "afternoon", "evening", "night", "week", "weekend", "month", "monday",
     "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "please", "ok",
     "okay", "need", "want", "let", "know", "check", "again", "back", "quick", "quickly"}
)  # fmt: skip
_WORDS = re.compile(r"[a-z]+")


def informative(context: str) -> bool:
    """Does the context carry any word that could describe someone (not just "call X")?"""
    from spacy.lang.en.stop_words import STOP_WORDS

    words = _WORDS.findall(context.lower())
    return any(w not in STOP_WORDS and w not in _GENERIC and len(w) > 2 for w in words)


@dataclass(frozen=True)
class Scored:
    entity: Entity
    score: float


def context_without(text: str, names: Sequence[str], placeholder: str = "") -> str:
    """``text`` with every occurrence of ``names`` (and a following "'s") replaced by
    ``placeholder`` (removed by default: a stand-in word such as "someone" measured worse)."""
    out = text
    for name in sorted(set(names), key=len, reverse=True):
        pattern = rf"(?<!\w){re.escape(name)}(?:['’]s)?(?!\w)"
        out = re.sub(pattern, f" {placeholder} ", out, flags=re.I)
    return re.sub(r"\s+", " ", out).strip()


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=False))
    na = math.sqrt(sum(x * x for x in a))
    nb = math.sqrt(sum(y * y for y in b))
    return dot / (na * nb) if na and nb else 0.0


def rank_by_context(context: Sequence[float], candidates: Sequence[Entity]) -> list[Scored]:
    """Candidates by cosine to the context, best first; ties broken by id (stable, neutral)."""
    scored = [
        Scored(c, cosine(context, c.profile_embedding) if c.profile_embedding else 0.0)
        for c in candidates
    ]
    return sorted(scored, key=lambda s: (-s.score, s.entity.id))


def decide(ranked: Sequence[Scored], margin: float, floor: float) -> Scored | None:
    """The winner if it is clear (above ``floor`` and ``margin`` ahead), else None."""
    if not ranked:
        return None
    best = ranked[0]
    if best.score < floor:
        return None
    if len(ranked) > 1 and best.score - ranked[1].score < margin:
        return None
    return best
