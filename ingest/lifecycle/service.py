"""The lifecycle as one object the facade owns: consolidate, scheduler, feedback, undo.

lifecycle = LifecycleService(writer, settings.lifecycle, reprofile)
report = await lifecycle.consolidate("acme")
lifecycle.scheduler.start()   # in a serving process
"""

from __future__ import annotations

from collections.abc import Sequence

from core.clock import now
from core.errors import InvalidInput, NotFound
from core.ids import check_id
from core.lifecycle_types import (
    ConsolidationReport,
    FeedbackOutcome,
    FeedbackResult,
    JobName,
    JobRun,
    MemoryMerge,
    Scope,
)
from core.settings import LifecycleSettings
from core.types import Memory
from core.validation import check_project_id
from ingest.jobs.llm import LLMClient
from ingest.lifecycle.consolidator import Consolidator
from ingest.lifecycle.context import JobContext, Progress, Reprofile
from ingest.lifecycle.feedback import record_feedback
from ingest.lifecycle.scheduler import Scheduler
from ingest.sessions import check_session_id
from ingest.write.writer import MemoryWriter


class LifecycleService:
    def __init__(
        self,
        writer: MemoryWriter,
        settings: LifecycleSettings,
        reprofile: Reprofile,
        llm: LLMClient | None = None,
    ) -> None:
        self.ctx = JobContext(writer=writer, settings=settings, reprofile=reprofile, llm=llm)
        self.consolidator = Consolidator(self.ctx)
        self.scheduler = Scheduler(writer.graph, self.consolidator, settings)

    async def consolidate(
        self,
        tenant_id: str,
        jobs: Sequence[JobName] | None = None,
        project_id: str | None = None,
        session_id: str | None = None,
        progress: Progress | None = None,
    ) -> ConsolidationReport:
        """Run lifecycle jobs now on the whole tenant, one project, or one session."""
        if project_id is not None and session_id is not None:
            raise InvalidInput("scope is one of: the tenant, a projectId, or a sessionId")
        scope = Scope(
            project_id=check_project_id(project_id),
            session_id=check_session_id(session_id) if session_id is not None else None,
        )
        return await self.consolidator.run(tenant_id, jobs, scope, progress=progress)

    async def flush_session(self, tenant_id: str, session_id: str) -> JobRun:
        """Promote or expire a closed session's working memory (run at closeSession)."""
        report = await self.consolidator.run(
            tenant_id,
            [JobName.PROMOTE_WORKING],
            Scope(session_id=session_id),
            trigger="session_close",
            exclusive=False,  # closeSession never waits for a long consolidation
        )
        return report.runs[0]

    async def runs(
        self,
        tenant_id: str,
        *,
        first: int,
        before: tuple[float, str] | None = None,
        job: JobName | None = None,
    ) -> list[JobRun]:
        """Job run reports, newest first."""
        return await self.ctx.graph.tenant(tenant_id).runs(limit=first, job=job, before=before)

    async def run(self, tenant_id: str, run_id: str) -> JobRun:
        found = await self.ctx.graph.tenant(tenant_id).runs_by_id([check_id(run_id, "runId")])
        if run_id not in found:
            raise NotFound("job run", run_id)
        return found[run_id]

    async def feedback(
        self,
        tenant_id: str,
        session_id: str,
        memory_ids: Sequence[str],
        helpful: bool,
        outcome: FeedbackOutcome | None = None,
    ) -> FeedbackResult:
        return await record_feedback(self.ctx, tenant_id, session_id, memory_ids, helpful, outcome)

    async def merges(self, tenant_id: str, memory_id: str) -> list[MemoryMerge]:
        tenant = self.ctx.graph.tenant(tenant_id)
        memory = await tenant.get_memory(check_id(memory_id))  # NotFound for other tenants
        return await tenant.memory_merges([memory.id])

    async def pattern_sources(self, tenant_id: str, pattern_id: str) -> list[str]:
        """The episodes a pattern summarizes, oldest first (none for other memories)."""
        return await self.ctx.graph.tenant(tenant_id).pattern_sources(pattern_id)

    async def unmerge(self, tenant_id: str, memory_id: str) -> Memory:
        """Undo a duplicate merge: the hidden memory ``memory_id`` is current again."""
        tenant = self.ctx.graph.tenant(tenant_id)
        memory = await tenant.get_memory(check_id(memory_id))  # NotFound for other tenants
        undone = await tenant.undo_merge(memory.id, now())
        if undone is None:
            raise InvalidInput(f"memory {memory_id} is not a merged duplicate", field="id")
        loser, winner = undone
        restored = await tenant.get_memories([loser, winner])
        changes = {
            loser: {"superseded_at": restored[loser].superseded_at},
            winner: {"importance": restored[winner].importance},
        }
        await self.ctx.writer.sync.show(tenant_id, changes=changes, present_only=True)
        return await tenant.get_memory(loser)
