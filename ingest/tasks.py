"""Tasks: candidates from conversation, deduplicated by normalized text, with a confirm /
dismiss / expire lifecycle.

A task is a memory of ``type=task`` (so retrieval finds it like any memory) whose graph node
also carries ``task_status``, ``task_priority``, ``task_key`` (the normalized text),
``task_mentions`` and ``task_confidence``. Dismissed and expired tasks also expire as memories:
they leave retrieval, while the record and its status stay for the audit trail.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from core.clock import NEVER, now
from core.errors import Conflict, NotFound
from core.ids import check_id
from core.ingest_types import Task, TaskPriority, TaskStatus
from core.settings import IngestSettings
from core.types import MemoryType, NewMemory
from graph.write_ops import TaskMention
from ingest.extract.extraction import entities_in_span
from ingest.extract.task_rules import TaskCandidate, find_tasks
from ingest.write.sync import IndexSync
from resolution.types import Resolution


@dataclass(frozen=True)
class TaskPlan:
    new: list[tuple[NewMemory, dict[str, Any]]]  # memory to create, extra graph properties
    mentions: list[TaskMention]
    repeated: list[Task]  # known tasks said again


def priority_of(confidence: float, settings: IngestSettings) -> TaskPriority | None:
    if confidence >= settings.task_high_threshold:
        return TaskPriority.HIGH
    if confidence >= settings.task_candidate_threshold:
        return TaskPriority.MEDIUM
    return None


def scan(text: str, resolution: Resolution) -> list[TaskCandidate]:
    names = [r.entity.name for r in resolution.resolved if r.entity is not None]
    names += [r.mention.text for r in resolution.resolved if r.entity is not None]
    return find_tasks(text, names)


def plan_tasks(
    found: Sequence[TaskCandidate],
    existing: Mapping[str, Task],
    resolution: Resolution,
    settings: IngestSettings,
    *,
    user_id: str | None,
    project_id: str | None,
    session_id: str | None,
    episode_id: str,
    at: float,
) -> TaskPlan:
    plan = TaskPlan([], [], [])
    for cand in found:
        known = existing.get(cand.key)
        confidence = cand.confidence(known.mentions if known else 0)
        priority = priority_of(confidence, settings)
        if known is not None:
            plan.mentions.append(TaskMention(known.id, confidence, priority or known.priority, at))
            plan.repeated.append(known)
            continue
        if priority is None:
            continue
        entity_ids = [e.id for e in entities_in_span(resolution, cand.start, cand.end)]
        item = NewMemory(
            content=cand.content,
            type=MemoryType.TASK,
            user_id=user_id,
            project_id=project_id,
            session_id=session_id,
            importance=round(confidence, 4),
            created_at=at,
            source=f"rule:task:{episode_id}",
            entity_ids=entity_ids,
            confidence=confidence,
        )
        extra = {
            "task_status": TaskStatus.CANDIDATE.value,
            "task_priority": priority.value,
            "task_key": cand.key,
            "task_mentions": 1,
            "task_confidence": confidence,
            "task_updated_at": at,
        }
        plan.new.append((item, extra))
    return plan


class TaskService:
    """The task lifecycle: list, confirm, dismiss, expire."""

    def __init__(self, sync: IndexSync, settings: IngestSettings) -> None:
        self.graph = sync.graph
        self.sync = sync
        self.settings = settings

    async def page(
        self, tenant_id: str, status: TaskStatus | None = None, limit: int = 100
    ) -> list[Task]:
        return await self.graph.tenant(tenant_id).list_tasks(status, limit)

    async def confirm(self, tenant_id: str, task_id: str) -> Task:
        """A candidate becomes a confirmed task (confirming twice is a no-op)."""
        return await self._move(
            tenant_id, task_id, TaskStatus.CONFIRMED, (TaskStatus.CANDIDATE, TaskStatus.CONFIRMED)
        )

    async def dismiss(self, tenant_id: str, task_id: str) -> Task:
        """Dismiss a candidate or confirmed task: it leaves retrieval, the record stays."""
        return await self._move(
            tenant_id,
            task_id,
            TaskStatus.DISMISSED,
            (TaskStatus.CANDIDATE, TaskStatus.CONFIRMED, TaskStatus.DISMISSED),
        )

    async def expire(self, tenant_id: str, at: float | None = None) -> list[str]:
        """Expire candidates older than ``task_expire_days`` that nobody confirmed."""
        when = now() if at is None else at
        tenant = self.graph.tenant(tenant_id)
        ids = await tenant.expire_tasks(when - self.settings.task_expire_days * 86_400, when)
        await self.sync.show(tenant_id, changes={i: {"expires_at": when} for i in ids})
        return ids

    async def _move(
        self, tenant_id: str, task_id: str, status: TaskStatus, allowed: Sequence[TaskStatus]
    ) -> Task:
        task_id = check_id(task_id)  # the API's argument is ``id``
        tenant = self.graph.tenant(tenant_id)
        when = now()
        expires = when if status is TaskStatus.DISMISSED else NEVER
        moved = await tenant.set_task_status(task_id, status, allowed, when, expires)
        if moved is None:
            current = await tenant.list_tasks_by_id([task_id])
            if not current:
                raise NotFound("task", task_id)
            raise Conflict(
                f"task {task_id} is {current[0].status.value}; cannot become {status.value}"
            )
        await self.sync.show(tenant_id, changes={task_id: {"expires_at": expires}})
        return moved
