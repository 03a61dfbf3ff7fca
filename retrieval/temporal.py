"""Time in queries: what the question's tense says about recency, and explicit time windows.

A question about a past event ("When did Anna move?", "What did we decide last week?")
wants the memory of that event however old it is, so recency must not rank it down; a
question about the present ("What is the current deploy target?", "Who is Peter?") wants
the latest version. ``time_intent`` reads this from auxiliaries and time words only (no
parser, no per-question rules). Explicit expressions ("last Saturday", "in May 2023") are
resolved by resolution/ against the turn time and arrive as ``SearchQuery.time_windows``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from enum import StrEnum

from core.types import Memory


class TimeIntent(StrEnum):
    PAST = "past"  # an event in the past: no recency preference
    CURRENT = "current"  # the present state: recency applies
    NEUTRAL = "neutral"  # no signal either way: recency applies


_PAST = re.compile(
    r"\b(did|was|were|had|went|used to|ago|last|yesterday|previously|earlier|before|"
    r"back then|happened|first time)\b",
    re.IGNORECASE,
)
_CURRENT = re.compile(
    r"\b(current|currently|now|nowadays|latest|today|these days|at the moment|still)\b",
    re.IGNORECASE,
)


def time_intent(text: str) -> TimeIntent:
    """PAST when the text speaks of the past and not explicitly of the present."""
    if _CURRENT.search(text):
        return TimeIntent.CURRENT
    if _PAST.search(text):
        return TimeIntent.PAST
    return TimeIntent.NEUTRAL


def in_windows(memory: Memory, windows: Sequence[tuple[float, float]]) -> float:
    """1.0 when the memory was created inside one of the [start, end) windows, else 0."""
    return 1.0 if any(lo <= memory.created_at < hi for lo, hi in windows) else 0.0
