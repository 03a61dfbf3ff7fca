"""The administration the ``Brain`` facade offers (``brain.admin``): tenants, API keys and
authentication, the analyst's read-only Cypher, and what ``brain doctor`` checks (migrations,
each tenant's memories against its vectors). The API allows the key and tenant operations to
admin keys only."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from api.auth import Principal, authenticate, create_key, list_keys, revoke_key
from graph.analyst import run_read_only
from graph.store import GraphStore
from vectors.vector_index import VectorIndex


class Administration:
    """Cross-tenant operations over the graph and the vector index."""

    def __init__(self, graph: GraphStore, index: VectorIndex) -> None:
        self.graph = graph
        self.index = index

    async def tenants(self) -> list[str]:
        return await self.graph.system.tenants()

    async def read_only_cypher(
        self, tenant_id: str, text: str, params: dict[str, Any] | None = None
    ) -> list[dict[str, Any]]:
        """Rows of an analyst's read-only query with ``$tenant`` bound (see ``graph.analyst``)."""
        return await run_read_only(self.graph, tenant_id, text, params)

    async def create_api_key(
        self, tenant: str, name: str | None = None, admin: bool = False
    ) -> tuple[str, str]:
        """A new key for ``tenant``: (key id, key); the key is shown once, never stored."""
        return await create_key(self.graph, tenant, name, admin)

    async def revoke_api_key(self, key_id: str) -> None:
        await revoke_key(self.graph, key_id)

    async def api_keys(self) -> list[dict[str, Any]]:
        """Every key record (never a key), oldest first."""
        return await list_keys(self.graph)

    async def authenticate(self, authorization: str | None) -> Principal:
        """The caller an ``Authorization: Bearer <key>`` header names; Forbidden otherwise."""
        return await authenticate(self.graph, authorization)

    async def applied_migrations(self, names: Sequence[str]) -> list[str]:
        """Which of the graph migrations ``names`` the database has applied, in order."""
        return [name for name in names if await self.graph.system.migration_applied(name)]

    async def memory_counts(self, tenant_id: str) -> tuple[int, int]:
        """(total, unindexed) memories of the tenant in the graph."""
        return await self.graph.tenant(tenant_id).memory_counts()

    async def vector_count(self, tenant_id: str) -> int:
        """The tenant's points in the vector index (one per indexed memory)."""
        return await self.index.count(tenant_id)
