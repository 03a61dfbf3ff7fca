"""Diversity: push a near-duplicate of a higher-ranked hit down.

Two memories are near-duplicates when the entities they are about overlap strongly (Jaccard
above a threshold; two memories about no entity count as overlapping) and their texts share
most of their words. The lower one keeps its place in the list only if its penalized score
still beats the hits after it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from core.types import Hit
from retrieval.scoring import jaccard

_WORD = re.compile(r"\w+")


def word_set(text: str) -> frozenset[str]:
    return frozenset(w.casefold() for w in _WORD.findall(text))


def _entity_overlap(a: Hit, b: Hit) -> float:
    if not a.memory.entity_ids and not b.memory.entity_ids:
        return 1.0
    return jaccard(a.memory.entity_ids, b.memory.entity_ids)


def diversify(
    hits: Sequence[Hit], entity_threshold: float, text_threshold: float, penalty: float
) -> list[Hit]:
    """``hits`` sorted by score, near-duplicates of a higher hit penalized and re-sorted."""
    ordered = sorted(hits, key=lambda h: h.score, reverse=True)
    kept: list[tuple[Hit, frozenset[str]]] = []
    out: list[Hit] = []
    for hit in ordered:
        words = word_set(hit.memory.content)
        duplicate = any(
            _entity_overlap(hit, other) > entity_threshold
            and jaccard(words, other_words) >= text_threshold
            for other, other_words in kept
        )
        if duplicate:
            signals = {**hit.signals, "diversity_penalty": penalty}
            hit = hit.model_copy(update={"score": hit.score * penalty, "signals": signals})
        else:
            kept.append((hit, words))
        out.append(hit)
    return sorted(out, key=lambda h: h.score, reverse=True)
