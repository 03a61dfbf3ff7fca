"""Structure-aware chunking: bounds, atomic blocks, overlap (with property-based checks)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from core.settings import IngestSettings
from core.tokens import token_counter
from ingest.extract.chunking import blocks_of, chunk_text

S = IngestSettings()
count = token_counter().count


def prose(n: int, word: str = "backlinks") -> str:
    return " ".join(f"Sentence {i} is about {word} and outreach for the client." for i in range(n))


def test_blocks_keep_code_lists_and_headings() -> None:
    text = "# A\n\npara one\n\n```py\nx = 1\n\ny = 2\n```\n\n- one\n- two\n  more\n\n## B\n\nend"
    kinds = [(b.kind, b.heading) for b in blocks_of(text)]
    assert kinds == [
        ("heading", "A"),
        ("paragraph", "A"),
        ("code", "A"),
        ("list", "A"),
        ("heading", "A > B"),
        ("paragraph", "A > B"),
    ]
    code = next(b for b in blocks_of(text) if b.kind == "code")
    assert code.text == "```py\nx = 1\n\ny = 2\n```"  # a blank line inside does not split it


def test_chunks_are_within_bounds_and_overlap() -> None:
    chunks = chunk_text(f"# Guide\n\n{prose(120)}", S)
    assert len(chunks) >= 3
    assert all(count(c.text) <= S.chunk_max_tokens for c in chunks)
    assert all(count(c.text) >= S.chunk_min_tokens for c in chunks[:-1])
    for prev, nxt in zip(chunks, chunks[1:], strict=False):
        assert nxt.overlap_tokens > 0
        assert nxt.overlap_tokens <= 2 * int(S.chunk_max_tokens * S.chunk_overlap)
        lead = nxt.text.split("\n\n")[0]  # the repeated tail of the previous chunk
        assert lead in prev.text


def test_a_heading_starts_a_new_chunk_once_the_minimum_is_reached() -> None:
    text = f"# One\n\n{prose(30)}\n\n# Two\n\n{prose(30, 'invoices')}"
    chunks = chunk_text(text, S)
    assert chunks[1].heading == "Two" and "# Two" in chunks[1].text


def test_a_code_block_is_never_split_even_when_large() -> None:
    code = "```\n" + "\n".join(f"run step {i} --flag" for i in range(70)) + "\n```"
    chunks = chunk_text(f"{prose(10)}\n\n{code}\n\n{prose(10)}", S)
    holders = [c for c in chunks if "run step 0 " in c.text]
    assert len(holders) == 1 and "run step 69 --flag\n```" in holders[0].text


@settings(max_examples=25, deadline=None)
@given(st.lists(st.sampled_from(["para", "code", "list", "head"]), min_size=1, max_size=25))
def test_any_document_chunks_within_the_maximum(parts: list[str]) -> None:
    pieces = {
        "para": prose(8),
        "code": "```\n" + "\n".join(f"x{i} = {i}" for i in range(20)) + "\n```",
        "list": "\n".join(f"- item {i} of the checklist" for i in range(10)),
        "head": "## Section",
    }
    text = "\n\n".join(pieces[p] for p in parts)
    chunks = chunk_text(text, S)
    assert chunks
    assert all(count(c.text) <= S.chunk_max_tokens for c in chunks)
    joined = "\n".join(c.text for c in chunks)
    for p in set(parts):
        if p in ("code", "list"):
            assert pieces[p] in joined  # atomic blocks survive intact
