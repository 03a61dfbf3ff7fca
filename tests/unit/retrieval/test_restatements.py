"""A correction turn left out of a context for the statement written out from it
(``retrieval/slots._without_restatements``): the earlier values that followed it follow the
statement, so they still come after a current value and a context keeps them."""

from __future__ import annotations

from typing import Any

from core.statements import statement_id
from core.types import Hit, Memory, MemoryType
from ingest.slots.analysis import statements
from retrieval.slots import _without_restatements
from tests.memories import a_memory


def memory(nlp: Any, text: str, kind: MemoryType, at: float, **extra: Any) -> Memory:
    said = tuple(s.dumps() for s in statements(nlp(text)))
    return a_memory(text, kind, at, statements=said, **extra)


def test_the_earlier_values_after_a_left_out_correction_follow_its_statement(nlp: Any) -> None:
    fix = memory(nlp, "Sorry, wrong sort code. Our sort code is 60-83-72.", MemoryType.EPISODIC, 30)
    said = [s for s in statements(nlp(fix.content)) if s.values]
    stand_in = memory(
        nlp,
        "Our sort code is 60-83-72.",
        MemoryType.FACT,
        30,
        id=statement_id(fix.id, said[0].start),
    )
    old = memory(
        nlp,
        "Bank details: sort code 60-83-71, account 24817733.",
        MemoryType.EPISODIC,
        0,
        earlier_until=30.0,
    )
    other = memory(nlp, "Noted the bank details.", MemoryType.EPISODIC, 0)
    hits = [Hit(memory=m, score=1.0 - i / 10) for i, m in enumerate([fix, old, other, stand_in])]
    kept = [h.memory.id for h in _without_restatements(hits)]
    assert fix.id not in kept  # the correction says nothing its statement does not
    assert kept == [other.id, stand_in.id, old.id]  # the earlier value right after it
