"""Per-request GraphQL context: the facade, the caller's principal, per-request DataLoaders."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

from strawberry.dataloader import DataLoader

from api.auth import Principal
from api.brain import Brain
from core.errors import BrainError, Forbidden
from core.types import Entity, Memory


@dataclass
class Context:
    brain: Brain
    principal: Principal | None
    auth_error: BrainError | None = None
    request_id: str = field(default_factory=lambda: uuid.uuid4().hex[:16])
    memory_loader: DataLoader[str, Memory | None] = field(init=False)
    entity_loader: DataLoader[str, Entity | None] = field(init=False)

    def __post_init__(self) -> None:
        # Per request: one batched graph query per level of the result, never one per item.
        self.memory_loader = DataLoader(load_fn=self._load_memories)
        self.entity_loader = DataLoader(load_fn=self._load_entities)

    @property
    def tenant(self) -> str:
        """The caller's tenant; raises Forbidden when the request has no valid key."""
        if self.principal is None:
            raise self.auth_error or Forbidden("missing API key")
        return self.principal.tenant_id

    @property
    def principal_name(self) -> str | None:
        """Who acts, for audit fields (the key id)."""
        return f"key:{self.principal.key_id}" if self.principal else None

    async def _load_memories(self, ids: list[str]) -> list[Memory | None]:
        found = await self.brain.memories.get_many(self.tenant, ids)
        return [found.get(i) for i in ids]

    async def _load_entities(self, ids: list[str]) -> list[Entity | None]:
        found = await self.brain.entities.get_many(self.tenant, ids)
        return [found.get(i) for i in ids]
