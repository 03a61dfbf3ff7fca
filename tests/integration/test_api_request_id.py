"""Every response carries X-Request-Id; a masked error carries the same id, so a user can
quote it and an operator can find the logged failure."""

from __future__ import annotations

import logging

import pytest

from api.auth import create_key
from api.brain import Brain
from core.errors import BackendError, EngineUnavailable
from tests.integration.api_client import Client

pytestmark = pytest.mark.integration


@pytest.fixture
async def admin(brain: Brain, tenant_id: str) -> Client:
    _, key = await create_key(brain.graph, tenant_id, admin=True)
    return Client(brain, key)


async def test_every_response_has_a_request_id(admin: Client) -> None:
    ids = set()
    for method, path, body in (
        ("POST", "/graphql", {"query": "{ health { ok } }"}),
        ("POST", "/graphql", {"query": "{ nonsense }"}),  # a validation error
        ("GET", "/healthz", None),
        ("GET", "/metrics", None),
        ("GET", "/nowhere", None),  # 404
    ):
        resp = await admin.http.request(method, path, json=body, headers=admin.headers)
        request_id = resp.headers["x-request-id"]
        assert len(request_id) == 16, (path, resp.headers)
        ids.add(request_id)
    assert len(ids) == 5  # one per request
    big = await admin.http.post("/graphql", content=b"x" * 3_000_000, headers=admin.headers)
    assert big.status_code == 413 and big.headers["x-request-id"]
    kept = await admin.http.get("/healthz", headers={"X-Request-Id": "gateway-42"})
    assert kept.headers["x-request-id"] == "gateway-42"
    odd = await admin.http.get("/healthz", headers={"X-Request-Id": "not plain!"})
    assert odd.headers["x-request-id"] != "not plain!"


async def test_a_masked_error_quotes_the_response_header(
    admin: Client, brain: Brain, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    async def engine_fault() -> list[str]:  # an unexpected failure below the facade
        raise RuntimeError("engine fault")

    monkeypatch.setattr(brain.graph.system, "tenants", engine_fault)
    with caplog.at_level(logging.ERROR):
        resp = await admin.post({"query": "{ tenants { __typename } }"})
    (error,) = resp.json()["errors"]
    assert error["message"] == "Internal error" and "engine fault" not in resp.text
    assert error["extensions"]["requestId"] == resp.headers["x-request-id"]
    logged = [r for r in caplog.records if r.getMessage().endswith("failed")]
    assert logged and resp.headers["x-request-id"] in logged[0].getMessage()


@pytest.mark.parametrize(
    ("error", "code", "level"),
    [
        (BackendError, "BACKEND_ERROR", logging.ERROR),
        (EngineUnavailable, "ENGINE_UNAVAILABLE", logging.WARNING),
    ],
)
async def test_a_storage_failure_keeps_its_code_not_the_drivers_text(
    admin: Client,
    brain: Brain,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    error: type[BackendError],
    code: str,
    level: int,
) -> None:
    """The driver's text names the engine's address and internals: the client gets the code
    (retry on ENGINE_UNAVAILABLE) and the request id; the log gets the text."""
    driver = (
        "graph read failed: Failed to read from defunct connection IPv4Address(('10.0.0.7', 7687))"
    )

    async def failing() -> list[str]:
        raise error(driver)

    monkeypatch.setattr(brain.graph.system, "tenants", failing)
    with caplog.at_level(logging.WARNING):
        resp = await admin.post({"query": "{ tenants { __typename } }"})
    (answer,) = resp.json()["errors"]
    assert answer["extensions"]["code"] == code
    assert answer["extensions"]["requestId"] == resp.headers["x-request-id"]
    assert "10.0.0.7" not in resp.text and "defunct" not in resp.text
    assert answer["message"] and answer["message"] != "Internal error"
    logged = [r for r in caplog.records if resp.headers["x-request-id"] in r.getMessage()]
    assert logged and logged[0].levelno == level
    assert "10.0.0.7" in (
        logged[0].getMessage() + str(logged[0].exc_info and logged[0].exc_info[1])
    )
