"""The graph view (`vizGraph`): memories and entities as nodes with a stable layout."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass

import networkx as nx

from core.clock import now
from core.types import MemoryType
from graph.store import GraphStore
from retrieval.scoring import recency_signal

MAX_MEMORIES = 300


@dataclass(frozen=True)
class VizNode:
    id: str
    type: str  # a memory type or an entity type
    kind: str  # memory | entity
    x: float
    y: float
    importance: float
    decay_factor: float
    label: str


@dataclass(frozen=True)
class VizEdge:
    source: str
    target: str
    relation: str
    weight: float


async def viz_graph(
    graph: GraphStore,
    tenant_id: str,
    project_id: str | None = None,
    since: float | None = None,
    until: float | None = None,
    types: Sequence[MemoryType] | None = None,
) -> tuple[list[VizNode], list[VizEdge]]:
    """Current memories (most important first, bounded), their entities and relations."""
    tenant = graph.tenant(tenant_id)
    at = now()
    memories = await tenant.viz_memories(
        at=at, limit=MAX_MEMORIES, project_id=project_id, types=types, since=since, until=until
    )
    entity_ids = sorted({e for m in memories for e in m.entity_ids})
    entities = await tenant.get_entities(entity_ids)
    relations = await tenant.viz_relations(entity_ids)
    g: nx.Graph = nx.Graph()
    edges: list[VizEdge] = []
    for m in memories:
        g.add_node(m.id)
        for e in m.entity_ids:
            g.add_edge(m.id, e, weight=1.0)
            edges.append(VizEdge(m.id, e, "ABOUT", 1.0))
    for source, target, relation in relations:
        g.add_edge(source, target, weight=2.0)
        edges.append(VizEdge(source, target, relation, 2.0))
    g.add_nodes_from(entities)
    layout = await asyncio.to_thread(nx.spring_layout, g, seed=7) if len(g) else {}
    nodes = [
        VizNode(
            id=m.id,
            type=m.type.value,
            kind="memory",
            x=float(layout[m.id][0]),
            y=float(layout[m.id][1]),
            importance=m.importance,
            decay_factor=recency_signal(m, at),
            label=m.content[:80],
        )
        for m in memories
    ]
    nodes += [
        VizNode(
            id=e.id,
            type=e.type.value,
            kind="entity",
            x=float(layout[e.id][0]),
            y=float(layout[e.id][1]),
            importance=1.0,
            decay_factor=1.0,
            label=e.name,
        )
        for e in entities.values()
    ]
    return nodes, edges
