"""The entity cache: the entities turns and reads resolve against, kept until they change.

A turn or a read that names "Peter" among many Peters weighs every one of them
(``reading.py``, ``identity.py``), and reading them over Bolt, profile embeddings included,
was the most expensive statement of a turn. Between two writes of a tenant that may change
its entities, the entities cannot have changed in this process, so what was read is kept,
tagged with the tenant's entity write count (``GraphStore.entity_writes_of``): a write that
creates, merges, renames or erases an entity makes the tag stale and the next resolve goes
to the graph again, while a turn that only stores memories about entities
(``ENTITY_NEUTRAL`` in ``graph/tenant.py``; a new entity is simply not cached yet) leaves it
valid, and the writers of a new profile or a new parent replace the entities they changed
(``ProfileBuilder``, ``linking.py``). Entries are renewed after ``ttl`` seconds: the bound on
staleness when another process writes the same graph (several API replicas on one Neo4j; the
embedded engine has one process). An entry past ``ttl`` is still served while one background
read renews it (``CacheRenewal``, over ``due`` and ``renew``), so no request pays for reading
a crowd of namesakes again because time passed; one past twice ``ttl`` (the renewal failed or
never ran) is dropped.

Profile embeddings are kept as arrays (3 KB each instead of ~12 KB of Python floats; the
same values), at most ``max_profiles`` over all tenants; an entity whose embedding was not
kept is read again when context has to weigh it.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from core.types import Entity
from graph.store import GraphStore

log = logging.getLogger(__name__)


class _Tenant:
    __slots__ = (
        "entities",
        "loaded_at",
        "profiles",
        "relations",
        "renewing",
        "replaced",
        "writes",
    )

    def __init__(self, writes: int) -> None:
        self.writes = writes
        self.loaded_at = time.monotonic()
        self.renewing = False  # a background read is renewing the entry (``due``)
        self.entities: dict[str, Entity] = {}  # without their profile embedding
        # Entities read with their profile embedding: the embedding, or None (it has none).
        self.profiles: dict[str, np.ndarray | None] = {}
        self.replaced: dict[str, int] = {}  # id -> the ``EntityCache.seq`` of its replacement
        # Relations known to exist: (source id, target id, relation), read or written here.
        self.relations: set[tuple[str, str, str]] = set()


class EntityCache:
    """Entities of recently resolved tenants, their profile embeddings when read."""

    def __init__(
        self,
        ttl: float,
        max_tenants: int = 256,
        max_entities: int = 20_000,
        max_profiles: int = 20_000,
    ) -> None:
        self._ttl = ttl
        self._max_tenants = max_tenants
        self._max_entities = max_entities
        self._max_profiles = max_profiles
        self._profiles = 0  # embeddings kept over all tenants
        self._tenants: OrderedDict[str, _Tenant] = OrderedDict()
        self.seq = 0  # replacements made; a resolve notes it before reading (``put``)

    def get(
        self, tenant_id: str, writes: int, ids: Iterable[str], profiled: Iterable[str] = ()
    ) -> dict[str, Entity]:
        """The cached entities among ``ids`` if the tenant's entities have not changed since;
        those in ``profiled`` only with their profile embedding (left out when it was not
        kept, so the caller reads them)."""
        found = self._valid(tenant_id, writes)
        if found is None:
            return {}
        need = set(profiled)
        out: dict[str, Entity] = {}
        for i in ids:
            entity = found.entities.get(i)
            if entity is None:
                continue
            if i in need:
                if i not in found.profiles:
                    continue  # read without it, or not kept: the caller reads it
                vector = found.profiles[i]
                if vector is not None:
                    entity = entity.model_copy(update={"profile_embedding": tuple(vector.tolist())})
            out[i] = entity
        return out

    def put(
        self,
        tenant_id: str,
        writes: int,
        entities: Iterable[Entity],
        profiled: Iterable[str] = (),
        since: int | None = None,
    ) -> None:
        """Keep entities read when the tenant's entity write count was ``writes`` (taken
        before the read: a write that overlapped it has moved the count, and nothing is
        kept); ``profiled`` are those read with their profile embedding. ``since``: the
        ``seq`` noted before the read; an entity replaced after it (``replace``) is newer
        here than what the read found, and is kept as it is."""
        if self._ttl <= 0:
            return
        found = self._valid(tenant_id, writes)
        if found is None:
            found = self._tenants[tenant_id] = _Tenant(writes)
        self._tenants.move_to_end(tenant_id)
        with_profile = set(profiled)
        for e in entities:
            if since is not None and found.replaced.get(e.id, -1) > since:
                continue
            if e.id not in found.entities and len(found.entities) >= self._max_entities:
                break
            found.entities[e.id] = e.model_copy(update={"profile_embedding": None})
            if e.id not in with_profile:
                continue
            if e.id not in found.profiles:
                if self._profiles >= self._max_profiles:
                    continue
                self._profiles += 1
            vector = e.profile_embedding
            found.profiles[e.id] = None if not vector else np.asarray(vector, dtype=np.float64)
        while len(self._tenants) > self._max_tenants:
            _, dropped = self._tenants.popitem(last=False)
            self._profiles -= len(dropped.profiles)

    def related(self, tenant_id: str, writes: int, relation: tuple[str, str, str]) -> bool:
        """Is this relation (source id, target id, relation) known to exist: read or written
        by this process since the tenant's entities last changed, within the ttl?"""
        found = self._valid(tenant_id, writes)
        return found is not None and relation in found.relations

    def note_relations(
        self, tenant_id: str, writes: int, relations: Iterable[tuple[str, str, str]]
    ) -> None:
        """Relations found in the graph (or written) when the tenant's entity write count was
        ``writes`` (taken before the read): a turn stating one again reads nothing. Only an
        entity write removes a relation, and it makes the tenant's entry stale."""
        if self._ttl <= 0:
            return
        found = self._valid(tenant_id, writes)
        if found is None:
            found = self._tenants[tenant_id] = _Tenant(writes)
        for relation in relations:
            if len(found.relations) >= self._max_entities:
                break
            found.relations.add(relation)

    def replace(self, tenant_id: str, writes: int, entities: Iterable[Entity]) -> None:
        """Entities just changed by a write that does not count as an entity write (a new
        profile, a parent set by a new relation), as the write left them, embeddings
        included: replace the kept ones if the tenant's entry is valid. A resolve that read
        one of them before the write cannot put its older copy back (``put``'s ``since``)."""
        found = self._valid(tenant_id, writes)
        if found is None:
            return
        self.seq += 1
        fresh = [e for e in entities if e.id in found.entities]
        for e in fresh:
            found.replaced[e.id] = self.seq
        self.put(tenant_id, writes, fresh, [e.id for e in fresh])

    def due(self, tenant_id: str, writes: int) -> tuple[list[str], list[str]] | None:
        """The ids to read again (all kept, and those kept with their profile embedding) when
        the tenant's entry is past ``ttl`` and no renewal is under way; the caller reads them
        off the request path and hands them to ``renew`` (or calls ``renewed`` on failure)."""
        found = self._valid(tenant_id, writes)
        if found is None or found.renewing or time.monotonic() - found.loaded_at <= self._ttl:
            return None
        found.renewing = True
        return list(found.entities), list(found.profiles)

    def changed_profiles(
        self, tenant_id: str, writes: int, heads: Mapping[str, Sequence[float] | None]
    ) -> list[str]:
        """Of the kept profile embeddings, the ids whose current one (its first numbers,
        ``heads``) differs, or that are not kept: a renewal reads only those in full."""
        found = self._valid(tenant_id, writes)
        changed = []
        for i, head in heads.items():
            if found is None or i not in found.profiles:
                changed.append(i)
                continue
            kept = found.profiles[i]
            if kept is None or not head:
                if kept is not None or head:
                    changed.append(i)
            elif kept[: len(head)].tolist() != list(head):
                changed.append(i)
        return changed

    def renew(
        self,
        tenant_id: str,
        writes: int,
        entities: Iterable[Entity],
        profiled: Iterable[str],
        since: int,
        carried: Iterable[str] = (),
    ) -> None:
        """Replace the tenant's entry by what a renewal read (``due``) found when the entity
        write count was ``writes``; ``since``: the ``seq`` noted before that read. Entities
        the read did not find (erased elsewhere) are gone; ones replaced after ``since`` keep
        their newer copy; ``carried`` (among ``profiled``) keep the profile embedding already
        kept, found unchanged (``changed_profiles``), the others take the read one."""
        old = self._valid(tenant_id, writes)
        if old is None:
            return  # changed meanwhile: the next resolve reads what it needs
        newer = {i for i, seq in old.replaced.items() if seq > since}
        keep = (set(carried) & set(old.profiles)) | (newer & set(old.profiles))
        del self._tenants[tenant_id]
        self._profiles -= len(old.profiles)
        self.put(tenant_id, writes, entities, [i for i in profiled if i not in keep])
        fresh = self._tenants.get(tenant_id)
        if fresh is None:
            return
        for i in newer & set(old.entities):
            fresh.entities[i] = old.entities[i]
            fresh.replaced[i] = old.replaced[i]
        for i in keep:
            if i in fresh.entities and i not in fresh.profiles:
                if self._profiles >= self._max_profiles:
                    continue
                self._profiles += 1
                fresh.profiles[i] = old.profiles[i]

    def renewed(self, tenant_id: str) -> None:
        """A renewal read failed: the next ``due`` may try again."""
        found = self._tenants.get(tenant_id)
        if found is not None:
            found.renewing = False

    def _valid(self, tenant_id: str, writes: int) -> _Tenant | None:
        found = self._tenants.get(tenant_id)
        if found is None:
            return None
        if found.writes != writes or time.monotonic() - found.loaded_at > 2 * self._ttl:
            del self._tenants[tenant_id]
            self._profiles -= len(found.profiles)
            return None
        return found


class CacheRenewal:
    """Reads a tenant's kept entities again in the background once they are past the cache's
    ``ttl`` (``EntityCache.due``); requests keep using the kept ones meanwhile."""

    def __init__(self, graph: GraphStore, cache: EntityCache) -> None:
        self._graph = graph
        self._cache = cache
        self._tasks: set[asyncio.Task[None]] = set()

    def start(self, tenant_id: str, writes: int) -> None:
        """Start a renewal if the tenant's entry is due (a no-op otherwise)."""
        due = self._cache.due(tenant_id, writes)
        if due is None:
            return
        task = asyncio.ensure_future(self._renew(tenant_id, writes, *due))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _renew(
        self, tenant_id: str, writes: int, ids: list[str], profiled: list[str]
    ) -> None:
        cache = self._cache
        since = cache.seq
        tenant = self._graph.tenant(tenant_id)
        try:
            # The entities without their vectors, then in full only those whose profile
            # embedding changed since it was kept: a few rows, not hundreds of vectors.
            found = await tenant.renewal_entities(ids, profiled)
            heads = {i: found[i][1] for i in profiled if i in found}
            changed = cache.changed_profiles(tenant_id, writes, heads)
            full = await tenant.resolution_entities(changed, changed) if changed else {}
        except Exception:  # the kept entries age out at twice the ttl; a later resolve retries
            log.warning("renewing the entity cache of a tenant failed", exc_info=True)
            cache.renewed(tenant_id)
            return
        if self._graph.entity_writes_of(tenant_id) != writes:
            cache.renewed(tenant_id)
            return
        entities = [full.get(i, entity) for i, (entity, _) in found.items()]
        carried = [i for i in heads if i not in changed]
        cache.renew(tenant_id, writes, entities, profiled, since, carried)
