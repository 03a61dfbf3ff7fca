"""A tenant's writes run a few at a time (``ingest.writes_at_once``), in arrival order: sixteen
turns, remembers and supersedes of one tenant at once all land, never more than the limit
inside the write path together, and another tenant's writes do not wait behind them."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from api.brain import Brain
from core.ingest_types import TurnInput
from core.locks import stripe_of
from core.types import MemoryType, NewMemory


def _counted(inside: dict[str, int], run: Callable[..., Awaitable[Any]]) -> Callable[..., Any]:
    """``run`` itself, counting the calls in flight per tenant (the first argument)."""

    async def wrapper(tenant_id: str, *args: Any, **kwargs: Any) -> Any:
        inside[tenant_id] = inside.get(tenant_id, 0) + 1
        inside["most:" + tenant_id] = max(inside.get("most:" + tenant_id, 0), inside[tenant_id])
        try:
            return await run(tenant_id, *args, **kwargs)
        finally:
            inside[tenant_id] -= 1

    return wrapper


async def test_a_tenants_writes_run_a_few_at_a_time_and_all_land(
    brain: Brain, tenant_id: str, other_tenant_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    writes = brain.memories
    limit = brain.settings.ingest.writes_at_once
    assert limit == 6  # the default
    inside: dict[str, int] = {}
    turns = writes.ingest.turns
    monkeypatch.setattr(turns, "record_turn", _counted(inside, turns.record_turn))
    monkeypatch.setattr(writes.writer, "supersede", _counted(inside, writes.writer.supersede))
    monkeypatch.setattr(writes.writer, "remember", _counted(inside, writes.writer.remember))
    first = await brain.memories.remember(tenant_id, NewMemory(content="Crate 0 ships from Oslo."))

    async def supersede_twice() -> str:
        second = await brain.memories.supersede(tenant_id, first.id, "Crate 0 ships from Lisbon.")
        third = await brain.memories.supersede(tenant_id, second.id, "Crate 0 ships from Madrid.")
        return third.content

    turns = [
        brain.memories.record_turn(
            tenant_id, TurnInput(session_id=f"s{i}", content=f"Order {i} shipped to Berlin.")
        )
        for i in range(12)
    ]
    remembered = [
        brain.memories.remember(
            tenant_id, NewMemory(content=f"Crate {i} weighs 3 kg.", type=MemoryType.FACT)
        )
        for i in range(1, 4)
    ]
    results = await asyncio.gather(*turns, *remembered, supersede_twice())
    assert inside["most:" + tenant_id] == limit  # the limit was reached, and held
    assert inside[tenant_id] == 0
    assert results[-1] == "Crate 0 ships from Madrid."
    assert all(r.episode.indexed for r in results[:12])  # every turn landed, searchable

    # Another tenant is not held back by a tenant whose places are all taken.
    admitted = writes.admitted
    other = next(
        f"{other_tenant_id}{n}"
        for n in range(100)
        if stripe_of((f"{other_tenant_id}{n}",), admitted.stripes)
        != stripe_of((tenant_id,), admitted.stripes)
    )
    async with contextlib.AsyncExitStack() as held:
        for _ in range(limit):
            await held.enter_async_context(admitted.of(tenant_id))
        waiting = asyncio.ensure_future(
            brain.memories.record_turn(
                tenant_id, TurnInput(session_id="late", content="Order 99 left.")
            )
        )
        turn = TurnInput(session_id="s", content="Order 7 shipped to Oslo.")
        done = await asyncio.wait_for(brain.memories.record_turn(other, turn), timeout=60)
        assert done.episode.indexed
        await asyncio.sleep(0.05)
        assert not waiting.done()  # the first tenant's next write waits for a place
    assert (await asyncio.wait_for(waiting, timeout=60)).episode.indexed
