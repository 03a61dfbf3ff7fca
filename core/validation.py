"""Input checks shared by every write path: fail with InvalidInput before anything changes."""

from __future__ import annotations

from core.errors import InvalidInput
from core.settings import LimitSettings


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
    if "\x00" in stripped:
        raise InvalidInput(f"{field} contains a NUL character", field=field)
    return stripped


def check_batch(size: int, limits: LimitSettings) -> None:
    if size > limits.max_batch:
        raise InvalidInput(f"batch of {size} exceeds the limit of {limits.max_batch}")
