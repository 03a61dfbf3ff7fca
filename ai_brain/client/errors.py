"""The client's error tree: every failure the client raises, with the server's ``code``, its
``message`` and the ``request_id`` of the response (the ``X-Request-Id`` header; quote it
when reporting a problem).

    BrainError                      code, message, request_id
    ├── AuthError                   the key cannot do this
    │   ├── AuthenticationError     UNAUTHENTICATED (HTTP 401): missing, unknown or revoked key
    │   └── ForbiddenError          FORBIDDEN: the key may not do this (or is refused)
    ├── InvalidInputError           INVALID_INPUT (also a ValueError); ``field``
    ├── NotFoundError               NOT_FOUND (also a LookupError); ``kind``, ``id``
    ├── ConflictError               CONFLICT; ``current_id``
    ├── AmbiguousError              AMBIGUOUS; ``candidates``
    ├── EngineUnavailableError      ENGINE_UNAVAILABLE: retried with backoff, then raised
    ├── ServerError                 BACKEND_ERROR, INTERNAL_ERROR, HTTP 5xx, unexpected answers
    └── TransportError              TRANSPORT_ERROR: the service could not be reached
"""

from __future__ import annotations

from typing import Any


class BrainError(Exception):
    """Any failure of a client call."""

    def __init__(self, message: str, code: str, request_id: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.request_id = request_id

    def __str__(self) -> str:
        rid = f" (request {self.request_id})" if self.request_id else ""
        return f"{self.code}: {self.message}{rid}"


class AuthError(BrainError):
    """The key cannot do this: missing, unknown, revoked, or not allowed."""


class AuthenticationError(AuthError):
    """No valid key (HTTP 401, ``UNAUTHENTICATED``)."""


class ForbiddenError(AuthError):
    """The server refused the key for this operation (``FORBIDDEN``)."""


class InvalidInputError(BrainError, ValueError):
    """The server rejected an argument; nothing changed. ``field`` names it when known."""

    def __init__(
        self, message: str, code: str, request_id: str | None = None, field: str | None = None
    ) -> None:
        super().__init__(message, code, request_id)
        self.field = field


class NotFoundError(BrainError, LookupError):
    """No such memory or entity for this tenant (another tenant's ids are not found too)."""

    def __init__(
        self,
        message: str,
        code: str,
        request_id: str | None = None,
        kind: str | None = None,
        id: str | None = None,
    ) -> None:
        super().__init__(message, code, request_id)
        self.kind = kind
        self.id = id


class ConflictError(BrainError):
    """The target changed meanwhile (e.g. already superseded); ``current_id`` is its current
    version when the server names it."""

    def __init__(
        self,
        message: str,
        code: str,
        request_id: str | None = None,
        current_id: str | None = None,
    ) -> None:
        super().__init__(message, code, request_id)
        self.current_id = current_id


class AmbiguousError(BrainError):
    """A reference matched several candidates."""

    def __init__(
        self,
        message: str,
        code: str,
        request_id: str | None = None,
        candidates: list[str] | None = None,
    ) -> None:
        super().__init__(message, code, request_id)
        self.candidates = candidates or []


class EngineUnavailableError(BrainError):
    """A storage engine is restarting; the client retried and it still was."""


class ServerError(BrainError):
    """An unexpected server failure (masked by the server; quote ``request_id``)."""


class TransportError(BrainError):
    """The service could not be reached or did not answer."""


class DocumentJobFailed(BrainError):
    """A document's background job failed (``job_id``; its message says why)."""

    def __init__(self, message: str, job_id: str) -> None:
        super().__init__(message, "DOCUMENT_JOB_FAILED")
        self.job_id = job_id


_BY_CODE: dict[str, type[BrainError]] = {
    "UNAUTHENTICATED": AuthenticationError,
    "UNAUTHORIZED": AuthenticationError,
    "FORBIDDEN": ForbiddenError,
    "INVALID_INPUT": InvalidInputError,
    "NOT_FOUND": NotFoundError,
    "CONFLICT": ConflictError,
    "AMBIGUOUS": AmbiguousError,
    "ENGINE_UNAVAILABLE": EngineUnavailableError,
}

KNOWN_CODES = frozenset(_BY_CODE)

_BY_TYPENAME: dict[str, type[BrainError]] = {
    "ForbiddenError": ForbiddenError,
    "InvalidInputError": InvalidInputError,
    "NotFoundError": NotFoundError,
    "ConflictError": ConflictError,
    "AmbiguousError": AmbiguousError,
}


def from_typed_result(result: dict[str, Any], request_id: str | None) -> BrainError:
    """The exception for a typed GraphQL error result (``... on Error { code message }``)."""
    code = str(result.get("code") or "BRAIN_ERROR")
    message = str(result.get("message") or code)
    cls = _BY_TYPENAME.get(str(result.get("__typename")), _BY_CODE.get(code, BrainError))
    if cls is InvalidInputError:
        return InvalidInputError(message, code, request_id, field=result.get("field"))
    if cls is NotFoundError:
        return NotFoundError(
            message, code, request_id, kind=result.get("kind"), id=result.get("notFoundId")
        )
    if cls is ConflictError:
        return ConflictError(message, code, request_id, current_id=result.get("currentId"))
    if cls is AmbiguousError:
        return AmbiguousError(message, code, request_id, candidates=result.get("candidates"))
    return cls(message, code, request_id)


def from_error_code(code: str | None, message: str, request_id: str | None) -> BrainError:
    """The exception for a top-level GraphQL error or an HTTP error body."""
    if code is None:
        # A document the schema refuses (e.g. an unknown enum value in a variable).
        return InvalidInputError(message, "GRAPHQL_VALIDATION", request_id)
    cls = _BY_CODE.get(code, ServerError)
    return cls(message, code, request_id)
