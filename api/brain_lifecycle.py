"""The lifecycle operations of the ``Brain`` facade (a mixin: ``Brain`` owns the engines):
sessions closing, consolidation jobs and their reports, feedback, memory merges.
See docs/LIFECYCLE.md.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from core.ingest_types import Session
from core.lifecycle_types import (
    ConsolidationReport,
    FeedbackOutcome,
    FeedbackResult,
    JobName,
    JobRun,
    MemoryMerge,
)
from core.types import Memory
from ingest.lifecycle.service import LifecycleService
from ingest.service import IngestService
from resolution.resolver import Resolver


class LifecycleFacade:
    ingest: IngestService
    lifecycle: LifecycleService
    resolver: Resolver

    async def _reprofile_ids(self, tenant_id: str, ids: Sequence[str]) -> int:
        report = await self.resolver.profiles.reprofile_entities(tenant_id, list(ids))
        return report.profiled

    async def close_session(self, tenant_id: str, session_id: str) -> Session:
        """Close a session and flush its working memory (its window ends; used turns are
        promoted, and every turn stays)."""
        session = await self.ingest.close_session(tenant_id, session_id)
        await self.lifecycle.flush_session(tenant_id, session.id)
        return session

    async def consolidate(
        self,
        tenant_id: str,
        jobs: Sequence[JobName] | None = None,
        project_id: str | None = None,
        session_id: str | None = None,
        progress: Callable[[str], None] | None = None,
    ) -> ConsolidationReport:
        """Run lifecycle jobs now (default: all) and return their reports."""
        return await self.lifecycle.consolidate(tenant_id, jobs, project_id, session_id, progress)

    async def job_runs(
        self,
        tenant_id: str,
        *,
        first: int,
        before: tuple[float, str] | None = None,
        job: JobName | None = None,
    ) -> list[JobRun]:
        return await self.lifecycle.runs(tenant_id, first=first, before=before, job=job)

    async def record_feedback(
        self,
        tenant_id: str,
        session_id: str,
        memory_ids: Sequence[str],
        helpful: bool,
        outcome: FeedbackOutcome | None = None,
    ) -> FeedbackResult:
        return await self.lifecycle.feedback(tenant_id, session_id, memory_ids, helpful, outcome)

    async def memory_merges(self, tenant_id: str, memory_id: str) -> list[MemoryMerge]:
        return await self.lifecycle.merges(tenant_id, memory_id)

    async def pattern_sources(self, tenant_id: str, pattern_id: str) -> list[str]:
        """The ids of the episodes a pattern summarizes, oldest first (none for others)."""
        return await self.lifecycle.pattern_sources(tenant_id, pattern_id)

    async def unmerge_memory(self, tenant_id: str, memory_id: str) -> Memory:
        return await self.lifecycle.unmerge(tenant_id, memory_id)
