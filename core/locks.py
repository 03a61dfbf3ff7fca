"""Striped in-process locks: a fixed set of asyncio locks that keys share by hash.

A service sees any number of tenants, sessions, facts and paths; one lock each would grow
without bound. Keys that hash alike share a lock (they only wait for each other a little
more). ``holding`` takes the locks of several keys in one fixed order, so two callers holding
overlapping sets cannot deadlock.

These locks order the work of one process. Several API replicas on one graph need the
graph-side guards as well (see the statements in ``cypher/``).

Example::

    sessions = StripedLocks()
    async with sessions.of(tenant_id, session_id):
        ...
    async with facts.holding([(tenant_id, "peter", "role"), (tenant_id, "user:u1", "tabs")]):
        ...
"""

from __future__ import annotations

import asyncio
import contextlib
import zlib
from collections.abc import AsyncIterator, Iterable


class StripedLocks:
    """``stripes`` asyncio locks shared by keys (tuples of strings) by a stable hash."""

    def __init__(self, stripes: int = 256) -> None:
        if stripes < 1:
            raise ValueError("stripes must be at least 1")
        self._locks = [asyncio.Lock() for _ in range(stripes)]

    def of(self, *key: str) -> asyncio.Lock:
        """The lock of one key."""
        return self._locks[self._stripe(key)]

    @contextlib.asynccontextmanager
    async def holding(self, keys: Iterable[tuple[str, ...]]) -> AsyncIterator[None]:
        """Hold the locks of all ``keys`` (none for no keys), taken in stripe order."""
        async with contextlib.AsyncExitStack() as stack:
            for stripe in sorted({self._stripe(k) for k in keys}):
                await stack.enter_async_context(self._locks[stripe])
            yield

    def _stripe(self, key: tuple[str, ...]) -> int:
        return zlib.crc32("\x1f".join(key).encode()) % len(self._locks)
