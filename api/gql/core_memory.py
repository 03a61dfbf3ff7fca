"""GraphQL core (pinned, always-injected) memory: `core`, `pinCore`, `updateCore`, `unpinCore`."""

from __future__ import annotations

from typing import Annotated

import strawberry

from api.gql.context import Context
from api.gql.errors import ForbiddenError, InvalidInputError
from api.gql.memories import MemoryResult, RememberResult, SupersedeResult
from api.gql.nodes import MemoryNode, MemoryType
from core.types import MemoryType as CoreMemoryType
from core.types import NewMemory

Info = strawberry.Info[Context, None]


@strawberry.type
class MemoryList:
    memories: list[MemoryNode]


@strawberry.input
class CoreInput:
    content: str
    type: MemoryType = CoreMemoryType.SEMANTIC
    importance: float | None = None
    project_id: str | None = None
    entities: list[strawberry.ID] | None = None


@strawberry.input
class UpdateCoreInput:
    content: str


CoreResult = Annotated[
    MemoryList | ForbiddenError | InvalidInputError, strawberry.union("CoreResult")
]


@strawberry.type
class CoreQuery:
    @strawberry.field(
        description="Core memory, always injected into context: what pinCore pinned and what "
        "was learned from conversation (Memory.learned). Without userId, the tenant's shared "
        "items (the business, its projects, pinCore's); with it, that user's own too (their "
        "name, role and rules)."
    )
    async def core(self, info: Info, user_id: str | None = None) -> CoreResult:
        ctx = info.context
        memories = await ctx.brain.memories.core(ctx.tenant, user_id)
        return MemoryList(memories=[MemoryNode.of(m) for m in memories])


@strawberry.type
class CoreMutation:
    @strawberry.mutation(description="Add a core (pinned, always-injected) memory.")
    async def pin_core(self, info: Info, input: CoreInput) -> RememberResult:
        ctx = info.context
        item = NewMemory(
            content=input.content,
            type=input.type,
            importance=0.9 if input.importance is None else input.importance,
            project_id=input.project_id,
            entity_ids=[str(e) for e in input.entities or []],
            source="api",
        )
        return MemoryNode.of(await ctx.brain.memories.pin_core(ctx.tenant, item))

    @strawberry.mutation(description="Correct a core memory (a supersede that stays pinned).")
    async def update_core(
        self, info: Info, id: strawberry.ID, input: UpdateCoreInput
    ) -> SupersedeResult:
        ctx = info.context
        return MemoryNode.of(
            await ctx.brain.memories.update_core(ctx.tenant, str(id), input.content)
        )

    @strawberry.mutation(
        description="Stop injecting a core memory (it stays a memory). A learned item is "
        "remembered as removed: the same statement said again is not pinned again."
    )
    async def unpin_core(self, info: Info, id: strawberry.ID) -> MemoryResult:
        ctx = info.context
        return MemoryNode.of(await ctx.brain.memories.unpin_core(ctx.tenant, str(id)))
