"""GraphQL `assembleContext`: the token-budgeted context for the next model call."""

from __future__ import annotations

from typing import Annotated

import strawberry

from api.gql.context import Context
from api.gql.errors import ForbiddenError, InvalidInputError
from api.gql.nodes import Clarification, EntityNode, MemoryNode
from api.gql.search import SearchMode
from core.retrieval_types import Layer
from core.retrieval_types import Layer as CoreLayer
from core.retrieval_types import SearchMode as CoreSearchMode

strawberry.enum(CoreLayer, name="ContextLayer")
ContextLayer = CoreLayer

Info = strawberry.Info[Context, None]


@strawberry.type
class ContextLayers:
    procedural: str
    project_context: str
    memories: str
    document_chunks: str
    recent_conversation: str


@strawberry.type
class TokenCounts:
    procedural: int
    project_context: int
    memories: int
    document_chunks: int
    recent_conversation: int


@strawberry.type
class ContextItem:
    memory: MemoryNode
    layer: ContextLayer
    score: float


@strawberry.type
class TrackedEntity:
    entity: EntityNode
    salience: float
    scope: str


@strawberry.type(name="Context")
class ContextNode:
    layers: ContextLayers
    token_counts: TokenCounts
    total_tokens: int
    token_budget: int
    text: str = strawberry.field(description="The layers as one text, most stable first.")
    items: list[ContextItem]
    tracked_entities: list[TrackedEntity]
    clarification: Clarification | None


@strawberry.input
class AssembleContextInput:
    session_id: str
    user_id: str
    project_id: str | None = None
    query: str | None = None
    token_budget: int | None = None
    mode: SearchMode = SearchMode.ANSWER


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
        c = await ctx.brain.reads.assemble_context(
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
                TrackedEntity(entity=EntityNode.of(t.entity), salience=t.salience, scope=t.scope)
                for t in c.tracked_entities
            ],
            clarification=Clarification.of(c.clarification),
        )
