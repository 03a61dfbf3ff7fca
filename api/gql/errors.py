"""Expected failures as typed GraphQL results, all implementing ``Error``, and the one field
extension that answers them (``TypedErrors``): resolvers just raise."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import strawberry
from pydantic import ValidationError
from strawberry.extensions import FieldExtension
from strawberry.types.base import get_object_definition
from strawberry.types.field import StrawberryField
from strawberry.types.union import StrawberryUnion

from api.gql.checks import check_arguments
from core import errors
from core.errors import InvalidInput
from core.settings import LimitSettings
from core.validation import invalid_input


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


class TypedErrors(FieldExtension):
    """The one rule of the API's expected failures, put on every root field by
    ``protect_root_fields``: malformed text in the arguments is refused before the resolver
    runs, and an expected error the resolver raises (the ``core.errors`` tree, or a domain
    model refusing its fields) is answered as its typed result (``error_result``), which the
    field's result union lists. Anything else propagates, and the schema masks and logs it."""

    def apply(self, field: StrawberryField) -> None:
        result = field.type
        self.members: list[object] = (
            list(result.types) if isinstance(result, StrawberryUnion) else []
        )

    def resolve(
        self, next_: Callable[..., Any], source: Any, info: strawberry.Info, **kwargs: Any
    ) -> Any:
        try:
            check_arguments(kwargs, _limits(info))
        except InvalidInput as e:
            return self._refusal(e)
        try:
            return next_(source, info, **kwargs)
        except (errors.BrainError, ValidationError) as e:
            return self._typed(e)

    async def resolve_async(
        self,
        next_: Callable[..., Awaitable[Any]],
        source: Any,
        info: strawberry.Info,
        **kwargs: Any,
    ) -> Any:
        try:
            check_arguments(kwargs, _limits(info))
        except InvalidInput as e:
            return self._refusal(e)
        try:
            return await next_(source, info, **kwargs)
        except (errors.BrainError, ValidationError) as e:
            return self._typed(e)

    def _refusal(self, e: InvalidInput) -> Any:
        """Refused text: the typed result when the field's union has ``InvalidInputError``;
        otherwise the error itself, which the schema reports unmasked (an expected failure)."""
        if InvalidInputError in self.members:
            return error_result(e)
        raise e

    def _typed(self, e: errors.BrainError | ValidationError) -> Any:
        """A field whose result is a union answers its expected errors as union members;
        others (``health``) let them propagate."""
        if not self.members:
            raise e
        return error_result(invalid_input(e) if isinstance(e, ValidationError) else e)


def _limits(info: strawberry.Info) -> LimitSettings:
    """The service's input limits (the defaults for a schema run without a service)."""
    brain = getattr(info.context, "brain", None)
    return brain.settings.limits if brain is not None else LimitSettings()


def protect_root_fields(*roots: type) -> None:
    """Put ``TypedErrors`` on every field of the root types (once, however often the schema
    is built)."""
    for root in roots:
        definition = get_object_definition(root, strict=True)
        for field in definition.fields:
            if not any(isinstance(x, TypedErrors) for x in field.extensions):
                field.extensions.append(TypedErrors())
