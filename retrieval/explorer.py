"""The explorer's graph (`vizGraph`): memories with their stored 3D layout and validity
intervals, the four kinds of links between them, and their entities with relations.

One request serves a whole scrub: with ``history`` the nodes are every version ever stored,
each with ``valid_from``/``superseded_at``/``expires_at``, so the client shows the state at
any instant without asking again; ``as_of`` asks the server for the state at one instant.
Large tenants get a stable sample of ``limit`` memories (see cypher/viz_memories.cypher).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from core.clock import NEVER, now
from core.decay import HALF_LIFE_DAYS
from core.errors import InvalidInput
from core.types import Entity, Memory, MemoryType
from graph.store import GraphStore
from graph.viz_ops import Point
from retrieval.explorer_links import VizEdge, memory_edges
from retrieval.scoring import recency_signal

DEFAULT_LIMIT = 2_000
MAX_LIMIT = 10_000
UNPLACED_RADIUS = 20.0  # memories the layout job has not placed yet sit in this ball


@dataclass(frozen=True)
class VizNode:
    id: str
    type: str  # a memory type or an entity type
    kind: str  # memory | entity
    position: Point
    laid_out: bool  # False: not yet placed by the layout job (a stand-in position)
    importance: float
    decay_factor: float
    label: str
    valid_from: float | None = None
    superseded_at: float | None = None
    expires_at: float | None = None
    created_at: float | None = None
    half_life_days: float | None = None  # None: never decays
    session_id: str | None = None
    project_id: str | None = None
    entity_ids: tuple[str, ...] = ()
    content: str = ""
    provisional: bool = False  # an entity that is an open identity question


@dataclass(frozen=True)
class VizView:
    nodes: list[VizNode]
    edges: list[VizEdge]
    total: int  # memories matched before the limit
    sampled: bool


@dataclass(frozen=True)
class VizQuery:
    project_id: str | None = None
    since: float | None = None
    until: float | None = None
    as_of: float | None = None
    history: bool = False
    types: Sequence[MemoryType] | None = None
    limit: int = DEFAULT_LIMIT
    about: bool = True  # memory -> entity links (a node's entity_ids say the same)

    def checked(self) -> VizQuery:
        if not 1 <= self.limit <= MAX_LIMIT:
            raise InvalidInput(
                f"limit must be a whole number from 1 to {MAX_LIMIT}; got {self.limit}",
                field="limit",
            )
        if self.history and self.as_of is not None:
            raise InvalidInput("asOf and history exclude each other", field="asOf")
        return self


class Explorer:
    """The explorer's view of a tenant (``brain.explorer``, GraphQL ``vizGraph``)."""

    def __init__(self, graph: GraphStore) -> None:
        self.graph = graph

    async def view(self, tenant_id: str, query: VizQuery) -> VizView:
        query = query.checked()
        tenant = self.graph.tenant(tenant_id)
        at = now()
        found, total = await tenant.viz_memories(
            at=at,
            limit=query.limit,
            as_of=query.as_of,
            history=query.history,
            project_id=query.project_id,
            types=query.types,
            since=query.since,
            until=query.until,
        )
        memories = [m for m, _ in found]
        entity_ids = sorted({e for m in memories for e in m.entity_ids})
        entities = await tenant.get_entities(entity_ids)
        relations = await tenant.viz_relations(entity_ids)
        seen_at = query.as_of if query.as_of is not None else at
        nodes = [memory_node(m, p, seen_at) for m, p in found]
        nodes += entity_nodes(list(entities.values()), nodes)
        edges = memory_edges(memories)
        if query.about:
            edges += [
                VizEdge(m.id, e, "ABOUT", 1.0, "about") for m in memories for e in m.entity_ids
            ]
        edges += [VizEdge(s, t, r, 1.0, "entity") for s, t, r in relations]
        return VizView(nodes=nodes, edges=edges, total=total, sampled=total > len(memories))


def memory_node(m: Memory, position: Point | None, at: float) -> VizNode:
    return VizNode(
        id=m.id,
        type=m.type.value,
        kind="memory",
        position=position or stand_in(m.id),
        laid_out=position is not None,
        importance=m.importance,
        decay_factor=recency_signal(m, at),
        label=m.content[:80],
        valid_from=m.valid_from,
        superseded_at=_time(m.superseded_at),
        expires_at=_time(m.expires_at),
        created_at=m.created_at,
        half_life_days=HALF_LIFE_DAYS[m.decay_class],
        session_id=m.session_id,
        project_id=m.project_id,
        entity_ids=m.entity_ids,
        content=m.content,
    )


def entity_nodes(entities: list[Entity], memory_nodes: list[VizNode]) -> list[VizNode]:
    """Entities sit at the centroid of their memories in view."""
    placed: dict[str, list[Point]] = {}
    for n in memory_nodes:
        for e in n.entity_ids:
            placed.setdefault(e, []).append(n.position)
    return [
        VizNode(
            id=e.id,
            type=e.type.value,
            kind="entity",
            position=_centroid(placed.get(e.id, [])) or stand_in(e.id),
            laid_out=e.id in placed,
            importance=1.0,
            decay_factor=1.0,
            label=e.name,
            valid_from=e.first_seen,
            content=e.profile_summary or "",
            provisional=e.provisional,
        )
        for e in sorted(entities, key=lambda e: e.id)
    ]


def stand_in(node_id: str) -> Point:
    """A stable spot near the centre for a node without a layout (from its id's hash)."""
    digest = hashlib.blake2b(node_id.encode(), digest_size=6).digest()
    x, y, z = (int.from_bytes(digest[i : i + 2], "big") / 65535.0 * 2 - 1 for i in (0, 2, 4))
    return (x * UNPLACED_RADIUS, y * UNPLACED_RADIUS, z * UNPLACED_RADIUS)


def _centroid(points: list[Point]) -> Point | None:
    if not points:
        return None
    n = len(points)
    return (
        sum(p[0] for p in points) / n,
        sum(p[1] for p in points) / n,
        sum(p[2] for p in points) / n,
    )


def _time(value: float) -> float | None:
    return None if value >= NEVER else value
