"""Payloads of the points an Edge shard returned, kept in memory by point id.

Reading a payload out of the shard costs more than finding the point: a 50-point search took
~0.4 ms without payloads and 0.65-1.1 ms with them, with the GIL held all the while, and a
search reads several such lists (semantic, keyword and entity paths, the scoring of their
union). A tenant's searches keep returning the same few thousand points, so a search asks the
shard for ids and scores only and takes the payloads from here, reading only those it lacks.

The cache is exact because this process is the shard's only writer (an Edge shard belongs to
one process): every write drops the ids it touched, or everything for a write by filter, and
moves the generation on; a read that started before a write does not store what it read, so
a payload read (in a worker thread) just before a write cannot outlive it. Its methods run on
the event loop's thread.

Whether a search asks the shard for payloads or takes them from here depends on how often the
cache has held what searches returned lately (``use``): asking for ids and then reading every
payload by id cost 0.95-1.09 ms per 50 points against 0.84-0.94 ms for a search that returns
them, so a tenant much larger than the cache (random searches over 250,000 memories) keeps
the plain search. The cache learns from what plain searches return until it is full; full,
it takes new entries only while searches use it.

The payloads are shared by every reader: nothing may change one. They hold only strings,
numbers and tuples (list values become tuples), so the garbage collector stops tracking them
at its next full collection: 50,000 cached payloads must not be walked by every full
collection (that is what ``gc.freeze`` saved ``brain serve`` from, see ``core/heap.py``).

Example::

    cache = PayloadCache(100_000)
    generation = cache.generation
    ...  # read payloads from the shard in a worker thread
    cache.store(generation, {"id-1": {"tenant_id": "t1", "type": "fact"}})
    cache.drop(["id-1"])  # after a write to id-1
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping
from typing import Any

USE_ABOVE = 0.5  # share of returned points found here above which searches skip payloads
_SMOOTHING = 0.2  # weight of the latest search in the moving share


class PayloadCache:
    """Payloads by point id, at most ``size`` of them (0 turns the cache off)."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._items: dict[str, Mapping[str, Any]] = {}
        self.generation = 0
        self.fetched = 0  # payloads read from the shard since start (how often it missed)
        self.hit_share = 0.0  # moving share of returned points that were here

    @property
    def use(self) -> bool:
        """Should the next search ask for ids only and take payloads from here?"""
        return self._size > 0 and self.hit_share > USE_ABOVE

    def seen(self, hits: int, returned: int) -> None:
        """A search returned ``returned`` points, ``hits`` of them held here."""
        if returned:
            self.hit_share += _SMOOTHING * (hits / returned - self.hit_share)

    def __len__(self) -> int:
        return len(self._items)

    def get(self, point_id: str) -> Mapping[str, Any] | None:
        return self._items.get(point_id)

    def store(
        self, generation: int, payloads: Mapping[str, Mapping[str, Any]]
    ) -> dict[str, Mapping[str, Any]]:
        """Keep ``payloads``, read when the generation was ``generation``, unless a write has
        happened since. Returns them as kept (list values as tuples), kept or not."""
        self.fetched += len(payloads)
        frozen: dict[str, Mapping[str, Any]] = {
            i: {k: tuple(v) if isinstance(v, list) else v for k, v in p.items()}
            for i, p in payloads.items()
        }
        if generation != self.generation or self._size <= 0:
            return frozen
        if len(self._items) >= self._size and not self.use:
            # Full, and searches find little here (a tenant much larger than the cache):
            # replacing entries would only churn memory and the garbage collector.
            return frozen
        self._items.update(frozen)
        overflow = len(self._items) - self._size
        if overflow > 0:  # the oldest entries go first
            for point_id in list(itertools.islice(self._items, overflow)):
                del self._items[point_id]
        return frozen

    def drop(self, point_ids: Iterable[str] | None) -> None:
        """Forget these points (None: all of them) after a write to the shard."""
        self.generation += 1
        if point_ids is None:
            self._items.clear()
            return
        for point_id in point_ids:
            self._items.pop(point_id, None)
