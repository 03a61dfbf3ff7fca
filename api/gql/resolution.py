"""GraphQL operations of the resolve step: `resolve` and `reprofileEntities`."""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Annotated

import strawberry

from api.gql.context import Context
from api.gql.errors import ForbiddenError, InvalidInputError, NotFoundError
from api.gql.nodes import Clarification, EntityNode
from core.clock import to_datetime

log = logging.getLogger(__name__)

Info = strawberry.Info[Context, None]


@strawberry.type
class Reference:
    text: str
    start: int
    end: int
    entity_type: str | None
    source: str
    entity: EntityNode | None
    confidence: float
    method: str
    candidates: list[EntityNode]


@strawberry.type
class TimeReference:
    text: str
    start: datetime | None
    end: datetime | None


@strawberry.type
class ResolveResult:
    references: list[Reference]
    entities: list[EntityNode]
    times: list[TimeReference]
    ambiguous: bool
    clarification: Clarification | None


@strawberry.type
class ReprofileReport:
    entities: int
    seconds: float


ResolveResultUnion = Annotated[
    ResolveResult | InvalidInputError | ForbiddenError, strawberry.union("ResolveResultUnion")
]

ReprofileResult = Annotated[
    ReprofileReport | NotFoundError | InvalidInputError | ForbiddenError,
    strawberry.union("ReprofileResult"),
]


@strawberry.type
class ResolutionQuery:
    @strawberry.field(
        description="What the parser and resolver make of a text: references, entities, times, "
        "ambiguity. A read: nothing is created and the session's tracker does not advance."
    )
    async def resolve(
        self, info: Info, text: str, session_id: str | None = None
    ) -> ResolveResultUnion:
        ctx = info.context
        result = await ctx.brain.entities.resolve(ctx.tenant, text, session_id)
        references = [
            Reference(
                text=r.mention.text,
                start=r.mention.start,
                end=r.mention.end,
                entity_type=r.mention.entity_type.value if r.mention.entity_type else None,
                source=r.mention.source,
                entity=EntityNode.of(r.entity) if r.entity else None,
                confidence=r.confidence,
                method=r.method,
                candidates=[EntityNode.of(c) for c in r.candidates],
            )
            for r in result.resolved
        ]
        entities = {r.entity.id: r.entity for r in result.resolved if r.entity is not None}
        return ResolveResult(
            references=references,
            entities=[EntityNode.of(e) for e in entities.values()],
            times=[
                TimeReference(text=t.text, start=to_datetime(t.start), end=to_datetime(t.end))
                for t in result.parsed.times
            ],
            ambiguous=result.clarification is not None,
            clarification=Clarification.of(result.clarification),
        )


@strawberry.type
class ResolutionMutation:
    @strawberry.mutation(
        description="Rebuild living entity profiles (summary, embedding, tags): the given ids, "
        "or every entity of the tenant."
    )
    async def reprofile_entities(
        self, info: Info, ids: list[strawberry.ID] | None = None
    ) -> ReprofileResult:
        ctx = info.context
        tenant = ctx.tenant

        def progress(done: int, total: int) -> None:
            log.info("reprofile", extra={"tenant": tenant, "done": done, "total": total})

        report = await ctx.brain.entities.reprofile(
            tenant, [str(i) for i in ids] if ids else None, progress
        )
        return ReprofileReport(entities=report.profiled, seconds=round(report.seconds, 3))
