"""Graph operations of the memory lifecycle: job reports, working-memory flush, duplicate
merges, pattern links, decay and prune, stale profiles, feedback.

Every write marks the memories it changes ``indexed=false`` in the same transaction; the job
then updates their vector payloads and marks them indexed. A crash in between leaves them for
the reconciler, so the vector index never silently disagrees with the graph.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from core.clock import NEVER
from core.lifecycle_types import (
    DecayCandidate,
    FeedbackResult,
    JobName,
    JobRun,
    MemoryDigest,
    MemoryMerge,
    Restatement,
    RunStatus,
)
from core.types import Memory
from graph.memories import create_step
from graph.records import (
    decay_candidate_from,
    digest_from,
    memory_merge_from,
    restatement_from,
    run_from,
    run_props,
)
from graph.scoped import Scoped


class LifecycleOps(Scoped):
    # -- job reports ---------------------------------------------------------------------------

    async def save_run(self, run: JobRun) -> None:
        await self.write("lifecycle_run_save", id=run.id, props=run_props(run))

    async def runs(
        self,
        *,
        limit: int,
        job: JobName | None = None,
        status: RunStatus | None = None,
        before: tuple[float, str] | None = None,
    ) -> list[JobRun]:
        rows = await self.read(
            "lifecycle_runs",
            job=job.value if job else None,
            status=status.value if status else None,
            before_at=before[0] if before else None,
            before_id=before[1] if before else "",
            limit=limit,
        )
        return [run_from(r["r"]) for r in rows]

    async def runs_by_id(self, ids: Sequence[str]) -> dict[str, JobRun]:
        rows = await self.read("lifecycle_runs_by_id", ids=list(ids))
        return {r["r"]["id"]: run_from(r["r"]) for r in rows}

    async def prune_runs(self, before: float, limit: int = 10_000) -> int:
        """Delete finished job reports that started before ``before``."""
        rows = await self.write("lifecycle_runs_prune", started_before=before, limit=limit)
        return int(rows[0]["removed"]) if rows else 0

    async def last_runs(self) -> dict[str, float]:
        """When each job last started a run that finished."""
        return {r["job"]: float(r["at"]) for r in await self.read("lifecycle_last_runs")}

    async def registered_at(self) -> float | None:
        """When the tenant made its first write (None: unknown, or no write yet)."""
        rows = await self.read("lifecycle_tenant_since")
        return float(rows[0]["at"]) if rows and rows[0]["at"] is not None else None

    # -- working memory ------------------------------------------------------------------------

    async def sessions_to_flush(
        self, at: float, session_id: str | None, project_id: str | None, limit: int
    ) -> list[str]:
        rows = await self.read(
            "lifecycle_sessions_to_flush",
            now=at,
            session_id=session_id,
            project_id=project_id,
            limit=limit,
        )
        return [r["id"] for r in rows]

    async def flush_sessions(
        self, sessions: Sequence[str], at: float, min_importance: float, min_access: int
    ) -> tuple[dict[str, str], list[str]]:
        """(promoted turn id -> its decay class, ids of the turns kept as they were) of the
        flushed sessions."""
        rows = await self.write(
            "lifecycle_flush_sessions",
            sessions=list(sessions),
            at=at,
            min_importance=min_importance,
            min_access=min_access,
        )
        promoted = {r["id"]: r["decay_class"] for r in rows if r["promoted"]}
        kept = [r["id"] for r in rows if not r["promoted"]]
        return promoted, kept

    # -- candidates ----------------------------------------------------------------------------

    async def current_memories(
        self,
        types: Sequence[str],
        at: float,
        created_before: float = NEVER,
        project_id: str | None = None,
        session_id: str | None = None,
    ) -> list[MemoryDigest]:
        rows = await self.read(
            "lifecycle_current_memories",
            types=list(types),
            now=at,
            created_before=created_before,
            project_id=project_id,
            session_id=session_id,
        )
        return [digest_from(r) for r in rows]

    async def decay_candidates(
        self, at: float, project_id: str | None = None, session_id: str | None = None
    ) -> list[DecayCandidate]:
        rows = await self.read(
            "lifecycle_decay_candidates",
            now=at,
            project_id=project_id,
            session_id=session_id,
        )
        return [decay_candidate_from(r) for r in rows]

    # -- duplicate merges ----------------------------------------------------------------------

    async def apply_merges(
        self, rows: Sequence[dict[str, Any]], at: float
    ) -> list[tuple[str, str]]:
        """Hide each loser behind its winner; returns the (loser, winner) pairs applied."""
        if not rows:
            return []
        done = await self.write("lifecycle_merge_apply", rows=list(rows), at=at)
        return [(r["loser_id"], r["winner_id"]) for r in done]

    async def undo_merge(self, loser_id: str, at: float) -> tuple[str, str] | None:
        rows = await self.write("lifecycle_merge_undo", loser_id=loser_id, at=at)
        return (rows[0]["loser_id"], rows[0]["winner_id"]) if rows else None

    async def memory_merges(self, ids: Sequence[str]) -> list[MemoryMerge]:
        rows = await self.read("lifecycle_merges", ids=list(ids))
        return [memory_merge_from(r) for r in rows]

    # -- patterns ------------------------------------------------------------------------------

    async def create_patterns(
        self, patterns: Sequence[tuple[Memory, Sequence[str]]], at: float
    ) -> int:
        """Store patterns (unindexed), each linked to the episodes it summarizes, in one
        transaction. Returns how many episodes were linked (episodes another run took
        meanwhile are skipped)."""
        if not patterns:
            return 0
        rows = [{"pattern_id": p.id, "episode_ids": list(ids)} for p, ids in patterns]
        results = await self.write_many(
            [
                create_step([p for p, _ in patterns], at),
                ("lifecycle_pattern_link", {"rows": rows, "at": at}),
            ]
        )
        return len(results[1])

    async def pattern_sources(self, pattern_id: str) -> list[str]:
        rows = await self.read("lifecycle_pattern_sources", pattern_id=pattern_id)
        return [r["id"] for r in rows]

    # -- decay and prune -----------------------------------------------------------------------

    async def set_effective_importance(self, rows: Sequence[dict[str, Any]]) -> None:
        if rows:
            await self.write("lifecycle_set_effective", rows=list(rows))

    async def restated_candidates(
        self,
        types: Sequence[str],
        at: float,
        project_id: str | None = None,
        session_id: str | None = None,
    ) -> list[Restatement]:
        rows = await self.read(
            "lifecycle_restated",
            types=list(types),
            now=at,
            project_id=project_id,
            session_id=session_id,
        )
        return [restatement_from(r) for r in rows]

    async def prune(self, carried_by: dict[str, str], at: float) -> list[str]:
        """Hide each memory behind the live memory that carries its content (id -> keeper
        id); returns the ids hidden (none whose keeper is gone meanwhile)."""
        if not carried_by:
            return []
        rows = [{"id": i, "carried_by": k} for i, k in carried_by.items()]
        done = await self.write("lifecycle_prune_apply", rows=rows, at=at)
        return [r["id"] for r in done]

    # -- profiles ------------------------------------------------------------------------------

    async def stale_entities(self, limit: int) -> list[str]:
        return [r["id"] for r in await self.read("lifecycle_stale_entities", limit=limit)]

    async def clear_stale(self, ids: Sequence[str]) -> None:
        if ids:
            await self.write("lifecycle_clear_stale", ids=list(ids))

    # -- reconciliation ------------------------------------------------------------------------

    async def memory_ids_page(self, after: str, limit: int) -> list[str]:
        rows = await self.read("lifecycle_memory_ids", after=after, limit=limit)
        return [r["id"] for r in rows]

    # -- feedback ------------------------------------------------------------------------------

    async def apply_feedback(self, feedback: FeedbackResult) -> list[str]:
        """Record ``feedback`` and set each memory's importance to its ``changes`` after."""
        record = {
            "id": feedback.id,
            "session_id": feedback.session_id,
            "helpful": feedback.helpful,
            "outcome": feedback.outcome.value if feedback.outcome else None,
            "at": feedback.at,
            "memory_ids": list(feedback.changes),
        }
        rows = [{"id": i, "before": b, "after": a} for i, (b, a) in feedback.changes.items()]
        done = await self.write("lifecycle_feedback_apply", feedback=record, rows=rows)
        return [r["id"] for r in done]
