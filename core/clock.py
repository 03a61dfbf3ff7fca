"""Time helpers. The service handles instants as float seconds since the Unix epoch (UTC);
the graph stores them as Cypher datetimes, and ``graph/records.py`` translates."""

from __future__ import annotations

import time
from datetime import UTC, datetime

# Stands for "never" in range-filterable fields (superseded_at, expires_at): a real float that
# the vector index can range-filter, unlike null or infinity. The graph stores it as null.
NEVER = 1.0e15

# Seconds added to the system clock. Zero in the service; only a simulation that replays time
# (bench/lifecycle.py) moves it, through ``set_now``, so that every "now" in the code agrees.
_offset = 0.0


def now() -> float:
    """Current time as epoch seconds: the only clock the service reads."""
    return time.time() + _offset


def set_now(at: float | None) -> None:
    """Make ``now()`` read ``at`` from here on (it keeps ticking from there); None returns to
    the system clock. For simulations and benchmarks only: the service never calls it."""
    global _offset
    _offset = 0.0 if at is None else at - time.time()


def to_epoch(value: datetime | float | int | None) -> float | None:
    """Convert a datetime (naive means UTC) or a number to epoch seconds."""
    if value is None:
        return None
    if isinstance(value, datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        return value.timestamp()
    return float(value)


def to_datetime(value: float | None) -> datetime | None:
    """Epoch seconds to an aware UTC datetime; ``NEVER`` and None give None."""
    if value is None or value >= NEVER:
        return None
    return datetime.fromtimestamp(value, tz=UTC)
