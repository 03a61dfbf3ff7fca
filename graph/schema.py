"""The graph schema as neomodel models, and an idempotent installer for it.

The models document the labels and properties a reader finds in Neo4j Browser, and their
``unique_index`` / ``index`` flags are the single source of the constraints and indexes.
neomodel's own ``install_all_labels`` is not idempotent on ArcadeDB (it relies on Neo4j's
"already exists" error code), so we derive ``CREATE ... IF NOT EXISTS`` statements from the
same model metadata. Names come from these classes, never from input, and are checked
against an identifier pattern anyway.
"""

from __future__ import annotations

import re
from typing import Any

from neomodel import (
    ArrayProperty,
    AsyncStructuredNode,
    BooleanProperty,
    DateTimeNeo4jFormatProperty,
    FloatProperty,
    IntegerProperty,
    StringProperty,
)

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class Tenant(AsyncStructuredNode):
    tid = StringProperty(unique_index=True, required=True, db_property="id")
    created_at = DateTimeNeo4jFormatProperty()


class Memory(AsyncStructuredNode):
    """A memory. Times are Cypher datetimes (UTC) here as on every label; null means "never"
    (superseded_at, expires_at). ``graph/records.py`` translates them to epoch seconds."""

    mid = StringProperty(unique_index=True, required=True, db_property="id")
    tenant_id = StringProperty(index=True, required=True)
    type = StringProperty(required=True)
    content = StringProperty(required=True)
    user_id = StringProperty(index=True)
    project_id = StringProperty(index=True)
    session_id = StringProperty(index=True)
    importance = FloatProperty(default=0.5)
    access_count = IntegerProperty(default=0)
    decay_class = StringProperty()
    created_at = DateTimeNeo4jFormatProperty(index=True)
    valid_from = DateTimeNeo4jFormatProperty()
    last_accessed_at = DateTimeNeo4jFormatProperty()
    expires_at = DateTimeNeo4jFormatProperty()
    superseded_at = DateTimeNeo4jFormatProperty()
    superseded_by = StringProperty()
    supersedes = StringProperty()
    chain_id = StringProperty(index=True)  # id of the first version: lineage is one index hit
    source = StringProperty()
    content_hash = StringProperty(index=True)
    pinned = BooleanProperty(default=False)
    # the tenant id while pinned, absent otherwise: core memory is one index lookup
    pinned_key = StringProperty(index=True)
    indexed = BooleanProperty(index=True, default=False)
    subject = StringProperty(index=True)  # facts: subject entity id (correction lookup)
    predicate = StringProperty()
    object = StringProperty()
    confidence = FloatProperty()
    task_key = StringProperty(index=True)  # tasks: normalized text, for deduplication
    # tasks: the tenant id (absent on other memories), so a tenant's tasks are one index
    # lookup instead of a scan of its memories
    task_tenant = StringProperty(index=True)
    # Lifecycle. A hidden memory (a merged duplicate, an episode compressed into a pattern)
    # stops being current: superseded_at is the time it was hidden, superseded_by stays empty.
    merged_into = StringProperty()  # id of the duplicate that won (MERGED_INTO link)
    summarized_by = StringProperty()  # id of the pattern that summarizes this (visible) episode
    effective_importance = FloatProperty()  # importance after decay (the decay job)
    wm_state = StringProperty()  # turns: promoted | kept, set when the session is flushed
    pruned_at = DateTimeNeo4jFormatProperty()  # soft-pruned (expires_at is set too)
    carried_by = StringProperty()  # a pruned restatement: the memory that carries its content
    # Core memory learned from conversation (graph/core_ops.py): what the item gives a value
    # of, what a restatement of it shares, whose it is, the sentence it came from; and, once
    # someone removed it from core, its key again (indexed): the statement said again is
    # not pinned again.
    core_slot = StringProperty()
    core_key = StringProperty()
    core_scope = StringProperty()
    core_from = StringProperty()
    core_dismissed = StringProperty(index=True)


class Entity(AsyncStructuredNode):
    eid = StringProperty(unique_index=True, required=True, db_property="id")
    tenant_id = StringProperty(index=True, required=True)
    name = StringProperty(required=True)
    type = StringProperty(required=True)
    aliases = ArrayProperty(StringProperty())
    parent_id = StringProperty()
    profile_summary = StringProperty()
    profile_embedding = ArrayProperty(FloatProperty())
    context_tags = ArrayProperty(StringProperty())
    first_seen = DateTimeNeo4jFormatProperty()
    last_seen = DateTimeNeo4jFormatProperty()
    merged_into = StringProperty()
    provisional = BooleanProperty()  # an open identity question (POSSIBLY_SAME_AS links)


class IdentityDecision(AsyncStructuredNode):
    """One automatic identity decision of the write path (linked, new or provisional) with
    each candidate's score, so a wrong link can be found and undone."""

    did = StringProperty(unique_index=True, required=True, db_property="id")
    tenant_id = StringProperty(index=True, required=True)
    mention = StringProperty()
    memory_id = StringProperty(index=True)
    entity_id = StringProperty(index=True)
    outcome = StringProperty()  # linked | new | provisional
    candidates = ArrayProperty(StringProperty())
    scores = ArrayProperty(FloatProperty())
    reasons = ArrayProperty(StringProperty())
    at = DateTimeNeo4jFormatProperty()


class Alias(AsyncStructuredNode):
    """``key`` is "<tenant>|<normalized alias>": exact alias lookup is one unique-index hit."""

    key = StringProperty(unique_index=True, required=True)
    tenant_id = StringProperty(index=True, required=True)
    norm = StringProperty()
    text = StringProperty()


class EntityMerge(AsyncStructuredNode):
    gid = StringProperty(unique_index=True, required=True, db_property="id")
    tenant_id = StringProperty(index=True, required=True)
    keep_id = StringProperty()
    drop_ids = ArrayProperty(StringProperty())
    reason = StringProperty()
    at = DateTimeNeo4jFormatProperty()
    by = StringProperty()
    undone_at = DateTimeNeo4jFormatProperty()


class Session(AsyncStructuredNode):
    """A conversation's working memory (window of turn ids, expiry, entity tracker)."""

    sid = StringProperty(index=True, required=True)
    tenant_id = StringProperty(index=True, required=True)
    started_at = DateTimeNeo4jFormatProperty()
    expires_at = DateTimeNeo4jFormatProperty()
    closed_at = DateTimeNeo4jFormatProperty()
    flushed_at = DateTimeNeo4jFormatProperty()  # working memory promoted/expired by the lifecycle


class Job(AsyncStructuredNode):
    """A queued background job (profile refresh, LLM extraction); deleted when done."""

    jid = StringProperty(index=True, required=True, db_property="id")
    tenant_id = StringProperty(index=True, required=True)


class Document(AsyncStructuredNode):
    source_path = StringProperty(index=True)
    tenant_id = StringProperty(index=True, required=True)


class Conflict(AsyncStructuredNode):
    cid = StringProperty(index=True, required=True, db_property="id")
    tenant_id = StringProperty(index=True, required=True)


class JobRun(AsyncStructuredNode):
    """The report of one lifecycle job run (counts as JSON text)."""

    rid = StringProperty(unique_index=True, required=True, db_property="id")
    tenant_id = StringProperty(index=True, required=True)
    job = StringProperty(index=True)
    status = StringProperty()
    started_at = DateTimeNeo4jFormatProperty(index=True)
    finished_at = DateTimeNeo4jFormatProperty()


class Feedback(AsyncStructuredNode):
    fid = StringProperty(unique_index=True, required=True, db_property="id")
    tenant_id = StringProperty(index=True, required=True)
    session_id = StringProperty()
    helpful = BooleanProperty()
    outcome = StringProperty()
    at = DateTimeNeo4jFormatProperty()


class LeaderLock(AsyncStructuredNode):
    """One per deployment and lock name: who runs the scheduled jobs, until when."""

    name = StringProperty(unique_index=True, required=True)
    holder = StringProperty()
    expires_at = DateTimeNeo4jFormatProperty()


class Migration(AsyncStructuredNode):
    """A data migration applied to this database (``graph/store.py``), once."""

    name = StringProperty(unique_index=True, required=True)
    applied_at = DateTimeNeo4jFormatProperty()
    changed = IntegerProperty()


class ApiKey(AsyncStructuredNode):
    kid = StringProperty(unique_index=True, required=True, db_property="id")
    hash = StringProperty(unique_index=True, required=True)
    tenant_id = StringProperty(index=True, required=True)
    name = StringProperty()
    admin = BooleanProperty(default=False)
    created_at = DateTimeNeo4jFormatProperty()
    revoked_at = DateTimeNeo4jFormatProperty()


MODELS: tuple[type[AsyncStructuredNode], ...] = (
    Tenant,
    Memory,
    Entity,
    Alias,
    EntityMerge,
    IdentityDecision,
    Session,
    Job,
    Document,
    Conflict,
    JobRun,
    Feedback,
    LeaderLock,
    Migration,
    ApiKey,
)


# Names of constraints and indexes as the engines report them (``Alias[key]`` on ArcadeDB).
_SCHEMA_NAME = re.compile(r"^[A-Za-z0-9_\[\], .]{1,200}$")


def quoted_schema_name(name: object) -> str:
    """A constraint or index name read from the engine, quoted for a DROP statement; raises
    ValueError for anything outside the allowlist (it is never built from input, but is
    spliced into a statement all the same)."""
    text = str(name)
    if not _SCHEMA_NAME.match(text):
        raise ValueError(f"unsafe schema name {text!r}")
    return f"`{text}`"


def _db_name(attr: str, prop: Any) -> str:
    return str(getattr(prop, "db_property", None) or attr)


def schema_statements() -> list[str]:
    """``CREATE CONSTRAINT/INDEX ... IF NOT EXISTS`` for every flagged model property."""
    out: list[str] = []
    for model in MODELS:
        label = model.__name__
        for attr, prop in model.defined_properties(aliases=False, rels=False).items():
            name = _db_name(attr, prop)
            if not (_IDENT.match(label) and _IDENT.match(name)):
                raise ValueError(f"unsafe schema identifier {label}.{name}")
            if getattr(prop, "unique_index", False):
                out.append(
                    f"CREATE CONSTRAINT {label.lower()}_{name}_unique IF NOT EXISTS "
                    f"FOR (n:{label}) REQUIRE n.{name} IS UNIQUE"
                )
            elif getattr(prop, "index", False):
                index = f"{label.lower()}_{name}"
                out.append(f"CREATE INDEX {index} IF NOT EXISTS FOR (n:{label}) ON (n.{name})")
    return out
