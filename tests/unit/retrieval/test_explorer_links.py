"""The explorer's memory links (retrieval/explorer_links.py) and the layout's placement and alignment
(ingest/lifecycle/layout.py): pure functions, no engines."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from core.text import content_hash
from core.types import Memory, MemoryType
from ingest.lifecycle.layout import align, place_new
from retrieval.explorer_links import HUB_SIZE, OVERLAP_PER_MEMORY, memory_edges


def mem(
    mid: str, at: float, session: str | None, entities: tuple[str, ...] = (), **kw: object
) -> Memory:
    return Memory(
        id=mid, tenant_id="t", type=MemoryType.FACT, content=mid, created_at=at, valid_from=at,
        content_hash=content_hash(mid), session_id=session, entity_ids=entities, **kw,  # type: ignore[arg-type]
    )  # fmt: skip


def relations(edges: list) -> set[tuple[str, str, str]]:  # type: ignore[type-arg]
    return {(e.source, e.target, e.relation) for e in edges}


def test_the_four_links() -> None:
    edges = memory_edges(
        [
            mem("a", 1, "s1", ("x",), superseded_by="d"),
            mem("b", 2, "s1", ("x", "y")),
            mem("c", 3, "s2"),
            mem("d", 4, "s1", ("x",), supersedes="a"),
        ]
    )
    assert relations(edges) == {
        ("d", "a", "SUPERSEDES"),
        ("a", "b", "SAME_SESSION"),
        ("b", "d", "SAME_SESSION"),
        ("b", "c", "TEMPORAL_SEQ"),
        ("c", "d", "TEMPORAL_SEQ"),
        ("a", "b", "ENTITY_OVERLAP"),
        ("a", "d", "ENTITY_OVERLAP"),
        ("b", "d", "ENTITY_OVERLAP"),
    }
    weights = {(e.source, e.target): e.weight for e in edges if e.relation == "ENTITY_OVERLAP"}
    assert weights[("a", "b")] == 0.5 and weights[("a", "d")] == 1.0


def test_overlap_is_bounded_per_memory_and_hubs_become_chains() -> None:
    many = [mem(f"m{i:03}", i, None, ("hub",)) for i in range(HUB_SIZE + 10)]
    overlap = [e for e in memory_edges(many) if e.relation == "ENTITY_OVERLAP"]
    assert len(overlap) == len(many) - 1  # a time chain, not a clique
    few = [mem(f"m{i}", i, None, ("e",)) for i in range(10)]
    degree: dict[str, int] = {}
    for e in memory_edges(few):
        if e.relation == "ENTITY_OVERLAP":
            degree[e.source] = degree.get(e.source, 0) + 1
            degree[e.target] = degree.get(e.target, 0) + 1
    assert max(degree.values()) <= OVERLAP_PER_MEMORY


@settings(deadline=None)  # the first call imports scipy
@given(st.floats(0, 2 * math.pi), st.floats(-50, 50))
def test_align_undoes_a_rotation_and_shift(angle: float, shift: float) -> None:
    rng = np.random.default_rng(1)
    old = {f"p{i}": tuple(rng.normal(size=3) * 50) for i in range(20)}
    c, s = math.cos(angle), math.sin(angle)
    rotation = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])
    new = {i: tuple(np.asarray(p) @ rotation + shift) for i, p in old.items()}
    aligned, moved = align(new, old)  # type: ignore[arg-type]
    assert moved < 0.01
    assert all(math.dist(aligned[i], old[i]) < 0.01 for i in old)


def test_a_new_point_lands_among_its_nearest_anchors() -> None:
    rng = np.random.default_rng(2)
    a, b = rng.normal(size=16), rng.normal(size=16)
    vectors = {"a1": a, "a2": a + 0.01, "b1": b, "b2": b + 0.01}
    anchors = {"a1": (0.0, 0.0, 0.0), "a2": (1.0, 0.0, 0.0), "b1": (100.0, 0.0, 0.0),
               "b2": (101.0, 0.0, 0.0)}  # fmt: skip
    placed = place_new({"new": (a + 0.005).astype(np.float32)}, vectors, anchors)  # type: ignore[arg-type]
    assert placed["new"][0] < 2  # between a1 and a2, nothing from the b pair
