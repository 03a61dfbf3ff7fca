"""Striped locks: one key waits for itself, sets of keys taken in any order never deadlock."""

from __future__ import annotations

import asyncio
from contextlib import AbstractAsyncContextManager

import pytest

from core.locks import StripedLocks


async def test_one_key_is_held_by_one_caller_at_a_time() -> None:
    locks = StripedLocks(8)
    inside = 0
    most = 0

    async def work() -> None:
        nonlocal inside, most
        async with locks.holding([("fact", "t", "peter", "role")]):
            inside += 1
            most = max(most, inside)
            await asyncio.sleep(0.001)
            inside -= 1

    await asyncio.gather(*(work() for _ in range(5)))
    assert most == 1
    assert locks.of("fact", "t", "peter", "role") is locks.of("fact", "t", "peter", "role")


async def test_overlapping_sets_taken_in_opposite_orders_do_not_deadlock() -> None:
    locks = StripedLocks(64)
    a, b = ("k", "a"), ("k", "b")
    assert locks.of(*a) is not locks.of(*b)  # two stripes, or the test proves nothing
    done: list[int] = []

    async def work(i: int, keys: list[tuple[str, ...]]) -> None:
        async with locks.holding(keys):
            await asyncio.sleep(0.001)
            done.append(i)

    await asyncio.wait_for(
        asyncio.gather(*(work(i, [a, b] if i % 2 else [b, a]) for i in range(20))), timeout=5
    )
    assert sorted(done) == list(range(20))


async def test_no_keys_hold_nothing() -> None:
    locks = StripedLocks(1)
    async with locks.of("x"):
        await asyncio.wait_for(_enter(locks.holding([])), timeout=1)  # does not wait


async def _enter(cm: AbstractAsyncContextManager[None]) -> None:
    async with cm:
        pass


def test_at_least_one_stripe() -> None:
    with pytest.raises(ValueError):
        StripedLocks(0)
