"""The ASGI application: GraphQL at /graphql (GraphiQL on GET), /healthz, /metrics, and
/export (the caller's tenant as JSONL, for `brain export` against a running service).

Every response carries ``X-Request-Id``; the same id is in the request's log line and in a
masked error's ``extensions.requestId``, so a user can quote it.

Limits applied before GraphQL runs: request body size (413), CORS per configuration; inside
GraphQL, before a document runs: its bytes, tokens, fragments, expanded fields, depth and
aliases, checked off the event loop under a time budget (see api/gql/guard.py).
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import time
import uuid
from collections.abc import AsyncIterator
from http import HTTPStatus
from typing import Any

from cross_web import HTTPException
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocket
from strawberry.asgi import GraphQL

from api.auth import TENANT_HEADER, Principal, acting_for
from api.brain import Brain
from api.export_format import export_lines
from api.gql.context import Context
from api.gql.schema import build_schema
from api.metrics import Metrics
from api.web import page, wants_page, web_dir, web_routes
from core.errors import BackendError, BrainError, Forbidden
from core.settings import Settings

log = logging.getLogger("brain.api")


REQUEST_ID_HEADER = "x-request-id"
# A caller's own id (a gateway's, a client's trace id) is kept when it is this plain.
_CALLER_ID = re.compile(rb"^[A-Za-z0-9._:-]{1,64}$")


class RequestId:
    """Give every HTTP request an id: in ``request.state.request_id`` (the GraphQL context,
    the logs, a masked error's ``extensions.requestId``) and in the ``X-Request-Id`` header
    of its response, whatever the response is. A plain id the caller sent is kept."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        sent = dict(scope.get("headers") or []).get(REQUEST_ID_HEADER.encode())
        request_id = sent.decode() if sent and _CALLER_ID.match(sent) else uuid.uuid4().hex[:16]
        scope.setdefault("state", {})["request_id"] = request_id

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [
                    (k, v) for k, v in message.get("headers", []) if k != REQUEST_ID_HEADER.encode()
                ]
                headers.append((REQUEST_ID_HEADER.encode(), request_id.encode()))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_id)


class BodyLimit:
    """Reject request bodies over ``limit`` bytes with 413, declared or streamed."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.limit:
            await self._reject(scope, receive, send)
            return
        seen = 0

        async def limited() -> Message:
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > self.limit:
                raise _TooLarge
            return message

        try:
            await self.app(scope, limited, send)
        except _TooLarge:
            await self._reject(scope, receive, send)

    async def _reject(self, scope: Scope, receive: Receive, send: Send) -> None:
        message = f"request body over {self.limit} bytes"
        await http_error(413, message, scope)(scope, receive, send)


class _TooLarge(Exception):
    pass


class BrainGraphQL(GraphQL[Context, None]):
    def __init__(self, settings: Settings, brain_ref: dict[str, Brain], metrics: Metrics) -> None:
        super().__init__(
            build_schema(settings.api), graphql_ide=None
        )  # GraphiQL is our own offline page (api/web.py); strawberry's loads from a CDN
        self._brain_ref = brain_ref
        self._metrics = metrics
        self._graphiql = web_dir(settings.api) if settings.api.graphiql else None
        self._max_list_items = settings.api.max_body_list_items

    async def get_context(
        self, request: Request | WebSocket, response: Response | WebSocket | None
    ) -> Context:
        brain = self._brain_ref["brain"]
        request_id = getattr(request.state, "request_id", None) or uuid.uuid4().hex[:16]
        presented = request.headers.get("authorization")
        try:
            principal = await brain.admin.authenticate(presented)
        except Forbidden as e:
            if presented:  # a wrong, malformed or revoked key: the request is refused whole
                raise HTTPException(401, e.message) from e
            # no key: fields that need none (``health``) still answer, the others say why
            return Context(brain=brain, principal=None, auth_error=e, request_id=request_id)
        except BrainError as e:  # the key could not be checked (the engine is restarting):
            return Context(brain=brain, principal=None, auth_error=e, request_id=request_id)
        try:
            principal = acting_for(principal, request.headers.get(TENANT_HEADER))
            return Context(brain=brain, principal=principal, request_id=request_id)
        except BrainError as e:  # a valid key acting for a tenant it may not: per field
            return Context(brain=brain, principal=None, auth_error=e, request_id=request_id)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Time each HTTP request and label it with its GraphQL operation."""
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)
            return
        if self._graphiql and scope["method"] == "GET" and wants_page(Request(scope)):
            await page(self._graphiql, "graphiql.html")(scope, receive, send)
            return
        start = time.perf_counter()
        status = 0
        body = b""

        async def capture() -> Message:
            nonlocal body
            message = await receive()
            body += message.get("body", b"")
            return message

        async def send_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            try:
                response = await self.run(Request(scope=scope, receive=capture))
            except HTTPException as e:  # strawberry answers these in plain text
                response = http_error(e.status_code, e.reason, scope)
            await response(scope, capture, send_status)
        finally:
            operation = operation_name(body) if scope["method"] == "POST" else "graphiql"
            elapsed = time.perf_counter() - start
            self._metrics.requests.labels(operation).observe(elapsed)
            if status >= 500:
                self._metrics.errors.labels(operation).inc()
            log.info(
                "request",
                extra={
                    "operation": operation,
                    "status": status,
                    "ms": round(elapsed * 1000, 2),
                    "request_id": scope.get("state", {}).get("request_id"),
                },
            )

    def decode_json(self, data: str | bytes) -> object:
        """The body as JSON; a body that is not (invalid UTF-8 included: a plain-text 500
        before) is a 400 with a JSON error."""
        try:
            decoded = json.loads(data)
        except UnicodeDecodeError as e:
            raise HTTPException(400, f"the request body is not valid UTF-8 ({e.reason})") from e
        except RecursionError as e:
            raise HTTPException(400, "the request body nests JSON too deeply") from e
        if _over_list_items(decoded, self._max_list_items):
            raise HTTPException(
                400, f"the request body has more than {self._max_list_items} list items"
            )
        return decoded


def _over_list_items(value: object, limit: int) -> bool:
    """Whether the JSON ``value`` holds more than ``limit`` array items, all arrays together
    (stops counting past the limit)."""
    count = 0
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            count += len(item)
            if count > limit:
                return True
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
    return False


def http_error(status: int, message: str, scope: Scope) -> JSONResponse:
    """An HTTP-level error as the API's JSON error body (like the 401 and 413 ones)."""
    try:
        code = "UNAUTHENTICATED" if status == 401 else HTTPStatus(status).name
    except ValueError:
        code = "HTTP_ERROR"
    request_id = scope.get("state", {}).get("request_id")
    extensions = {"code": code, **({"requestId": request_id} if request_id else {})}
    return JSONResponse({"errors": [{"message": message, "extensions": extensions}]}, status)


async def caller(brain: Brain, request: Request | WebSocket) -> Principal:
    """Who the request acts as: its key's tenant, or the tenant an admin key names."""
    principal = await brain.admin.authenticate(request.headers.get("authorization"))
    return acting_for(principal, request.headers.get(TENANT_HEADER))


_FIRST_FIELD = re.compile(r"\{\s*(?:\w+\s*:\s*)?(\w+)")


def operation_name(body: bytes) -> str:
    """The operationName, else the first top-level field ("search", "remember" ...)."""
    try:
        doc = json.loads(body) if body else None
    except ValueError:
        return "invalid"
    if not isinstance(doc, dict):
        return "batch" if isinstance(doc, list) else "invalid"
    if doc.get("operationName"):
        return str(doc["operationName"])[:64]
    match = _FIRST_FIELD.search(str(doc.get("query") or ""))
    return match.group(1)[:64] if match else "unknown"


def create_app(
    settings: Settings, brain: Brain | None = None, owns_brain: bool = False
) -> Starlette:
    """The app. It opens the engines on start-up unless a ready ``brain`` is given; it closes
    them on shutdown when it opened them or ``owns_brain`` is set (graceful shutdown closes the
    engines after in-flight requests finish)."""
    ref: dict[str, Brain] = {}
    metrics = Metrics()

    def watch(opened: Brain) -> None:
        ref["brain"] = opened
        metrics.watch_graph(opened.graph)
        metrics.watch_supervisor(opened.engine_supervisor)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if brain is None:  # a given brain is watched once, below (not twice: issue 43)
            watch(await Brain.open(settings))
        try:
            yield
        finally:
            if brain is None or owns_brain:
                await ref["brain"].close()

    if brain is not None:
        watch(brain)

    async def healthz(request: Request) -> Response:
        """503 at once while an engine is down (the graph engine restarting included)."""
        h = await ref["brain"].health.check()
        body: dict[str, Any] = {"ok": h.ok, "engines": {e.name: e.ok for e in h.engines}}
        if not h.ok:
            body["errors"] = {e.name: e.detail for e in h.engines if not e.ok}
        return JSONResponse(body, status_code=200 if h.ok else 503)

    async def metrics_endpoint(request: Request) -> Response:
        metrics.graph_up.set(1 if ref["brain"].graph.available else 0)
        health = await ref["brain"].health.check()
        metrics.index_lag.set(health.unindexed or 0)
        metrics.queue_depth.set(ref["brain"].ingest.queue.depth)
        return Response(metrics.render(), media_type="text/plain; version=0.0.4")

    async def export_endpoint(request: Request) -> Response:
        """The caller's tenant as JSONL, streamed (what `brain export` writes)."""
        try:
            principal = await caller(ref["brain"], request)
        except BackendError as e:  # the key could not be checked: not the caller's fault
            log.warning("export: %s", e)
            message = "a storage engine failed; retry the request"
            return JSONResponse({"error": {"code": e.code, "message": message}}, 503)
        except BrainError as e:
            return JSONResponse({"error": {"code": e.code, "message": e.message}}, 403)
        lines = export_lines(ref["brain"], principal.tenant_id)
        return StreamingResponse(lines, media_type="application/x-ndjson")

    graphql = BrainGraphQL(settings, ref, metrics)
    middleware = [
        Middleware(RequestId),
        Middleware(BodyLimit, limit=settings.api.max_body_bytes),
    ]
    if settings.api.cors_origins:
        middleware.append(
            Middleware(
                CORSMiddleware,
                allow_origins=settings.api.cors_origins,
                allow_methods=["GET", "POST"],
                allow_headers=["Authorization", "Content-Type", "X-Request-Id"],
                expose_headers=["X-Request-Id"],
            )
        )
    app = Starlette(
        routes=[
            Route("/graphql", graphql, methods=["GET", "POST"]),
            *web_routes(settings.api),
            Route("/healthz", healthz, methods=["GET"]),
            Route("/metrics", metrics_endpoint, methods=["GET"]),
            Route("/export", export_endpoint, methods=["GET"]),
        ],
        middleware=middleware,
        lifespan=lifespan,
    )
    app.state.metrics = metrics
    return app
