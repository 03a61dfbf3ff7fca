"""Per-request GraphQL context: the facade, the caller's principal, per-request DataLoaders."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

from strawberry.dataloader import DataLoader

from api.auth import Principal
from api.brain import Brain
from core.errors import BrainError, Forbidden
from core.types import Memory


@dataclass
class Context:
    brain: Brain
    principal: Principal | None
    auth_error: BrainError | None = None
    request_id: str = field(default_factory=lambda: uuid.uuid4().hex[:16])
    memory_loader: DataLoader[str, Memory | None] = field(init=False)

    def __post_init__(self) -> None:
        self.memory_loader = DataLoader(load_fn=self._load_memories)

    @property
    def tenant(self) -> str:
        """The caller's tenant; raises Forbidden when the request has no valid key."""
        if self.principal is None:
            raise self.auth_error or Forbidden("missing API key")
        return self.principal.tenant_id

    async def _load_memories(self, ids: list[str]) -> list[Memory | None]:
        found = await self.brain.memories(self.tenant, ids)
        return [found.get(i) for i in ids]
