"""GraphQL tasks: `tasks`, `confirmTask`, `dismissTask`."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry

from api.gql.context import Context
from api.gql.errors import ConflictError, ForbiddenError, InvalidInputError, NotFoundError
from core.clock import to_datetime
from core.errors import InvalidInput
from core.ingest_types import Task as CoreTask
from core.ingest_types import TaskPriority as CoreTaskPriority
from core.ingest_types import TaskStatus as CoreTaskStatus

strawberry.enum(CoreTaskStatus, name="TaskStatus")
strawberry.enum(CoreTaskPriority, name="TaskPriority")
TaskStatus = CoreTaskStatus
TaskPriority = CoreTaskPriority

Info = strawberry.Info[Context, None]


@strawberry.type(name="Task")
class TaskNode:
    id: strawberry.ID
    content: str
    status: TaskStatus
    priority: TaskPriority
    confidence: float
    mentions: int
    created_at: datetime | None
    updated_at: datetime | None
    session_id: str | None
    project_id: str | None
    entity_ids: list[strawberry.ID]

    @staticmethod
    def of(t: CoreTask) -> TaskNode:
        return TaskNode(
            id=strawberry.ID(t.id),
            content=t.content,
            status=t.status,
            priority=t.priority,
            confidence=t.confidence,
            mentions=t.mentions,
            created_at=to_datetime(t.created_at),
            updated_at=to_datetime(t.updated_at),
            session_id=t.session_id,
            project_id=t.project_id,
            entity_ids=[strawberry.ID(e) for e in t.entity_ids],
        )


@strawberry.type
class TaskList:
    tasks: list[TaskNode]


TaskResult = Annotated[
    TaskNode | NotFoundError | InvalidInputError | ConflictError | ForbiddenError,
    strawberry.union("TaskResult"),
]

TasksResult = Annotated[
    TaskList | InvalidInputError | ForbiddenError, strawberry.union("TasksResult")
]


@strawberry.type
class TaskQuery:
    @strawberry.field(description="Candidate and tracked tasks, newest first.")
    async def tasks(
        self, info: Info, status: TaskStatus | None = None, first: int = 50
    ) -> TasksResult:
        ctx = info.context
        if not 1 <= first <= ctx.brain.settings.api.max_page_size:
            raise InvalidInput("first is out of range", field="first")
        tasks = await ctx.brain.ingest.tasks.page(ctx.tenant, status, first)
        return TaskList(tasks=[TaskNode.of(t) for t in tasks])


@strawberry.type
class TaskMutation:
    @strawberry.mutation(description="Confirm a candidate task.")
    async def confirm_task(self, info: Info, id: strawberry.ID) -> TaskResult:
        ctx = info.context
        task = await ctx.brain.ingest.tasks.confirm(ctx.tenant, str(id))
        return TaskNode.of(task)

    @strawberry.mutation(description="Dismiss a candidate task.")
    async def dismiss_task(self, info: Info, id: strawberry.ID) -> TaskResult:
        ctx = info.context
        task = await ctx.brain.ingest.tasks.dismiss(ctx.tenant, str(id))
        return TaskNode.of(task)
