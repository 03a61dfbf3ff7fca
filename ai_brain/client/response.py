"""Reading an HTTP response of the GraphQL endpoint: the operation's result, or the
exception of the error tree (``errors.py``) that it means, with the response's request id."""

from __future__ import annotations

from http import HTTPStatus
from typing import Any, TypeVar

import httpx

from ai_brain.client.calls import Call
from ai_brain.client.errors import (
    KNOWN_CODES,
    BrainError,
    EngineUnavailableError,
    InvalidInputError,
    ServerError,
    from_error_code,
    from_typed_result,
)

T = TypeVar("T")

REQUEST_ID_HEADER = "X-Request-Id"


def read(call: Call[T], response: httpx.Response) -> T:
    """The call's result from ``response``.

    Raises:
        BrainError: the subclass for the typed error result, top-level GraphQL error or HTTP
            error the response carries.
    """
    request_id = response.headers.get(REQUEST_ID_HEADER)
    body = _json(response, request_id)
    if response.status_code != 200:
        raise _http_error(response.status_code, body, request_id)
    data = body.get("data") or {}
    result = data.get(call.field) if isinstance(data, dict) else None
    if result is None:
        raise _first_error(body, request_id)
    wanted = (call.success,) if isinstance(call.success, str) else call.success
    if result.get("__typename") not in wanted:
        raise from_typed_result(result, request_id)
    return call.read(result)


def retryable(error: BrainError) -> bool:
    """Whether a call that failed so may succeed when sent again."""
    return isinstance(error, EngineUnavailableError)


def _json(response: httpx.Response, request_id: str | None) -> dict[str, Any]:
    try:
        body = response.json()
    except ValueError:
        body = None
    if isinstance(body, dict):
        return body
    if response.status_code != 200:
        return {}
    raise ServerError(
        f"not a GraphQL answer (HTTP {response.status_code})", "BAD_RESPONSE", request_id
    )


def _first_error(body: dict[str, Any], request_id: str | None) -> BrainError:
    errors = body.get("errors") or []
    if not errors:
        return ServerError("the answer holds no result", "BAD_RESPONSE", request_id)
    first = errors[0]
    extensions = first.get("extensions") or {}
    code = extensions.get("code")
    request_id = request_id or extensions.get("requestId")
    if code is None and "requestId" in extensions:
        code = "INTERNAL_ERROR"  # masked by the server: an unexpected failure, logged there
    return from_error_code(code, str(first.get("message") or "GraphQL error"), request_id)


def _http_error(status: int, body: dict[str, Any], request_id: str | None) -> BrainError:
    """An HTTP error: by the code its JSON body names when the tree knows it, else by status."""
    errors = body.get("errors") or [{}]
    extensions = errors[0].get("extensions") or {}
    request_id = request_id or extensions.get("requestId")
    code = extensions.get("code")
    try:
        name = HTTPStatus(status).name
    except ValueError:
        name = "HTTP_ERROR"
    message = str(errors[0].get("message") or f"HTTP {status}")
    if code in KNOWN_CODES:
        return from_error_code(code, message, request_id)
    if status == 401:
        return from_error_code("UNAUTHENTICATED", message, request_id)
    if status == 403:
        return from_error_code("FORBIDDEN", message, request_id)
    if status == 503:
        return from_error_code("ENGINE_UNAVAILABLE", message, request_id)
    if 400 <= status < 500:
        return InvalidInputError(message, code or name, request_id)
    return ServerError(message, code or name, request_id)
