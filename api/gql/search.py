"""GraphQL `search`: multi-path retrieval with its hits, signals and metadata."""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from typing import Annotated

import strawberry

from api.gql.context import Context
from api.gql.errors import ForbiddenError, InvalidInputError
from api.gql.nodes import MemoryNode, MemoryType
from core.clock import to_epoch
from core.retrieval_types import SIGNALS
from core.retrieval_types import SearchMode as CoreSearchMode
from core.retrieval_types import SearchQuery as CoreSearchQuery
from core.types import Hit as CoreHit

Info = strawberry.Info[Context, None]


@strawberry.enum
class SearchMode(Enum):
    ANSWER = "answer"
    MANAGER = "manager"


@strawberry.enum
class RetrievalPath(Enum):
    ENTITY = "ENTITY"
    SEMANTIC = "SEMANTIC"
    KEYWORD = "KEYWORD"
    CONVERSATION = "CONVERSATION"
    CORE = "CORE"


@strawberry.input(
    description="Per-request weight overrides; unset signals keep the mode's profile."
)
class WeightsInput:
    similarity: float | None = None
    keyword: float | None = None
    recency: float | None = None
    importance: float | None = None
    access_frequency: float | None = None
    entity_match: float | None = None
    project_match: float | None = None
    task_bonus: float | None = None


@strawberry.type
class Signals:
    similarity: float | None = None
    keyword: float | None = None
    recency: float | None = None
    importance: float | None = None
    access_frequency: float | None = None
    entity_match: float | None = None
    project_match: float | None = None
    task_bonus: float | None = None


@strawberry.type
class SearchHit:
    memory: MemoryNode
    score: float
    paths: list[RetrievalPath]
    signals: Signals

    @staticmethod
    def of(hit: CoreHit) -> SearchHit:
        known = {k: v for k, v in hit.signals.items() if k in SIGNALS}
        return SearchHit(
            memory=MemoryNode.of(hit.memory),
            score=hit.score,
            paths=[RetrievalPath(p) for p in hit.paths],
            signals=Signals(**known),
        )


@strawberry.type
class PathCount:
    path: str = strawberry.field(description="A retrieval path, or NEIGHBOR (adjacent turns).")
    candidates: int


@strawberry.type
class SearchMetadata:
    candidates_per_path: list[PathCount]
    post_filter_count: int
    latency_ms: float


@strawberry.type
class SearchResults:
    hits: list[SearchHit]
    metadata: SearchMetadata


@strawberry.input
class SearchInput:
    query: str
    mode: SearchMode = SearchMode.ANSWER
    top_k: int = 10
    project_id: str | None = None
    types: list[MemoryType] | None = None
    since: datetime | None = None
    until: datetime | None = None
    as_of: datetime | None = None
    weights: WeightsInput | None = None
    session_id: str | None = None
    user_id: str | None = strawberry.field(
        default=None,
        description="Scope to this user's memories plus those shared with the tenant (memories "
        "with no user). Without it, the whole tenant.",
    )


SearchResult = Annotated[
    SearchResults | InvalidInputError | ForbiddenError, strawberry.union("SearchResult")
]


@strawberry.type
class SearchQuery:
    @strawberry.field(description="Find memories.")
    async def search(self, info: Info, input: SearchInput) -> SearchResult:
        ctx = info.context
        weights = (
            {k: v for k, v in vars(input.weights).items() if v is not None}
            if input.weights
            else None
        )
        query = CoreSearchQuery(
            query=input.query,
            mode=CoreSearchMode(input.mode.value),
            top_k=input.top_k,
            types=tuple(input.types) if input.types else None,
            project_id=input.project_id,
            since=to_epoch(input.since),
            until=to_epoch(input.until),
            as_of=to_epoch(input.as_of),
            weights=weights,
            session_id=input.session_id,
            user_id=input.user_id,
        )
        result = await ctx.brain.reads.search(ctx.tenant, query)
        return SearchResults(
            hits=[SearchHit.of(h) for h in result.hits],
            metadata=SearchMetadata(
                candidates_per_path=[
                    PathCount(path=p, candidates=n)
                    for p, n in result.metadata.candidates_per_path.items()
                ],
                post_filter_count=result.metadata.post_filter_count,
                latency_ms=result.metadata.latency_ms,
            ),
        )
