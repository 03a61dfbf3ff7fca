"""Feedback: which memories actually helped.

``record_feedback`` takes the memories an answer used in a session, whether they helped, and
optionally the tracked outcome of the decision they informed. Helpful memories gain
``feedback_step`` importance, unhelpful ones lose it; a positive outcome boosts the memories
behind the decision by ``outcome_boost`` and a negative one lowers them by as much. Importance
stays within [0, ``importance_cap``]. Every feedback is recorded (a ``Feedback`` node with a
``RATED`` link per memory holding the importance before and after), so it can be audited.
"""

from __future__ import annotations

from collections.abc import Sequence

from core.clock import now
from core.errors import InvalidInput, NotFound
from core.ids import check_id, new_id
from core.lifecycle_types import FeedbackOutcome, FeedbackResult
from ingest.lifecycle.context import JobContext
from ingest.sessions import check_session_id

MAX_MEMORIES = 100


def delta(helpful: bool, outcome: FeedbackOutcome | None, step: float, boost: float) -> float:
    change = step if helpful else -step
    if outcome is FeedbackOutcome.POSITIVE:
        change += boost
    elif outcome is FeedbackOutcome.NEGATIVE:
        change -= boost
    return change


async def record_feedback(
    ctx: JobContext,
    tenant_id: str,
    session_id: str,
    memory_ids: Sequence[str],
    helpful: bool,
    outcome: FeedbackOutcome | None = None,
) -> FeedbackResult:
    """Raises InvalidInput (bad ids, too many) or NotFound (an id this tenant does not
    have); in both cases nothing changes."""
    session = check_session_id(session_id)
    if not memory_ids:
        raise InvalidInput("memoryIds must name at least one memory", field="memoryIds")
    if len(memory_ids) > MAX_MEMORIES:
        raise InvalidInput(f"at most {MAX_MEMORIES} memoryIds per feedback", field="memoryIds")
    ids = list(dict.fromkeys(check_id(i, "memoryIds") for i in memory_ids))
    tenant = ctx.graph.tenant(tenant_id)
    found = await tenant.get_memories(ids)
    missing = [i for i in ids if i not in found]
    if missing:
        raise NotFound("memory", missing[0])
    settings = ctx.settings
    change = delta(helpful, outcome, settings.feedback_step, settings.outcome_boost)
    changes: dict[str, tuple[float, float]] = {}
    for memory_id in ids:
        before = found[memory_id].importance
        after = round(min(settings.importance_cap, max(0.0, before + change)), 4)
        changes[memory_id] = (before, after)
    result = FeedbackResult(
        id=new_id(),
        session_id=session,
        helpful=helpful,
        outcome=outcome,
        at=now(),
        changes=changes,
    )
    await tenant.apply_feedback(result)
    payloads = {i: {"importance": after} for i, (_, after) in changes.items()}
    await ctx.writer.sync.show(tenant_id, changes=payloads, present_only=True)
    return result
