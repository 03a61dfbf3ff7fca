"""Reciprocal-rank fusion over independent retrieval paths.

Each path ranks its own candidates; a candidate's fused score is Σ_paths w_p / (k + rank_p),
over the paths that found it. Paths never compete for one top-k, so a memory found only by
keywords or only through an entity still gets a full-strength contribution from that path.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def rrf(
    ranked: Mapping[str, Sequence[str]], k: int, weights: Mapping[str, float] | None = None
) -> dict[str, float]:
    """Fused scores of every id in any path (a duplicate within a path counts once, best rank).

    >>> scores = rrf({"A": ["x", "y"], "B": ["y"]}, k=60)
    >>> max(scores, key=scores.get)
    'y'
    """
    scores: dict[str, float] = {}
    for path, ids in ranked.items():
        weight = 1.0 if weights is None else weights.get(path, 1.0)
        seen: set[str] = set()
        rank = 0
        for item in ids:
            if item in seen:
                continue
            seen.add(item)
            rank += 1
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
    return scores


def normalized(scores: Mapping[str, float]) -> dict[str, float]:
    """Scores over their maximum (all 0 stays 0)."""
    top = max(scores.values(), default=0.0)
    if top <= 0:
        return {key: 0.0 for key in scores}
    return {key: value / top for key, value in scores.items()}


def paths_of(ranked: Mapping[str, Sequence[str]]) -> dict[str, tuple[str, ...]]:
    """For each id, the paths that found it, in the order the paths are given."""
    out: dict[str, list[str]] = {}
    for path, ids in ranked.items():
        for item in dict.fromkeys(ids):
            out.setdefault(item, []).append(path)
    return {key: tuple(value) for key, value in out.items()}
