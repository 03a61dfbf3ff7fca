"""GraphQL identity curation: `identityQuestions`, `identityDecisions`, `confirmSameEntity`,
`confirmDistinctEntities` (types, result unions and resolvers together)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry

from api.gql.context import Context
from api.gql.entities import EntityMerge
from api.gql.errors import ConflictError, ForbiddenError, InvalidInputError, NotFoundError
from api.gql.nodes import EntityNode
from api.gql.pagination import PageInfo, check_first, decode_cursor, encode_cursor, paginate
from core.clock import to_datetime
from core.resolution_types import IdentityDecision as Decision
from resolution.entity_ops import DescribedQuestion

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
class WeighedCandidate:
    """A same-named entity a decision weighed, with its score and why."""

    entity_id: strawberry.ID
    score: float
    reason: str | None


@strawberry.type
class IdentityDecision:
    """Who the write path took a mention to be, with the scores that decided it: the record
    that lets a wrong link be found (and undone with `confirmSameEntity`, `mergeEntities` /
    `unmergeEntities`)."""

    id: strawberry.ID
    mention: str = strawberry.field(description="The name as written.")
    memory_id: strawberry.ID | None = strawberry.field(
        description="The memory (a turn, a document chunk) whose text it was."
    )
    entity_id: strawberry.ID | None = strawberry.field(
        description="The entity it was linked to or created as."
    )
    outcome: str = strawberry.field(
        description="linked (to a known entity), new (a different person), or provisional "
        "(could not tell: an open identity question)."
    )
    candidates: list[WeighedCandidate] = strawberry.field(
        description="The known same-named entities weighed, best first as scored."
    )
    at: datetime | None

    @staticmethod
    def of(found: Decision) -> IdentityDecision:
        return IdentityDecision(
            id=strawberry.ID(found.id),
            mention=found.mention,
            memory_id=strawberry.ID(found.memory_id) if found.memory_id else None,
            entity_id=strawberry.ID(found.entity_id) if found.entity_id else None,
            outcome=found.outcome,
            candidates=[
                WeighedCandidate(
                    entity_id=strawberry.ID(i),
                    score=found.scores[n] if n < len(found.scores) else 0.0,
                    reason=found.reasons[n] if n < len(found.reasons) else None,
                )
                for n, i in enumerate(found.candidates)
            ],
            at=to_datetime(found.at),
        )


@strawberry.type
class IdentityDecisionList:
    decisions: list[IdentityDecision]


@strawberry.type
class DistinctEntities:
    entity_id: strawberry.ID
    other_id: strawberry.ID


IdentityQuestionsResult = Annotated[
    IdentityQuestionConnection | InvalidInputError | ForbiddenError,
    strawberry.union("IdentityQuestionsResult"),
]
IdentityDecisionsResult = Annotated[
    IdentityDecisionList | NotFoundError | InvalidInputError | ForbiddenError,
    strawberry.union("IdentityDecisionsResult"),
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
        page = await ctx.brain.entities.identity_questions(
            ctx.tenant, size + 1, str(cursor[0]) if cursor else None
        )
        pairs, page_info = paginate(page, size, lambda q: encode_cursor(q.question.entity.id))
        edges = [IdentityQuestionEdge(cursor=c, node=IdentityQuestion.of(q)) for c, q in pairs]
        return IdentityQuestionConnection(edges=edges, page_info=page_info)

    @strawberry.field(
        description="The write path's automatic identity decisions that linked, created or "
        "weighed an entity, newest first, each with its scores."
    )
    async def identity_decisions(
        self, info: Info, entity_id: strawberry.ID, first: int = 50
    ) -> IdentityDecisionsResult:
        ctx = info.context
        size = check_first(first, ctx.brain.settings.api.max_page_size)
        rows = await ctx.brain.entities.identity_decisions(ctx.tenant, str(entity_id), size)
        return IdentityDecisionList(decisions=[IdentityDecision.of(r) for r in rows])


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
        merge = await ctx.brain.entities.confirm_same(
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
        await ctx.brain.entities.confirm_distinct(ctx.tenant, str(entity_id), str(other_id), reason)
        return DistinctEntities(entity_id=entity_id, other_id=other_id)
