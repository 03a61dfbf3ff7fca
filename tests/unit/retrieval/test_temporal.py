"""Query tense decides whether recency applies; time windows match creation times."""

from __future__ import annotations

import pytest

from core.text import content_hash
from core.types import Memory, MemoryType
from retrieval.temporal import TimeIntent, in_windows, time_intent


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("When did Anna move to Berlin?", TimeIntent.PAST),
        ("What was the budget last year?", TimeIntent.PAST),
        ("What is the current deploy target?", TimeIntent.CURRENT),
        ("Is Peter still at WOBS?", TimeIntent.CURRENT),
        ("Who is Peter?", TimeIntent.NEUTRAL),
        ("what is the website traffic", TimeIntent.NEUTRAL),
    ],
)
def test_time_intent(text: str, intent: TimeIntent) -> None:
    assert time_intent(text) is intent


def test_in_windows_is_half_open() -> None:
    m = Memory(
        id="m",
        tenant_id="t",
        type=MemoryType.FACT,
        content="x",
        created_at=100.0,
        valid_from=100.0,
        content_hash=content_hash("x"),
    )
    assert in_windows(m, [(50.0, 150.0)]) == 1.0
    assert in_windows(m, [(0.0, 100.0)]) == 0.0
    assert in_windows(m, []) == 0.0
