"""GraphQL of the explorer's graph (`vizGraph`): the view as node and edge objects, and the
same view as columns (`VizGraph.columns`), which is what the explorer loads.

Objects are the readable shape, but thousands of them are slow to send: graphql-core completes
every field of every object, about twenty per node, so 5,000 memories with their links cost
seconds of CPU. Columns are one list per property (times as epoch seconds, names as a table
and codes, links as index triples), which the server builds in one pass and sends as one
JSON value each (the long ones are scalars), and a browser loads straight into typed arrays.
Only the fields a request selects are built (``nodes``, ``edges`` and ``columns`` are
resolvers over one view).
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, NewType

import strawberry

from api.gql.context import Context
from api.gql.errors import ForbiddenError, InvalidInputError
from api.gql.nodes import MemoryType
from core.clock import to_datetime, to_epoch
from retrieval.explorer import DEFAULT_LIMIT
from retrieval.explorer import VizNode as CoreVizNode
from retrieval.explorer import VizQuery as CoreVizQuery
from retrieval.explorer import VizView as CoreVizView
from retrieval.explorer_links import VizEdge as CoreVizEdge

Info = strawberry.Info[Context, None]


@strawberry.type
class Position:
    x: float
    y: float
    z: float = 0.0


@strawberry.type(description="A memory or an entity in the explorer's view.")
class VizNodeType:
    id: strawberry.ID
    type: str
    kind: str = strawberry.field(description="memory | entity")
    position: Position = strawberry.field(
        description="3D: a memory's stored UMAP layout; an entity at its memories' centroid."
    )
    laid_out: bool = strawberry.field(
        description="False when the layout job has not placed it yet (a stand-in position)."
    )
    importance: float
    decay_factor: float = strawberry.field(description="Decay at asOf (or now).")
    label: str
    content: str
    valid_from: datetime | None
    superseded_at: datetime | None = strawberry.field(description="Null: never superseded.")
    expires_at: datetime | None = strawberry.field(description="Null: never expires.")
    created_at: datetime | None
    half_life_days: float | None = strawberry.field(
        description="Decay half-life of the memory's class; null: it never decays."
    )
    session_id: str | None
    project_id: str | None
    entity_ids: list[strawberry.ID]
    provisional: bool = strawberry.field(
        description="An entity that is an open identity question (see identityQuestions)."
    )


@strawberry.type
class VizEdgeType:
    source: strawberry.ID
    target: strawberry.ID
    relation: str = strawberry.field(
        description="SUPERSEDES (newer to older), ENTITY_OVERLAP (weight = Jaccard), "
        "SAME_SESSION, TEMPORAL_SEQ, ABOUT (memory to entity), or an entity relation."
    )
    weight: float
    kind: str = strawberry.field(description="memory | about | entity")


# Long columns are scalars (a JSON array each, one value): graphql-core completes every entry
# of a ``[Float!]!`` one by one, which for 5,000 memories was most of the columns' cost.
VizIds = NewType("VizIds", list[str])
VizInts = NewType("VizInts", list[int])
VizFloats = NewType("VizFloats", list[float | None])
VizBools = NewType("VizBools", list[bool])
VizStrings = NewType("VizStrings", list[str])


def _column(name: str, entries: str) -> Any:
    def refuse(_: object) -> Any:
        raise ValueError(f"{name} is an output type")

    return strawberry.scalar(
        name=name,
        description=f"A column of the explorer's view: a JSON array of {entries}.",
        serialize=lambda v: v,
        parse_value=refuse,
    )


SCALARS: dict[object, Any] = {
    VizIds: _column("VizIds", "ids"),
    VizInts: _column("VizInts", "integers"),
    VizFloats: _column("VizFloats", "numbers (null where the field says so)"),
    VizBools: _column("VizBools", "booleans"),
    VizStrings: _column("VizStrings", "strings"),
}


@strawberry.type(
    description="The view as columns: entry i of every memory column is memory i (the order "
    "of `nodes`), entry j of every entity column is entity j. Times are epoch seconds (null: "
    "never); names are a table (`typeNames`, `sessionNames`, `projectNames`, "
    "`relationNames`) and a code per row (-1: none); links are flat index lists."
)
class VizColumns:
    memory_ids: VizIds
    type_names: list[str]
    types: VizInts = strawberry.field(description="Per memory: index into typeNames.")
    positions: VizFloats = strawberry.field(description="x, y, z per memory (3 entries each).")
    laid_out: VizBools
    importance: VizFloats
    valid_from: VizFloats
    superseded_at: VizFloats = strawberry.field(description="Null: never superseded.")
    expires_at: VizFloats = strawberry.field(description="Null: never expires.")
    created_at: VizFloats
    half_life_days: VizFloats = strawberry.field(description="Null: never decays.")
    labels: VizStrings = strawberry.field(description="The first 80 characters of the content.")
    session_names: list[str]
    sessions: VizInts
    project_names: list[str]
    projects: VizInts
    memory_entities: VizInts = strawberry.field(
        description="ABOUT links as pairs: memory index, entity index (2 entries each)."
    )
    entity_ids: list[strawberry.ID]
    entity_names: list[str]
    entity_types: list[str]
    entity_provisional: list[bool]
    relation_names: list[str]
    links: VizInts = strawberry.field(
        description="Links between memories as triples: source memory index, target memory "
        "index, relation code (SUPERSEDES newer to older, ENTITY_OVERLAP, SAME_SESSION, "
        "TEMPORAL_SEQ)."
    )
    link_weights: VizFloats = strawberry.field(description="Per link (Jaccard for overlap).")
    entity_links: list[int] = strawberry.field(
        description="Entity relations as triples: source entity index, target entity index, "
        "relation code."
    )

    @staticmethod
    def of(view: CoreVizView) -> VizColumns:
        memories = [n for n in view.nodes if n.kind == "memory"]
        entities = [n for n in view.nodes if n.kind == "entity"]
        at = {n.id: i for i, n in enumerate(memories)}
        entity_at = {n.id: j for j, n in enumerate(entities)}
        types, sessions, projects, relations = _Table(), _Table(), _Table(), _Table()
        memory_edges = [e for e in view.edges if e.kind == "memory"]
        entity_edges = [e for e in view.edges if e.kind == "entity"]
        return VizColumns(
            memory_ids=VizIds([strawberry.ID(n.id) for n in memories]),
            types=VizInts([types.code(n.type) for n in memories]),
            type_names=types.names,
            positions=VizFloats([c for n in memories for c in n.position]),
            laid_out=VizBools([n.laid_out for n in memories]),
            importance=VizFloats([n.importance for n in memories]),
            valid_from=VizFloats([n.valid_from or n.created_at or 0.0 for n in memories]),
            superseded_at=VizFloats([n.superseded_at for n in memories]),
            expires_at=VizFloats([n.expires_at for n in memories]),
            created_at=VizFloats([n.created_at or 0.0 for n in memories]),
            half_life_days=VizFloats([n.half_life_days for n in memories]),
            labels=VizStrings([n.label for n in memories]),
            sessions=VizInts([sessions.code(n.session_id) for n in memories]),
            session_names=sessions.names,
            projects=VizInts([projects.code(n.project_id) for n in memories]),
            project_names=projects.names,
            memory_entities=VizInts(
                [
                    k
                    for i, n in enumerate(memories)
                    for e in n.entity_ids
                    if e in entity_at
                    for k in (i, entity_at[e])
                ]
            ),
            entity_ids=[strawberry.ID(n.id) for n in entities],
            entity_names=[n.label for n in entities],
            entity_types=[n.type for n in entities],
            entity_provisional=[n.provisional for n in entities],
            links=VizInts(_triples(memory_edges, at, relations)),
            link_weights=VizFloats(
                [e.weight for e in memory_edges if e.source in at and e.target in at]
            ),
            entity_links=_triples(entity_edges, entity_at, relations),
            relation_names=relations.names,
        )


def _triples(edges: list[CoreVizEdge], at: dict[str, int], relations: _Table) -> list[int]:
    """Edges as source index, target index, relation code (edges leaving the view dropped)."""
    return [
        k for e in edges if e.source in at and e.target in at
        for k in (at[e.source], at[e.target], relations.code(e.relation))
    ]  # fmt: skip


class _Table:
    """Names in order of first use, and each name's code (-1 for none)."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self._codes: dict[str, int] = {}

    def code(self, name: str | None) -> int:
        if name is None:
            return -1
        code = self._codes.get(name)
        if code is None:
            code = self._codes[name] = len(self.names)
            self.names.append(name)
        return code


@strawberry.type
class VizGraph:
    total: int = strawberry.field(description="Memories that matched before the limit.")
    sampled: bool = strawberry.field(description="True when the limit cut the memories.")
    view: strawberry.Private[CoreVizView]

    @strawberry.field
    def nodes(self) -> list[VizNodeType]:
        return [_viz_node(n) for n in self.view.nodes]

    @strawberry.field
    def edges(self) -> list[VizEdgeType]:
        return [
            VizEdgeType(
                source=strawberry.ID(e.source),
                target=strawberry.ID(e.target),
                relation=e.relation,
                weight=e.weight,
                kind=e.kind,
            )
            for e in self.view.edges
        ]

    @strawberry.field(
        description="The same memories, entities and links as columns (what the explorer "
        "loads: a few lists instead of thousands of objects)."
    )
    def columns(self) -> VizColumns:
        return VizColumns.of(self.view)

    @staticmethod
    def of(view: CoreVizView) -> VizGraph:
        return VizGraph(total=view.total, sampled=view.sampled, view=view)


def _viz_node(n: CoreVizNode) -> VizNodeType:
    def when(t: float | None) -> datetime | None:
        return None if t is None else to_datetime(t)

    return VizNodeType(
        id=strawberry.ID(n.id),
        type=n.type,
        kind=n.kind,
        position=Position(x=n.position[0], y=n.position[1], z=n.position[2]),
        laid_out=n.laid_out,
        importance=n.importance,
        decay_factor=n.decay_factor,
        label=n.label,
        content=n.content,
        valid_from=when(n.valid_from),
        superseded_at=when(n.superseded_at),
        expires_at=when(n.expires_at),
        created_at=when(n.created_at),
        half_life_days=n.half_life_days,
        session_id=n.session_id,
        project_id=n.project_id,
        entity_ids=[strawberry.ID(e) for e in n.entity_ids],
        provisional=n.provisional,
    )


VizGraphResult = Annotated[
    VizGraph | InvalidInputError | ForbiddenError, strawberry.union("VizGraphResult")
]


@strawberry.type
class VizQuery:
    @strawberry.field(
        description="The explorer's graph: memories (3D layout, validity intervals), their "
        "links and entities. Current now by default; `asOf` gives the state at that instant; "
        "`history` every version ever stored (to animate); at most `limit` memories "
        "(a stable sample when more match); `about: false` leaves out the memory-to-entity links."
    )
    async def viz_graph(
        self,
        info: Info,
        project_id: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        types: list[MemoryType] | None = None,
        as_of: datetime | None = None,
        history: bool = False,
        limit: int = DEFAULT_LIMIT,
        about: bool = True,  # ABOUT links (memory -> entity); nodes' entityIds carry them too
    ) -> VizGraphResult:
        ctx = info.context
        query = CoreVizQuery(
            project_id=project_id,
            since=to_epoch(since),
            until=to_epoch(until),
            as_of=to_epoch(as_of),
            history=history,
            types=types,
            limit=limit,
            about=about,
        )
        return VizGraph.of(await ctx.brain.explorer.view(ctx.tenant, query))
