"""The ASGI application: GraphQL at /graphql (GraphiQL on GET), a liveness probe at /healthz."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.websockets import WebSocket
from strawberry.asgi import GraphQL

from api.auth import authenticate
from api.brain import Brain
from api.context import Context
from api.schema import schema
from core.errors import BrainError
from core.settings import Settings

log = logging.getLogger(__name__)


class BrainGraphQL(GraphQL[Context, None]):
    def __init__(self, brain_ref: dict[str, Brain]) -> None:
        super().__init__(schema, graphql_ide="graphiql")
        self._brain_ref = brain_ref

    async def get_context(
        self, request: Request | WebSocket, response: Response | WebSocket | None
    ) -> Context:
        brain = self._brain_ref["brain"]
        try:
            principal = await authenticate(brain.graph, request.headers.get("authorization"))
            return Context(brain=brain, principal=principal)
        except BrainError as e:
            return Context(brain=brain, principal=None, auth_error=e)


def create_app(
    settings: Settings, brain: Brain | None = None, owns_brain: bool = False
) -> Starlette:
    """The app. It opens the engines on start-up unless a ready ``brain`` is given; it closes
    them on shutdown when it opened them or ``owns_brain`` is set (graceful shutdown closes the
    engines after in-flight requests finish)."""
    ref: dict[str, Brain] = {}

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        ref["brain"] = brain or await Brain.open(settings)
        try:
            yield
        finally:
            if brain is None or owns_brain:
                await ref["brain"].close()

    if brain is not None:
        ref["brain"] = brain

    async def healthz(request: Request) -> Response:
        h = await ref["brain"].health()
        body: dict[str, Any] = {"ok": h.ok, "engines": {e.name: e.ok for e in h.engines}}
        return JSONResponse(body, status_code=200 if h.ok else 503)

    graphql = BrainGraphQL(ref)
    return Starlette(
        routes=[
            Route("/graphql", graphql, methods=["GET", "POST"]),
            Route("/healthz", healthz, methods=["GET"]),
        ],
        lifespan=lifespan,
    )
