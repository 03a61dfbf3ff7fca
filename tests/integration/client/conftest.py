"""One real `brain serve` for the client and MCP tests (a process on loopback, its own data
directory), and a key for a fresh tenant made by `brain keys create`, which attaches to it."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


@dataclass(frozen=True)
class Service:
    url: str  # the base URL, http://127.0.0.1:PORT
    key: str  # a key of the tenant "clients"


def brain_command(*args: str) -> list[str]:
    """`brain ARGS` run from this tree."""
    return [sys.executable, "-m", "cli", *args]


def brain_env() -> dict[str, str]:
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    return {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": path}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="package")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    tmp = tmp_path_factory.mktemp("client-serve")
    port, data = free_port(), tmp / "data"
    err = tmp / "serve.err"
    proc = subprocess.Popen(
        brain_command("serve", "--port", str(port), "--data-dir", str(data)),
        stdout=subprocess.DEVNULL,
        stderr=err.open("w"),
        env=brain_env(),
        cwd=ROOT,
    )
    try:
        deadline = time.monotonic() + 240
        while "ready at" not in err.read_text():
            assert proc.poll() is None, f"serve exited early:\n{err.read_text()}"
            assert time.monotonic() < deadline, "serve did not become ready"
            time.sleep(0.5)
        created = subprocess.run(
            brain_command("keys", "create", "--tenant", "clients", "--data-dir", str(data)),
            capture_output=True,
            text=True,
            env=brain_env(),
            cwd=ROOT,
            timeout=120,
        )
        assert created.returncode == 0, created.stderr
        yield Service(f"http://127.0.0.1:{port}", created.stdout.strip().splitlines()[-1])
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()
