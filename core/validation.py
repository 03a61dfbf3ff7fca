"""Input checks shared by every write path: fail with InvalidInput before anything changes.

Text reaches the engines as UTF-8 (Bolt, Qdrant payloads, the embedder). A Python string can
hold what UTF-8 cannot: an unpaired UTF-16 surrogate (a JSON ``"\\ud800"``, or command-line
bytes that were not UTF-8), which would fail deep inside a driver as an unexpected error. NUL
is refused too: it ends C strings in the engines and the tokenizers. ``check_text`` is the one
place that says so, for content, names, aliases, ids and queries alike.
"""

from __future__ import annotations

import math
import re

from pydantic import ValidationError

from core.errors import InvalidInput
from core.settings import LimitSettings

_SURROGATE = re.compile("[\ud800-\udfff]")
# Tenants are isolation boundaries named by operators: the same rule for keys, the CLI and
# every tenant argument, so no data can be stored under a name no key could ever reach.
_TENANT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
# Caller-chosen ids (sessions, users, projects): printable, path-like, bounded. '+' for user
# ids that are e-mail addresses ("ada+work@example.com").
_SCOPE_ID = re.compile(r"^[\w.:@/+-]{1,200}$")


def check_text(value: str, field: str) -> str:
    """Return ``value`` if the engines can store it as text, else raise InvalidInput.

    Refused: NUL characters and unpaired UTF-16 surrogates (malformed Unicode). The message
    says where, never echoes the bad character (it could not be encoded in the answer).
    """
    if "\x00" in value:
        raise InvalidInput(f"{field} contains a NUL character", field=field)
    bad = _SURROGATE.search(value)
    if bad is not None:
        raise InvalidInput(
            f"{field} is not valid Unicode: an unpaired UTF-16 surrogate "
            f"(U+{ord(bad.group()):04X}) at character {bad.start()}",
            field=field,
        )
    return value


def check_content(text: object, limits: LimitSettings, field: str = "content") -> str:
    """Return the content stripped of surrounding whitespace, or raise InvalidInput."""
    if not isinstance(text, str):
        raise InvalidInput(f"{field} must be a string", field=field)
    stripped = text.strip()
    if not stripped:
        raise InvalidInput(f"{field} must not be empty", field=field)
    if len(stripped) > limits.max_content_chars:
        raise InvalidInput(
            f"{field} is {len(stripped)} characters; the limit is {limits.max_content_chars}",
            field=field,
            limit=limits.max_content_chars,
        )
    return check_text(stripped, field)


def check_range(value: float, field: str, low: float, high: float) -> float:
    """Return ``value`` if it is a finite number from ``low`` to ``high``, else InvalidInput
    stating the allowed range in words."""
    if not math.isfinite(value) or not low <= value <= high:
        raise InvalidInput(
            f"{field} must be a number from {low:g} to {high:g} (inclusive); got {value:g}",
            field=field,
            low=low,
            high=high,
        )
    return value


def check_tenant_name(name: object) -> str:
    """Return a valid tenant name or raise InvalidInput (field ``tenant``)."""
    if not isinstance(name, str) or not _TENANT.match(name):
        raise InvalidInput(
            "tenant names are 1-64 characters: letters, digits, '.', '_' or '-', starting with a "
            "letter or digit",
            field="tenant",
        )
    return name


def check_scope_id(value: object, field: str) -> str:
    """Return a valid session, user or project id or raise InvalidInput naming ``field``."""
    if not isinstance(value, str) or not _SCOPE_ID.fullmatch(value):
        raise InvalidInput(
            f"{field} must be 1-200 characters of letters, digits and . _ : @ / + -", field=field
        )
    return value


def check_project_id(value: str | None) -> str | None:
    """A project id as ``check_scope_id`` checks it; ``None`` (no project) passes."""
    return None if value is None else check_scope_id(value, "projectId")


def invalid_input(error: ValidationError) -> InvalidInput:
    """The InvalidInput a domain model's validation failure stands for: the one a field
    validator raised (its message in words), else pydantic's first message with the field."""
    first = error.errors()[0]
    cause = (first.get("ctx") or {}).get("error")
    if isinstance(cause, InvalidInput):
        return cause
    names = [str(part) for part in first["loc"] if isinstance(part, str)]
    field = _camel(names[-1]) if names else None
    return InvalidInput(f"{field or 'input'}: {first['msg']}", field=field)


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def check_batch(size: int, limits: LimitSettings) -> None:
    if size > limits.max_batch:
        raise InvalidInput(f"batch of {size} exceeds the limit of {limits.max_batch}")
