"""The GraphQL schema: thin resolvers that call the facade and map expected errors to types."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import strawberry
from graphql import GraphQLError
from strawberry.extensions import MaskErrors

from api.context import Context
from api.gql_types import (
    EngineHealth,
    EraseInput,
    EraseReport,
    EraseResult,
    Health,
    Lineage,
    LineageLink,
    LineageResult,
    MemoryNode,
    MemoryResult,
    PathCount,
    RememberInput,
    RememberResult,
    RetrievalPath,
    SearchHit,
    SearchInput,
    SearchMetadata,
    SearchResult,
    SearchResults,
    SupersedeInput,
    SupersedeResult,
    error_result,
)
from core.clock import to_epoch
from core.errors import BrainError
from core.types import NewMemory
from retrieval.search import SearchRequest

log = logging.getLogger(__name__)
VERSION = "0.1.0"
R = TypeVar("R")


async def guarded(call: Callable[[], Awaitable[R]]) -> Any:
    """Run a resolver body; expected errors become typed results, the rest propagate (masked)."""
    try:
        return await call()
    except BrainError as e:
        return error_result(e)


@strawberry.type
class Query:
    @strawberry.field(description="Engine status, counts and index lag.")
    async def health(self, info: strawberry.Info[Context, None]) -> Health:
        ctx = info.context
        tenant = ctx.principal.tenant_id if ctx.principal else None
        h = await ctx.brain.health(tenant)
        return Health(
            ok=h.ok,
            version=VERSION,
            engines=[
                EngineHealth(name=e.name, ok=e.ok, latency_ms=e.latency_ms, detail=e.detail)
                for e in h.engines
            ],
            memories=h.memories,
            entities=h.entities,
            index_lag=h.unindexed,
        )

    @strawberry.field(description="One memory by id.")
    async def memory(self, info: strawberry.Info[Context, None], id: strawberry.ID) -> MemoryResult:
        ctx = info.context

        async def run() -> MemoryNode:
            return MemoryNode.of(await ctx.brain.memory(ctx.tenant, str(id)))

        return await guarded(run)  # type: ignore[no-any-return]

    @strawberry.field(description="The supersede chain through a memory, oldest first.")
    async def lineage(
        self, info: strawberry.Info[Context, None], memory_id: strawberry.ID
    ) -> LineageResult:
        ctx = info.context

        async def run() -> Lineage:
            links = await ctx.brain.lineage(ctx.tenant, str(memory_id))
            return Lineage(links=[LineageLink.of(link) for link in links])

        return await guarded(run)  # type: ignore[no-any-return]

    @strawberry.field(description="Find memories (dense similarity in this release).")
    async def search(
        self, info: strawberry.Info[Context, None], input: SearchInput
    ) -> SearchResult:
        ctx = info.context

        async def run() -> SearchResults:
            request = SearchRequest(
                query=input.query,
                top_k=input.top_k,
                types=tuple(input.types) if input.types else None,
                project_id=input.project_id,
                since=to_epoch(input.since),
                until=to_epoch(input.until),
                as_of=to_epoch(input.as_of),
            )
            result = await ctx.brain.search(ctx.tenant, request)
            return SearchResults(
                hits=[SearchHit.of(h) for h in result.hits],
                metadata=SearchMetadata(
                    candidates_per_path=[
                        PathCount(path=RetrievalPath(p), candidates=n)
                        for p, n in result.candidates_per_path.items()
                    ],
                    post_filter_count=result.post_filter_count,
                    latency_ms=result.latency_ms,
                ),
            )

        return await guarded(run)  # type: ignore[no-any-return]


@strawberry.type
class Mutation:
    @strawberry.mutation(description="Store one memory explicitly; searchable when this returns.")
    async def remember(
        self, info: strawberry.Info[Context, None], input: RememberInput
    ) -> RememberResult:
        ctx = info.context

        async def run() -> MemoryNode:
            item = NewMemory(
                content=input.content,
                type=input.type,
                importance=0.5 if input.importance is None else input.importance,
                decay_class=input.decay_class,
                entity_ids=[str(e) for e in input.entities or []],
                project_id=input.project_id,
                session_id=input.session_id,
                user_id=input.user_id,
                pinned=input.pinned,
                valid_from=to_epoch(input.valid_from),
                source="api",
            )
            return MemoryNode.of(await ctx.brain.remember(ctx.tenant, item))

        return await guarded(run)  # type: ignore[no-any-return]

    @strawberry.mutation(description="Replace a memory with a correction; the chain keeps both.")
    async def supersede(
        self, info: strawberry.Info[Context, None], id: strawberry.ID, input: SupersedeInput
    ) -> SupersedeResult:
        ctx = info.context

        async def run() -> MemoryNode:
            memory = await ctx.brain.supersede(ctx.tenant, str(id), input.content, input.reason)
            return MemoryNode.of(memory)

        return await guarded(run)  # type: ignore[no-any-return]

    @strawberry.mutation(
        description="Soft delete: the memory leaves every read but stays in lineage."
    )
    async def forget(self, info: strawberry.Info[Context, None], id: strawberry.ID) -> MemoryResult:
        ctx = info.context

        async def run() -> MemoryNode:
            return MemoryNode.of(await ctx.brain.forget(ctx.tenant, str(id)))

        return await guarded(run)  # type: ignore[no-any-return]

    @strawberry.mutation(description="Hard delete from the graph and the vector index.")
    async def erase(self, info: strawberry.Info[Context, None], input: EraseInput) -> EraseResult:
        ctx = info.context

        async def run() -> EraseReport:
            report = await ctx.brain.erase(
                ctx.tenant,
                memory_ids=[str(i) for i in input.memory_ids or []],
                entity_id=str(input.entity_id) if input.entity_id else None,
                user_id=input.user_id,
            )
            return EraseReport.of(report)

        return await guarded(run)  # type: ignore[no-any-return]


class LoggedMaskErrors(MaskErrors):
    """Mask unexpected errors; log them with the request id that the client sees."""

    def __init__(self) -> None:
        super().__init__(should_mask_error=self._mask, error_message="Internal error")

    def _mask(self, error: GraphQLError) -> bool:
        if isinstance(error.original_error, BrainError) or error.original_error is None:
            return False  # validation errors and expected failures are safe to show
        ctx = self.execution_context.context
        request_id = getattr(ctx, "request_id", "-")
        log.error("request %s failed", request_id, exc_info=error.original_error)
        error.extensions = {**(error.extensions or {}), "requestId": request_id}
        return True


schema = strawberry.Schema(query=Query, mutation=Mutation, extensions=[LoggedMaskErrors])
