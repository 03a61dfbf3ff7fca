"""Which statements are about what a question asks, whatever their words.

The question's slot (``retrieval/slots._by_question``) needs to know which of a result's
statements answer the question. Shared words find "the Boots on Carlton Road gets her repeat
prescriptions" for "who fills my mother's prescriptions?", but not the later "we've moved
mum's repeat scripts over to Wellway Pharmacy", and then the old value leads. So the first
hits' statements that give a value of the kind the question asks for are also compared with
the question by meaning: the embedder's similarity of each sentence to the question. A
statement counts as about the question when it is among the closest of them (within
``MARGIN`` of the closest) and close in itself (``FLOOR``); every other check of
``Focus.relevant`` still applies (it names what the question names, it is not about another
subject of the same kind), and only a statement said as so can hold the current value.

Sentences are embedded as queries are (``Embedder.embed_query``: batched with concurrent
requests, and cached by text, so a sentence read again costs nothing).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

from core.slots import Focus
from core.statements import Statement
from core.types import Hit

# Similarity of each text to the question (cosine; the same order as the texts).
Similar = Callable[[Sequence[str]], Awaitable[list[float]]]
FIRST = 8  # hits whose statements are compared
FLOOR = 0.35  # a statement this close to the question or closer ...
MARGIN = 0.1  # ... and at most this much less close than the closest one
MOST = 24  # statements compared at most (the closest hits' first)


async def close_to(
    hits: Sequence[Hit],
    said: dict[str, list[Statement]],
    focus: Focus,
    similar: Similar,
    by_user: Callable[[Hit], bool],
) -> frozenset[str]:
    """The texts of the statements of the first ``FIRST`` hits (by the user, said as so,
    giving a value of the kind the question asks for) that are about the question by
    meaning. Fewer than two such statements: none (one value has nothing to replace)."""
    texts: list[str] = []
    for h in hits[:FIRST]:
        if h.memory.earlier_until is not None or not by_user(h):
            continue
        for s in said.get(h.memory.id, []):
            if s.slotted and focus.answers(s) and s.text not in texts:
                texts.append(s.text)
    texts = texts[:MOST]
    if len(texts) < 2:
        return frozenset()
    sims = await similar(texts)
    top = max(sims)
    return frozenset(
        t for t, sim in zip(texts, sims, strict=True) if sim >= max(FLOOR, top - MARGIN)
    )
