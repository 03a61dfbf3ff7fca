"""A long write transaction is not starved by a stream of short ones (the regression: a
300-chunk document version's publish lost its commit to a ``remember`` every 100 ms until
the 20 s retry budget ran out, every time). After ``GATE_AFTER`` lost commits it holds its
tenant's write gate: the writes inside finish, new ones wait, and its next commit wins."""

from __future__ import annotations

import asyncio

import pytest
from neo4j import AsyncManagedTransaction

from graph import store
from graph.cypher import statement
from graph.store import GATE_AFTER, GraphStore
from tests.integration.test_graph_contract import make


async def test_a_write_that_keeps_losing_holds_the_gate_and_wins(
    graph: GraphStore,
    tenant_id: str,
    request: pytest.FixtureRequest,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if request.node.callspec.params.get("graph") == "neo4j":
        pytest.skip("Neo4j locks on the first write: the short writes wait, nothing conflicts")
    # Without the gate the long write loses until the budget: a short budget makes a
    # regression fail in seconds, not after 20.
    monkeypatch.setattr(store, "RETRY_BUDGET", 8.0)
    g = graph.tenant(tenant_id)
    shared = make(tenant_id, "a memory the long write and the short ones both change")
    await g.create_memories([shared])
    text = statement("memory_mark_indexed")
    params = {"tenant": tenant_id, "ids": [shared.id], "indexed": True}
    attempts = 0
    held_back: list[asyncio.Task[list[str]]] = []

    async def long_write(tx: AsyncManagedTransaction) -> None:
        # Each try changes the memory, then a short write of the same tenant (through the
        # store, as every write goes) changes it too and commits first, if it can.
        nonlocal attempts
        attempts += 1
        await graph._run(tx, text, params, "memory_mark_indexed")
        short = asyncio.create_task(g.set_pinned([shared.id], attempts % 2 == 1))
        done, _ = await asyncio.wait([short], timeout=1.0)
        if not done:
            held_back.append(short)  # the gate held it: this try commits first

    await graph._execute_write(long_write, tenant_id)

    assert attempts == GATE_AFTER + 1  # lost GATE_AFTER commits, then held the gate
    assert len(held_back) == 1  # only the gated try held the short write back ...
    assert await held_back[0] == [shared.id]  # ... which ran right after it
    stored = (await g.get_memories([shared.id]))[shared.id]
    # the short write ran last: its pin, and its ``indexed = false`` over the long one's
    assert stored.pinned is (attempts % 2 == 1) and not stored.indexed
