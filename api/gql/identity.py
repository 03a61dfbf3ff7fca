"""GraphQL identity curation: `identityQuestions`, `confirmSameEntity`,
`confirmDistinctEntities` (types, result unions and resolvers together)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry

from api.brain_entities import DescribedQuestion
from api.context import Context
from api.gql.entities import EntityMerge
from api.gql.errors import ConflictError, ForbiddenError, InvalidInputError, NotFoundError
from api.gql.nodes import EntityNode
from api.gql.pagination import PageInfo, check_first, decode_cursor, encode_cursor, paginate
from core.clock import to_datetime

Info = strawberry.Info[Context, None]


@strawberry.type
class IdentityCandidate:
    """A known entity a provisional one may be."""

    entity: EntityNode
    description: str = strawberry.field(description='"Sarah, designer at Brightpath Media"')
    score: float = strawberry.field(
        description="The write path's score when it linked them; after a `PROPOSE_IDENTITIES` "
        "run, the similarity of the two entities' profiles."
    )
    proposed: bool = strawberry.field(
        description="The batch job found the profiles converged on this candidate: "
        "a proposed answer for `confirmSameEntity`."
    )
    at: datetime | None


@strawberry.type
class IdentityQuestion:
    """A provisional entity (born from a mention that could not be told apart from known
    same-named entities) and the candidates it may be, best score first."""

    entity: EntityNode
    description: str
    candidates: list[IdentityCandidate]

    @staticmethod
    def of(found: DescribedQuestion) -> IdentityQuestion:
        q, said = found.question, found.descriptions
        return IdentityQuestion(
            entity=EntityNode.of(q.entity),
            description=said[q.entity.id],
            candidates=[
                IdentityCandidate(
                    entity=EntityNode.of(c.entity),
                    description=said[c.entity.id],
                    score=c.score,
                    proposed=c.proposed,
                    at=to_datetime(c.at),
                )
                for c in q.candidates
            ],
        )


@strawberry.type
class IdentityQuestionEdge:
    cursor: str
    node: IdentityQuestion


@strawberry.type
class IdentityQuestionConnection:
    edges: list[IdentityQuestionEdge]
    page_info: PageInfo


@strawberry.type
class DistinctEntities:
    entity_id: strawberry.ID
    other_id: strawberry.ID


IdentityQuestionsResult = Annotated[
    IdentityQuestionConnection | InvalidInputError | ForbiddenError,
    strawberry.union("IdentityQuestionsResult"),
]
ConfirmSameResult = Annotated[
    EntityMerge | NotFoundError | InvalidInputError | ConflictError | ForbiddenError,
    strawberry.union("ConfirmSameResult"),
]
ConfirmDistinctResult = Annotated[
    DistinctEntities | NotFoundError | InvalidInputError | ForbiddenError,
    strawberry.union("ConfirmDistinctResult"),
]


@strawberry.type
class IdentityQuery:
    @strawberry.field(
        description="Open identity questions: provisional entities with their POSSIBLY_SAME_AS "
        "candidates, each described by role, organisation and relation."
    )
    async def identity_questions(
        self, info: Info, first: int = 20, after: str | None = None
    ) -> IdentityQuestionsResult:
        ctx = info.context
        size = check_first(first, ctx.brain.settings.api.max_page_size)
        cursor = decode_cursor(after, 1)
        page = await ctx.brain.identity_questions(
            ctx.tenant, size + 1, str(cursor[0]) if cursor else None
        )
        pairs, page_info = paginate(page, size, lambda q: encode_cursor(q.question.entity.id))
        edges = [IdentityQuestionEdge(cursor=c, node=IdentityQuestion.of(q)) for c, q in pairs]
        return IdentityQuestionConnection(edges=edges, page_info=page_info)


@strawberry.type
class IdentityMutation:
    @strawberry.mutation(
        description="The answer 'same': an undoable merge (as mergeEntities); a provisional "
        "entity is merged into the known one."
    )
    async def confirm_same_entity(
        self,
        info: Info,
        entity_id: strawberry.ID,
        other_id: strawberry.ID,
        reason: str | None = None,
    ) -> ConfirmSameResult:
        ctx = info.context
        merge = await ctx.brain.confirm_same_entity(
            ctx.tenant, str(entity_id), str(other_id), reason, by=ctx.principal_name
        )
        return EntityMerge.of(merge)

    @strawberry.mutation(
        description="The answer 'different': recorded (DISTINCT_FROM), never asked again."
    )
    async def confirm_distinct_entities(
        self,
        info: Info,
        entity_id: strawberry.ID,
        other_id: strawberry.ID,
        reason: str | None = None,
    ) -> ConfirmDistinctResult:
        ctx = info.context
        await ctx.brain.confirm_distinct_entities(ctx.tenant, str(entity_id), str(other_id), reason)
        return DistinctEntities(entity_id=entity_id, other_id=other_id)
