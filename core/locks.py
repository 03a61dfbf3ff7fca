"""Striped in-process locks, and the write gates that keep a long transaction from starving.

``StripedLocks``: a fixed set of asyncio locks that keys share by hash.

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
        return stripe_of(key, len(self._locks))


def stripe_of(key: tuple[str, ...], stripes: int) -> int:
    """The stripe (of ``stripes``) a key (a tuple of strings) falls in, by a stable hash."""
    return zlib.crc32("\x1f".join(key).encode()) % stripes


class StripedLimits:
    """At most ``limit`` holders at a time per key (keys share ``stripes`` semaphores by a
    stable hash, as in ``StripedLocks``); waiters are let in first come, first served.
    ``limit`` 0 lets everyone in at once.

    Many writes of one tenant at once do not finish sooner than the same writes a few at a
    time: they share the cores and conflict on the same records, and the unlucky ones
    retry. A few at a time, in arrival order, each finishes in about the same time.
    """

    def __init__(self, limit: int, stripes: int = 64) -> None:
        if limit < 0 or stripes < 1:
            raise ValueError("limit must be at least 0 and stripes at least 1")
        self._limit = limit
        self.stripes = stripes
        self._semaphores = [asyncio.Semaphore(limit) for _ in range(stripes if limit else 0)]

    @contextlib.asynccontextmanager
    async def of(self, *key: str) -> AsyncIterator[None]:
        """Hold one of the key's places while the block runs."""
        if not self._limit:
            yield
            return
        async with self._semaphores[stripe_of(key, len(self._semaphores))]:
            yield


class _Gate:
    """One gate: any number of shared holders, or one exclusive holder; an exclusive
    request stops new shared holders at once (the one that asked does not starve)."""

    def __init__(self) -> None:
        self._changed = asyncio.Condition()
        self._shared = 0
        self._exclusive = False  # asked for or held

    @contextlib.asynccontextmanager
    async def shared(self) -> AsyncIterator[None]:
        async with self._changed:
            await self._changed.wait_for(lambda: not self._exclusive)
            self._shared += 1
        try:
            yield
        finally:
            async with self._changed:
                self._shared -= 1
                self._changed.notify_all()

    @contextlib.asynccontextmanager
    async def exclusive(self) -> AsyncIterator[None]:
        async with self._changed:
            await self._changed.wait_for(lambda: not self._exclusive)
            self._exclusive = True
            try:
                await self._changed.wait_for(lambda: self._shared == 0)
            except BaseException:
                self._exclusive = False
                self._changed.notify_all()
                raise
        try:
            yield
        finally:
            async with self._changed:
                self._exclusive = False
                self._changed.notify_all()


class WriteGates:
    """Who may start a write transaction: every write passes a global gate and its key's
    gate (striped like ``StripedLocks``) as a shared holder; a transaction that keeps losing
    write conflicts asks for its key's gate alone (``Level.KEY``), and if it still loses, for
    the global gate (``Level.ALL``). An exclusive request lets the writes inside finish and
    holds back new ones, so a long transaction (a document version's publish, which changes
    hundreds of records) is not starved by a stream of short ones that each touch a record
    it needs. Gates are always taken global first, then the key's: no two callers wait on
    each other in a cycle.

    Example::

        gates = WriteGates()
        async with gates.passing(tenant_id, WriteGates.SHARED):
            ...  # run the transaction
    """

    SHARED, KEY, ALL = 0, 1, 2

    def __init__(self, stripes: int = 64) -> None:
        if stripes < 1:
            raise ValueError("stripes must be at least 1")
        self._all = _Gate()
        self._keys = [_Gate() for _ in range(stripes)]

    @contextlib.asynccontextmanager
    async def passing(self, key: str, level: int) -> AsyncIterator[None]:
        """Hold the gates a write of ``key`` needs at ``level`` while it runs."""
        if level >= self.ALL:
            async with self._all.exclusive():
                yield
            return
        gate = self._keys[stripe_of((key,), len(self._keys))]
        own = gate.exclusive() if level == self.KEY else gate.shared()
        async with self._all.shared(), own:
            yield
