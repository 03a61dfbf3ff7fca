"""GraphQL operations of the memory lifecycle: `consolidate`, `jobRuns`, `recordFeedback`,
`memoryMerges` and `unmergeMemory`."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry

from api.gql.context import Context
from api.gql.errors import ForbiddenError, InvalidInputError, NotFoundError
from api.gql.nodes import MemoryNode
from api.gql.pagination import PageInfo, check_first, decode_cursor, encode_cursor, paginate
from core.clock import to_datetime
from core.errors import InvalidInput
from core.lifecycle_types import ConsolidationReport as CoreReport
from core.lifecycle_types import FeedbackOutcome as CoreOutcome
from core.lifecycle_types import JobName as CoreJobName
from core.lifecycle_types import JobRun as CoreRun
from core.lifecycle_types import MemoryMerge as CoreMerge
from core.lifecycle_types import RunStatus as CoreStatus

Info = strawberry.Info[Context, None]

JobName = strawberry.enum(CoreJobName, name="ConsolidationTask")
RunStatus = strawberry.enum(CoreStatus, name="JobRunStatus")
FeedbackOutcome = strawberry.enum(CoreOutcome, name="FeedbackOutcome")


@strawberry.type(description="A named count in a job report (what changed).")
class JobCount:
    name: str
    value: int


@strawberry.type(description="The report of one lifecycle job run.")
class JobRun:
    id: strawberry.ID
    job: JobName  # type: ignore[valid-type]
    status: RunStatus  # type: ignore[valid-type]
    scope: str
    trigger: str
    started_at: datetime
    finished_at: datetime | None
    duration_ms: float | None
    counts: list[JobCount]
    error: str | None
    resumed_run_id: strawberry.ID | None = strawberry.field(
        description="An interrupted run of the same job that this run finished."
    )

    @staticmethod
    def of(r: CoreRun) -> JobRun:
        return JobRun(
            id=strawberry.ID(r.id),
            job=r.job,
            status=r.status,
            scope=r.scope,
            trigger=r.trigger,
            started_at=to_datetime(r.started_at) or datetime.min,
            finished_at=to_datetime(r.finished_at),
            duration_ms=round(r.duration_ms, 1) if r.duration_ms is not None else None,
            counts=[JobCount(name=k, value=v) for k, v in sorted(r.counts.items())],
            error=r.error,
            resumed_run_id=strawberry.ID(r.resumed) if r.resumed else None,
        )


@strawberry.type
class ConsolidationReport:
    scope: str
    ok: bool = strawberry.field(description="Every job finished.")
    duration_ms: float
    runs: list[JobRun]

    @staticmethod
    def of(r: CoreReport) -> ConsolidationReport:
        return ConsolidationReport(
            scope=r.scope,
            ok=r.ok,
            duration_ms=round(r.duration_ms, 1),
            runs=[JobRun.of(run) for run in r.runs],
        )


@strawberry.input(
    description="What to consolidate: the whole tenant (default), a project or a session."
)
class ConsolidateScope:
    tenant: bool | None = None
    project_id: str | None = None
    session_id: str | None = None


@strawberry.input
class FeedbackInput:
    session_id: str
    memory_ids: list[strawberry.ID]
    helpful: bool
    outcome: FeedbackOutcome | None = None  # type: ignore[valid-type]


@strawberry.type(description="A memory's importance before and after feedback.")
class ImportanceChange:
    memory_id: strawberry.ID
    before: float
    after: float


@strawberry.type
class FeedbackReport:
    id: strawberry.ID
    session_id: str
    helpful: bool
    outcome: FeedbackOutcome | None  # type: ignore[valid-type]
    changes: list[ImportanceChange]


@strawberry.type(description="A duplicate hidden behind the memory that won.")
class MemoryMerge:
    loser_id: strawberry.ID
    winner_id: strawberry.ID
    reason: str
    similarity: float
    at: datetime
    undone_at: datetime | None

    @staticmethod
    def of(m: CoreMerge) -> MemoryMerge:
        return MemoryMerge(
            loser_id=strawberry.ID(m.loser_id),
            winner_id=strawberry.ID(m.winner_id),
            reason=m.reason,
            similarity=m.similarity,
            at=to_datetime(m.at) or datetime.min,
            undone_at=to_datetime(m.undone_at),
        )


@strawberry.type
class MemoryMergeList:
    merges: list[MemoryMerge]


@strawberry.type
class JobRunEdge:
    cursor: str
    node: JobRun


@strawberry.type
class JobRunConnection:
    edges: list[JobRunEdge]
    page_info: PageInfo


ConsolidateResult = Annotated[
    ConsolidationReport | InvalidInputError | ForbiddenError,
    strawberry.union("ConsolidateResult"),
]
FeedbackResult = Annotated[
    FeedbackReport | NotFoundError | InvalidInputError | ForbiddenError,
    strawberry.union("FeedbackResult"),
]
JobRunsResult = Annotated[
    JobRunConnection | InvalidInputError | ForbiddenError, strawberry.union("JobRunsResult")
]
MemoryMergesResult = Annotated[
    MemoryMergeList | NotFoundError | InvalidInputError | ForbiddenError,
    strawberry.union("MemoryMergesResult"),
]
UnmergeMemoryResult = Annotated[
    MemoryNode | NotFoundError | InvalidInputError | ForbiddenError,
    strawberry.union("UnmergeMemoryResult"),
]


@strawberry.type
class LifecycleQuery:
    @strawberry.field(description="Lifecycle job reports (consolidation runs), newest first.")
    async def job_runs(
        self,
        info: Info,
        first: int = 20,
        after: str | None = None,
        job: JobName | None = None,  # type: ignore[valid-type]
    ) -> JobRunsResult:
        ctx = info.context
        size = check_first(first, ctx.brain.settings.api.max_page_size)
        cursor = decode_cursor(after, 2)
        rows = await ctx.brain.lifecycle.runs(
            ctx.tenant,
            first=size + 1,
            before=(float(cursor[0]), str(cursor[1])) if cursor else None,  # type: ignore[arg-type]
            job=job,
        )
        pairs, page = paginate(rows, size, lambda r: encode_cursor(r.started_at, r.id))
        edges = [JobRunEdge(cursor=c, node=JobRun.of(r)) for c, r in pairs]
        return JobRunConnection(edges=edges, page_info=page)

    @strawberry.field(description="Duplicate merges a memory took part in (as loser or winner).")
    async def memory_merges(self, info: Info, memory_id: strawberry.ID) -> MemoryMergesResult:
        ctx = info.context
        merges = await ctx.brain.lifecycle.merges(ctx.tenant, str(memory_id))
        return MemoryMergeList(merges=[MemoryMerge.of(m) for m in merges])


@strawberry.type
class LifecycleMutation:
    @strawberry.mutation(
        description="Run lifecycle jobs now (default: all, in order) on the tenant, a project "
        "or a session; returns each job's report."
    )
    async def consolidate(
        self,
        info: Info,
        scope: ConsolidateScope | None = None,
        tasks: list[JobName] | None = None,  # type: ignore[valid-type]
    ) -> ConsolidateResult:
        ctx = info.context
        s = scope or ConsolidateScope()

        if s.tenant and (s.project_id is not None or s.session_id is not None):
            raise InvalidInput("scope is one of: tenant, projectId or sessionId", "scope")
        report = await ctx.brain.lifecycle.consolidate(
            ctx.tenant, tasks or None, project_id=s.project_id, session_id=s.session_id
        )
        return ConsolidationReport.of(report)

    @strawberry.mutation(
        description="Say whether the memories used in a session helped, and optionally the "
        "outcome of the decision they informed; adjusts their importance."
    )
    async def record_feedback(self, info: Info, input: FeedbackInput) -> FeedbackResult:
        ctx = info.context
        result = await ctx.brain.lifecycle.feedback(
            ctx.tenant,
            input.session_id,
            [str(i) for i in input.memory_ids],
            input.helpful,
            input.outcome,
        )
        return FeedbackReport(
            id=strawberry.ID(result.id),
            session_id=result.session_id,
            helpful=result.helpful,
            outcome=result.outcome,
            changes=[
                ImportanceChange(memory_id=strawberry.ID(k), before=b, after=a)
                for k, (b, a) in result.changes.items()
            ],
        )

    @strawberry.mutation(description="Undo a duplicate merge: the hidden memory is current again.")
    async def unmerge_memory(self, info: Info, id: strawberry.ID) -> UnmergeMemoryResult:
        ctx = info.context
        return MemoryNode.of(await ctx.brain.lifecycle.unmerge(ctx.tenant, str(id)))
