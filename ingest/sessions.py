"""Working memory per session: the first turn plus a sliding window of recent turns.

A session's record holds the ids of the episodic memories in its window (oldest first; the
session's first turn is always kept), its idle expiry and its absolute TTL. A turn recorded
into a closed or expired session starts a fresh window under the same session id.
"""

from __future__ import annotations

from typing import Any

from core.ingest_types import Session
from core.settings import IngestSettings
from core.validation import check_scope_id


def check_session_id(value: object) -> str:
    return check_scope_id(value, "sessionId")


def slide(window: list[str], new_id: str, size: int) -> list[str]:
    """Append ``new_id``; beyond ``size`` drop the oldest turns but never the first one."""
    out = [*window, new_id]
    if len(out) > size:
        out = [out[0], *out[len(out) - (size - 1) :]]
    return out


def next_session(
    session: Session | None,
    memory_id: str,
    at: float,
    settings: IngestSettings,
    user_id: str | None,
    project_id: str | None,
) -> tuple[dict[str, Any], int]:
    """The session properties after a turn at ``at``, and the turn's index in the session."""
    fresh = session is None or not session.is_open(at)
    started = at if fresh or session is None else session.started_at
    window = (
        [memory_id]
        if fresh or session is None
        else slide(list(session.window), memory_id, settings.window_turns)
    )
    index = (session.turn_count if session is not None else 0) + 1
    props: dict[str, Any] = {
        "started_at": started,
        "last_turn_at": at,
        "expires_at": min(
            at + settings.session_idle_seconds, started + settings.session_ttl_seconds
        ),
        "turn_count": index,
        "window": window,
        "closed_at": None,
        "flushed_at": None,  # a reopened session's new turns are flushed at its next close
    }
    if user_id is not None:
        props["user_id"] = user_id
    if project_id is not None:
        props["project_id"] = project_id
    return props, index
