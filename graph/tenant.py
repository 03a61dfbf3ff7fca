"""TenantGraph: every graph operation on one tenant's data.

Built by ``GraphStore.tenant``; each statement it runs is a named file under ``cypher/`` and
receives ``$tenant`` from here, never from the caller. Another tenant's ids simply match
nothing, so they surface as ``NotFound``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

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
from graph.scoped import Check
from graph.transfer import TransferOps
from graph.viz_ops import VizOps

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from neo4j import AsyncManagedTransaction

    from graph.store import GraphStore, Rows


T = TypeVar("T")


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
    EraseOps,
    VizOps,
):
    """Graph operations scoped to ``tenant_id``."""

    def __init__(self, store: GraphStore, tenant_id: str) -> None:
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
        return await self._written(lambda tx: run(tx, text, params, name))

    async def write_many(
        self, steps: list[tuple[str, dict[str, Any]]], check: Check | None = None
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

        return await self._written(work)

    async def _written(self, work: Callable[[AsyncManagedTransaction], Awaitable[T]]) -> T:
        """Run a write transaction of this tenant, counted as it begins and as it ends
        (``GraphStore.writes_of``: caches of the tenant's graph go stale on either)."""
        self._store.wrote(self.tenant_id)
        try:
            return await self._store._execute_write(work)
        finally:
            self._store.wrote(self.tenant_id)
