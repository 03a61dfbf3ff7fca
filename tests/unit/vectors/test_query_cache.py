"""The embedders' cache of query vectors: one computation per text however many ask at once,
failures not kept, bounded, and emptied on demand (the benchmarks empty it per request)."""

from __future__ import annotations

import asyncio

import pytest

from vectors.embedding.query_cache import QueryCache


class Counting:
    """A query "model" that counts its computations and can be held at a gate."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.gate = asyncio.Event()
        self.gate.set()
        self.fail = False

    async def __call__(self, text: str) -> list[float]:
        self.calls.append(text)
        await self.gate.wait()
        if self.fail:
            raise RuntimeError("model unavailable")
        return [float(len(text)), 1.0]


async def test_concurrent_requests_for_one_text_share_one_computation() -> None:
    cache, model = QueryCache(), Counting()
    model.gate.clear()
    waiting = [asyncio.ensure_future(cache.get("who writes?", model)) for _ in range(3)]
    await asyncio.sleep(0)
    model.gate.set()
    assert await asyncio.gather(*waiting) == [[11.0, 1.0]] * 3
    assert await cache.get("who writes?", model) == [11.0, 1.0]
    assert model.calls == ["who writes?"]


async def test_a_failure_is_not_kept() -> None:
    cache, model = QueryCache(), Counting()
    model.fail = True
    with pytest.raises(RuntimeError):
        await cache.get("x", model)
    model.fail = False
    assert await cache.get("x", model) == [1.0, 1.0]
    assert model.calls == ["x", "x"]


async def test_the_cache_is_bounded_and_clear_forgets_every_vector() -> None:
    cache, model = QueryCache(size=2), Counting()
    for text in ("a", "bb", "ccc"):
        await cache.get(text, model)
    await cache.get("ccc", model)  # kept
    await cache.get("a", model)  # the oldest was dropped: computed again
    assert model.calls == ["a", "bb", "ccc", "a"]
    cache.clear()
    await cache.get("a", model)
    assert model.calls == ["a", "bb", "ccc", "a", "a"]
