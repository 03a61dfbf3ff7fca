"""One builder per operation: its document, its variables (unset arguments left out, so the
server's defaults apply) and how to read its result. The sync and async clients run the
same builders; only the waiting differs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Generic, TypeVar

from ai_brain.client import documents as doc
from ai_brain.client.models import (
    Context,
    Document,
    DocumentJob,
    EntityMerge,
    IdentityQuestion,
    Lineage,
    Memory,
    SearchHit,
    Turn,
)

T = TypeVar("T")


@dataclass(frozen=True)
class Call(Generic[T]):
    """A GraphQL request and the reading of its one root field's result."""

    document: str
    field: str
    success: str | tuple[str, ...]  # the ``__typename``s of a success; any other: an error
    variables: dict[str, Any]
    read: Callable[[dict[str, Any]], T]


def _set(**values: Any) -> dict[str, Any]:
    """The arguments that were given, datetimes as ISO 8601 text."""
    return {
        k: v.isoformat() if isinstance(v, datetime) else v
        for k, v in values.items()
        if v is not None
    }


def record_turn(
    session_id: str,
    user_id: str,
    content: str,
    role: str,
    project_id: str | None,
    speaker: str | None,
    at: datetime | None,
) -> Call[Turn]:
    variables = _set(
        sessionId=session_id,
        userId=user_id,
        content=content,
        role=role.upper(),
        projectId=project_id,
        speaker=speaker,
        at=at,
    )
    return Call(
        doc.RECORD_TURN, "recordTurn", "TurnResult", {"input": variables}, Turn.model_validate
    )


def context(
    session_id: str,
    user_id: str,
    query: str | None,
    project_id: str | None,
    token_budget: int | None,
    mode: str,
) -> Call[Context]:
    variables = _set(
        sessionId=session_id,
        userId=user_id,
        query=query,
        projectId=project_id,
        tokenBudget=token_budget,
        mode=mode.upper(),
    )
    return Call(
        doc.ASSEMBLE_CONTEXT,
        "assembleContext",
        "Context",
        {"input": variables},
        Context.model_validate,
    )


def _hits(result: dict[str, Any]) -> list[SearchHit]:
    return [SearchHit.model_validate(h) for h in result["hits"]]


def search(
    query: str,
    top_k: int,
    mode: str,
    user_id: str | None,
    project_id: str | None,
    session_id: str | None,
    types: list[str] | None,
) -> Call[list[SearchHit]]:
    variables = _set(
        query=query,
        topK=top_k,
        mode=mode.upper(),
        userId=user_id,
        projectId=project_id,
        sessionId=session_id,
        types=[t.upper() for t in types] if types is not None else None,
    )
    return Call(doc.SEARCH, "search", "SearchResults", {"input": variables}, _hits)


def remember(
    content: str,
    type: str,
    importance: float | None,
    project_id: str | None,
    session_id: str | None,
    user_id: str | None,
    pinned: bool,
) -> Call[Memory]:
    variables = _set(
        content=content,
        type=type.upper(),
        importance=importance,
        projectId=project_id,
        sessionId=session_id,
        userId=user_id,
        pinned=pinned,
    )
    return Call(doc.REMEMBER, "remember", "Memory", {"input": variables}, Memory.model_validate)


def supersede(memory_id: str, content: str, reason: str | None) -> Call[Memory]:
    variables = {"id": memory_id, "input": _set(content=content, reason=reason)}
    return Call(doc.SUPERSEDE, "supersede", "Memory", variables, Memory.model_validate)


def forget(memory_id: str) -> Call[Memory]:
    return Call(doc.FORGET, "forget", "Memory", {"id": memory_id}, Memory.model_validate)


def lineage(memory_id: str) -> Call[Lineage]:
    return Call(doc.LINEAGE, "lineage", "Lineage", {"memoryId": memory_id}, Lineage.model_validate)


def core(user_id: str | None) -> Call[list[Memory]]:
    def read(result: dict[str, Any]) -> list[Memory]:
        return [Memory.model_validate(m) for m in result["memories"]]

    return Call(doc.CORE, "core", "MemoryList", _set(userId=user_id), read)


def _stored_or_job(result: dict[str, Any]) -> Document | DocumentJob:
    """A document stored at once, or the job that stores it."""
    if result["__typename"] == "DocumentJob":
        return DocumentJob.model_validate(result)
    return Document.model_validate({**result, "chunkCount": len(result["chunks"])})


def ingest_document(
    source_path: str, text: str, project_id: str | None
) -> Call[Document | DocumentJob]:
    variables = _set(sourcePath=source_path, text=text, projectId=project_id)
    return Call(
        doc.INGEST_DOCUMENT,
        "ingestDocument",
        ("DocumentResult", "DocumentJob"),
        {"input": variables},
        _stored_or_job,
    )


def document_job(job_id: str) -> Call[DocumentJob]:
    return Call(
        doc.DOCUMENT_JOB, "documentJob", "DocumentJob", {"id": job_id}, DocumentJob.model_validate
    )


def _questions(result: dict[str, Any]) -> list[IdentityQuestion]:
    return [IdentityQuestion.model_validate(e["node"]) for e in result["edges"]]


def identity_questions(first: int) -> Call[list[IdentityQuestion]]:
    return Call(
        doc.IDENTITY_QUESTIONS,
        "identityQuestions",
        "IdentityQuestionConnection",
        {"first": first},
        _questions,
    )


def confirm_same(entity_id: str, other_id: str, reason: str | None) -> Call[EntityMerge]:
    variables = _set(entityId=entity_id, otherId=other_id, reason=reason)
    return Call(
        doc.CONFIRM_SAME, "confirmSameEntity", "EntityMerge", variables, EntityMerge.model_validate
    )


def confirm_distinct(entity_id: str, other_id: str, reason: str | None) -> Call[None]:
    variables = _set(entityId=entity_id, otherId=other_id, reason=reason)
    return Call(
        doc.CONFIRM_DISTINCT,
        "confirmDistinctEntities",
        "DistinctEntities",
        variables,
        lambda _: None,
    )
