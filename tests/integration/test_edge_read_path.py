"""Qdrant Edge specifics of the read path: its payload cache and searches on the caller's
thread (the behaviour every backend shares is in test_vector_contract.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from core.settings import VectorSettings
from tests.integration.test_vector_contract import DIM, T1, point, unit
from vectors.edge_index import EdgeVectorIndex
from vectors.vector_index import VectorFilter

pytestmark = [
    pytest.mark.integration,
    pytest.mark.filterwarnings("ignore:Payload indexes have no effect:UserWarning"),
]


async def test_edge_reads_each_payload_from_the_shard_once(tmp_path: Path) -> None:
    index = EdgeVectorIndex(tmp_path / "vectors", DIM, VectorSettings())
    await index.open()
    try:
        await index.upsert([point(angle=i, text=f"note {i}") for i in range(5)])
        first = await index.dense_search(unit(0), VectorFilter(T1), 10)
        assert index.payloads.fetched == 5 and not index.payloads.use
        # Searches that keep returning what the cache holds switch to ids and scores only.
        for _ in range(5):
            again = await index.dense_search(unit(0), VectorFilter(T1), 10)
        assert index.payloads.use
        fetched = index.payloads.fetched
        again = await index.dense_search(unit(0), VectorFilter(T1), 10)
        keyword = await index.keyword_search("note", VectorFilter(T1), 10)
        assert index.payloads.fetched == fetched  # both served from memory
        assert [(h.id, dict(h.payload)) for h in again] == [(h.id, dict(h.payload)) for h in first]
        assert {h.id: dict(h.payload) for h in keyword} == {h.id: dict(h.payload) for h in first}
        # A write reaches searches that take payloads from memory.
        await index.set_payload(T1, [first[0].id], {"importance": 0.9})
        assert index.payloads.use
        after = {h.id: h.payload for h in await index.dense_search(unit(0), VectorFilter(T1), 10)}
        assert after[first[0].id]["importance"] == 0.9
    finally:
        await index.close()

    off = EdgeVectorIndex(tmp_path / "vectors", DIM, VectorSettings(payload_cache=0))
    await off.open()
    try:
        for _ in range(8):
            assert len(await off.dense_search(unit(0), VectorFilter(T1), 10)) == 5
        assert off.payloads.fetched == 40 and len(off.payloads) == 0 and not off.payloads.use
    finally:
        await off.close()


async def test_edge_searches_run_on_the_callers_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Edge holds the GIL through a search: a worker thread would add two hand-offs and no
    # parallelism. Writes still go to a worker thread.
    handed_off: list[str] = []
    to_thread = asyncio.to_thread

    async def counting(fn: Any, /, *args: Any, **kwargs: Any) -> Any:
        handed_off.append(str(args[1]) if len(args) > 1 else "?")  # _mapped(path, op, ...)
        return await to_thread(fn, *args, **kwargs)

    monkeypatch.setattr(asyncio, "to_thread", counting)
    index = EdgeVectorIndex(tmp_path / "vectors", DIM, VectorSettings())
    await index.open()
    try:
        await index.upsert([point(angle=i, text=f"note {i}", session_id="s1") for i in range(5)])
        assert "upsert" in handed_off
        writes = len(handed_off)
        await index.dense_search(unit(0), VectorFilter(T1), 10)
        await index.keyword_search("note", VectorFilter(T1), 10)
        await index.hybrid_search(unit(0), "note", VectorFilter(T1), 10)
        assert handed_off[writes:] == []
    finally:
        await index.close()
