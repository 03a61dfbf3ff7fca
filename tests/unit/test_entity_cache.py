"""The entity cache's bookkeeping (``resolution/entity_cache.py``): what it serves, when an
entry is stale, and the bound on kept profile embeddings."""

from __future__ import annotations

import pytest

from core.types import Entity, EntityType
from resolution import entity_cache
from resolution.entity_cache import EntityCache


def _entity(i: int, vector: tuple[float, ...] | None = None) -> Entity:
    return Entity(
        id=f"e{i}",
        tenant_id="t",
        name=f"Peter {i}",
        type=EntityType.PERSON,
        aliases=(f"Peter {i}",),
        profile_embedding=vector,
        first_seen=1.0,
        last_seen=1.0,
    )


def test_serves_entities_until_the_write_count_moves() -> None:
    cache = EntityCache(ttl=60)
    cache.put("t", 4, [_entity(1), _entity(2)])
    assert set(cache.get("t", 4, ["e1", "e2", "e3"])) == {"e1", "e2"}
    assert cache.get("other", 4, ["e1"]) == {}  # tenants never share entries
    assert cache.get("t", 5, ["e1"]) == {}  # an entity write happened
    assert cache.get("t", 4, ["e1"]) == {}  # and the stale entry is gone


def test_profile_embeddings_come_back_exactly_or_not_at_all() -> None:
    vector = (0.1, -0.25, 1 / 3)
    cache = EntityCache(ttl=60)
    cache.put("t", 0, [_entity(1, vector), _entity(2), _entity(3, vector)], profiled=["e1", "e2"])
    got = cache.get("t", 0, ["e1", "e2", "e3"], profiled=["e1", "e2", "e3"])
    assert got["e1"].profile_embedding == vector  # the same floats, not rounded
    assert got["e2"].profile_embedding is None  # read with its profile: it has none
    assert "e3" not in got  # read without its profile: the caller must read it
    plain = cache.get("t", 0, ["e1"])
    assert plain["e1"].profile_embedding is None  # not asked for


def test_kept_profiles_are_bounded_over_all_tenants() -> None:
    vector = (1.0, 0.0)
    cache = EntityCache(ttl=60, max_tenants=2, max_profiles=3)
    cache.put("a", 0, [_entity(i, vector) for i in range(3)], profiled=["e0", "e1", "e2"])
    cache.put("b", 0, [_entity(9, vector)], profiled=["e9"])
    assert "e9" in cache.get("b", 0, ["e9"])  # the entity is kept
    assert cache.get("b", 0, ["e9"], profiled=["e9"]) == {}  # its profile was over the bound
    cache.put("c", 0, [_entity(5)])  # evicts tenant "a" (least recently used), freeing three
    cache.put("b", 0, [_entity(9, vector)], profiled=["e9"])
    assert cache.get("b", 0, ["e9"], profiled=["e9"])["e9"].profile_embedding == vector


def test_a_replaced_entity_is_not_put_back_by_a_read_that_began_before() -> None:
    cache = EntityCache(ttl=60)
    cache.put("t", 0, [_entity(1)])
    since = cache.seq  # a resolve notes this, then reads Peter 1 as it was ...
    newer = _entity(1).model_copy(update={"parent_id": "acme"})
    cache.replace("t", 0, [newer])  # ... while a new relation gave him a parent
    cache.put("t", 0, [_entity(1)], since=since)  # the read's older copy
    assert cache.get("t", 0, ["e1"])["e1"].parent_id == "acme"
    cache.put("t", 0, [_entity(1)], since=cache.seq)  # a read that began after: its copy wins
    assert cache.get("t", 0, ["e1"])["e1"].parent_id is None


def test_an_entry_past_the_ttl_is_served_while_one_renewal_reads_it_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = [100.0]
    monkeypatch.setattr(entity_cache.time, "monotonic", lambda: clock[0])
    vector = (0.5, 0.5)
    cache = EntityCache(ttl=30)
    cache.put("t", 0, [_entity(1, vector), _entity(2), _entity(3)], profiled=["e1"])
    assert cache.due("t", 0) is None  # fresh
    clock[0] += 31
    assert set(cache.get("t", 0, ["e1", "e2", "e3"])) == {"e1", "e2", "e3"}  # still served
    ids, profiled = cache.due("t", 0) or ([], [])
    assert sorted(ids) == ["e1", "e2", "e3"] and profiled == ["e1"]
    assert cache.due("t", 0) is None  # one renewal at a time
    since = cache.seq
    cache.replace("t", 0, [_entity(3).model_copy(update={"parent_id": "acme"})])  # meanwhile
    renamed = _entity(1, vector).model_copy(update={"name": "Peter One"})
    # What the renewal read: Peter 2 was erased elsewhere, Peter 3 as it was before the
    # replacement above.
    cache.renew("t", 0, [renamed, _entity(3)], ["e1"], since)
    got = cache.get("t", 0, ["e1", "e2", "e3"], profiled=["e1"])
    assert set(got) == {"e1", "e3"}
    assert got["e1"].name == "Peter One" and got["e1"].profile_embedding == vector
    assert got["e3"].parent_id == "acme"  # the newer copy is kept
    assert cache.due("t", 0) is None  # renewed: fresh again
    clock[0] += 61
    assert cache.get("t", 0, ["e1"]) == {}  # never renewed for twice the ttl: dropped


def test_a_failed_renewal_can_be_tried_again(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [0.0]
    monkeypatch.setattr(entity_cache.time, "monotonic", lambda: clock[0])
    cache = EntityCache(ttl=10)
    cache.put("t", 0, [_entity(1)])
    clock[0] += 11
    assert cache.due("t", 0) is not None
    cache.renewed("t")  # the read failed
    assert cache.due("t", 0) is not None
    cache.renew("t", 1, [_entity(1)], [], cache.seq)  # an entity write happened meanwhile
    assert cache.get("t", 1, ["e1"]) == {} and cache.get("t", 0, ["e1"]) == {}


def test_a_renewal_reads_again_only_the_profile_embeddings_that_changed() -> None:
    cache = EntityCache(ttl=30)
    a, b = (0.25, 0.5, 0.75, 1.0, 2.0), (1.0, 0.0, 0.0, 0.0, 3.0)
    cache.put("t", 0, [_entity(1, a), _entity(2, b), _entity(3)], profiled=["e1", "e2", "e3"])
    heads = {"e1": a[:4], "e2": (0.5, 0.0, 0.0, 0.0), "e3": None, "e4": None}
    # e2's profile changed; e3 still has none; e4's vector is not kept: read it.
    assert cache.changed_profiles("t", 0, heads) == ["e2", "e4"]
    assert cache.changed_profiles("t", 0, {"e3": (0.1,)}) == ["e3"]  # it has one now
    b2 = (0.5, 0.0, 0.0, 0.0, 9.0)
    light = [_entity(1), _entity(3)]  # read again without vectors
    cache.renew("t", 0, [*light, _entity(2, b2)], ["e1", "e2", "e3"], cache.seq, ["e1", "e3"])
    got = cache.get("t", 0, ["e1", "e2", "e3"], profiled=["e1", "e2", "e3"])
    assert got["e1"].profile_embedding == a  # carried over, exactly
    assert got["e2"].profile_embedding == b2  # the one read again
    assert got["e3"].profile_embedding is None
