"""TenantGraph: every graph operation on one tenant's data.

Built by ``GraphStore.tenant``; each statement it runs is a named file under ``cypher/`` and
receives ``$tenant`` from here, never from the caller. Another tenant's ids simply match
nothing, so they surface as ``NotFound``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from graph.core_ops import CoreOps
from graph.cypher import statement
from graph.entities import EntityOps
from graph.erase_ops import EraseOps
from graph.identity_ops import IdentityOps
from graph.ingest_ops import IngestOps
from graph.lifecycle_ops import LifecycleOps
from graph.listing import ListingOps
from graph.memories import MemoryOps
from graph.resolution_ops import ResolutionOps
from graph.retrieval_ops import RetrievalOps
from graph.runner import Rows, StatementRunner
from graph.scoped import Check
from graph.transfer import TransferOps
from graph.viz_ops import VizOps

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Iterable, Sequence

    from neo4j import AsyncManagedTransaction


T = TypeVar("T")

# Write statements that never change an existing entity's name, type, aliases, parent, merge
# or flags (they may create entities, or link memories and entities): a transaction of only
# these leaves the entities that turns and reads resolve against as they were
# (``resolution/entity_cache.py``; a new entity is simply not cached yet). Any other write
# counts as changing them, so a statement missing here costs a cache miss, never a stale read.
ENTITY_NEUTRAL = frozenset(
    {
        "tenant_ensure",
        "ingest_turn_session",
        "ingest_supersede_batch",
        "ingest_conflict_create",
        "ingest_task_dedupe",
        "ingest_task_mention",
        "ingest_job_create",
        "ingest_job_update",
        "ingest_job_delete",
        # A search's access counts, flushed every few seconds: it used to make every turn
        # after a search read the tenant's entities again.
        "retrieval_record_access",
        "memory_create",
        "memory_supersede",
        "memory_mark_indexed",
        "memory_set_pinned",
        "core_dismiss",
        "identity_decisions_save",
        "identity_create",
        "entity_create",
        "entity_create_once",
        # These two change an entity, and their writers replace it in the entity cache
        # themselves (``resolution/profiles.py``, ``resolution/linking.py``): a profile job
        # runs after most turns, and a new relation comes with many.
        "resolution_profile_update",
        "entity_relate_once",
    }
)


class TenantGraph(
    MemoryOps,
    IdentityOps,
    EntityOps,
    ListingOps,
    TransferOps,
    IngestOps,
    RetrievalOps,
    ResolutionOps,
    LifecycleOps,
    CoreOps,
    EraseOps,
    VizOps,
):
    """Graph operations scoped to ``tenant_id``."""

    def __init__(self, store: StatementRunner, tenant_id: str) -> None:
        if not tenant_id or not isinstance(tenant_id, str):
            raise ValueError("a tenant id is required")
        self._store = store
        self.tenant_id = tenant_id

    async def read(self, name: str, **params: Any) -> Rows:
        text = statement(name)
        params["tenant"] = self.tenant_id
        run = self._store._run
        return await self._store._execute_read(lambda tx: run(tx, text, params, name))

    async def write(self, name: str, **params: Any) -> Rows:
        text = statement(name)
        params["tenant"] = self.tenant_id
        run = self._store._run
        return await self._written(lambda tx: run(tx, text, params, name), (name,))

    async def write_many(
        self, steps: Sequence[tuple[str, dict[str, Any]]], check: Check | None = None
    ) -> list[Rows]:
        """Run several named statements in one transaction (all or nothing). ``check`` sees
        each statement's rows as they come; raising there rolls everything back."""
        texts = [
            (name, statement(name), {**params, "tenant": self.tenant_id}) for name, params in steps
        ]

        async def work(tx: AsyncManagedTransaction) -> list[Rows]:
            results = []
            for name, text, params in texts:
                rows = await self._store._run(tx, text, params, name)
                if check is not None:
                    check(name, rows)
                results.append(rows)
            return results

        return await self._written(work, [name for name, _ in steps])

    async def _written(
        self, work: Callable[[AsyncManagedTransaction], Awaitable[T]], names: Iterable[str]
    ) -> T:
        """Run a write transaction of this tenant; one that may change its entities (a
        statement not in ``ENTITY_NEUTRAL``) is counted as it begins and as it ends
        (``GraphStore.entity_writes_of``: entity caches go stale on either)."""
        if ENTITY_NEUTRAL.issuperset(names):
            return await self._store._execute_write(work, self.tenant_id)
        self._store.entity_wrote(self.tenant_id)
        try:
            return await self._store._execute_write(work, self.tenant_id)
        finally:
            self._store.entity_wrote(self.tenant_id)
