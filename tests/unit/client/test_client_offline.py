"""The client without a service: it imports none of the service's dependencies, and it reads
the server's error answers (HTTP 401, masked errors, ENGINE_UNAVAILABLE) as the error tree,
retrying only ENGINE_UNAVAILABLE. Answers come from an httpx MockTransport."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from ai_brain.client import (
    AsyncBrainClient,
    AuthenticationError,
    BrainClient,
    EngineUnavailableError,
    ServerError,
)

ROOT = Path(__file__).resolve().parents[3]

UNAVAILABLE = {
    "data": None,
    "errors": [
        {
            "message": "The graph engine is unavailable right now; retry the request",
            "extensions": {"code": "ENGINE_UNAVAILABLE", "requestId": "r1"},
        }
    ],
}
FORGOTTEN = {
    "data": {
        "forget": {
            "__typename": "Memory",
            "id": "m1",
            "type": "FACT",
            "content": "x",
            "importance": 0.5,
            "pinned": False,
            "createdAt": "2026-01-01T00:00:00+00:00",
            "validFrom": "2026-01-01T00:00:00+00:00",
            "current": True,
        }
    }
}


def test_import_needs_none_of_the_service_dependencies() -> None:
    heavy = ["spacy", "torch", "neo4j", "strawberry", "qdrant_edge", "core", "api", "numpy"]
    code = (
        "import sys, json, ai_brain.client; "
        f"print(json.dumps([m for m in {heavy!r} if m in sys.modules]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert json.loads(out.stdout) == []


def _answers(*bodies: tuple[int, object]) -> tuple[httpx.MockTransport, list[httpx.Request]]:
    sent: list[httpx.Request] = []
    queue = list(bodies)

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        status, body = queue.pop(0)
        return httpx.Response(status, json=body, headers={"X-Request-Id": f"req-{len(sent)}"})

    return httpx.MockTransport(handler), sent


def test_engine_unavailable_is_retried_then_succeeds() -> None:
    transport, sent = _answers((200, UNAVAILABLE), (200, UNAVAILABLE), (200, FORGOTTEN))
    client = BrainClient("http://brain", "k", backoff=0.001, transport=transport)
    assert client.forget("m1").id == "m1"
    assert len(sent) == 3
    assert sent[0].url == "http://brain/graphql"
    assert sent[0].headers["authorization"] == "Bearer k"
    assert json.loads(sent[0].content)["variables"] == {"id": "m1"}


def test_engine_unavailable_raised_after_the_retries() -> None:
    transport, sent = _answers(*[(200, UNAVAILABLE)] * 3)
    client = BrainClient("http://brain", "k", retries=2, backoff=0.001, transport=transport)
    with pytest.raises(EngineUnavailableError) as caught:
        client.forget("m1")
    assert caught.value.code == "ENGINE_UNAVAILABLE"
    assert caught.value.request_id == "req-3"
    assert len(sent) == 3


async def test_async_client_reads_a_401_as_authentication_error() -> None:
    body = {"errors": [{"message": "unknown API key", "extensions": {"code": "UNAUTHENTICATED"}}]}
    transport, sent = _answers((401, body))

    async def handler(request: httpx.Request) -> httpx.Response:
        return transport.handle_request(request)

    client = AsyncBrainClient("http://brain/graphql", "k", transport=httpx.MockTransport(handler))
    with pytest.raises(AuthenticationError) as caught:
        await client.search("x")
    assert (caught.value.code, caught.value.message) == ("UNAUTHENTICATED", "unknown API key")
    assert caught.value.request_id == "req-1"
    assert len(sent) == 1  # not retried
    await client.aclose()


def test_a_masked_error_is_a_server_error_with_its_request_id() -> None:
    masked = {
        "data": None,
        "errors": [{"message": "Internal error", "extensions": {"requestId": "abc"}}],
    }
    transport, sent = _answers((200, masked))
    client = BrainClient("http://brain", "k", transport=transport)
    with pytest.raises(ServerError) as caught:
        client.lineage("m1")
    assert caught.value.code == "INTERNAL_ERROR"
    assert caught.value.request_id == "req-1"
    assert len(sent) == 1


def test_brain_mcp_without_a_service_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from cli.main import EXIT_USAGE, main

    monkeypatch.delenv("BRAIN_URL", raising=False)
    assert main(["mcp", "--data-dir", str(tmp_path)]) == EXIT_USAGE
    assert "needs a running service" in capsys.readouterr().err
