"""Decay and soft prune.

Decay changes ranking only: the retriever applies it at query time. The decay job stores each
memory's importance after decay (``effective_importance``) so the API and analysts see the
number the ranking uses; it is a function of the memory and the time, so re-running it is
harmless. Re-access resets the clock (``last_accessed_at``).

Soft prune never hides a memory for being old or faded: a fact said once, years ago, and
never retrieved since is exactly what a memory is for. It hides only a restatement whose
content another live memory carries (the same statement, said again), linked to that memory
(``carried_by``). Episodes, documents, tasks and pinned memories are never pruned; pruned
ones stay in the graph.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from core.decay import decay_factor
from core.lifecycle_types import DecayCandidate, Restatement
from core.types import DecayClass
from ingest.lifecycle.context import JobCall, JobContext, batches

_EPSILON = 0.001  # store a new value only when it moved by more than this


def _last_touched(row: DecayCandidate) -> float:
    return max(float(row["created_at"]), float(row.get("last_accessed_at") or 0.0))


def _effective(row: DecayCandidate, at: float) -> float:
    try:
        cls = DecayClass(row["decay_class"])
    except ValueError:
        cls = DecayClass.SLOW
    return float(row["importance"] or 0.0) * decay_factor(cls, _last_touched(row), at)


async def decay(ctx: JobContext, call: JobCall) -> dict[str, int]:
    tenant = call.tenant(ctx)
    rows = await tenant.decay_candidates(call.at, call.scope.project_id, call.scope.session_id)
    changed = []
    for row in rows:
        value = round(_effective(row, call.at), 4)
        stored = row.get("effective_importance")
        if stored is None or abs(float(stored) - value) > _EPSILON:
            changed.append({"id": row["id"], "value": value})
    for chunk in batches(changed, ctx.settings.batch_size):
        await tenant.set_effective_importance(chunk)
    ctx.say(f"{call.tenant_id}: decay updated {len(changed)} of {len(rows)} memories")
    return {"scanned": len(rows), "updated": len(changed)}


async def prune(ctx: JobContext, call: JobCall) -> dict[str, int]:
    """Hide restatements: a memory whose exact statement (same text, type, user, project and
    entities) another live memory carries. The first statement is kept; nothing else is."""
    tenant = call.tenant(ctx)
    settings = ctx.settings
    rows = await tenant.restated_candidates(
        settings.prune_types, call.at, call.scope.project_id, call.scope.session_id
    )
    carried_by = restatements(rows)
    pruned: list[str] = []
    for chunk in batches(sorted(carried_by), settings.batch_size):
        done = await tenant.prune({i: carried_by[i] for i in chunk}, call.at)
        gone = {i: {"expires_at": call.at} for i in done}
        await ctx.writer.sync.show(call.tenant_id, changes=gone, present_only=True)
        pruned.extend(done)
    ctx.say(f"{call.tenant_id}: pruned {len(pruned)} restatements of {len(rows)} memories")
    return {"scanned": len(rows), "pruned": len(pruned)}


def restatements(rows: list[Restatement]) -> dict[str, str]:
    """Memory id -> the id of the first memory that says the same (memories without a content
    hash are never grouped)."""
    groups: dict[tuple[Any, ...], list[Restatement]] = defaultdict(list)
    for row in rows:
        if row.content_hash:
            key = (
                row.type,
                row.user_id,
                row.project_id,
                row.content_hash,
                tuple(sorted(row.entity_ids)),
            )
            groups[key].append(row)
    out: dict[str, str] = {}
    for group in groups.values():
        first, *rest = sorted(group, key=lambda r: (r.created_at, r.id))
        out.update({r.id: first.id for r in rest})
    return out
