"""Striped locks: one key waits for itself, sets of keys taken in any order never deadlock."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager

import pytest

from core.locks import StripedLimits, StripedLocks, WriteGates, stripe_of


async def most_at_once(
    hold: Callable[[], AbstractAsyncContextManager[None]], callers: int
) -> tuple[int, list[int]]:
    """``callers`` callers holding ``hold()`` a moment each, asking in turn: the most inside
    at once, and the order they got in."""
    inside, most, entered = 0, 0, []

    async def work(i: int) -> None:
        nonlocal inside, most
        async with hold():
            entered.append(i)
            inside += 1
            most = max(most, inside)
            await asyncio.sleep(0.002)
            inside -= 1

    tasks = []
    for i in range(callers):
        tasks.append(asyncio.ensure_future(work(i)))
        await asyncio.sleep(0)  # each asks in turn
    await asyncio.gather(*tasks)
    return most, entered


async def test_one_key_is_held_by_one_caller_at_a_time() -> None:
    locks = StripedLocks(8)
    most, _ = await most_at_once(lambda: locks.holding([("fact", "t", "peter", "role")]), 5)
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


async def test_an_exclusive_gate_lets_the_writes_inside_finish_and_holds_new_ones_back() -> None:
    gates = WriteGates(8)
    log: list[str] = []
    inside, release = asyncio.Event(), asyncio.Event()

    async def shared(name: str, wait: asyncio.Event | None = None) -> None:
        async with gates.passing("t1", WriteGates.SHARED):
            log.append(f"{name} in")
            if wait is not None:
                inside.set()
                await wait.wait()
            log.append(f"{name} out")

    async def exclusive() -> None:
        async with gates.passing("t1", WriteGates.KEY):
            log.append("exclusive")

    first = asyncio.create_task(shared("a", release))
    await inside.wait()
    starving = asyncio.create_task(exclusive())
    await asyncio.sleep(0.01)
    later = asyncio.create_task(shared("b"))  # arrives while the exclusive one waits
    other = asyncio.create_task(shared_other(gates, log))  # another key is not held back
    await asyncio.sleep(0.01)
    assert log == ["a in", "other"]
    release.set()
    await asyncio.gather(first, starving, later, other)
    assert log == ["a in", "other", "a out", "exclusive", "b in", "b out"]


async def shared_other(gates: WriteGates, log: list[str]) -> None:
    async with gates.passing("t2", WriteGates.SHARED):
        log.append("other")


async def test_the_global_gate_holds_back_every_key_and_a_cancelled_request_frees_it() -> None:
    gates = WriteGates(8)
    holding, release = asyncio.Event(), asyncio.Event()

    async def hold() -> None:
        async with gates.passing("t1", WriteGates.SHARED):
            holding.set()
            await release.wait()

    async def everything() -> None:
        async with gates.passing("", WriteGates.ALL):
            pass

    holder = asyncio.create_task(hold())
    await holding.wait()
    waiting = asyncio.create_task(everything())
    await asyncio.sleep(0.01)
    blocked = asyncio.create_task(shared_other(gates, []))
    await asyncio.sleep(0.01)
    assert not blocked.done()  # another tenant's write waits for the global request
    waiting.cancel()  # the request gives up: the gate opens again
    await asyncio.wait_for(blocked, 1.0)
    release.set()
    await holder
    await asyncio.wait_for(everything(), 1.0)


async def test_a_limit_lets_in_at_most_its_number_in_arrival_order() -> None:
    limits = StripedLimits(2, stripes=1)
    most, entered = await most_at_once(lambda: limits.of("tenant"), 7)
    assert most == 2
    assert entered == list(range(7))  # first come, first served


async def test_no_limit_lets_everyone_in_and_other_keys_do_not_wait() -> None:
    everyone = StripedLimits(0)
    most, _ = await most_at_once(lambda: everyone.of("tenant"), 6)
    assert most == 6

    one = StripedLimits(1, stripes=64)
    assert stripe_of(("a",), 64) != stripe_of(("b",), 64)  # two stripes, or this proves nothing
    async with one.of("a"):  # a held place of "a" does not hold back "b"
        await asyncio.wait_for(_enter(one.of("b")), timeout=1)
    with pytest.raises(ValueError):
        StripedLimits(-1)
