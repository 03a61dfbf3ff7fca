"""Text checks on every argument of every root field, before its resolver runs.

A JSON request can carry strings no engine can store: ``"\\ud800"`` decodes to an unpaired
UTF-16 surrogate, which would fail inside the Bolt driver or the vector payload encoder as an
unexpected ("Internal error") failure after part of the work was done. One field extension,
put on each root field by ``build_schema``, walks the converted arguments (scalars, lists and
input objects, so new inputs are covered without a line here) and answers the field's
``InvalidInputError`` naming the offending field instead; nothing runs, nothing changes.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import strawberry
from strawberry.extensions import FieldExtension
from strawberry.types.base import get_object_definition
from strawberry.types.field import StrawberryField
from strawberry.types.union import StrawberryUnion
from strawberry.utils.str_converters import to_camel_case

from api.gql.errors import InvalidInputError, error_result
from core.errors import InvalidInput
from core.validation import check_text


def check_arguments(arguments: Mapping[str, Any]) -> None:
    """Raise InvalidInput for the first string argument (at any depth) ``check_text`` refuses;
    the field is named in GraphQL's spelling (``sessionId``)."""
    for name, value in arguments.items():
        _check(value, to_camel_case(name))


def _check(value: Any, field: str) -> None:
    if isinstance(value, str):
        check_text(value, field)
    elif isinstance(value, list | tuple):
        for item in value:
            _check(item, field)
    elif isinstance(value, Mapping):
        for key, item in value.items():
            _check(item, f"{field}.{key}" if isinstance(key, str) else field)
    else:
        definition = get_object_definition(value)
        if definition is not None:
            for f in definition.fields:
                _check(
                    getattr(value, f.python_name, None),
                    f.graphql_name or to_camel_case(f.python_name),
                )


class CheckedText(FieldExtension):
    """Refuse malformed text in a root field's arguments with the field's typed error."""

    def apply(self, field: StrawberryField) -> None:
        self.field = field

    def resolve(
        self, next_: Callable[..., Any], source: Any, info: strawberry.Info, **kwargs: Any
    ) -> Any:
        try:
            check_arguments(kwargs)
        except InvalidInput as e:
            return self._refusal(e)
        return next_(source, info, **kwargs)

    async def resolve_async(
        self,
        next_: Callable[..., Awaitable[Any]],
        source: Any,
        info: strawberry.Info,
        **kwargs: Any,
    ) -> Any:
        try:
            check_arguments(kwargs)
        except InvalidInput as e:
            return self._refusal(e)
        return await next_(source, info, **kwargs)

    def _refusal(self, e: InvalidInput) -> Any:
        """The typed result when the field's union has ``InvalidInputError``; otherwise the
        error itself, which the schema reports unmasked (an expected failure)."""
        result = self.field.type
        members: list[object] = list(result.types) if isinstance(result, StrawberryUnion) else []
        if InvalidInputError in members:
            return error_result(e)
        raise e


def check_root_fields(*roots: type) -> None:
    """Put ``CheckedText`` on every field of the root types (once, however often the schema
    is built)."""
    for root in roots:
        definition = get_object_definition(root, strict=True)
        for field in definition.fields:
            if field.arguments and not any(isinstance(x, CheckedText) for x in field.extensions):
                field.extensions.append(CheckedText())
