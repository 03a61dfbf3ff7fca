"""Offline token counting: exact for the packaged tokenizer, additive over lines."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from core.tokens import token_counter

COUNTER = token_counter()
text = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs", "Cc"]), max_size=200)


def test_known_counts() -> None:
    assert COUNTER.count("") == 0
    assert COUNTER.count("Peter is a writer at WOBS") == 7
    assert token_counter() is COUNTER  # loaded once


@given(st.lists(text, max_size=6))
def test_counts_add_up_over_lines(lines: list[str]) -> None:
    assert COUNTER.count("\n".join(lines)) == sum(COUNTER.count(x) for x in lines)


@given(text, st.integers(0, 50))
def test_truncate_respects_the_limit(value: str, n: int) -> None:
    cut = COUNTER.truncate(value, n)
    assert COUNTER.count(cut) <= n and value.startswith(cut)
