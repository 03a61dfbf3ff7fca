"""A real `brain serve` process for benchmarks that measure the product's public path.

    async with Service(data_dir, clock=at) as svc:
        key = await svc.tenant_key("acme")
        data = await svc.gql(key, QUERY, var=1)

The service runs on the embedded engines in its own process, on a free loopback port, with a
moved clock when ``clock`` is given (``BRAIN_CLOCK_START``: simulations only). Keys are made
through the API with an admin key that ``brain keys create`` attaches to the running service
once per data directory; restarting on the same directory (a later clock) keeps them.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
_ADMIN_FILE = "bench-admin-key"
_CREATE_KEY = """mutation($tenant: String!) { createApiKey(tenant: $tenant, name: "bench") {
  ... on NewApiKey { key } ... on Error { message } } }"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def iso(at: float) -> str:
    return datetime.fromtimestamp(at, tz=UTC).isoformat()


class GraphQLError(RuntimeError):
    pass


class Service:
    """`brain serve` on ``data_dir``; stopped (SIGTERM, then SIGKILL) on exit."""

    def __init__(
        self,
        data_dir: Path,
        clock: float | None = None,
        env: dict[str, str] | None = None,
        startup_timeout: float = 300.0,
    ) -> None:
        self.data_dir = data_dir
        self.clock = clock
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/graphql"
        self.extra_env = env or {}
        self.startup_timeout = startup_timeout
        self.proc: subprocess.Popen[bytes] | None = None
        self.http = httpx.AsyncClient(timeout=300.0)
        self._keys: dict[str, str] = {}

    async def __aenter__(self) -> Service:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        env = {
            **os.environ,
            "HF_HUB_OFFLINE": "1",
            "BRAIN_LOG_LEVEL": "warning",
            **self.extra_env,
        }
        if self.clock is not None:
            env["BRAIN_CLOCK_START"] = str(self.clock)
        self.log_path = self.data_dir / "serve.log"
        log = self.log_path.open("ab")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "cli", "serve", "--port", str(self.port)]
            + ["--data-dir", str(self.data_dir)],
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
            cwd=ROOT,
        )
        start = time.monotonic()
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"brain serve exited:\n{self.log_path.read_text()[-3000:]}")
            if time.monotonic() - start > self.startup_timeout:
                raise RuntimeError("brain serve did not become ready")
            try:
                if (await self.http.get(self.url.replace("/graphql", "/healthz"))).is_success:
                    break
            except httpx.TransportError:
                pass
            await asyncio.sleep(0.5)
        self.startup_s = time.monotonic() - start
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.http.aclose()
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=120)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    async def gql(self, key: str, query: str, **variables: Any) -> dict[str, Any]:
        """The ``data`` of one request; raises GraphQLError on errors."""
        resp = await self.http.post(
            self.url,
            json={"query": query, "variables": variables},
            headers={"Authorization": f"Bearer {key}"},
        )
        body = resp.json()
        if resp.status_code != 200 or body.get("errors"):
            raise GraphQLError(json.dumps(body)[:2000])
        data: dict[str, Any] = body["data"]
        return data

    def admin_key(self) -> str:
        """An admin key for this data directory, made once by the CLI (attached to the
        running service) and kept beside the data, 0600."""
        path = self.data_dir / _ADMIN_FILE
        if path.exists():
            return path.read_text().strip()
        made = subprocess.run(
            [sys.executable, "-m", "cli", "keys", "create", "--tenant", "bench-ops"]
            + ["--admin", "--data-dir", str(self.data_dir)],
            capture_output=True,
            text=True,
            env={**os.environ, "HF_HUB_OFFLINE": "1"},
            cwd=ROOT,
            timeout=300,
        )
        if made.returncode != 0:
            raise RuntimeError(f"brain keys create failed: {made.stderr[-2000:]}")
        key = made.stdout.strip().splitlines()[-1]
        path.write_text(key)
        path.chmod(0o600)
        return key

    async def tenant_key(self, tenant: str) -> str:
        """A key of ``tenant`` (made through the API; kept beside the data for restarts)."""
        path = self.data_dir / f"bench-key-{tenant}"
        if path.exists():
            return path.read_text().strip()
        data = await self.gql(self.admin_key(), _CREATE_KEY, tenant=tenant)
        key = str(data["createApiKey"]["key"])
        path.write_text(key)
        path.chmod(0o600)
        return key
