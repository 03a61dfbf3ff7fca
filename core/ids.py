"""Identifiers: UUID4 strings, which both engines accept as keys and vector point ids."""

from __future__ import annotations

import uuid

from core.errors import InvalidInput


def new_id() -> str:
    return str(uuid.uuid4())


def check_id(value: str, field: str = "id") -> str:
    """Return the canonical form of a UUID id or raise InvalidInput."""
    try:
        return str(uuid.UUID(str(value)))
    except (ValueError, AttributeError, TypeError):
        raise InvalidInput(f"malformed {field}: {value!r}", field=field) from None


def check_ids(values: list[str], field: str = "ids") -> list[str]:
    return [check_id(v, field) for v in values]
