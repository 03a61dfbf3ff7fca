"""Upkeep jobs: entity re-profiling and graph <-> vector reconciliation.

Re-profiling rebuilds the living profiles of entities whose memories a lifecycle job changed
(merged, compressed, pruned: marked ``profile_stale``) or whose profile was never built.

Reconciliation finishes interrupted writes (memories the graph marks unindexed are embedded
and upserted), removes vector points whose memory is gone, re-creates points that are missing
although the graph says indexed, and repairs payload drift: every point's filterable fields are
compared with what the graph record says they should be.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ingest.lifecycle.context import JobCall, JobContext
from ingest.write.reconcile import reconcile
from vectors.payload import payload_of

_PAGE = 1000


async def reprofile(ctx: JobContext, call: JobCall) -> dict[str, int]:
    tenant = call.tenant(ctx)
    done = 0
    seen: set[str] = set()
    while True:
        ids = [i for i in await tenant.stale_entities(ctx.settings.batch_size) if i not in seen]
        if not ids:
            return {"entities": done}
        seen.update(ids)
        await ctx.reprofile(call.tenant_id, ids)
        await tenant.clear_stale(ids)
        done += len(ids)
        ctx.say(f"{call.tenant_id}: re-profiled {done} entities")


def drifted(expected: Mapping[str, Any], stored: Mapping[str, Any]) -> dict[str, Any]:
    """The fields of ``expected`` the stored payload lacks or holds differently."""
    out: dict[str, Any] = {}
    for key, value in expected.items():
        have = stored.get(key)
        if isinstance(value, float) and isinstance(have, (int, float)):
            if abs(float(have) - value) > 1e-6 * max(1.0, abs(value)):
                out[key] = value
        elif isinstance(value, list) and isinstance(have, (list, tuple)):
            if sorted(map(str, value)) != sorted(map(str, have)):
                out[key] = value
        elif have != value:
            out[key] = value
    return out


async def reconcile_index(ctx: JobContext, call: JobCall) -> dict[str, int]:
    report = await reconcile(ctx.writer, [call.tenant_id], progress=ctx.progress)
    tenant = call.tenant(ctx)
    counts = {
        "reindexed": report.reindexed,
        "orphans_removed": report.orphans_removed,
        "checked": 0,
        "missing": 0,
        "drifted": 0,
    }
    after = ""
    while True:
        ids = await tenant.memory_ids_page(after, _PAGE)
        if not ids:
            break
        after = ids[-1]
        memories, stored = (
            await tenant.get_memories(ids),
            await ctx.index.retrieve(call.tenant_id, ids),
        )
        missing = [m for m in memories.values() if m.indexed and m.id not in stored]
        if missing:
            await ctx.writer.sync.show(call.tenant_id, new=missing, mark="none")
            counts["missing"] += len(missing)
        for memory in memories.values():
            if memory.id not in stored or not memory.indexed:
                continue
            fix = drifted(payload_of(memory), stored[memory.id])
            if fix:  # one call per drifted memory
                await ctx.writer.sync.show(call.tenant_id, changes={memory.id: fix}, mark="none")
                counts["drifted"] += 1
        counts["checked"] += len(ids)
        ctx.say(f"{call.tenant_id}: checked {counts['checked']} vector payloads")
    return counts
