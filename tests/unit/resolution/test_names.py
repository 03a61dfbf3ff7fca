"""Names cleaned, name shapes, and a document's prose and evidence (``resolution/names.py``)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.types import EntityType
from resolution.names import (
    DocumentNames,
    clean_name,
    looks_like_name,
    mask_markup,
    plausible_name,
)
from resolution.types import Mention


@pytest.mark.parametrize(
    ("said", "name"),
    [
        ("I'm Dana Whitfield", "Dana Whitfield"),
        ("I’m Dana Whitfield", "Dana Whitfield"),
        ("I am Dana Whitfield", "Dana Whitfield"),
        ("Peter’s", "Peter"),
        ("Peter Alvarez's", "Peter Alvarez"),
        ("Dr. Maria Lopez", "Maria Lopez"),
        ("Mrs Hale", "Hale"),
        ("CTO Peter Alvarez", "Peter Alvarez"),
        ("U.S. Steel Co.", "U.S. Steel Co."),
        ("Wolf of Blog Street", "Wolf of Blog Street"),
    ],
)
def test_clean_name(said: str, name: str) -> None:
    assert clean_name(said) == name


@pytest.mark.parametrize(
    "text", ["Grace Hopper", "Wolf of Blog Street", "Brandt & Voss", "O'Neil", "GitHub", "VAT"]
)
def test_names_have_the_shape_of_names(text: str) -> None:
    assert looks_like_name(text)


@pytest.mark.parametrize(
    "text",
    ["½", "≤ 2", "Where", "The", "the id of the", "os.path", "release_id", "HTTP/2", "Python 3"],
)
def test_identifiers_symbols_numbers_and_openers_are_not_names(text: str) -> None:
    assert not looks_like_name(text)


def test_prose_keeps_sentences_and_blanks_code_headings_and_markup() -> None:
    text = (
        "# Release Notes\n\nAsk Grace Hopper about `StopIteration`.\n\n"
        "```python\nclass PoolManager: ...\n```\n\n| Owner | Margaret Hamilton |\n"
        "See [docs](https://example.com/x) and :class:`Session`.\n"
    )
    prose = mask_markup(text)
    assert len(prose) == len(text) and prose.count("\n") >= text.count("\n")
    assert "Grace Hopper" in prose and "Margaret Hamilton" in prose
    for gone in ("Release Notes", "StopIteration", "PoolManager", "example.com", "Session", "|"):
        assert gone not in prose


@given(st.text(alphabet=st.sampled_from("ab C`#|*_\n:.[]()~-="), max_size=200))
def test_prose_has_the_text_length_and_its_lines(text: str) -> None:
    prose = mask_markup(text)
    assert len(prose) == len(text)
    assert all(c == "\n" for c, o in zip(prose, text, strict=True) if o == "\n")


def test_a_document_vouches_for_repeated_or_recognised_names_only() -> None:
    doc = DocumentNames(
        "# Owners\n\nWhere it breaks, ask Kestrel. Then Kestrel fixes it.\n"
        "Where it holds, PoolManager keeps it, as any manager would. Then Grace Hopper agrees. Bugfixes\n"
    )

    def mention(text: str, etype: EntityType | None = None) -> Mention:
        return Mention(text, 0, len(text), etype, "heuristic")

    assert doc.admits(mention("Kestrel"), [])  # twice, inside sentences
    assert not doc.admits(mention("Where"), [])  # twice, but only opening sentences
    assert not doc.admits(mention("PoolManager", EntityType.ORG), [(0, 11, "ORG")])
    assert doc.admits(mention("Grace Hopper", EntityType.PERSON), [(0, 12, "PERSON")])
    assert not doc.admits(mention("Grace Hopper", EntityType.PERSON), [])  # once, no label
    # Labelled, but only ever opening a line: capitalised for that alone.
    assert not doc.admits(mention("Bugfixes", EntityType.ORG), [(0, 8, "ORG")])


def test_a_document_word_identifier_or_term_is_no_name_whatever_the_model_says() -> None:
    doc = DocumentNames(
        "Drop support for Python 2. We drop it because SSL breaks; HTTPError is raised, an error.\n"
        "Update Werkzeug when you update Flask. Ask Margaret Hamilton.\n"
    )

    def labelled(text: str, label: str = "ORG") -> bool:
        return doc.admits(Mention(text, 0, len(text), None, "heuristic"), [(0, len(text), label)])

    assert not labelled("Drop")  # "drop" is a word of this prose
    assert not labelled("Update Werkzeug")
    assert not labelled("SSL") and not labelled("HTTPError")
    assert labelled("Margaret Hamilton", "PERSON") and labelled("Flask")


@pytest.mark.parametrize(("text", "ok"), [("the kids & work", False), ("ya", False),
                                           ("eBay", True), ("Caroline", True)])  # fmt: skip
def test_even_a_turn_needs_a_capital_and_no_function_word_first(text: str, ok: bool) -> None:
    assert plausible_name(text) is ok
