"""Translate graph records into domain objects, in one place."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from core.clock import NEVER
from core.types import Entity, EntityMerge, Memory

_MEMORY_FIELDS = set(Memory.model_fields)
_ENTITY_FIELDS = set(Entity.model_fields)


def memory_from(props: Mapping[str, Any], entity_ids: Sequence[str] = ()) -> Memory:
    data = {k: v for k, v in props.items() if k in _MEMORY_FIELDS and v is not None}
    data.setdefault("expires_at", NEVER)
    data.setdefault("superseded_at", NEVER)
    data["entity_ids"] = tuple(sorted(entity_ids))
    return Memory.model_validate(data)


def entity_from(props: Mapping[str, Any]) -> Entity:
    data = {k: v for k, v in props.items() if k in _ENTITY_FIELDS and v is not None}
    for key in ("aliases", "context_tags", "profile_embedding"):
        if key in data:
            data[key] = tuple(data[key])
    return Entity.model_validate(data)


def merge_from(props: Mapping[str, Any]) -> EntityMerge:
    data = {k: v for k, v in props.items() if k in EntityMerge.model_fields and v is not None}
    data["drop_ids"] = tuple(data.get("drop_ids", ()))
    return EntityMerge.model_validate(data)


def memory_row(memory: Memory) -> dict[str, Any]:
    """Graph properties of a memory (entity links are relationships, not properties)."""
    row = memory.model_dump(exclude={"entity_ids", "tenant_id"})
    if not row.get("steps"):
        row.pop("steps", None)  # only procedures have steps
    return {k: (v.value if hasattr(v, "value") else v) for k, v in row.items() if v is not None}
