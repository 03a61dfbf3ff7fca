"""A GraphQL check's time budget counts its own work: a garbage collection that happens to run
in its thread is taken out (one did, on a busy machine, and an ordinary query was refused as
"could not be checked in time")."""

from __future__ import annotations

import gc
import time

from api.gql.guard import _own_time


def test_a_collection_does_not_count_against_a_checks_budget() -> None:
    junk = [[i] for i in range(300_000)]  # objects the collector has to walk
    clock, own = time.thread_time(), _own_time()
    gc.collect()
    spent, counted = time.thread_time() - clock, _own_time() - own
    assert spent > 0.002  # the collection took time ...
    assert counted < spent / 4  # ... and the budget did not pay it
    work = time.thread_time()
    sum(x[0] for x in junk)  # the check's own work still counts
    assert _own_time() - own - counted >= (time.thread_time() - work) * 0.9
