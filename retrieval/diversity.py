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


def _entity_overlap(a: frozenset[str], b: frozenset[str]) -> float:
    if not a and not b:
        return 1.0
    return jaccard(a, b)


def diversify(
    hits: Sequence[Hit], entity_threshold: float, text_threshold: float, penalty: float
) -> list[Hit]:
    """``hits`` sorted by score, near-duplicates of a higher hit penalized and re-sorted."""
    ordered = sorted(hits, key=lambda h: h.score, reverse=True)
    # Sets built once per hit, not once per pair (the loop is quadratic in the hits).
    kept: list[tuple[frozenset[str], frozenset[str]]] = []  # (entity ids, words)
    out: list[Hit] = []
    for hit in ordered:
        entities = frozenset(hit.memory.entity_ids)
        words = word_set(hit.memory.content)
        duplicate = any(
            _entity_overlap(entities, other_entities) > entity_threshold
            and jaccard(words, other_words) >= text_threshold
            for other_entities, other_words in kept
        )
        if duplicate:
            signals = {**hit.signals, "diversity_penalty": penalty}
            hit = hit.model_copy(update={"score": hit.score * penalty, "signals": signals})
        else:
            kept.append((entities, words))
        out.append(hit)
    return sorted(out, key=lambda h: h.score, reverse=True)
