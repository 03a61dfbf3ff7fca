"""The explorer's links between memories, computed from the nodes a view shows.

Four kinds, each bounded to a few per memory so a 5,000-memory view stays drawable:

- ``SUPERSEDES``: the newer version to the one it replaced (both in view).
- ``ENTITY_OVERLAP``: memories about common entities, weight = Jaccard of their entity sets;
  each memory keeps its ``OVERLAP_PER_MEMORY`` strongest. An entity with very many memories
  links them in time order only (a hub would otherwise make a clique).
- ``SAME_SESSION``: consecutive memories of one session.
- ``TEMPORAL_SEQ``: consecutive memories of the tenant's timeline across sessions.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

from core.types import Memory

OVERLAP_PER_MEMORY = 4
HUB_SIZE = 40  # an entity with more memories than this links them as a time chain


@dataclass(frozen=True)
class VizEdge:
    source: str
    target: str
    relation: str
    weight: float
    kind: str = "memory"  # memory | about | entity


def memory_edges(memories: Sequence[Memory]) -> list[VizEdge]:
    ordered = sorted(memories, key=lambda m: (m.created_at, m.id))
    return supersedes(ordered) + entity_overlap(ordered) + sequence(ordered)


def supersedes(memories: Sequence[Memory]) -> list[VizEdge]:
    ids = {m.id for m in memories}
    return [
        VizEdge(m.superseded_by, m.id, "SUPERSEDES", 1.0)
        for m in memories
        if m.superseded_by is not None and m.superseded_by in ids
    ]


def entity_overlap(ordered: Sequence[Memory]) -> list[VizEdge]:
    about: dict[str, list[Memory]] = defaultdict(list)
    for m in ordered:
        for e in m.entity_ids:
            about[e].append(m)
    pairs: set[tuple[str, str]] = set()
    for group in about.values():
        if len(group) > HUB_SIZE:
            pairs.update((a.id, b.id) for a, b in zip(group, group[1:], strict=False))
        else:
            pairs.update((a.id, b.id) for a, b in combinations(group, 2))
    entities = {m.id: set(m.entity_ids) for m in ordered}
    scored = sorted(
        ((_jaccard(entities[a], entities[b]), a, b) for a, b in pairs),
        key=lambda t: (-t[0], t[1], t[2]),
    )
    kept: dict[str, int] = defaultdict(int)
    edges = []
    for weight, a, b in scored:
        if kept[a] < OVERLAP_PER_MEMORY and kept[b] < OVERLAP_PER_MEMORY:
            kept[a] += 1
            kept[b] += 1
            edges.append(VizEdge(a, b, "ENTITY_OVERLAP", round(weight, 4)))
    return edges


def sequence(ordered: Sequence[Memory]) -> list[VizEdge]:
    """Consecutive memories: of one session (``SAME_SESSION``), and across sessions on the
    tenant's timeline (``TEMPORAL_SEQ``, where the session changes)."""
    edges = []
    last_of_session: dict[str, Memory] = {}
    for prev, cur in zip(ordered, ordered[1:], strict=False):
        if cur.session_id is None or cur.session_id != prev.session_id:
            edges.append(VizEdge(prev.id, cur.id, "TEMPORAL_SEQ", 1.0))
    for m in ordered:
        if m.session_id is None:
            continue
        before = last_of_session.get(m.session_id)
        if before is not None:
            edges.append(VizEdge(before.id, m.id, "SAME_SESSION", 1.0))
        last_of_session[m.session_id] = m
    return edges


def _jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 0.0
