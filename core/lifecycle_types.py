"""Domain types of the memory lifecycle: consolidation jobs, their reports, feedback.

A consolidation runs jobs over one tenant (optionally narrowed to a project or a session). Each
job run is recorded in the graph as a ``JobRun`` node: what it did (counts), when, for how
long, and whether it finished. Jobs are idempotent: a run that was interrupted (the process
died) is simply run again, and the state it left is where the next run starts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import TypedDict

from pydantic import BaseModel, ConfigDict, Field


class JobName(StrEnum):
    PROMOTE_WORKING = "promote_working"  # flush closed/expired sessions' working memory
    MERGE_DUPLICATES = "merge_duplicates"
    COMPRESS_EPISODES = "compress_episodes"
    DECAY = "decay"
    PRUNE = "prune"
    REPROFILE = "reprofile"
    PROPOSE_IDENTITIES = "propose_identities"  # open identity questions whose profiles converged
    RECONCILE = "reconcile"
    LAYOUT = "layout"  # the explorer's 3D positions (UMAP), for memories that have none


# The order a consolidation runs its jobs in: promotion and merges first (they change what
# the later jobs see), reconciliation last (it repairs whatever an earlier job left behind).
JOB_ORDER: tuple[JobName, ...] = tuple(JobName)


class RunStatus(StrEnum):
    RUNNING = "running"  # started; still running, or the process died (the next run resumes)
    DONE = "done"
    FAILED = "failed"


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Scope(_Frozen):
    """What a consolidation looks at: the whole tenant, one project, or one session."""

    project_id: str | None = None
    session_id: str | None = None

    @property
    def label(self) -> str:
        if self.session_id is not None:
            return f"session:{self.session_id}"
        if self.project_id is not None:
            return f"project:{self.project_id}"
        return "tenant"


class JobRun(_Frozen):
    """The report of one job run."""

    id: str
    tenant_id: str
    job: JobName
    status: RunStatus
    scope: str = "tenant"
    trigger: str = "manual"  # manual | scheduler | session_close
    started_at: float
    finished_at: float | None = None
    counts: dict[str, int] = Field(default_factory=dict)
    error: str | None = None
    resumed: str | None = None  # id of an interrupted run of the same job this one finished

    @property
    def duration_ms(self) -> float | None:
        if self.finished_at is None:
            return None
        return (self.finished_at - self.started_at) * 1000.0


class ConsolidationReport(_Frozen):
    tenant_id: str
    scope: str
    runs: tuple[JobRun, ...]
    started_at: float
    finished_at: float

    @property
    def duration_ms(self) -> float:
        return (self.finished_at - self.started_at) * 1000.0

    @property
    def ok(self) -> bool:
        return all(r.status is RunStatus.DONE for r in self.runs)


class FeedbackOutcome(StrEnum):
    """The tracked outcome of a decision the memories informed."""

    POSITIVE = "positive"
    NEUTRAL = "neutral"
    NEGATIVE = "negative"


class FeedbackResult(_Frozen):
    id: str
    session_id: str
    helpful: bool
    outcome: FeedbackOutcome | None
    at: float
    # memory id -> (importance before, importance after)
    changes: dict[str, tuple[float, float]] = Field(default_factory=dict)


class MemoryMerge(_Frozen):
    """A duplicate hidden behind the memory that won (undoable)."""

    loser_id: str
    winner_id: str
    reason: str
    similarity: float
    at: float
    undone_at: float | None = None


# -- what the lifecycle jobs read (translated from rows in ``graph/records.py``) ----------------


@dataclass
class MemoryDigest:
    """What the duplicate merge and the pattern compression compare of a current memory
    (``cypher/lifecycle_current_memories.cypher``). The listing carries no text: the merge
    fills ``content`` in for the few memories it compares."""

    id: str
    entity_ids: Sequence[str]
    created_at: float
    importance: float
    pinned: bool = False
    length: int = 0  # characters of content
    access_count: int = 0
    type: str = ""
    user_id: str | None = None
    project_id: str | None = None
    subject: str | None = None
    predicate: str | None = None
    object: str | None = None
    summarized_by: str | None = None  # the pattern that summarizes this episode already
    content: str | None = None


@dataclass(frozen=True)
class Restatement:
    """The keys that say whether two current memories state the same thing (the prune job
    groups them; ``cypher/lifecycle_restated.cypher``)."""

    id: str
    type: str
    user_id: str | None
    project_id: str | None
    content_hash: str | None
    created_at: float
    entity_ids: Sequence[str]


class DecayCandidate(TypedDict):
    """A memory that decays, as the decay job weighs it (``cypher/lifecycle_decay_candidates
    .cypher``). A typed mapping rather than a dataclass: tests read these by key."""

    id: str
    importance: float | None
    decay_class: str
    created_at: float
    last_accessed_at: float | None
    effective_importance: float | None
