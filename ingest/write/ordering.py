"""Ingest writes of one statement take turns, in two stages.

Writes of this process that change the same statement (a fact's subject and predicate, a
task, a document path) must not plan at once: each plans against the one before it, so a
correction supersedes the current value and one chain keeps one current value. A write holds
the statement's lock from its first read of what it changes until its graph transaction has
committed: the next one plans against the graph, which has it then.

The vector side of a write (``ingest/write/persist.py``: ``Indexing``) need not hold up the
next write's planning, only the next write's own vector side: a write that supersedes the
memory another made merges ``superseded_at`` into its point, which must not happen before
that point is upserted. So ``Held.handover`` takes the statements' second lock, the one the
vector sides take turns on, and only then lets the planning lock go: writes of one statement
plan, commit and index in the order they took the lock, and the next one plans while this
one indexes. Under 16 writers on one tenant the vector side was a quarter of the time a hot
statement's lock was held (docs/BENCHMARKS.md, issue 43).

    async with statements.holding(keys) as held:
        ...  # read, plan
        indexing = await commit(writer, tenant_id, ws, at)
        await held.handover()
        await indexing.run()
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterable

from core.locks import StripedLocks


class Held:
    """The statements' locks a writer holds: the planning ones until ``handover``, the vector
    side's ones after it (until the ``holding`` block ends)."""

    def __init__(
        self,
        shows: StripedLocks,
        keys: list[tuple[str, ...]],
        planning: contextlib.AsyncExitStack,
        stack: contextlib.AsyncExitStack,
    ) -> None:
        self._shows = shows
        self._keys = keys
        self._planning = planning
        self._stack = stack
        self.handed_over = False

    async def handover(self) -> None:
        """Wait for the vector side of the write before this one on these statements, and
        let the next write plan (call once the graph has committed this one)."""
        if self.handed_over:
            raise RuntimeError("handover is called once")
        await self._stack.enter_async_context(self._shows.holding(self._keys))
        self.handed_over = True
        await self._planning.aclose()


class StatementLocks:
    """Per statement (a tuple of strings), a planning lock and a vector-side lock, striped."""

    def __init__(self, stripes: int = 256) -> None:
        self._plans = StripedLocks(stripes)
        self._shows = StripedLocks(stripes)

    def of(self, *key: str) -> asyncio.Lock:
        """The planning lock of one statement, for a writer that indexes while holding it
        (it never hands over, so nothing of the same statement indexes meanwhile)."""
        return self._plans.of(*key)

    @contextlib.asynccontextmanager
    async def holding(self, keys: Iterable[tuple[str, ...]]) -> AsyncIterator[Held]:
        """Hold the planning locks of ``keys`` (none for no keys) until ``Held.handover`` or
        the end of the block, and the vector side's after ``handover`` until the end."""
        keys = list(keys)
        async with contextlib.AsyncExitStack() as stack:
            planning = contextlib.AsyncExitStack()
            await planning.enter_async_context(self._plans.holding(keys))
            try:
                yield Held(self._shows, keys, planning, stack)
            finally:
                await planning.aclose()  # a no-op after handover
