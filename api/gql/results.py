"""Result unions: the success type or the expected errors of each operation."""

from __future__ import annotations

from typing import Annotated

import strawberry

from api.gql.entities import EntityMerge, EntityNode, Relationship
from api.gql.errors import ConflictError, ForbiddenError, InvalidInputError, NotFoundError
from api.gql.pagination import EntityConnection, MemoryConnection
from api.gql.types import EntityLineage, EraseReport, Lineage, MemoryNode, SearchResults
from api.gql.viz import VizGraph


@strawberry.type
class MemoryList:
    memories: list[MemoryNode]


@strawberry.type
class RelationshipList:
    relationships: list[Relationship]


MemoryResult = Annotated[
    MemoryNode | NotFoundError | InvalidInputError | ForbiddenError,
    strawberry.union("MemoryResult"),
]
RememberResult = Annotated[
    MemoryNode | InvalidInputError | ForbiddenError, strawberry.union("RememberResult")
]
SupersedeResult = Annotated[
    MemoryNode | NotFoundError | InvalidInputError | ConflictError | ForbiddenError,
    strawberry.union("SupersedeResult"),
]
LineageResult = Annotated[
    Lineage | NotFoundError | InvalidInputError | ForbiddenError, strawberry.union("LineageResult")
]
EraseResult = Annotated[
    EraseReport | NotFoundError | InvalidInputError | ForbiddenError,
    strawberry.union("EraseResult"),
]
SearchResult = Annotated[
    SearchResults | InvalidInputError | ForbiddenError, strawberry.union("SearchResult")
]
MemoriesResult = Annotated[
    MemoryConnection | InvalidInputError | ForbiddenError, strawberry.union("MemoriesResult")
]
CoreResult = Annotated[MemoryList | ForbiddenError, strawberry.union("CoreResult")]
EntityResult = Annotated[
    EntityNode | NotFoundError | InvalidInputError | ConflictError | ForbiddenError,
    strawberry.union("EntityResult"),
]
EntitiesResult = Annotated[
    EntityConnection | InvalidInputError | ForbiddenError, strawberry.union("EntitiesResult")
]
RelationshipsResult = Annotated[
    RelationshipList | NotFoundError | InvalidInputError | ForbiddenError,
    strawberry.union("RelationshipsResult"),
]
MergeResult = Annotated[
    EntityMerge | NotFoundError | InvalidInputError | ConflictError | ForbiddenError,
    strawberry.union("MergeResult"),
]
EntityLineageResult = Annotated[
    EntityLineage | NotFoundError | InvalidInputError | ForbiddenError,
    strawberry.union("EntityLineageResult"),
]
VizGraphResult = Annotated[
    VizGraph | InvalidInputError | ForbiddenError, strawberry.union("VizGraphResult")
]
