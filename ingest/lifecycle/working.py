"""Working-memory flush: when a session closes or expires, its window is settled.

Working memory is the session window (the turns ``assembleContext`` shows as the recent
conversation); it ends when the session closes or expires. The turns themselves are the
episodic record and stay visible for good: promotion decides what becomes more prominent, not
what stays. A turn whose importance is at least "medium" and that was retrieved at least once
is promoted (slow decay); the others keep their class and simply rank lower as they age.
"""

from __future__ import annotations

from ingest.lifecycle.context import JobCall, JobContext


async def promote_working(ctx: JobContext, call: JobCall) -> dict[str, int]:
    tenant = call.tenant(ctx)
    settings = ctx.settings
    counts = {"sessions": 0, "promoted": 0, "kept": 0}
    while True:
        sessions = await tenant.sessions_to_flush(
            call.at, call.scope.session_id, call.scope.project_id, settings.batch_size
        )
        if not sessions:
            return counts
        promoted, kept = await tenant.flush_sessions(
            sessions, call.at, settings.promote_min_importance, settings.promote_min_access
        )
        changes = {i: {"decay_class": cls} for i, cls in promoted.items()}
        await ctx.writer.sync.show(call.tenant_id, changes=changes, present_only=True)
        counts["sessions"] += len(sessions)
        counts["promoted"] += len(promoted)
        counts["kept"] += len(kept)
        ctx.say(f"{call.tenant_id}: flushed {counts['sessions']} sessions")
