"""Writes of one statement plan, commit and index in turn; the next one plans while the one
before it indexes (``ingest/write/ordering.py``; issue 43, item 3)."""

from __future__ import annotations

import asyncio

import pytest

from ingest.write.ordering import StatementLocks

KEY = ("fact", "t", "deploy", "target")


async def test_the_next_write_plans_while_the_one_before_indexes_and_indexes_after_it() -> None:
    locks = StatementLocks(8)
    events: list[str] = []
    indexing = asyncio.Event()

    async def first() -> None:
        async with locks.holding([KEY]) as held:
            events.append("first plans")
            await held.handover()
            events.append("first indexes")
            await indexing.wait()  # its vector side is slow
            events.append("first indexed")

    async def second() -> None:
        async with locks.holding([KEY]) as held:
            events.append("second plans")
            await held.handover()
            events.append("second indexes")

    one = asyncio.create_task(first())
    await asyncio.sleep(0)
    two = asyncio.create_task(second())
    for _ in range(10):
        await asyncio.sleep(0)
    # The second one planned (and committed) while the first one was still indexing, and
    # waits for it to finish before its own vector side.
    assert events == ["first plans", "first indexes", "second plans"]
    indexing.set()
    await asyncio.wait_for(asyncio.gather(one, two), timeout=5)
    assert events[3:] == ["first indexed", "second indexes"]


async def test_a_write_that_does_not_hand_over_keeps_the_next_one_from_planning() -> None:
    locks = StatementLocks(8)
    release = asyncio.Event()
    planned: list[str] = []

    async def holder() -> None:
        async with locks.holding([KEY]):
            planned.append("holder")
            await release.wait()

    async def next_one() -> None:
        async with locks.holding([KEY]):
            planned.append("next")

    tasks = [asyncio.create_task(holder()), asyncio.create_task(next_one())]
    for _ in range(10):
        await asyncio.sleep(0)
    assert planned == ["holder"]
    release.set()
    await asyncio.wait_for(asyncio.gather(*tasks), timeout=5)
    assert planned == ["holder", "next"]
    async with locks.of(*KEY):  # nothing left held
        pass


async def test_other_statements_do_not_wait_and_handover_is_once() -> None:
    locks = StatementLocks(64)
    other = ("fact", "t", "peter", "role")
    assert locks.of(*KEY) is not locks.of(*other)  # two stripes, or the test proves nothing
    async with locks.holding([KEY]) as held:
        async with asyncio.timeout(1), locks.holding([other]) as elsewhere:
            await elsewhere.handover()
        await held.handover()
        with pytest.raises(RuntimeError):
            await held.handover()
