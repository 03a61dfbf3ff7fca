"""PayloadCache: a read that overlaps a write is not kept; the oldest entries leave first;
kept payloads are not walked by the garbage collector."""

from __future__ import annotations

import gc

from retrieval.payload_cache import PayloadCache


def test_a_read_that_started_before_a_write_is_not_kept() -> None:
    cache = PayloadCache(10)
    generation = cache.generation
    cache.drop(["a"])  # a write to "a" lands while the read is under way
    returned = cache.store(generation, {"a": {"v": 1}})
    assert returned["a"]["v"] == 1  # the caller still gets what it read
    assert cache.get("a") is None
    cache.store(cache.generation, {"a": {"v": 2}})
    assert cache.get("a") == {"v": 2}


def test_a_write_drops_its_points_and_a_filter_write_drops_all() -> None:
    cache = PayloadCache(10)
    cache.store(cache.generation, {"a": {"v": 1}, "b": {"v": 2}, "c": {"v": 3}})
    cache.drop(["a"])
    assert cache.get("a") is None and cache.get("b") == {"v": 2}
    cache.drop(None)
    assert len(cache) == 0


def test_the_oldest_payloads_leave_first() -> None:
    cache = PayloadCache(2)
    for key in "abc":
        cache.store(cache.generation, {key: {"v": key}})
    assert (cache.get("a"), cache.get("b"), cache.get("c")) == (None, {"v": "b"}, {"v": "c"})
    assert cache.fetched == 3


def test_kept_payloads_leave_the_garbage_collectors_lists() -> None:
    # Full collections must not walk tens of thousands of cached payloads again and again.
    cache = PayloadCache(10)
    cache.store(cache.generation, {"a": {"tenant_id": "t1", "entity_ids": ["e1", "e2"]}})
    gc.collect()
    kept = cache.get("a")
    assert kept is not None and kept["entity_ids"] == ("e1", "e2")
    assert not gc.is_tracked(kept)
