"""Tenant graph operations for tasks (memories of ``type=task``) and document records."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from core.ingest_types import Document, Task, TaskPriority, TaskStatus
from graph.scoped import Scoped


def task_from(props: Mapping[str, Any], entity_ids: Sequence[str] = ()) -> Task:
    return Task(
        id=props["id"],
        content=props["content"],
        status=TaskStatus(props.get("task_status") or TaskStatus.CANDIDATE.value),
        priority=TaskPriority(props.get("task_priority") or TaskPriority.MEDIUM.value),
        confidence=float(props.get("task_confidence") or props.get("confidence") or 0.0),
        mentions=int(props.get("task_mentions") or 1),
        created_at=props["created_at"],
        updated_at=props.get("task_updated_at") or props["created_at"],
        session_id=props.get("session_id"),
        user_id=props.get("user_id"),
        project_id=props.get("project_id"),
        entity_ids=tuple(sorted(entity_ids)),
    )


def document_from(props: Mapping[str, Any]) -> Document:
    return Document(
        id=props["id"],
        source_path=props["source_path"],
        content_hash=props["content_hash"],
        version=int(props.get("version") or 1),
        created_at=props["created_at"],
        updated_at=props.get("updated_at") or props["created_at"],
        project_id=props.get("project_id"),
        chunk_ids=tuple(props.get("chunk_ids") or ()),
    )


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

    async def get_document_job(self, job_id: str) -> dict[str, Any] | None:
        """A background document ingest's record (see ``ingest/jobs/document_jobs.py``)."""
        rows = await self.read("document_job_get", id=job_id)
        return {k: v for k, v in rows[0]["j"].items() if k != "tenant_id"} if rows else None

    async def get_document(self, source_path: str) -> Document | None:
        rows = await self.read("ingest_document_get", source_path=source_path)
        return document_from(rows[0]["d"]) if rows else None
