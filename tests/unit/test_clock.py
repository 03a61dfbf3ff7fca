"""The clock override used by simulations: ``now()`` follows it, and it can be undone."""

from __future__ import annotations

import time

from core.clock import now, set_now


def test_set_now_moves_every_reading_and_none_restores_the_system_clock() -> None:
    year_ago = time.time() - 365 * 86_400.0
    try:
        set_now(year_ago)
        first = now()
        assert year_ago <= first < year_ago + 60  # moved, and still ticking from there
        assert now() >= first
    finally:
        set_now(None)
    assert abs(now() - time.time()) < 1.0
