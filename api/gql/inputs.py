"""GraphQL input types."""

from __future__ import annotations

from datetime import datetime

import strawberry

from api.gql.types import DecayClass, MemoryType, SearchMode, WeightsInput
from core.types import MemoryType as CoreMemoryType


@strawberry.input
class RememberInput:
    content: str
    type: MemoryType = CoreMemoryType.FACT
    importance: float | None = None
    decay_class: DecayClass | None = None
    entities: list[strawberry.ID] | None = None
    project_id: str | None = None
    session_id: str | None = None
    user_id: str | None = None
    pinned: bool = False
    valid_from: datetime | None = None


@strawberry.input
class SupersedeInput:
    content: str
    reason: str | None = None


@strawberry.input
class EraseInput:
    memory_ids: list[strawberry.ID] | None = None
    entity_id: strawberry.ID | None = None
    user_id: str | None = None


@strawberry.input
class SearchInput:
    query: str
    mode: SearchMode = SearchMode.ANSWER
    top_k: int = 10
    project_id: str | None = None
    types: list[MemoryType] | None = None
    since: datetime | None = None
    until: datetime | None = None
    as_of: datetime | None = None
    weights: WeightsInput | None = None
    session_id: str | None = None
    user_id: str | None = strawberry.field(
        default=None,
        description="Scope to this user's memories plus those shared with the tenant (memories "
        "with no user). Without it, the whole tenant.",
    )


@strawberry.input
class MemoryFilter:
    types: list[MemoryType] | None = None
    project_id: str | None = None
    session_id: str | None = None
    user_id: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    include_superseded: bool = False
    include_forgotten: bool = False


@strawberry.input
class CoreInput:
    content: str
    type: MemoryType = CoreMemoryType.SEMANTIC
    importance: float | None = None
    project_id: str | None = None
    entities: list[strawberry.ID] | None = None


@strawberry.input
class UpdateCoreInput:
    content: str
