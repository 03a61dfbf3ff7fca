"""Mutation resolvers: thin, they call the facade and map expected errors to typed results."""

from __future__ import annotations

import strawberry

from api.context import Context
from api.gql.entities import CreateEntityInput, EntityMerge, EntityNode
from api.gql.errors import guarded
from api.gql.inputs import CoreInput, EraseInput, RememberInput, SupersedeInput, UpdateCoreInput
from api.gql.results import (
    EntityResult,
    EraseResult,
    MemoryResult,
    MergeResult,
    RememberResult,
    SupersedeResult,
)
from api.gql.types import EraseReport, MemoryNode
from core.clock import to_epoch
from core.types import NewMemory

Info = strawberry.Info[Context, None]


@strawberry.type
class Mutation:
    @strawberry.mutation(description="Store one memory explicitly; searchable when this returns.")
    async def remember(self, info: Info, input: RememberInput) -> RememberResult:
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
        self, info: Info, id: strawberry.ID, input: SupersedeInput
    ) -> SupersedeResult:
        ctx = info.context

        async def run() -> MemoryNode:
            memory = await ctx.brain.supersede(ctx.tenant, str(id), input.content, input.reason)
            return MemoryNode.of(memory)

        return await guarded(run)  # type: ignore[no-any-return]

    @strawberry.mutation(description="Soft delete: the memory leaves every read, stays in lineage.")
    async def forget(self, info: Info, id: strawberry.ID) -> MemoryResult:
        ctx = info.context

        async def run() -> MemoryNode:
            return MemoryNode.of(await ctx.brain.forget(ctx.tenant, str(id)))

        return await guarded(run)  # type: ignore[no-any-return]

    @strawberry.mutation(
        description="GDPR hard delete of memories, an entity or a user from both engines, "
        "with everything derived from them (extractions, patterns, duplicates, profiles)."
    )
    async def erase(self, info: Info, input: EraseInput) -> EraseResult:
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

    @strawberry.mutation(description="Add a core (pinned, always-injected) memory.")
    async def pin_core(self, info: Info, input: CoreInput) -> RememberResult:
        ctx = info.context

        async def run() -> MemoryNode:
            item = NewMemory(
                content=input.content,
                type=input.type,
                importance=0.9 if input.importance is None else input.importance,
                project_id=input.project_id,
                entity_ids=[str(e) for e in input.entities or []],
                source="api",
            )
            return MemoryNode.of(await ctx.brain.pin_core(ctx.tenant, item))

        return await guarded(run)  # type: ignore[no-any-return]

    @strawberry.mutation(description="Correct a core memory (a supersede that stays pinned).")
    async def update_core(
        self, info: Info, id: strawberry.ID, input: UpdateCoreInput
    ) -> SupersedeResult:
        ctx = info.context

        async def run() -> MemoryNode:
            return MemoryNode.of(await ctx.brain.update_core(ctx.tenant, str(id), input.content))

        return await guarded(run)  # type: ignore[no-any-return]

    @strawberry.mutation(description="Stop injecting a core memory (it stays a memory).")
    async def unpin_core(self, info: Info, id: strawberry.ID) -> MemoryResult:
        ctx = info.context

        async def run() -> MemoryNode:
            return MemoryNode.of(await ctx.brain.unpin_core(ctx.tenant, str(id)))

        return await guarded(run)  # type: ignore[no-any-return]

    @strawberry.mutation(description="Create an entity with aliases.")
    async def create_entity(self, info: Info, input: CreateEntityInput) -> EntityResult:
        ctx = info.context

        async def run() -> EntityNode:
            entity = await ctx.brain.create_entity(
                ctx.tenant, input.name, input.type, input.aliases or []
            )
            return EntityNode.of(entity)

        return await guarded(run)  # type: ignore[no-any-return]

    @strawberry.mutation(description="Add an alias to an entity.")
    async def add_alias(self, info: Info, entity_id: strawberry.ID, alias: str) -> EntityResult:
        ctx = info.context

        async def run() -> EntityNode:
            return EntityNode.of(await ctx.brain.add_alias(ctx.tenant, str(entity_id), alias))

        return await guarded(run)  # type: ignore[no-any-return]

    @strawberry.mutation(
        description="Record that entities are the same; undo with unmergeEntities."
    )
    async def merge_entities(
        self, info: Info, keep_id: strawberry.ID, drop_ids: list[strawberry.ID], reason: str
    ) -> MergeResult:
        ctx = info.context

        async def run() -> EntityMerge:
            merge = await ctx.brain.merge_entities(
                ctx.tenant, str(keep_id), [str(d) for d in drop_ids], reason, by=ctx.principal_name
            )
            return EntityMerge.of(merge)

        return await guarded(run)  # type: ignore[no-any-return]

    @strawberry.mutation(description="Undo a recorded merge.")
    async def unmerge_entities(self, info: Info, merge_id: strawberry.ID) -> MergeResult:
        ctx = info.context

        async def run() -> EntityMerge:
            return EntityMerge.of(await ctx.brain.unmerge_entities(ctx.tenant, str(merge_id)))

        return await guarded(run)  # type: ignore[no-any-return]
