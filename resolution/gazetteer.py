"""Per-tenant name cache: the tenant's known names and aliases as an EntityRuler and an index.

Loaded from the graph in one query (``alias_index``), then extended in place when the resolver
creates entities or records aliases, so parsing a turn never runs Cypher per token. Each tenant
has its own ruler: one tenant's names never tag another tenant's text. The cache is bounded
(least recently used tenants are dropped) and entries are reloaded in the background after
``ttl`` seconds to pick up entities created elsewhere (another process on the same graph);
this process's merges, erasures and imports drop the tenant's entry (``invalidate``).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from core.text import normalize_name
from core.types import EntityType

if TYPE_CHECKING:
    from graph.store import GraphStore

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class KnownName:
    text: str
    entity_id: str
    type: EntityType


class Gazetteer:
    """One tenant's names: exact normalized aliases, a first-token index and a ruler."""

    def __init__(self, nlp: Any) -> None:
        from spacy.pipeline import EntityRuler

        self.loaded_at = time.monotonic()
        self.lock = threading.Lock()  # the ruler is used and extended from worker threads
        self.by_norm: dict[str, set[str]] = {}
        self.by_token: dict[str, set[str]] = {}
        self.types: dict[str, EntityType] = {}
        # The ruler matches lowercased tokens, so its patterns need only the tokenizer: over
        # the full model, adding a pattern parsed it (2 ms a name, 165 ms for 300), and the
        # ruler switched the shared model's NER off meanwhile, under a parse in another thread.
        self.ruler = EntityRuler(
            _tokenizer_of(nlp), phrase_matcher_attr="LOWER", overwrite_ents=True
        )

    def add(self, names: Iterable[KnownName]) -> None:
        """Add names (idempotent); call from a worker thread (the ruler tokenizes patterns)."""
        patterns: list[dict[str, Any]] = []
        with self.lock:
            for n in names:
                norm = normalize_name(n.text)
                if not norm:
                    continue
                self.types[n.entity_id] = n.type
                ids = self.by_norm.setdefault(norm, set())
                if n.entity_id in ids:
                    continue
                ids.add(n.entity_id)
                self.by_token.setdefault(norm.split()[0], set()).add(n.entity_id)
                patterns.append({"label": n.type.value, "pattern": n.text, "id": n.entity_id})
            if patterns:
                self.ruler.add_patterns(patterns)

    def exact(self, text: str) -> set[str]:
        return set(self.by_norm.get(normalize_name(text), ()))

    def first_token(self, text: str) -> set[str]:
        """Entities with an alias starting with the single-word ``text`` ("Peter" → Peter Chen)."""
        norm = normalize_name(text)
        if not norm or " " in norm:
            return set()
        return set(self.by_token.get(norm, ()))

    def similar(self, text: str, cutoff: float) -> set[str]:
        """Entities with an alias spelled nearly like ``text``: same number of words, each
        word close ("Peter Novk" → Peter Novak, never Peter Okafor). Bounded by first letter."""
        from difflib import SequenceMatcher

        norm = normalize_name(text)
        if len(norm) < 4:
            return set()
        words = norm.split()
        out: set[str] = set()
        for key in self.by_norm:
            if key[:1] != norm[:1] or abs(len(key) - len(norm)) > 3:
                continue
            other = key.split()
            if len(other) != len(words) or SequenceMatcher(None, norm, key).ratio() < cutoff:
                continue
            if all(
                SequenceMatcher(None, a, b).ratio() >= 0.75
                for a, b in zip(words, other, strict=True)
            ):
                out |= self.by_norm[key]
        return out


@functools.lru_cache(maxsize=4)
def _tokenizer_of(nlp: Any) -> Any:
    """A pipeline of ``nlp``'s language with no components, sharing its vocabulary."""
    import spacy

    return spacy.blank(nlp.lang, vocab=nlp.vocab)


class GazetteerCache:
    """Gazetteers of recently used tenants, loaded from the graph on first use."""

    def __init__(self, graph: GraphStore, max_tenants: int = 256, ttl: float = 300.0) -> None:
        self._graph = graph
        self._max = max_tenants
        self._ttl = ttl
        self._items: OrderedDict[str, Gazetteer] = OrderedDict()
        self._locks: dict[str, asyncio.Lock] = {}
        self._reloading: dict[str, list[KnownName]] = {}  # tenant → names added meanwhile
        self._tasks: set[asyncio.Task[None]] = set()
        self._adding: dict[str, asyncio.Task[None]] = {}  # tenant → its latest ``extend_soon``

    async def get(self, tenant_id: str, nlp: Any) -> Gazetteer:
        """The tenant's gazetteer. One past ``ttl`` is still returned while a background load
        replaces it (a request never waits for a reload because time passed); one past twice
        ``ttl`` (the reload failed) and a missing one are loaded before returning."""
        adding = self._adding.get(tenant_id)
        if adding is not None:  # names a committed write added: this text may use them
            await asyncio.shield(adding)
        found = self._items.get(tenant_id)
        if found is not None:
            age = time.monotonic() - found.loaded_at
            if age < 2 * self._ttl:
                self._items.move_to_end(tenant_id)
                if age >= self._ttl:
                    self._reload_later(tenant_id, nlp, found)
                return found
        lock = self._locks.setdefault(tenant_id, asyncio.Lock())
        async with lock:
            found = self._items.get(tenant_id)
            if found is not None and time.monotonic() - found.loaded_at < 2 * self._ttl:
                return found
            gazetteer = await self._load(tenant_id, nlp)
            self._keep(tenant_id, gazetteer)
            return gazetteer

    async def _load(self, tenant_id: str, nlp: Any) -> Gazetteer:
        rows = await self._graph.tenant(tenant_id).alias_index()
        names = [KnownName(r["text"], r["entity_id"], EntityType(r["type"])) for r in rows]
        return await asyncio.to_thread(self._build, nlp, names)

    def _keep(self, tenant_id: str, gazetteer: Gazetteer) -> None:
        self._items[tenant_id] = gazetteer
        self._items.move_to_end(tenant_id)
        while len(self._items) > self._max:
            evicted, _ = self._items.popitem(last=False)
            self._locks.pop(evicted, None)

    def _reload_later(self, tenant_id: str, nlp: Any, stale: Gazetteer) -> None:
        if tenant_id in self._reloading:
            return
        self._reloading[tenant_id] = []  # names ``extend`` adds meanwhile
        task = asyncio.ensure_future(self._reload(tenant_id, nlp, stale))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _reload(self, tenant_id: str, nlp: Any, stale: Gazetteer) -> None:
        try:
            fresh = await self._load(tenant_id, nlp)
            pending = self._reloading[tenant_id]
            done = 0
            while done < len(pending):  # names added while the load ran are in it too
                extra = pending[done:]
                await asyncio.to_thread(fresh.add, extra)
                done += len(extra)
            if self._items.get(tenant_id) is stale:  # not invalidated or replaced meanwhile
                self._keep(tenant_id, fresh)
        except Exception:  # the stale one serves until twice the ttl, then a load retries
            log.warning("reloading a tenant's names failed", exc_info=True)
        finally:
            self._reloading.pop(tenant_id, None)

    async def close(self) -> None:
        """Stop background reloads."""
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    @staticmethod
    def _build(nlp: Any, names: list[KnownName]) -> Gazetteer:
        gazetteer = Gazetteer(nlp)
        gazetteer.add(names)
        return gazetteer

    async def extend(self, tenant_id: str, names: Iterable[KnownName]) -> None:
        """Add names to a cached tenant (no-op when not cached: the next load has them)."""
        found = self._items.get(tenant_id)
        if found is not None:
            added = list(names)
            if tenant_id in self._reloading:  # the reload's read may predate them
                self._reloading[tenant_id].extend(added)
            await asyncio.to_thread(found.add, added)

    def extend_soon(self, tenant_id: str, names: Iterable[KnownName]) -> None:
        """``extend`` off the caller's path (the ruler takes milliseconds to extend): the
        tenant's next ``get`` waits for it, so no later text misses the names."""
        added = list(names)
        if not added or tenant_id not in self._items:
            return
        before = self._adding.get(tenant_id)

        async def add() -> None:
            if before is not None:
                await asyncio.shield(before)
            try:
                await self.extend(tenant_id, added)
            except Exception:  # the next load has them: the graph has the entities
                log.warning("adding names to a tenant's gazetteer failed", exc_info=True)
                self.invalidate(tenant_id)

        task = asyncio.ensure_future(add())
        self._adding[tenant_id] = task
        self._tasks.add(task)

        def done(t: asyncio.Task[None]) -> None:
            self._tasks.discard(t)
            if self._adding.get(tenant_id) is t:
                del self._adding[tenant_id]

        task.add_done_callback(done)

    def invalidate(self, tenant_id: str | None = None) -> None:
        """Forget one tenant's names (or all): after merges, erasures or imports."""
        if tenant_id is None:
            self._items.clear()
        else:
            self._items.pop(tenant_id, None)
