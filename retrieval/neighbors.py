"""Neighbouring turns: a conversational turn is often meaningful only with the turn before or
after it ("What did you paint?" / "A sunrise."). Around the strongest fused candidates we
look up the nearest earlier and later memory of the same session; each candidate then
inherits a share of its best neighbour's relevance, and neighbours join the candidates."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from graph.retrieval_ops import NeighborWindow
from graph.tenant import TenantGraph


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
            out.append(NeighborWindow(seed, str(session), at - window_s, at + window_s))
    return out


async def adjacent(
    tenant: TenantGraph, windows: Sequence[NeighborWindow]
) -> dict[str, tuple[str, ...]]:
    """For each seed, its nearest earlier and nearest later memory in the session window."""
    found = await tenant.session_neighbors(windows)
    centers = {w.seed: (w.lo + w.hi) / 2 for w in windows}
    out: dict[str, tuple[str, ...]] = {}
    for seed, rows in found.items():
        center = centers[seed]
        before = [r for r in rows if r[1] < center]
        after = [r for r in rows if r[1] > center]
        pick = []
        if before:
            pick.append(max(before, key=lambda r: r[1])[0])
        if after:
            pick.append(min(after, key=lambda r: r[1])[0])
        out[seed] = tuple(pick)
    return out


def symmetric(links: Mapping[str, Sequence[str]]) -> dict[str, set[str]]:
    """Neighbour links in both directions."""
    out: dict[str, set[str]] = {}
    for seed, others in links.items():
        for other in others:
            out.setdefault(seed, set()).add(other)
            out.setdefault(other, set()).add(seed)
    return out
