"""PayloadCache: a read that overlaps a write is not kept; the oldest entries leave first;
kept payloads are not walked by the garbage collector; searches use it while it holds most
of what they return."""

from __future__ import annotations

import gc

from vectors.payload_cache import PayloadCache


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


def test_the_oldest_payloads_leave_first_while_searches_use_the_cache() -> None:
    cache = PayloadCache(2)
    cache.store(cache.generation, {"a": {"v": "a"}, "b": {"v": "b"}})
    cache.store(cache.generation, {"c": {"v": "c"}})  # full and unused: not kept
    assert (cache.get("a"), cache.get("c")) == ({"v": "a"}, None)
    for _ in range(5):
        cache.seen(2, 2)
    cache.store(cache.generation, {"c": {"v": "c"}})
    assert (cache.get("a"), cache.get("b"), cache.get("c")) == (None, {"v": "b"}, {"v": "c"})
    assert cache.fetched == 4


def test_kept_payloads_leave_the_garbage_collectors_lists() -> None:
    # Full collections must not walk tens of thousands of cached payloads again and again.
    cache = PayloadCache(10)
    cache.store(cache.generation, {"a": {"tenant_id": "t1", "entity_ids": ["e1", "e2"]}})
    gc.collect()
    kept = cache.get("a")
    assert kept is not None and kept["entity_ids"] == ("e1", "e2")
    assert not gc.is_tracked(kept)


def test_searches_use_the_cache_while_it_holds_most_of_what_they_return() -> None:
    cache = PayloadCache(10)
    assert not cache.use  # nothing held yet: searches ask for payloads
    for _ in range(5):
        cache.seen(9, 10)
    assert cache.use
    for _ in range(5):
        cache.seen(1, 10)  # a tenant much larger than the cache
    assert not cache.use
    off = PayloadCache(0)
    for _ in range(10):
        off.seen(10, 10)
    assert not off.use
