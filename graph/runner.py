"""What the tenant and system views need from the store: run a statement, in a read or a
write transaction.

``GraphStore`` (``graph/store.py``) builds ``TenantGraph`` (``graph/tenant.py``) and
``SystemGraph`` (``graph/system_ops.py``) and hands itself to them; they see it only through
``StatementRunner``, so the imports go one way: the store imports the views, the views import
this module. The methods keep the store's names: they are ``graph/``'s own, never called from
above it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol, TypeVar

from neo4j import AsyncManagedTransaction, AsyncSession

T = TypeVar("T")
Rows = list[dict[str, Any]]
Runner = AsyncManagedTransaction | AsyncSession  # a transaction, or a session (auto-commit)


class StatementRunner(Protocol):
    """The part of ``GraphStore`` the views call."""

    async def _run(self, tx: Runner, text: str, params: dict[str, Any], name: str = "ddl") -> Rows:
        """Send one statement in ``tx`` and return its rows, translated from the graph."""
        ...

    async def _execute_read(self, work: Callable[[Runner], Awaitable[T]]) -> T:
        """Run ``work`` as a read, retried when a retry can fix it."""
        ...

    async def _execute_write(
        self, work: Callable[[AsyncManagedTransaction], Awaitable[T]], key: str = ""
    ) -> T:
        """Run ``work`` in a write transaction, retried after a conflict; ``key`` is the
        tenant whose retries take turns."""
        ...

    def entity_wrote(self, tenant_id: str) -> None:
        """Count the start or end of a write of ``tenant_id`` that may change its entities."""
        ...
