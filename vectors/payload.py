"""The vector payload of a memory: the filterable fields, derived from the graph record."""

from __future__ import annotations

from typing import Any

from core.types import Memory


def payload_of(memory: Memory) -> dict[str, Any]:
    """Fields the vector index filters on. Content stays in the graph (one copy to erase)."""
    payload: dict[str, Any] = {
        "tenant_id": memory.tenant_id,
        "type": memory.type.value,
        "entity_ids": list(memory.entity_ids),
        "created_at": memory.created_at,
        "valid_from": memory.valid_from,
        "superseded_at": memory.superseded_at,
        "expires_at": memory.expires_at,
        "importance": memory.importance,
        "pinned": memory.pinned,
        "decay_class": memory.decay_class.value,
    }
    for key in ("project_id", "user_id", "session_id"):
        value = getattr(memory, key)
        if value is not None:
            payload[key] = value
    return payload
