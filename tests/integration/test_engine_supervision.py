"""The service survives its graph engine (issue 23): kill -9 of the embedded ArcadeDB under
write load. Requests during the gap fail at once with a typed error, /healthz answers 503 at
once, the engine is restarted on its own, no acknowledged write is lost, and /metrics counts
the restart. Its own engine and data directory: the session's engine is not touched."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from api.auth import create_key
from api.brain import Brain
from core.settings import GraphSettings, LifecycleSettings, Settings
from tests.integration.api_client import Client

pytestmark = [pytest.mark.integration, pytest.mark.slow]

REMEMBER = """mutation($content: String!) { remember(input: {content: $content, type: FACT}) {
  __typename ... on Memory { id } } }"""
TENANT = "supervised"


@dataclass
class Load:
    acked: dict[str, str] = field(default_factory=dict)  # memory id -> content
    failures: list[tuple[float, float, str]] = field(default_factory=list)  # start, s, code
    stop: bool = False


@pytest.fixture
async def own_brain(tmp_path: Path) -> AsyncIterator[Brain]:
    settings = Settings(
        data_dir=tmp_path,
        graph=GraphSettings(heap="256m", restart_backoff=0.2),
        lifecycle=LifecycleSettings(scheduler=False),
    )
    brain = await Brain.open(settings)
    try:
        yield brain
    finally:
        await brain.close()


async def _writer(client: Client, load: Load, worker: int) -> None:
    i = 0
    while not load.stop:
        content = f"Crate {worker}-{i} is stored on shelf {worker * 1000 + i}"
        i += 1
        start = time.monotonic()
        resp = await client.post({"query": REMEMBER, "variables": {"content": content}})
        body = resp.json()
        if body.get("data") and body["data"]["remember"]:
            load.acked[body["data"]["remember"]["id"]] = content
            continue
        code = (body.get("errors") or [{}])[0].get("extensions", {}).get("code", "?")
        load.failures.append((start, time.monotonic() - start, code))
        await asyncio.sleep(0.02)


FAST = 3.0  # seconds: a failing request or a 503 takes less than this


async def test_killed_engine_fails_fast_restarts_and_loses_no_acknowledged_write(
    own_brain: Brain,
) -> None:
    brain = own_brain
    supervisor = brain.engine_supervisor
    assert supervisor is not None and supervisor.engine.process is not None
    _, key = await create_key(brain.graph, TENANT)
    client = Client(brain, key)
    # The app's lifespan runs as under uvicorn (it counted the engine's exits and restarts a
    # second time when given a brain: issue 43, item 7).
    async with client.app.router.lifespan_context(client.app):
        await _kill_under_load(brain, client)


async def _kill_under_load(brain: Brain, client: Client) -> None:
    supervisor = brain.engine_supervisor
    assert supervisor is not None and supervisor.engine.process is not None
    load = Load()
    writers = [asyncio.create_task(_writer(client, load, w)) for w in range(4)]
    try:
        await asyncio.sleep(1.5)
        before = len(load.acked)
        assert before > 0 and not load.failures

        old_pid = supervisor.engine.process.pid
        killed = time.monotonic()
        os.kill(old_pid, signal.SIGKILL)
        health: list[tuple[int, float]] = []  # status, seconds
        while True:
            start = time.monotonic()
            resp = await client.http.get("/healthz")
            health.append((resp.status_code, time.monotonic() - start))
            if resp.status_code == 200 and len(health) > 1:
                break
            assert time.monotonic() - killed < brain.settings.graph.startup_timeout
            await asyncio.sleep(0.05)
        resumed = time.monotonic() - killed
        await asyncio.sleep(1.0)  # writes go through again
    finally:
        load.stop = True
        await asyncio.gather(*writers)

    print(
        f"engine killed under load: {len(load.failures)} requests failed in the gap"
        f" (slowest {max(s for _, s, _ in load.failures):.3f} s), service back after"
        f" {resumed:.1f} s, {len(load.acked)} writes acknowledged"
    )
    # The gap: every request failed fast with the typed error, /healthz said 503 fast.
    assert load.failures, "no request met the gap"
    assert {code for _, _, code in load.failures} == {"ENGINE_UNAVAILABLE"}
    # Fast is under a second on a quiet machine (see the printed figure); the bound leaves
    # room for a loaded CI machine and still fails the 37-46 s hangs this guards against.
    assert max(seconds for _, seconds, _ in load.failures) < FAST
    assert any(status == 503 for status, _ in health)
    assert max(seconds for status, seconds in health if status == 503) < FAST
    # It came back on its own, as a new process, and took writes again.
    process = supervisor.engine.process
    assert supervisor.restarts == 1 and process is not None and process.pid != old_pid
    assert resumed < brain.settings.graph.startup_timeout
    assert not [f for f in load.failures if f[0] > killed + resumed]
    assert len(load.acked) > before
    # No acknowledged write lost: each one is in the graph, indexed, with its vector.
    stored = await brain.memories.get_many(TENANT, list(load.acked))
    assert set(stored) == set(load.acked)
    assert all(stored[i].content == content for i, content in load.acked.items())
    assert all(m.indexed for m in stored.values())
    assert set(await brain.index.retrieve(TENANT, list(load.acked))) == set(load.acked)
    metrics = (await client.http.get("/metrics")).text
    assert re.search(r"^brain_graph_engine_restarts_total 1\.0$", metrics, re.M)
    assert re.search(r"^brain_graph_engine_exits_total 1\.0$", metrics, re.M)
    assert re.search(r"^brain_graph_up 1\.0$", metrics, re.M)

    # Issue 43, item 4: the engine dies after /healthz's ping answered, before the index lag
    # is read: 503 (it was a 500 with a traceback).
    pid = process.pid
    observed = brain.graph.observer

    def kill_after_ping(name: str, seconds: float) -> None:
        if observed is not None:
            observed(name, seconds)
        if name == "ping" and Path(f"/proc/{pid}").exists():
            os.kill(pid, signal.SIGKILL)

    brain.graph.observer = kill_after_ping
    try:
        resp = await client.http.get("/healthz")
    finally:
        brain.graph.observer = observed
    assert resp.status_code == 503, resp.text
    assert resp.json()["ok"] is False and resp.json()["engines"]["graph"] is False
    killed = time.monotonic()
    while (await client.http.get("/healthz")).status_code != 200:
        assert time.monotonic() - killed < brain.settings.graph.startup_timeout
        await asyncio.sleep(0.1)
    metrics = (await client.http.get("/metrics")).text
    assert re.search(r"^brain_graph_engine_restarts_total 2\.0$", metrics, re.M), metrics
    assert re.search(r"^brain_graph_engine_exits_total 2\.0$", metrics, re.M)
