"""Typed steps of the ingest side's one transaction, and what its results say.

A turn, an LLM extraction or a document version commits everything in ONE transaction
(``ingest/write/persist.py``): the memories, their supersede links and conflicts, the turn's
tasks, identity decisions and session, a document's claim and record. Each function here
builds one of those statements as a ``Step`` (the statement files are named only here), and
``written`` reads the transaction's rows back as what the caller needs to know, so the write
side composes steps and receives domain values, never a statement name or a row. The steps
run in the order given, one round trip each, through ``TenantGraph.write_many``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from core.ids import new_id
from core.ingest_types import FactConflict, Job, TaskPriority
from core.resolution_types import NewIdentity
from core.types import Memory
from graph.entities import alias_row
from graph.memories import CREATE
from graph.records import entity_row, job_row
from graph.runner import Rows
from graph.scoped import Check, Step

SUPERSEDE = "ingest_supersede_batch"
TASK_DEDUPE = "ingest_task_dedupe"
CLAIM = "ingest_document_claim"


@dataclass(frozen=True)
class SupersedeLink:
    """A new memory of the write replaces an old one (a correction, a new document version)."""

    old_id: str
    new_id: str
    reason: str | None


@dataclass(frozen=True)
class TaskMention:
    """A known task said again: counted, its confidence and priority raised if higher."""

    task_id: str
    confidence: float
    priority: TaskPriority
    at: float


@dataclass(frozen=True)
class Written:
    """What a committed transaction changed beyond what its caller planned."""

    # The memories superseded: the links' old ones, or the current end of their chain when
    # a concurrent write superseded one first.
    superseded: list[str]
    # New tasks another writer had created too: new id → the task that absorbed it (the new
    # one is gone; ``cypher/ingest_task_dedupe.cypher``).
    folded: dict[str, str]
    # The memories the transaction made (``cypher/memory_create.cypher`` leaves one whose id
    # the tenant holds already as it is).
    created: frozenset[str] = frozenset()


class DocumentMoved(Exception):
    """The document path has a newer version than the write was planned against: the
    transaction is rolled back (``document_claim_check``)."""


def ensure_tenant(at: float) -> Step:
    """Registers the tenant on a write that creates no memory (``memory_create`` does it
    otherwise)."""
    return Step("tenant_ensure", {"at": at})


def supersede(links: Sequence[SupersedeLink], at: float) -> Step:
    rows = [
        {
            "old_id": link.old_id,
            "new_id": link.new_id,
            "reason": link.reason,
            "reason_after_another": _after_another(link.reason),
        }
        for link in links
    ]
    return Step(SUPERSEDE, {"pairs": rows, "at": at})


def create_conflicts(conflicts: Sequence[FactConflict]) -> Step:
    rows = [c.model_dump(exclude={"resolved_at"}) for c in conflicts]
    return Step("ingest_conflict_create", {"rows": rows})


def mark_indexed(ids: Sequence[str]) -> Step:
    return Step("memory_mark_indexed", {"ids": list(ids), "indexed": True})


def dedupe_tasks(
    tasks: Sequence[Memory], extras: Mapping[str, Mapping[str, Any]], at: float
) -> Step:
    """Folds new ``tasks`` another writer created meanwhile into its own (``Written.folded``);
    ``extras`` holds each task's graph properties (key, confidence, priority)."""
    rows = [
        {
            "id": m.id,
            "key": extras[m.id]["task_key"],
            "confidence": extras[m.id]["task_confidence"],
            "priority": extras[m.id]["task_priority"],
            "at": at,
        }
        for m in tasks
    ]
    return Step(TASK_DEDUPE, {"claim": new_id(), "rows": rows})


def mention_tasks(mentions: Sequence[TaskMention]) -> Step:
    rows = [
        {"id": m.task_id, "confidence": m.confidence, "priority": m.priority.value, "at": m.at}
        for m in mentions
    ]
    return Step("ingest_task_mention", {"rows": rows})


def save_identity_decisions(decisions: Sequence[Mapping[str, object]]) -> Step:
    """The resolver's automatic identity decisions, stored with the turn that made them."""
    return Step("identity_decisions_save", {"rows": list(decisions)})


def create_identities(
    tenant_id: str, identities: Sequence[NewIdentity], source_memory_id: str | None
) -> list[Step]:
    """The people a turn introduced (``NewIdentity``), each with its aliases, its
    ``POSSIBLY_SAME_AS`` links and the relations the text stated (citing the turn's memory):
    run before the memories that link them. The entities are as resolution built them, ids
    included, so the turn refers to them before they exist."""
    # Each with its aliases and its links to the candidates it may be (which exist already).
    steps = [
        Step(
            "identity_create",
            {
                "row": entity_row(identity.entity),
                "aliases": [alias_row(tenant_id, a) for a in identity.entity.aliases],
                "links": [{"id": i, "score": round(float(s), 4)} for i, s in identity.links],
                "at": identity.entity.first_seen,
            },
        )
        for identity in identities
    ]
    for identity in identities:  # each end of a relation exists by now
        e = identity.entity
        for rel in identity.relations:
            relation = {
                "id": new_id(),
                "source_id": e.id,
                "target_id": rel.target_id,
                "relation": rel.relation,
                "since": rel.since,
                "until": None,
                "source_memory_id": source_memory_id,
            }
            steps.append(Step("entity_relate_once", {"row": relation, "set_parent": False}))
    return steps


def save_turn_session(
    session_id: str,
    props: Mapping[str, Any],
    jobs: Sequence[Job],
    decisions: Sequence[Mapping[str, object]] = (),
) -> Step:
    """The session's working-memory record, the turn's deferred jobs and the identity
    decisions the turn's names were resolved by (as ``save_identity_decisions`` stores them)."""
    return Step(
        "ingest_turn_session",
        {
            "session_id": session_id,
            "props": dict(props),
            "jobs": [job_row(j) for j in jobs],
            "decisions": list(decisions),
        },
    )


def claim_document(source_path: str, at: float) -> Step:
    """Runs first in a document's transaction; see ``document_claim_check``."""
    return Step(CLAIM, {"source_path": source_path, "claim": new_id(), "at": at})


def save_document(source_path: str, props: Mapping[str, Any]) -> Step:
    return Step("ingest_document_save", {"source_path": source_path, "props": dict(props)})


def publish_chunks(ids: Sequence[str]) -> Step:
    """Makes a staged document version's chunks live (they were written hidden)."""
    return Step("ingest_chunks_publish", {"ids": list(ids)})


def document_claim_check(planned: int) -> Check:
    """A check for ``write_many`` that gives the transaction up (``DocumentMoved``) when the
    claim finds another version than ``planned`` (another process wrote the path)."""

    def check(name: str, rows: Rows) -> None:
        if name == CLAIM and rows and int(rows[0]["version"]) != planned:
            raise DocumentMoved(name)

    return check


def written(steps: Sequence[Step], results: Sequence[Rows]) -> Written:
    """What the create, supersede and task-dedupe steps among ``steps`` reported (their rows
    are ``results``, in the same order)."""
    linked: list[str] = []
    folded: dict[str, str] = {}
    created: set[str] = set()
    for (name, _), rows in zip(steps, results, strict=True):
        if name == CREATE:
            created.update(r["memory_id"] for r in rows)
        elif name == SUPERSEDE:
            linked.extend(r["old_id"] for r in rows)
        elif name == TASK_DEDUPE:
            folded.update((r["id"], r["into"]) for r in rows)
    return Written(
        superseded=list(dict.fromkeys(linked)), folded=folded, created=frozenset(created)
    )


def _after_another(reason: str | None) -> str:
    """The reason of a link made to the end of a chain another write extended since the
    caller read it (``cypher/ingest_supersede_batch.cypher``)."""
    return f"{reason or 'superseded'} (after a concurrent change)"
