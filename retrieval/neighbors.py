"""Neighbouring turns: a conversational turn is often meaningful only with the turn before or
after it ("What did you paint?" / "A sunrise."). Around the strongest fused candidates we
look up the nearest earlier and later memory of the same session (the vector index picks
them, ordered by creation time: ``VectorIndex.neighbors``, one batch for all seeds); each
candidate then inherits a share of its best neighbour's relevance, and neighbours join the
candidates."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from vectors.vector_index import NeighborWindow


def windows_for(
    seeds: Sequence[str], payloads: Mapping[str, Mapping[str, Any]], window_s: float
) -> list[NeighborWindow]:
    """Session windows of the seeds that have a session and a creation time."""
    out = []
    for seed in seeds:
        payload = payloads.get(seed) or {}
        session, created = payload.get("session_id"), payload.get("created_at")
        if session and created is not None:
            at = float(created)
            out.append(NeighborWindow(seed, str(session), at, at - window_s, at + window_s))
    return out


def symmetric(links: Mapping[str, Sequence[str]]) -> dict[str, set[str]]:
    """Neighbour links in both directions."""
    out: dict[str, set[str]] = {}
    for seed, others in links.items():
        for other in others:
            out.setdefault(seed, set()).add(other)
            out.setdefault(other, set()).add(seed)
    return out
