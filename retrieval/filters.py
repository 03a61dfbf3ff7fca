"""The request filters, applied in Python to candidates the vector filter did not see
(entity, core and conversation paths, neighbours): the same rules as ``VectorFilter``."""

from __future__ import annotations

from core.retrieval_types import SearchQuery
from core.types import Memory


def admits(memory: Memory, tenant_id: str, query: SearchQuery, at: float) -> bool:
    """Tenant always; live (not expired / soft-deleted); current, or valid at ``as_of``;
    then project, user scope, types and the created_at window."""
    if memory.tenant_id != tenant_id or not memory.is_live(at):
        return False
    if query.as_of is not None:
        if not memory.valid_at(query.as_of):
            return False
    elif not memory.is_current:
        return False
    if query.project_id is not None and memory.project_id != query.project_id:
        return False
    if query.user_id is not None and memory.user_id not in (None, query.user_id):
        return False  # user scope: the user's own memories and the tenant's shared ones
    if query.types and memory.type not in query.types:
        return False
    if query.since is not None and memory.created_at < query.since:
        return False
    if query.until is not None and memory.created_at > query.until:
        return False
    return not about_someone_else(memory, query)


def about_someone_else(memory: Memory, query: SearchQuery) -> bool:
    """About a person the query's names did not mean (a namesake of the one it resolved, or
    a candidate of an ambiguous name), and about no entity it did mean."""
    if not query.exclude_entity_ids:
        return False
    about = set(memory.entity_ids)
    return bool(about & set(query.exclude_entity_ids)) and not about & set(query.entity_ids)
