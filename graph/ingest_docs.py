"""Tenant graph operations for tasks (memories of ``type=task``) and document records."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from core.ingest_types import Document, DocumentJob, Task, TaskStatus
from graph.records import document_from, document_job_from, task_from
from graph.scoped import Scoped


class DocumentTaskOps(Scoped):
    # -- tasks -------------------------------------------------------------------------------

    async def tasks_by_keys(self, keys: Sequence[str]) -> dict[str, Task]:
        """Existing tasks by normalized key (any status)."""
        if not keys:
            return {}
        rows = await self.read("ingest_task_by_keys", keys=list(dict.fromkeys(keys)))
        return {r["m"]["task_key"]: task_from(r["m"], r["entity_ids"]) for r in rows}

    async def mention_tasks(self, rows: Sequence[Mapping[str, Any]]) -> None:
        if rows:
            await self.write("ingest_task_mention", rows=[dict(r) for r in rows])

    async def set_task_status(
        self,
        task_id: str,
        status: TaskStatus,
        allowed_from: Sequence[TaskStatus],
        at: float,
        expires_at: float,
    ) -> Task | None:
        """Move a task to ``status``; None when unknown or not in ``allowed_from``."""
        rows = await self.write(
            "ingest_task_set_status",
            id=task_id,
            status=status.value,
            at=at,
            expires_at=expires_at,
            **{"from": [s.value for s in allowed_from]},
        )
        return task_from(rows[0]["m"], rows[0]["entity_ids"]) if rows else None

    async def list_tasks(self, status: TaskStatus | None = None, limit: int = 100) -> list[Task]:
        rows = await self.read(
            "ingest_task_list", status=status.value if status else None, limit=limit
        )
        return [task_from(r["m"], r["entity_ids"]) for r in rows]

    async def list_tasks_by_id(self, ids: Sequence[str]) -> list[Task]:
        if not ids:
            return []
        rows = await self.read("ingest_task_get", ids=list(ids))
        return [task_from(r["m"], r["entity_ids"]) for r in rows]

    async def expire_tasks(self, before: float, at: float) -> list[str]:
        rows = await self.write("ingest_task_expire", created_before=before, at=at)
        return [r["id"] for r in rows]

    # -- documents ---------------------------------------------------------------------------

    async def chunk_headings(self, ids: Sequence[str]) -> dict[str, str]:
        """Heading of each still-current chunk among ``ids``."""
        if not ids:
            return {}
        rows = await self.read("ingest_chunks_current", ids=list(ids))
        return {r["id"]: r["heading"] or "" for r in rows}

    async def save_document_job(self, job_id: str, props: dict[str, Any]) -> None:
        await self.write("document_job_save", id=job_id, props=props)

    async def get_document_job(self, job_id: str) -> DocumentJob | None:
        """A background document ingest's record (see ``ingest/jobs/document_jobs.py``)."""
        rows = await self.read("document_job_get", id=job_id)
        return document_job_from(rows[0]["j"]) if rows else None

    async def get_document(self, source_path: str) -> Document | None:
        rows = await self.read("ingest_document_get", source_path=source_path)
        return document_from(rows[0]["d"]) if rows else None
