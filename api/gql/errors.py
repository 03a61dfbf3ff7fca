"""Expected failures as typed GraphQL results, all implementing ``Error``."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import strawberry
from pydantic import ValidationError

from core import errors
from core.validation import invalid_input

R = TypeVar("R")


@strawberry.interface(description="An expected failure; nothing was changed.")
class Error:
    message: str
    code: str


@strawberry.type
class NotFoundError(Error):
    kind: str
    id: str


@strawberry.type
class InvalidInputError(Error):
    field: str | None


@strawberry.type
class ConflictError(Error):
    current_id: strawberry.ID | None


@strawberry.type
class ForbiddenError(Error):
    pass


@strawberry.type
class AmbiguousError(Error):
    candidates: list[str]


def error_result(e: errors.BrainError) -> Error:
    """The typed GraphQL result of an expected error."""
    if isinstance(e, errors.NotFound):
        return NotFoundError(message=e.message, code=e.code, kind=e.kind, id=e.ident)
    if isinstance(e, errors.InvalidInput):
        return InvalidInputError(message=e.message, code=e.code, field=e.field)
    if isinstance(e, errors.Conflict):
        current = e.details.get("current_id")
        return ConflictError(message=e.message, code=e.code, current_id=current)
    if isinstance(e, errors.Ambiguous):
        return AmbiguousError(
            message=e.message, code=e.code, candidates=[str(c) for c in e.candidates]
        )
    if isinstance(e, errors.Forbidden):
        return ForbiddenError(message=e.message, code=e.code)
    raise e  # BackendError and anything else: masked and logged by the schema


async def guarded(call: Callable[[], Awaitable[R]]) -> Any:
    """Run a resolver body; expected errors become typed results, the rest propagate (masked).
    A domain model that refuses its fields (pydantic) is invalid input too."""
    try:
        return await call()
    except errors.BrainError as e:
        return error_result(e)
    except ValidationError as e:
        return error_result(invalid_input(e))
