"""Names cleaned, name shapes, and a document's prose and evidence (``resolution/names.py``)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.types import EntityType
from resolution.names import (
    DocumentNames,
    clean_name,
    handles,
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
        ("GP Dr Amara Osei", "Amara Osei"),  # an honorific starts the name
        ("Dr", "Dr"),
        ("U.S. Steel Co.", "U.S. Steel Co."),
        ("Wolf of Blog Street", "Wolf of Blog Street"),
        ("Jo!", "Jo"),
        ('"The Lean Startup', "The Lean Startup"),
        ("the Astropy Project", "Astropy Project"),
        ("James'", "James"),
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
    # A line break stays one, or joins a paragraph's wrapped lines as a space.
    assert all(c in "\n " for c, o in zip(prose, text, strict=True) if o == "\n")


def test_a_paragraphs_wrapped_lines_are_one_line_of_prose() -> None:
    text = (
        "The main person is Anders\nHejlsberg now.\n\n- one item\n- another\n| a | b |\n| c | d |\n"
    )
    prose = mask_markup(text)
    assert "Anders Hejlsberg now." in prose
    assert "one item\n" in prose  # the next line is a list item of its own
    assert "\n\n" in prose


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
                                           ("eBay", True), ("Caroline", True), ("Last Fri", False),
                                           ("Friday", False), ("Fridman", True)])  # fmt: skip
def test_even_a_turn_needs_a_capital_and_no_function_word_first(text: str, ok: bool) -> None:
    assert plausible_name(text) is ok


def test_a_restructuredtext_links_words_are_prose() -> None:
    prose = mask_markup("Sourced from the `Mozilla trust store`_ and `Rust RFC <https://x.y>`_.")
    assert "Mozilla trust store" in prose and "Rust RFC" in prose
    assert "https" not in prose and "`" not in prose


def test_a_tilde_underlined_heading_opens_no_code_block() -> None:
    """reStructuredText underlines headings with tildes too: the prose after "Rust\\n~~~~"
    is prose, not the inside of a fence running to the next tilde line."""
    text = "Rust\n~~~~\n\nDecisions are held at Microsoft by Anders Hejlsberg.\n\nDjango\n~~~~~~\n"
    prose = mask_markup(text)
    assert "held at Microsoft by Anders Hejlsberg" in prose
    fenced = "Example:\n~~~\nclass Kestrel: ...\n~~~\nThen Grace Hopper came.\n"
    prose = mask_markup(fenced)
    assert "Kestrel" not in prose and "Grace Hopper" in prose


def test_a_word_that_ends_a_longer_name_is_that_name_said_short() -> None:
    doc = DocumentNames(
        "Votes go to the Technical Board, and the Board decides. Flask CLI runs Flask apps.\n"
        "The OpenStack Foundation hosts it; the Foundation pays for it.\n"
    )
    assert doc.short_form("Board") and doc.short_form("Foundation")
    assert not doc.short_form("Flask")  # it starts "Flask CLI", it ends none


def test_a_word_is_its_own_name_only_where_no_capitalised_word_follows() -> None:
    doc = DocumentNames(
        "Django had two leaders: Jacob Kaplan-Moss and Adrian Holovaty. Then Django grew, "
        "and the Django Project kept the Digest Auth scheme. The project mounts a Transport "
        "Adapter; an adapter sends.\n"
    )
    assert doc.evidence("Jacob") == (0, False)  # only ever the first word of a full name
    assert doc.evidence("Digest") == (0, False)
    assert doc.evidence("Django")[0] == 1  # "Then Django grew"; not "the Django Project"
    mention = Mention("Django Project", 0, 14, EntityType.ORG, "heuristic")
    assert doc.admits(mention, [(0, 14, "ORG")])  # "project" is prose, "Django" a name
    adapter = Mention("Transport Adapter", 0, 17, EntityType.ORG, "heuristic")
    assert not doc.admits(adapter, [(0, 17, "ORG")])  # "adapter" is prose, "Transport" too


def test_a_documents_handles_are_people_it_names() -> None:
    text = "Special thanks to @bastimeyer and @Lukasa; mail dana@example.com.\n"
    found = handles(mask_markup(text))
    assert [m.text for m in found] == ["@bastimeyer", "@Lukasa"]
    assert all(m.entity_type is EntityType.PERSON for m in found)
    doc = DocumentNames(text)
    assert all(doc.admits(m, []) for m in found)
    assert plausible_name("@bastimeyer") and not plausible_name("bastimeyer")
