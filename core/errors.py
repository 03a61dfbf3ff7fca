"""One error tree for the whole service.

    BrainError                  root: everything we raise on purpose
    ├── NotFound                no such id for this tenant (another tenant's ids are "not found")
    ├── InvalidInput(ValueError) bad content, ids, enum values, sizes; nothing was changed
    ├── Ambiguous               a reference matches several things; carries the candidates
    ├── Forbidden               missing, wrong or revoked credentials, or an admin-only action
    ├── Conflict                the request is valid but clashes with current state
    └── BackendError            an engine failed (wraps the driver error with ``from e``)
        ├── EngineStartError    the embedded engine did not come up; carries its log tail
        └── EngineUnavailable   the graph engine is down (restarting): retry shortly

The API maps each expected error to a typed GraphQL result; anything else is masked and logged.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


class BrainError(Exception):
    """Root of every error the service raises on purpose."""

    code = "BRAIN_ERROR"

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.details = details


class NotFound(BrainError):
    """No such object for this tenant."""

    code = "NOT_FOUND"

    def __init__(self, kind: str, ident: str) -> None:
        super().__init__(f"{kind} {ident!r} not found", kind=kind, id=ident)
        self.kind = kind
        self.ident = ident


class InvalidInput(BrainError, ValueError):
    """The request is malformed; nothing was changed."""

    code = "INVALID_INPUT"

    def __init__(self, message: str, field: str | None = None, **details: Any) -> None:
        super().__init__(message, field=field, **details)
        self.field = field


class Ambiguous(BrainError):
    """A reference matches several candidates and context cannot decide."""

    code = "AMBIGUOUS"

    def __init__(self, message: str, candidates: Sequence[Any] = ()) -> None:
        super().__init__(message)
        self.candidates = list(candidates)


class Forbidden(BrainError):
    """Authentication failed or the key may not do this."""

    code = "FORBIDDEN"


class Conflict(BrainError):
    """The request clashes with the current state (e.g. superseding a non-current memory)."""

    code = "CONFLICT"


class BackendError(BrainError):
    """A storage engine failed; the driver error is the ``__cause__``."""

    code = "BACKEND_ERROR"


class EngineStartError(BackendError):
    """The embedded engine did not start; ``log_tail`` holds its last log lines."""

    code = "ENGINE_START_ERROR"

    def __init__(self, message: str, log_tail: str = "") -> None:
        text = f"{message}\n--- engine log tail ---\n{log_tail}" if log_tail else message
        super().__init__(text)
        self.log_tail = log_tail


class EngineUnavailable(BackendError):
    """The graph engine cannot be reached right now (the embedded one exited and is being
    restarted, or a server is down). Raised at once, not after the driver's retries; nothing
    of the failed call was acknowledged, so the caller may retry it."""

    code = "ENGINE_UNAVAILABLE"
