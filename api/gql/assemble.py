"""`assembleContext`: the token-budgeted context for the next model call."""

from __future__ import annotations

from typing import Annotated

import strawberry

from api.context import Context
from api.gql.entities import EntityNode
from api.gql.errors import ForbiddenError, InvalidInputError, guarded
from api.gql.turns import (
    AssembleContextInput,
    Clarification,
    ContextItem,
    ContextLayers,
    ContextNode,
    TokenCounts,
    TrackedEntity,
)
from api.gql.types import MemoryNode
from core.retrieval_types import Layer
from core.retrieval_types import SearchMode as CoreSearchMode

Info = strawberry.Info[Context, None]

ContextResult = Annotated[
    ContextNode | InvalidInputError | ForbiddenError, strawberry.union("ContextResult")
]


@strawberry.type
class AssembleQuery:
    @strawberry.field(
        description="Five layers from most stable to most ephemeral (procedural, project/core, "
        "memories, document chunks, recent conversation), within tokenBudget."
    )
    async def assemble_context(self, info: Info, input: AssembleContextInput) -> ContextResult:
        ctx = info.context

        async def run() -> ContextNode:
            c = await ctx.brain.assemble_context(
                ctx.tenant,
                session_id=input.session_id,
                user_id=input.user_id,
                project_id=input.project_id,
                query=input.query,
                token_budget=input.token_budget,
                mode=CoreSearchMode(input.mode.value),
            )
            return ContextNode(
                layers=ContextLayers(**{layer.value: c.layers.get(layer, "") for layer in Layer}),
                token_counts=TokenCounts(
                    **{layer.value: c.token_counts.get(layer, 0) for layer in Layer}
                ),
                total_tokens=c.total_tokens,
                token_budget=c.token_budget,
                text=c.text,
                items=[
                    ContextItem(memory=MemoryNode.of(i.memory), layer=i.layer, score=i.score)
                    for i in c.items
                ],
                tracked_entities=[
                    TrackedEntity(
                        entity=EntityNode.of(t.entity), salience=t.salience, scope=t.scope
                    )
                    for t in c.tracked_entities
                ],
                clarification=Clarification.of(c.clarification),
            )

        return await guarded(run)  # type: ignore[no-any-return]
