"""Reads' entity cache: the entities a read resolves against, kept until the tenant writes.

A read that names "Peter" among 500 Peters weighs every one of them (``reading.py``), and
reading 500 entities over Bolt was most of such a resolve. Between two writes of a tenant the
entities cannot have changed in this process, so reads keep what they read, tagged with the
tenant's write count (``GraphStore.writes_of``); any write of the tenant (a turn, a merge, a
re-profile, an erase) makes the tag stale and the next read goes to the graph again. Writes
never use the cache (the write path decides identity on what the graph holds), and entries
also expire after ``ttl`` seconds, the bound on staleness when another process writes the
same graph (several API replicas on one Neo4j). Profile embeddings are not kept.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Iterable

from core.types import Entity


class _Tenant:
    __slots__ = ("entities", "loaded_at", "writes")

    def __init__(self, writes: int) -> None:
        self.writes = writes
        self.loaded_at = time.monotonic()
        self.entities: dict[str, Entity] = {}


class EntityCache:
    """Entities (without profile embeddings) of recently read tenants."""

    def __init__(self, ttl: float, max_tenants: int = 256, max_entities: int = 20_000) -> None:
        self._ttl = ttl
        self._max_tenants = max_tenants
        self._max_entities = max_entities
        self._tenants: OrderedDict[str, _Tenant] = OrderedDict()

    def get(self, tenant_id: str, writes: int, ids: Iterable[str]) -> dict[str, Entity]:
        """The cached entities among ``ids``, if the tenant has not written since."""
        found = self._valid(tenant_id, writes)
        if found is None:
            return {}
        return {i: found.entities[i] for i in ids if i in found.entities}

    def put(self, tenant_id: str, writes: int, entities: Iterable[Entity]) -> None:
        """Keep entities read when the tenant's write count was ``writes`` (taken before the
        read: a write that overlapped it has moved the count, and nothing is kept)."""
        if self._ttl <= 0:
            return
        found = self._valid(tenant_id, writes)
        if found is None:
            found = self._tenants[tenant_id] = _Tenant(writes)
        self._tenants.move_to_end(tenant_id)
        for e in entities:
            if len(found.entities) >= self._max_entities:
                break
            found.entities[e.id] = e.model_copy(update={"profile_embedding": None})
        while len(self._tenants) > self._max_tenants:
            self._tenants.popitem(last=False)

    def _valid(self, tenant_id: str, writes: int) -> _Tenant | None:
        found = self._tenants.get(tenant_id)
        if found is None:
            return None
        if found.writes != writes or time.monotonic() - found.loaded_at > self._ttl:
            del self._tenants[tenant_id]
            return None
        return found
