"""A GraphQL client over the real ASGI app (httpx ASGI transport), shared by the API tests."""

from __future__ import annotations

from typing import Any

import httpx

from api.app import create_app
from api.brain import Brain
from core.settings import Settings


class Client:
    def __init__(self, brain: Brain, key: str | None, settings: Settings | None = None) -> None:
        self.app = create_app(settings or brain.settings, brain)
        transport = httpx.ASGITransport(app=self.app)
        self.http = httpx.AsyncClient(transport=transport, base_url="http://test")
        self.headers = {"Authorization": f"Bearer {key}"} if key else {}

    async def post(self, payload: Any) -> httpx.Response:
        return await self.http.post("/graphql", json=payload, headers=self.headers)

    async def gql(self, query: str, **variables: Any) -> dict[str, Any]:
        resp = await self.post({"query": query, "variables": variables})
        assert resp.status_code == 200, resp.text
        body: dict[str, Any] = resp.json()
        return body

    async def data(self, query: str, **variables: Any) -> dict[str, Any]:
        body = await self.gql(query, **variables)
        assert "errors" not in body, body["errors"]
        data: dict[str, Any] = body["data"]
        return data
