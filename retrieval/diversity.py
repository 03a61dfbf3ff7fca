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
    # Sets built once per hit. Overlap above a non-negative threshold needs a shared entity
    # (or both sets empty), so each hit is compared only with the kept hits that share one:
    # the all-pairs loop cost ~5 ms per search over ~160 candidates.
    kept: list[tuple[frozenset[str], frozenset[str]]] = []  # (entity ids, words)
    by_entity: dict[str, list[int]] = {}  # entity id -> indexes into kept
    no_entity: list[int] = []
    out: list[Hit] = []
    for hit in ordered:
        entities = frozenset(hit.memory.entity_ids)
        words = word_set(hit.memory.content)
        near: Sequence[int]
        if entity_threshold < 0:
            near = range(len(kept))
        elif entities:
            near = sorted({k for e in entities for k in by_entity.get(e, ())})
        else:
            near = no_entity
        duplicate = any(
            _entity_overlap(entities, kept[k][0]) > entity_threshold
            and jaccard(words, kept[k][1]) >= text_threshold
            for k in near
        )
        if duplicate:
            signals = {**hit.signals, "diversity_penalty": penalty}
            hit = hit.model_copy(update={"score": hit.score * penalty, "signals": signals})
        else:
            for e in entities:
                by_entity.setdefault(e, []).append(len(kept))
            if not entities:
                no_entity.append(len(kept))
            kept.append((entities, words))
        out.append(hit)
    return sorted(out, key=lambda h: h.score, reverse=True)
