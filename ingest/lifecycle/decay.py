"""Decay and soft prune.

Decay changes ranking only: the retriever applies it at query time. The decay job stores each
memory's importance after decay (``effective_importance``) so the prune job, the API and
analysts see the same number; it is a function of the memory and the time, so re-running it
is harmless. Re-access resets the clock (``last_accessed_at``).

Soft prune expires memories whose importance after decay is below a floor and that nobody
retrieved for a while. Pinned and no-decay memories (identity, roles, processes, patterns)
are never pruned; pruned ones stay in the graph.
"""

from __future__ import annotations

from typing import Any

from core.decay import decay_factor
from core.types import DecayClass
from ingest.lifecycle.context import JobCall, JobContext, batches, sync_payloads

_DAY = 86_400.0
_EPSILON = 0.001  # store a new value only when it moved by more than this


def _last_touched(row: dict[str, Any]) -> float:
    return max(float(row["created_at"]), float(row.get("last_accessed_at") or 0.0))


def _effective(row: dict[str, Any], at: float) -> float:
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
    tenant = call.tenant(ctx)
    settings = ctx.settings
    rows = await tenant.decay_candidates(call.at, call.scope.project_id, call.scope.session_id)
    idle_floor = settings.prune_idle_days * _DAY
    faded = [
        row["id"]
        for row in rows
        if _effective(row, call.at) < settings.prune_importance
        and call.at - _last_touched(row) >= idle_floor
    ]
    pruned: list[str] = []
    for chunk in batches(faded, settings.batch_size):
        done = await tenant.prune(chunk, call.at)
        await sync_payloads(ctx, call.tenant_id, {i: {"expires_at": call.at} for i in done})
        pruned.extend(done)
    ctx.say(f"{call.tenant_id}: pruned {len(pruned)} of {len(rows)} memories")
    return {"scanned": len(rows), "pruned": len(pruned)}
