"""Write conflicts are retried after short random waits that never grow past a cap (issue 43,
item 3: the driver's doubling reached 18 s waits under 16 writers, and a turn 43 s)."""

from __future__ import annotations

from graph.store import RETRY_BUDGET, RETRY_CAP, RETRY_DELAY, _retry_wait


def test_retry_waits_are_random_and_capped() -> None:
    for conflicts in range(1, 60):
        waits = [_retry_wait(conflicts) for _ in range(200)]
        bound = min(RETRY_CAP, RETRY_DELAY * 2 ** (conflicts - 1))
        assert all(0.0 <= w <= bound for w in waits)
        assert len(set(waits)) > 100  # jittered: losers of one conflict spread out
    # Waiting the cap every time, the budget still allows dozens of retries, and no single
    # wait is long enough to stall a request by itself.
    assert RETRY_CAP <= 0.25 and RETRY_BUDGET / RETRY_CAP >= 40
