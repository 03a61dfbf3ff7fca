"""Validation of model output: JSON (bare or fenced) against the schema; junk is refused."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from ingest.jobs.llm import parse_extraction


def test_fenced_and_bare_json_are_accepted() -> None:
    bare = parse_extraction('{"items": [{"type": "fact", "content": "Peter writes."}]}')
    fenced = parse_extraction(
        'Sure!\n```json\n{"items": [{"type": "task", "content": "Do X"}]}\n```'
    )
    assert bare.items[0].type == "fact" and bare.items[0].confidence == 0.7
    assert fenced.items[0].content == "Do X"


@pytest.mark.parametrize(
    "text",
    [
        "no json here",
        '{"items": [{"type": "rumour", "content": "Peter quit"}]}',
        '{"items": [{"type": "fact", "content": "x", "confidence": 7}]}',
        '{"items": "not a list"}',
    ],
)
def test_junk_is_refused(text: str) -> None:
    with pytest.raises((ValueError, ValidationError)):
        parse_extraction(text)
