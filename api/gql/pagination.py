"""Relay-style connections: opaque cursors, ``first``/``after``, ``pageInfo``."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Sequence
from typing import TypeVar

import strawberry

from core.errors import InvalidInput

T = TypeVar("T")


@strawberry.type
class PageInfo:
    has_next_page: bool
    end_cursor: str | None


def encode_cursor(*parts: object) -> str:
    return base64.urlsafe_b64encode(json.dumps(parts).encode()).decode()


def decode_cursor(cursor: str | None, arity: int) -> list[object] | None:
    """Parts of a cursor made by ``encode_cursor``; InvalidInput if it was not."""
    if cursor is None:
        return None
    try:
        parts = json.loads(base64.urlsafe_b64decode(cursor.encode()))
    except (ValueError, UnicodeDecodeError):
        raise InvalidInput("malformed cursor", field="after") from None
    if not isinstance(parts, list) or len(parts) != arity:
        raise InvalidInput("malformed cursor", field="after")
    return parts


def paginate(
    rows: Sequence[T], size: int, cursor_of: Callable[[T], str]
) -> tuple[list[tuple[str, T]], PageInfo]:
    """The first ``size`` rows with their cursors, and whether more follow (callers fetch
    ``size + 1`` rows so the extra one answers that)."""
    page = [(cursor_of(r), r) for r in rows[:size]]
    return page, PageInfo(has_next_page=len(rows) > size, end_cursor=page[-1][0] if page else None)


def check_first(first: int, maximum: int) -> int:
    if not 1 <= first <= maximum:
        raise InvalidInput(f"first must be between 1 and {maximum}", field="first")
    return first
