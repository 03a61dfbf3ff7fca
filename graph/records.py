"""Translate between the graph and the domain, in one place: statement parameters on the way
in (``to_graph``), rows on the way out (``from_graph``), and rows into domain objects.

The graph stores instants as native temporal values (Cypher ``datetime``, nanosecond
precision) and "never" as null, so that Neo4j Browser and ``brain cypher`` read them as
dates. Above ``graph/`` they stay what they always were: epoch seconds as floats, with
``core.clock.NEVER`` for "never". ``GraphStore`` applies both translations to every
statement it runs (the analyst's queries excepted: they see the graph as it is).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from datetime import UTC, date
from typing import Any

from neo4j.time import DateTime

try:  # the driver's packstream structure, to send a time as the driver itself would pack it
    from neo4j._codec.packstream import Structure
except ImportError:  # pragma: no cover - a driver that moved it: datetimes are sent instead
    Structure = None

from core.clock import NEVER
from core.ingest_types import (
    Document,
    DocumentJob,
    FactConflict,
    Job,
    JobStatus,
    Role,
    Session,
    Task,
    TaskPriority,
    TaskStatus,
    Turn,
)
from core.lifecycle_types import (
    DecayCandidate,
    JobRun,
    MemoryDigest,
    MemoryMerge,
    Restatement,
)
from core.resolution_types import IdentityDecision
from core.types import Entity, EntityMerge, EntityRelation, Memory

# Every property and parameter name that holds an instant, in any statement: a number under
# one of these names is sent as a datetime (NEVER as null). The names are the graph's
# vocabulary, so a new time property must be added here (tests/unit/test_graph_times.py
# checks the statements against it). Not "before"/"after": those are importances on RATED.
TIME_KEYS = frozenset(
    {
        # stored properties
        "applied_at",
        "at",
        "closed_at",
        "corrected_at",
        "created_at",
        "entity_tracker_at",
        "expires_at",
        "finished_at",
        "first_seen",
        "flushed_at",
        "last_accessed_at",
        "last_seen",
        "last_turn_at",
        "proposed_at",
        "pruned_at",
        "resolved_at",
        "revoked_at",
        "since",
        "started_at",
        "superseded_at",
        "task_updated_at",
        "undone_at",
        "until",
        "updated_at",
        "valid_from",
        # parameters compared with them
        "after_ts",
        "as_of",
        "before_at",
        "created_before",
        "live_at",
        "now",
        "started_before",
    }
)
_EPOCH_ORDINAL = date(1970, 1, 1).toordinal()
_NS = 1_000_000_000


def graph_time(seconds: float) -> DateTime | None:
    """Epoch seconds as a UTC datetime to nanoseconds (exact for any float the clock gives:
    ``epoch_seconds`` returns the same float); ``NEVER`` and beyond is null."""
    if seconds >= NEVER:
        return None
    whole = math.floor(seconds)
    nanos = int((seconds - whole) * 1e9 + 0.5)
    if nanos == _NS:
        whole, nanos = whole + 1, 0
    days, rest = divmod(whole, 86_400)
    day = date.fromordinal(_EPOCH_ORDINAL + days)
    hour, rest = divmod(rest, 3600)
    minute, second = divmod(rest, 60)
    return DateTime(day.year, day.month, day.day, hour, minute, second, nanos, tzinfo=UTC)


def bolt_time(seconds: float) -> Any:
    """``graph_time`` as the Bolt 5 structure the driver packs for it (a datetime with a UTC
    offset: tag ``I``, epoch seconds, nanoseconds, offset 0), made directly from the float.

    The driver turns each datetime parameter into that structure in pure Python (a calendar
    walk, a zone conversion and a ``repr`` for its debug log: about 80 µs, and a turn sends a
    dozen), on the event loop, inside the turn's transaction. Only for a server that spoke
    Bolt 5 or later: 4.x packs datetimes differently (``GraphStore`` checks)."""
    if seconds >= NEVER:
        return None
    whole = math.floor(seconds)
    nanos = int((seconds - whole) * 1e9 + 0.5)
    if nanos == _NS:
        whole, nanos = whole + 1, 0
    return Structure(b"I", whole, nanos, 0)


def epoch_seconds(value: DateTime) -> float:
    """A datetime read from the graph as epoch seconds. The embedded engine returns a local
    datetime holding the UTC wall clock (it keeps no zone); Neo4j returns it in UTC."""
    days = value.date().to_ordinal() - _EPOCH_ORDINAL
    whole = days * 86_400 + value.hour * 3600 + value.minute * 60 + value.second
    if value.tzinfo is not None:  # utcoffset() costs more than the rest: only when zoned
        offset = value.utcoffset()
        whole -= int(offset.total_seconds()) if offset else 0
    return (whole * _NS + value.nanosecond) / _NS  # int / int: correctly rounded


def to_graph(params: dict[str, Any], packed: bool = False) -> dict[str, Any]:
    """Statement parameters with every number under a ``TIME_KEYS`` name, at any depth
    (rows, property maps), made a datetime (``NEVER``: null); with ``packed``, the Bolt 5
    structure of that datetime (``bolt_time``)."""
    time = bolt_time if packed and Structure is not None else graph_time
    return {k: _param(k, v, time) for k, v in params.items()}


def _param(key: str, value: Any, time: Any) -> Any:
    if key in TIME_KEYS and isinstance(value, float | int) and not isinstance(value, bool):
        return time(value)
    if isinstance(value, dict):
        return {k: _param(k, v, time) for k, v in value.items()}
    if isinstance(value, list | tuple) and value and isinstance(value[0], dict | list | tuple):
        return [_param(key, v, time) for v in value]
    return value


def from_graph(value: Any) -> Any:
    """A value read from the graph with every datetime, at any depth, as epoch seconds.
    Numeric lists (embeddings) are passed over whole."""
    if isinstance(value, DateTime):
        return epoch_seconds(value)
    if isinstance(value, dict):
        return {k: from_graph(v) for k, v in value.items()}
    if isinstance(value, list) and value and not isinstance(value[0], float | int | str):
        return [from_graph(v) for v in value]
    if isinstance(value, list) and value and isinstance(value[0], str):
        return [from_graph(v) for v in value] if _has_time(value) else value
    return value


def _has_time(values: list[Any]) -> bool:
    return any(isinstance(v, DateTime | dict | list) for v in values)


_MEMORY_FIELDS = set(Memory.model_fields)
_ENTITY_FIELDS = set(Entity.model_fields)


def memory_from(props: Mapping[str, Any], entity_ids: Sequence[str] = ()) -> Memory:
    data = {k: v for k, v in props.items() if k in _MEMORY_FIELDS and v is not None}
    data.setdefault("expires_at", NEVER)
    data.setdefault("superseded_at", NEVER)
    data["entity_ids"] = tuple(sorted(entity_ids))
    return Memory.model_validate(data)


def entity_from(props: Mapping[str, Any]) -> Entity:
    data = {k: v for k, v in props.items() if k in _ENTITY_FIELDS and v is not None}
    for key in ("aliases", "context_tags", "profile_embedding"):
        if key in data:
            data[key] = tuple(data[key])
    return Entity.model_validate(data)


def identity_decision_from(props: Mapping[str, Any]) -> IdentityDecision:
    return IdentityDecision(
        id=str(props["id"]),
        mention=str(props.get("mention") or ""),
        outcome=str(props.get("outcome") or ""),
        entity_id=props.get("entity_id"),
        memory_id=props.get("memory_id"),
        candidates=tuple(props.get("candidates") or ()),
        scores=tuple(float(x) for x in props.get("scores") or ()),
        reasons=tuple(props.get("reasons") or ()),
        at=float(props["at"]) if props.get("at") is not None else None,
    )


def merge_from(props: Mapping[str, Any]) -> EntityMerge:
    data = {k: v for k, v in props.items() if k in EntityMerge.model_fields and v is not None}
    data["drop_ids"] = tuple(data.get("drop_ids", ()))
    return EntityMerge.model_validate(data)


def entity_row(entity: Entity) -> dict[str, Any]:
    """Graph properties of a new entity (``cypher/entity_create.cypher``'s ``$row``): its
    aliases and tags as lists; the tenant, set by the statement, and empty values left out."""
    row = entity.model_dump(exclude={"tenant_id"})
    row["type"] = entity.type.value
    row["aliases"], row["context_tags"] = list(entity.aliases), list(entity.context_tags)
    return {k: v for k, v in row.items() if v is not None}


def memory_row(memory: Memory) -> dict[str, Any]:
    """Graph properties of a memory (entity links are relationships, not properties)."""
    row = memory.model_dump(exclude={"entity_ids", "tenant_id", "earlier_until"})
    for key in ("steps", "statements", "corrected_chains"):
        if not row.get(key):
            row.pop(key, None)  # only procedures have steps, only statements statements
        else:
            row[key] = list(row[key])
    return {k: (v.value if hasattr(v, "value") else v) for k, v in row.items() if v is not None}


def session_from(props: Mapping[str, Any]) -> Session | None:
    """None for a session node that holds no working memory yet (only tracker state)."""
    if props.get("started_at") is None:
        return None
    return Session(
        id=props["sid"],
        user_id=props.get("user_id"),
        project_id=props.get("project_id"),
        started_at=props["started_at"],
        last_turn_at=props["last_turn_at"],
        expires_at=props["expires_at"],
        closed_at=props.get("closed_at"),
        turn_count=int(props.get("turn_count") or 0),
        window=tuple(props.get("window") or ()),
    )


def turn_from(props: Mapping[str, Any]) -> Turn:
    return Turn(
        memory_id=props["id"],
        session_id=props.get("session_id") or "",
        index=int(props.get("turn_index") or 0),
        role=Role(props.get("turn_role") or Role.USER.value),
        speaker=props.get("turn_speaker"),
        content=props["content"],
        at=props["created_at"],
    )


def job_from(props: Mapping[str, Any]) -> Job:
    payload = props.get("payload")
    return Job(
        id=props["id"],
        kind=props["kind"],
        payload=json.loads(payload) if isinstance(payload, str) and payload else {},
        status=JobStatus(props.get("status") or JobStatus.PENDING.value),
        attempts=int(props.get("attempts") or 0),
        created_at=props["created_at"],
        updated_at=props.get("updated_at") or props["created_at"],
        error=props.get("error"),
    )


def job_row(job: Job) -> dict[str, Any]:
    row = job.model_dump(exclude={"payload", "error"})
    row["status"] = job.status.value
    row["payload"] = json.dumps(job.payload, sort_keys=True)
    return row


def conflict_from(props: Mapping[str, Any]) -> FactConflict:
    return FactConflict.model_validate(_drop_tenant(props))


def document_job_from(props: Mapping[str, Any]) -> DocumentJob:
    return DocumentJob.model_validate(_drop_tenant(props))


def relation_from(row: Mapping[str, Any]) -> EntityRelation:
    return EntityRelation.model_validate(row)


def memory_merge_from(row: Mapping[str, Any]) -> MemoryMerge:
    return MemoryMerge.model_validate({k: v for k, v in row.items() if v is not None})


def _drop_tenant(props: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in props.items() if k != "tenant_id"}


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


def run_from(props: dict[str, Any]) -> JobRun:
    data = {k: v for k, v in props.items() if k in JobRun.model_fields and v is not None}
    data["counts"] = json.loads(props.get("counts") or "{}")
    return JobRun.model_validate(data)


def run_props(run: JobRun) -> dict[str, Any]:
    props = run.model_dump(exclude={"id", "tenant_id"}, mode="json")
    props["counts"] = json.dumps(run.counts, sort_keys=True)
    return props


def digest_from(row: Mapping[str, Any]) -> MemoryDigest:
    return MemoryDigest(
        id=row["id"],
        entity_ids=list(row["entity_ids"] or ()),
        created_at=float(row["created_at"]),
        importance=row["importance"],
        pinned=bool(row["pinned"]),
        length=int(row.get("length") or 0),
        access_count=int(row.get("access_count") or 0),
        type=row["type"],
        user_id=row.get("user_id"),
        project_id=row.get("project_id"),
        subject=row.get("subject"),
        predicate=row.get("predicate"),
        object=row.get("object"),
        summarized_by=row.get("summarized_by"),
    )


def restatement_from(row: Mapping[str, Any]) -> Restatement:
    return Restatement(
        id=row["id"],
        type=row["type"],
        user_id=row.get("user_id"),
        project_id=row.get("project_id"),
        content_hash=row.get("content_hash"),
        created_at=float(row["created_at"]),
        entity_ids=list(row.get("entity_ids") or ()),
    )


def decay_candidate_from(row: Mapping[str, Any]) -> DecayCandidate:
    return DecayCandidate(
        id=row["id"],
        importance=row["importance"],
        decay_class=row["decay_class"],
        created_at=float(row["created_at"]),
        last_accessed_at=row.get("last_accessed_at"),
        effective_importance=row.get("effective_importance"),
    )
