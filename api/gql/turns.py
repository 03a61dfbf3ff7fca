"""GraphQL turns and sessions: `recordTurn` (the main write path) and `closeSession`."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry
from pydantic import ValidationError

from api.gql.context import Context
from api.gql.errors import ForbiddenError, InvalidInputError, NotFoundError
from api.gql.nodes import Clarification, EntityNode, MemoryNode
from api.gql.tasks import TaskNode
from core.clock import to_datetime, to_epoch
from core.ingest_types import Role as CoreRole
from core.ingest_types import Session as CoreSession
from core.ingest_types import TurnInput
from core.validation import invalid_input

strawberry.enum(CoreRole, name="Role")
Role = CoreRole

Info = strawberry.Info[Context, None]


@strawberry.type(name="Session")
class SessionNode:
    id: str
    user_id: str | None
    project_id: str | None
    started_at: datetime | None
    last_turn_at: datetime | None
    expires_at: datetime | None
    closed_at: datetime | None
    turn_count: int

    @staticmethod
    def of(s: CoreSession) -> SessionNode:
        return SessionNode(
            id=s.id,
            user_id=s.user_id,
            project_id=s.project_id,
            started_at=to_datetime(s.started_at),
            last_turn_at=to_datetime(s.last_turn_at),
            expires_at=to_datetime(s.expires_at),
            closed_at=to_datetime(s.closed_at),
            turn_count=s.turn_count,
        )


@strawberry.type
class TurnResult:
    episode: MemoryNode = strawberry.field(description="The turn's own episodic memory.")
    extracted: list[MemoryNode]
    entities: list[EntityNode]
    tasks: list[TaskNode]
    clarification: Clarification | None
    superseded_ids: list[strawberry.ID] = strawberry.field(
        description="Memories this turn's corrections replaced."
    )


@strawberry.input
class RecordTurnInput:
    session_id: str
    user_id: str
    content: str
    role: Role = CoreRole.USER
    project_id: str | None = None
    speaker: str | None = None
    at: datetime | None = None


RecordTurnResult = Annotated[
    TurnResult | InvalidInputError | ForbiddenError, strawberry.union("RecordTurnResult")
]

SessionResult = Annotated[
    SessionNode | NotFoundError | InvalidInputError | ForbiddenError,
    strawberry.union("SessionResult"),
]


@strawberry.type
class TurnMutation:
    @strawberry.mutation(
        description="The main write path: store the turn, extract memories, entities and tasks. "
        "Everything returned is retrievable on the next call."
    )
    async def record_turn(self, info: Info, input: RecordTurnInput) -> RecordTurnResult:
        ctx = info.context
        try:
            turn = TurnInput(
                session_id=input.session_id,
                user_id=input.user_id,
                project_id=input.project_id,
                role=input.role,
                speaker=input.speaker,
                content=input.content,
                at=to_epoch(input.at),
            )
        except ValidationError as e:
            raise invalid_input(e) from None
        result = await ctx.brain.memories.record_turn(ctx.tenant, turn)
        return TurnResult(
            episode=MemoryNode.of(result.episode),
            extracted=[MemoryNode.of(m) for m in result.extracted],
            entities=[EntityNode.of(e) for e in result.entities],
            tasks=[TaskNode.of(t) for t in result.tasks],
            clarification=Clarification.of(result.clarification),
            superseded_ids=[strawberry.ID(i) for i in result.superseded],
        )

    @strawberry.mutation(description="Close a session: its working memory is flushed.")
    async def close_session(self, info: Info, session_id: str) -> SessionResult:
        ctx = info.context
        return SessionNode.of(await ctx.brain.close_session(ctx.tenant, session_id))
