"""Recent query vectors by text, shared by concurrent callers.

Both providers keep one: a search text is embedded once however many steps of a request (or
concurrent requests) ask for it.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Awaitable, Callable

QUERY_CACHE_SIZE = 2048  # query vectors kept per embedder (~1.6 KB each at 384-d)


class QueryCache:
    """Query vectors by text: the most recent ``size`` and the ones being computed.

    Concurrent requests for one text share one computation; a caller that is cancelled does
    not cancel it for the others. Failures are not cached.
    """

    def __init__(self, size: int = QUERY_CACHE_SIZE) -> None:
        self._size = size
        self._items: OrderedDict[str, list[float]] = OrderedDict()
        self._flight: dict[str, asyncio.Future[list[float]]] = {}

    async def get(self, text: str, compute: Callable[[str], Awaitable[list[float]]]) -> list[float]:
        hit = self._items.get(text)
        if hit is not None:
            self._items.move_to_end(text)
            return list(hit)
        flight = self._flight.get(text)
        if flight is None or flight.get_loop() is not asyncio.get_running_loop():
            flight = asyncio.ensure_future(compute(text))
            self._flight[text] = flight
            flight.add_done_callback(lambda f: self._settle(text, f))
        return list(await asyncio.shield(flight))

    def clear(self) -> None:
        """Forget the cached vectors (computations under way still finish for their callers)."""
        self._items.clear()

    def _settle(self, text: str, flight: asyncio.Future[list[float]]) -> None:
        if self._flight.get(text) is flight:
            del self._flight[text]
        if flight.cancelled() or flight.exception() is not None:
            return
        self._items[text] = flight.result()
        self._items.move_to_end(text)
        while len(self._items) > self._size:
            self._items.popitem(last=False)
