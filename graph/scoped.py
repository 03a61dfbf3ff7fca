"""The base the tenant operation groups share: run named statements for one tenant."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from graph.runner import Rows

# Called with each statement's name and rows inside a ``write_many`` transaction; raising
# rolls the whole transaction back (and the error reaches the caller as it is).
Check = Callable[[str, Rows], None]


class Step(NamedTuple):
    """One named statement of a ``write_many`` transaction, with its parameters."""

    name: str
    params: dict[str, Any]


class Scoped:
    """Implemented by ``TenantGraph``; the operation mixins only call these."""

    tenant_id: str

    async def read(self, name: str, **params: Any) -> Rows:
        raise NotImplementedError

    async def write(self, name: str, **params: Any) -> Rows:
        raise NotImplementedError

    async def write_many(
        self, steps: Sequence[tuple[str, dict[str, Any]]], check: Check | None = None
    ) -> list[Rows]:
        raise NotImplementedError
