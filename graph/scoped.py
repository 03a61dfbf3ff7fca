"""The base the tenant operation groups share: run named statements for one tenant."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Rows = list[dict[str, Any]]
# Called with each statement's name and rows inside a ``write_many`` transaction; raising
# rolls the whole transaction back (and the error reaches the caller as it is).
Check = Callable[[str, Rows], None]


class Scoped:
    """Implemented by ``TenantGraph``; the operation mixins only call these."""

    tenant_id: str

    async def read(self, name: str, **params: Any) -> Rows:
        raise NotImplementedError

    async def write(self, name: str, **params: Any) -> Rows:
        raise NotImplementedError

    async def write_many(
        self, steps: list[tuple[str, dict[str, Any]]], check: Check | None = None
    ) -> list[Rows]:
        raise NotImplementedError
