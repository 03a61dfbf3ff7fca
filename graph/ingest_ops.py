"""Tenant graph operations of the write side (sessions, turns, facts, conflicts, jobs).

Statements live in ``cypher/ingest_*.cypher`` like every other; this mixin is composed into
``TenantGraph``. Tasks and documents are in ``graph/ingest_docs.py`` (composed here).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from core.ingest_types import FactConflict, Job, JobStatus, Session, Turn, user_subject
from core.types import Memory
from graph.ingest_docs import DocumentTaskOps
from graph.records import conflict_from, job_from, job_row, memory_from, session_from, turn_from


class IngestOps(DocumentTaskOps):
    # -- sessions and working memory ---------------------------------------------------------

    async def get_session(self, session_id: str) -> Session | None:
        return (await self.get_session_and_tracker(session_id))[0]

    async def get_session_and_tracker(self, session_id: str) -> tuple[Session | None, str | None]:
        """The session's working-memory record and its stored entity tracker (JSON): the same
        node, one round trip."""
        rows = await self.read("ingest_session_get", session_id=session_id)
        if not rows:
            return None, None
        tracker = rows[0]["s"].get("entity_tracker")
        return session_from(rows[0]["s"]), str(tracker) if tracker else None

    async def close_session(self, session_id: str, at: float) -> bool:
        """Close the session; False when it does not exist (for this tenant)."""
        return bool(await self.write("ingest_session_close", session_id=session_id, at=at))

    async def get_turns(self, memory_ids: Sequence[str]) -> list[Turn]:
        """Turns by episodic memory id, in the order given (missing ids are skipped)."""
        if not memory_ids:
            return []
        rows = await self.read("ingest_turns_get", ids=list(memory_ids))
        by_id = {r["m"]["id"]: turn_from(r["m"]) for r in rows}
        return [by_id[i] for i in memory_ids if i in by_id]

    # -- facts and conflicts -----------------------------------------------------------------

    async def current_facts(self, keys: Sequence[Mapping[str, str]], at: float) -> list[Memory]:
        """Current facts for ``{subject, predicate}`` keys (extra key fields are ignored)."""
        if not keys:
            return []
        rows = await self.read("ingest_facts_current", keys=[dict(k) for k in keys], at=at)
        return [memory_from(r["m"]) for r in rows]

    async def current_preferences(
        self, user_id: str, predicates: Sequence[str], at: float
    ) -> list[Memory]:
        """The user's current preferences with these predicates (subject ``user:<id>``)."""
        if not predicates:
            return []
        rows = await self.read(
            "ingest_prefs_current",
            subject=user_subject(user_id),
            predicates=list(predicates),
            at=at,
        )
        return [memory_from(r["m"]) for r in rows]

    async def current_procedures(self, subject: str, at: float, limit: int = 50) -> list[Memory]:
        """The tenant's current procedures (memories with this ``subject``), newest first."""
        rows = await self.read("ingest_procedures_current", subject=subject, at=at, limit=limit)
        return [memory_from(r["m"]) for r in rows]

    async def conflicts(self, open_only: bool = True, limit: int = 100) -> list[FactConflict]:
        rows = await self.read("ingest_conflict_list", open_only=open_only, limit=limit)
        return [conflict_from(r["c"]) for r in rows]

    async def resolve_conflict(self, conflict_id: str, at: float) -> FactConflict | None:
        rows = await self.write("ingest_conflict_resolve", id=conflict_id, at=at)
        return conflict_from(rows[0]["c"]) if rows else None

    async def memory_hashes_for_episode(self, session_id: str, episode_id: str) -> set[str]:
        """Content hashes of everything already extracted from one turn (and the turn)."""
        kinds = ("fact", "preference", "decision", "episode", "task")
        sources = [f"{origin}:{k}:{episode_id}" for origin in ("rule", "llm") for k in kinds]
        rows = await self.read("ingest_episode_hashes", session_id=session_id, sources=sources)
        return {r["content_hash"] for r in rows}

    # -- jobs --------------------------------------------------------------------------------

    async def create_jobs(self, jobs: Sequence[Job]) -> None:
        if jobs:
            await self.write("ingest_job_create", rows=[job_row(j) for j in jobs])

    async def pending_jobs(self, limit: int = 1000) -> list[Job]:
        return [job_from(r["j"]) for r in await self.read("ingest_job_pending", limit=limit)]

    async def get_jobs(self, ids: Sequence[str]) -> dict[str, Job]:
        if not ids:
            return {}
        rows = await self.read("ingest_job_get", ids=list(ids))
        return {r["j"]["id"]: job_from(r["j"]) for r in rows}

    async def update_job(
        self, job_id: str, status: JobStatus, attempts: int, error: str | None, at: float
    ) -> None:
        await self.write(
            "ingest_job_update",
            id=job_id,
            status=status.value,
            attempts=attempts,
            error=error,
            at=at,
        )

    async def delete_jobs(self, ids: Sequence[str]) -> None:
        if ids:
            await self.write("ingest_job_delete", ids=list(ids))
