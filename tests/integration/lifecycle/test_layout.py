"""The layout job on the real engines and embedder: UMAP places a tenant's memories in 3D by
meaning, stores the positions, and places later memories without moving the old ones."""

from __future__ import annotations

import math

import pytest

from api.brain import Brain
from core.lifecycle_types import JobName
from core.types import NewMemory
from graph.viz_ops import Point
from ingest.lifecycle.layout import RADIUS

pytestmark = pytest.mark.integration

SERVERS = [
    f"The {name} server in {place} runs the nightly deploy"
    for name in ("staging", "build", "api", "database", "cache")
    for place in ("Frankfurt", "Dublin", "Oregon", "Tokyo")
]
COOKING = [
    f"{dish} tastes best with {herb}"
    for dish in ("Tomato soup", "Roast potato", "Pasta sauce", "Lentil stew", "Omelette")
    for herb in ("basil", "rosemary", "thyme", "parsley")
]


def _centroid(points: list[Point]) -> Point:
    n = len(points)
    return (
        sum(p[0] for p in points) / n,
        sum(p[1] for p in points) / n,
        sum(p[2] for p in points) / n,
    )


async def _layout(brain: Brain, tenant_id: str) -> dict[str, int]:
    report = await brain.lifecycle.consolidate(tenant_id, [JobName.LAYOUT])
    run = report.runs[0]
    assert run.status.value == "done", run.error
    return dict(run.counts)


async def test_layout_groups_by_meaning_and_new_memories_leave_old_ones_in_place(
    brain: Brain, tenant_id: str
) -> None:
    stored = await brain.memories.remember_many(
        tenant_id, [NewMemory(content=c) for c in SERVERS + COOKING]
    )
    topic = {m.id: ("servers" if m.content in SERVERS else "cooking") for m in stored}
    first = await _layout(brain, tenant_id)
    assert first["placed"] == 40 and first["fitted"] == 40
    positions = dict(await brain.graph.tenant(tenant_id).layout_state())
    assert all(p is not None for p in positions.values())
    centre = {
        t: _centroid([p for i, p in positions.items() if topic[i] == t and p])
        for t in ("servers", "cooking")
    }
    nearer_own = sum(
        math.dist(p, centre[topic[i]]) < math.dist(p, centre[_other(topic[i])])
        for i, p in positions.items()
        if p
    )
    assert nearer_own >= 36  # UMAP kept the two topics apart
    assert max(math.dist(p, (0, 0, 0)) for p in positions.values() if p) < 3 * RADIUS

    new = await brain.memories.remember(
        tenant_id, NewMemory(content="Pumpkin soup tastes best with sage")
    )
    second = await _layout(brain, tenant_id)
    assert second["placed"] == 1 and second["fitted"] == 0 and second["moved_max_pct"] == 0
    after = dict(await brain.graph.tenant(tenant_id).layout_state())
    assert all(after[i] == p for i, p in positions.items())  # old points did not move
    placed = after[new.id]
    assert placed is not None
    assert math.dist(placed, centre["cooking"]) < math.dist(placed, centre["servers"])
    third = await _layout(brain, tenant_id)
    assert third["placed"] == 0


def _other(topic: str) -> str:
    return "cooking" if topic == "servers" else "servers"
