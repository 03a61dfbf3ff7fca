"""`brain serve --demo` as a real process on loopback: the `make run` path end to end."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

pytestmark = [pytest.mark.integration, pytest.mark.slow]

SEARCH = (
    '{ search(input: {query: "who writes for WOBS?", topK: 2}) '
    "{ ... on SearchResults { hits { memory { content } } } } }"
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _brain(*args: str) -> list[str]:
    return [sys.executable, "-m", "api.cli", *args]


def test_serve_demo_then_keys_create_attaches(tmp_path: Path) -> None:
    port = _free_port()
    # Every job every 5 s: a new tenant's jobs wait for their first interval.
    intervals = {job: 5.0 for job in ("promote_working", "merge_duplicates", "compress_episodes",
                                      "decay", "prune", "reprofile", "reconcile")}  # fmt: skip
    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "BRAIN_LIFECYCLE__INTERVALS": json.dumps(intervals),
        "BRAIN_LIFECYCLE__TICK_SECONDS": "1",
    }
    log = (tmp_path / "serve.log").open("w+")
    proc = subprocess.Popen(
        _brain("serve", "--demo", "--port", str(port), "--data-dir", str(tmp_path / "data")),
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
        cwd=Path(__file__).resolve().parents[2],
    )
    try:
        deadline = time.monotonic() + 180
        text = ""
        while "ready at" not in text:
            assert proc.poll() is None, f"serve exited early:\n{Path(log.name).read_text()}"
            assert time.monotonic() < deadline, "serve did not become ready"
            time.sleep(0.5)
            text = Path(log.name).read_text()
        key = next(line.split()[-1] for line in text.splitlines() if "API key" in line)
        url = f"http://127.0.0.1:{port}/graphql"
        assert f"ready at {url}" in text and "curl -s" in text
        # The models are loaded and frozen out of the collector before serving (core/heap.py).
        frozen = re.search(r"start-up heap frozen \((\d+) objects\)", text)
        assert frozen is not None and int(frozen.group(1)) > 100_000

        hits = httpx.post(
            url, json={"query": SEARCH}, headers={"Authorization": f"Bearer {key}"}
        ).json()
        contents = [h["memory"]["content"] for h in hits["data"]["search"]["hits"]]
        assert contents[0] == "Peter is one of our writers at WOBS."

        created = subprocess.run(
            _brain("keys", "create", "--tenant", "acme", "--data-dir", str(tmp_path / "data")),
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
            cwd=Path(__file__).resolve().parents[2],
        )
        assert created.returncode == 0, created.stderr
        acme_key = created.stdout.strip().splitlines()[-1]
        assert acme_key.startswith("brn_")
        empty = httpx.post(
            url, json={"query": SEARCH}, headers={"Authorization": f"Bearer {acme_key}"}
        ).json()
        assert empty["data"]["search"]["hits"] == []  # acme cannot see the demo tenant

        bad = subprocess.run(
            _brain(
                "keys", "create", "--tenant", "bad tenant!", "--data-dir", str(tmp_path / "data")
            ),
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
            cwd=Path(__file__).resolve().parents[2],
        )
        assert bad.returncode == 2 and "tenant names" in bad.stderr

        # The scheduler leads and consolidates the demo tenant once its first interval passed.
        runs_query = {
            "query": "{ jobRuns { ... on JobRunConnection { edges { node { trigger status } } } } }"
        }
        for _ in range(240):
            runs = httpx.post(url, json=runs_query, headers={"Authorization": f"Bearer {key}"})
            edges = runs.json()["data"]["jobRuns"]["edges"]
            if len([e for e in edges if e["node"]["status"] == "DONE"]) >= 7:
                break
            time.sleep(0.5)
        assert {e["node"]["trigger"] for e in edges} == {"scheduler"}, edges
        done = [e for e in edges if e["node"]["status"] == "DONE"]
        assert len(done) >= 7 and {e["node"]["status"] for e in edges} <= {"DONE", "RUNNING"}
    finally:
        proc.send_signal(signal.SIGINT)
        code = proc.wait(60)
    assert code == 0, Path(log.name).read_text()[-2000:]
    assert "Application shutdown complete" in Path(log.name).read_text()
    assert not (tmp_path / "data" / "graph" / "engine.json").exists()
