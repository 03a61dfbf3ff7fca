"""Text checks on every argument of every root field, before its resolver runs.

A JSON request can carry strings no engine can store: ``"\\ud800"`` decodes to an unpaired
UTF-16 surrogate, which would fail inside the Bolt driver or the vector payload encoder as an
unexpected ("Internal error") failure after part of the work was done. The field extension
of every root field (``api.gql.errors.TypedErrors``) walks the converted arguments with
``check_arguments`` (scalars, lists and input objects, so new inputs are covered without a
line here) and answers the field's ``InvalidInputError`` naming the offending field instead;
nothing runs, nothing changes. Session, user and project ids are checked here too, by name,
and the length of every list.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from strawberry.types.base import get_object_definition
from strawberry.utils.str_converters import to_camel_case

from core.errors import InvalidInput
from core.settings import LimitSettings
from core.validation import check_scope_id, check_text

# Caller-chosen ids, wherever an argument or input field has one of these names: one rule
# (``check_scope_id``) for all. A user id was stored unchecked before (a 32k-character one
# everywhere; 1 MB failed in the graph engine as BACKEND_ERROR).
SCOPE_IDS = frozenset({"sessionId", "userId", "projectId"})


# Lists of ids a batch operation takes (erase's memoryIds, reprofileEntities' ids): up to
# ``max_batch``; every other list input up to ``max_list_items``.
BATCH_LISTS = frozenset({"memoryIds", "ids"})


def check_arguments(arguments: Mapping[str, Any], limits: LimitSettings) -> None:
    """Raise InvalidInput for the first string argument (at any depth) ``check_text`` refuses,
    the first session, user or project id ``check_scope_id`` refuses, or the first list
    longer than its limit; the field is named in GraphQL's spelling (``sessionId``)."""
    for name, value in arguments.items():
        _check(value, to_camel_case(name), limits)


def _check(value: Any, field: str, limits: LimitSettings) -> None:
    if isinstance(value, str):
        check_text(value, field)
        if field in SCOPE_IDS:
            check_scope_id(value, field)
    elif isinstance(value, list | tuple):
        limit = limits.max_batch if field in BATCH_LISTS else limits.max_list_items
        if len(value) > limit:
            raise InvalidInput(
                f"{field} has {len(value)} items; the limit is {limit}", field=field, limit=limit
            )
        for item in value:
            _check(item, field, limits)
    elif isinstance(value, Mapping):
        for key, item in value.items():
            _check(item, f"{field}.{key}" if isinstance(key, str) else field, limits)
    else:
        definition = get_object_definition(value)
        if definition is not None:
            for f in definition.fields:
                _check(
                    getattr(value, f.python_name, None),
                    f.graphql_name or to_camel_case(f.python_name),
                    limits,
                )
