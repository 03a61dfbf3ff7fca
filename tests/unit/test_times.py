"""Temporal expressions resolved against the turn's time."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.times import dated, find_times

# Wednesday 18 January 2023, 15:00 UTC
AT = datetime(2023, 1, 18, 15, tzinfo=UTC).timestamp()


def day(y: int, m: int, d: int) -> float:
    return datetime(y, m, d, tzinfo=UTC).timestamp()


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("Peter delivered last Saturday", day(2023, 1, 14), day(2023, 1, 15)),
        ("we spoke yesterday", day(2023, 1, 17), day(2023, 1, 18)),
        ("due tomorrow", day(2023, 1, 19), day(2023, 1, 20)),
        ("two weeks ago", day(2023, 1, 4), day(2023, 1, 11)),
        ("3 days ago", day(2023, 1, 15), day(2023, 1, 16)),
        ("in March", day(2022, 3, 1), day(2022, 4, 1)),  # the latest March that has begun
        ("in January", day(2023, 1, 1), day(2023, 2, 1)),
        ("in March 2024", day(2024, 3, 1), day(2024, 4, 1)),
        ("on 2023-01-02 we met", day(2023, 1, 2), day(2023, 1, 3)),
        ("signed March 3, 2021", day(2021, 3, 3), day(2021, 3, 4)),
        ("signed 3rd of March 2021", day(2021, 3, 3), day(2021, 3, 4)),
        ("next Monday", day(2023, 1, 23), day(2023, 1, 24)),
        ("last week", day(2023, 1, 9), day(2023, 1, 16)),
        ("last month", day(2022, 12, 1), day(2023, 1, 1)),
        ("a month ago", day(2022, 12, 1), day(2023, 1, 1)),
        ("in 2019", day(2019, 1, 1), day(2020, 1, 1)),
    ],
)
def test_expressions(text: str, start: float, end: float) -> None:
    found = find_times(text, AT)
    assert len(found) == 1
    assert (found[0].start, found[0].end) == (start, end)
    assert found[0].text.lower() in text.lower()


def test_several_in_text_order_and_invalid_dates_ignored() -> None:
    found = find_times("Yesterday, not February 30, 2023, and last Friday", AT)
    assert [t.text for t in found] == ["Yesterday", "last Friday"]


def test_same_text_later_means_other_days() -> None:
    later = AT + 7 * 86_400
    assert (
        find_times("yesterday", later)[0].start == find_times("yesterday", AT)[0].start + 7 * 86_400
    )


@given(st.text(max_size=200), st.floats(min_value=0, max_value=4e9))
def test_never_raises_and_spans_are_ordered(text: str, at: float) -> None:
    for t in find_times(text, at):
        assert t.start < t.end
        assert t.text in text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("we went yesterday", "we went yesterday [2023-01-17]"),
        ("Peter delivered last Saturday.", "Peter delivered last Saturday [2023-01-14]."),
        ("moved here 3 years ago", "moved here 3 years ago [2020]"),
        (
            "busy last week, free next week",
            "busy last week [week of 2023-01-09], free next week [week of 2023-01-23]",
        ),
        ("last month", "last month [December 2022]"),
        # the day it was said, and what may be either side of it, stay as said
        ("today is fine", "today is fine"),
        ("we meet on Monday", "we meet on Monday"),
        ("the launch is in March", "the launch is in March"),
        ("since January 5, 2023", "since January 5, 2023"),
    ],
)
def test_relative_days_are_dated_beside_the_words(text: str, expected: str) -> None:
    assert dated(text, AT) == expected
