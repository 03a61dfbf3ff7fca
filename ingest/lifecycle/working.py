"""Working-memory flush: when a session closes or expires, its turns are promoted or expired.

A turn is promoted (kept as a long-term episode with slow decay) when its importance is at
least "medium" and it was retrieved at least once; the rest expire. Expired turns stay in the
graph as the session's audit trail but leave every read.
"""

from __future__ import annotations

from ingest.lifecycle.context import JobCall, JobContext, sync_payloads


async def promote_working(ctx: JobContext, call: JobCall) -> dict[str, int]:
    tenant = call.tenant(ctx)
    settings = ctx.settings
    counts = {"sessions": 0, "promoted": 0, "expired": 0}
    while True:
        sessions = await tenant.sessions_to_flush(
            call.at, call.scope.session_id, call.scope.project_id, settings.batch_size
        )
        if not sessions:
            return counts
        promoted, expired = await tenant.flush_sessions(
            sessions, call.at, settings.promote_min_importance, settings.promote_min_access
        )
        changes: dict[str, dict[str, object]] = {i: {"expires_at": call.at} for i in expired}
        changes.update({i: {"decay_class": cls} for i, cls in promoted.items()})
        await sync_payloads(ctx, call.tenant_id, changes)
        counts["sessions"] += len(sessions)
        counts["promoted"] += len(promoted)
        counts["expired"] += len(expired)
        ctx.say(f"{call.tenant_id}: flushed {counts['sessions']} sessions")
