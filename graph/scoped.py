"""The base the tenant operation groups share: run named statements for one tenant."""

from __future__ import annotations

from typing import Any

Rows = list[dict[str, Any]]


class Scoped:
    """Implemented by ``TenantGraph``; the operation mixins only call these."""

    tenant_id: str

    async def read(self, name: str, **params: Any) -> Rows:
        raise NotImplementedError

    async def write(self, name: str, **params: Any) -> Rows:
        raise NotImplementedError

    async def write_many(self, steps: list[tuple[str, dict[str, Any]]]) -> list[Rows]:
        raise NotImplementedError
