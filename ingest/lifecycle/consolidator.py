"""Run lifecycle jobs on a tenant and record each run as a report.

    consolidator = Consolidator(ctx)
    report = await consolidator.run("acme", [JobName.MERGE_DUPLICATES, JobName.DECAY])

Each job run is saved as a ``JobRun`` node before it starts (status ``running``) and again when
it ends (``done`` with counts, or ``failed`` with the error). Jobs are idempotent functions of
the graph's state, so a run the process did not live to finish is resumed by simply running the
job again: the new run names the interrupted one in ``resumed``, and the interrupted one is
closed as failed. One consolidation per tenant runs at a time in a process.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import defaultdict
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace

from core.clock import now
from core.errors import BrainError
from core.ids import new_id
from core.lifecycle_types import (
    JOB_ORDER,
    ConsolidationReport,
    JobName,
    JobRun,
    RunStatus,
    Scope,
)
from ingest.lifecycle.context import JobCall, JobContext, Progress
from ingest.lifecycle.decay import decay, prune
from ingest.lifecycle.duplicates import merge_duplicates
from ingest.lifecycle.identities import propose_identities
from ingest.lifecycle.layout import layout
from ingest.lifecycle.patterns import compress_episodes
from ingest.lifecycle.upkeep import reconcile_index, reprofile
from ingest.lifecycle.working import promote_working

log = logging.getLogger(__name__)

Job = Callable[[JobContext, JobCall], Awaitable[dict[str, int]]]

JOBS: dict[JobName, Job] = {
    JobName.PROMOTE_WORKING: promote_working,
    JobName.MERGE_DUPLICATES: merge_duplicates,
    JobName.COMPRESS_EPISODES: compress_episodes,
    JobName.DECAY: decay,
    JobName.PRUNE: prune,
    JobName.REPROFILE: reprofile,
    JobName.PROPOSE_IDENTITIES: propose_identities,
    JobName.RECONCILE: reconcile_index,
    JobName.LAYOUT: layout,
}


class Consolidator:
    def __init__(self, ctx: JobContext) -> None:
        self.ctx = ctx
        self._locks: dict[str, asyncio.Lock] = defaultdict(asyncio.Lock)
        self.on_run: Callable[[JobRun], None] | None = None  # metrics hook

    async def run(
        self,
        tenant_id: str,
        jobs: Sequence[JobName] | None = None,
        scope: Scope | None = None,
        trigger: str = "manual",
        progress: Progress | None = None,
        exclusive: bool = True,
    ) -> ConsolidationReport:
        """Run ``jobs`` (default: all) in the lifecycle's order; a failing job is reported
        and the next one still runs. ``progress`` receives a line per step of long jobs.
        ``exclusive`` runs wait for another consolidation of the tenant in this process to
        end; a small scoped run (a session's flush) need not, the jobs being idempotent."""
        ctx = replace(self.ctx, progress=progress) if progress is not None else self.ctx
        wanted = set(jobs) if jobs else set(JOB_ORDER)
        scope = scope or Scope()
        started = now()
        runs: list[JobRun] = []
        async with self._locks[tenant_id] if exclusive else contextlib.nullcontext():
            for job in JOB_ORDER:
                if job in wanted:
                    runs.append(await self._run_one(ctx, tenant_id, job, scope, trigger))
        return ConsolidationReport(
            tenant_id=tenant_id,
            scope=scope.label,
            runs=tuple(runs),
            started_at=started,
            finished_at=now(),
        )

    async def _run_one(
        self, ctx: JobContext, tenant_id: str, job: JobName, scope: Scope, trigger: str
    ) -> JobRun:
        tenant = ctx.graph.tenant(tenant_id)
        interrupted = await tenant.runs(limit=10, job=job, status=RunStatus.RUNNING)
        run = JobRun(
            id=new_id(),
            tenant_id=tenant_id,
            job=job,
            status=RunStatus.RUNNING,
            scope=scope.label,
            trigger=trigger,
            started_at=now(),
            resumed=interrupted[0].id if interrupted else None,
        )
        await tenant.save_run(run)
        for old in interrupted:
            await tenant.save_run(
                old.model_copy(
                    update={
                        "status": RunStatus.FAILED,
                        "finished_at": run.started_at,
                        "error": f"interrupted; finished by run {run.id}",
                    }
                )
            )
        call = JobCall(tenant_id=tenant_id, scope=scope, at=run.started_at, run_id=run.id)
        try:
            counts = await JOBS[job](ctx, call)
            done = run.model_copy(
                update={"status": RunStatus.DONE, "finished_at": now(), "counts": counts}
            )
        except asyncio.CancelledError:
            raise  # shutting down: the run stays "running" and the next one resumes it
        except BrainError as e:
            log.warning("%s on %s failed: %s", job.value, tenant_id, e)
            done = run.model_copy(
                update={"status": RunStatus.FAILED, "finished_at": now(), "error": str(e)}
            )
        except Exception as e:
            log.exception("%s on %s failed", job.value, tenant_id)
            done = run.model_copy(
                update={
                    "status": RunStatus.FAILED,
                    "finished_at": now(),
                    "error": f"{type(e).__name__}: {e}",
                }
            )
        await tenant.save_run(done)
        if self.on_run is not None:
            self.on_run(done)
        log.info(
            "lifecycle %s on %s: %s in %.0f ms %s",
            job.value,
            tenant_id,
            done.status.value,
            done.duration_ms or 0.0,
            done.counts,
        )
        return done
