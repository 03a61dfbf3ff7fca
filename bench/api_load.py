"""API load benchmark: `brain serve` on loopback, 32 concurrent clients for 60 s.

    python -m bench.api_load [--memories 25000] [--clients 32] [--seconds 60] [--warmup 20]
                             [--out bench/results/api_load.json]

Preloads N memories into a fresh data directory (in-process, through the durable write path),
starts `brain serve` on a free loopback port as a child process (consolidation scheduler off:
the request path is measured), creates an API key, then runs the clients: 20 % recordTurn,
80 % assembleContext. Every request loop is bounded by the
deadline and the run stops by itself. Reports throughput, p50/p95/p99 per operation, errors.

The clients first run the same mix for ``--warmup`` seconds, not measured: a fresh graph
engine spends its first minute compiling its hot code (the JVM's JIT compiler took most of a
core then), which a long-running service pays once.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from bench.common import machine, percentiles, synthetic_texts, write_json

RECORD = """mutation($input: RecordTurnInput!) { recordTurn(input: $input) { __typename } }"""
CONTEXT = """query($input: AssembleContextInput!) {
  assembleContext(input: $input) { __typename ... on Context { totalTokens } } }"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _retries(metrics: str) -> dict[str, int]:
    """``brain_graph_write_retries_total`` by statement, from the /metrics text."""
    out: dict[str, int] = {}
    for line in metrics.splitlines():
        if line.startswith('brain_graph_write_retries_total{statement="'):
            labels, value = line.rsplit(" ", 1)
            out[labels.split('"')[1]] = int(float(value))
    return out


async def preload(data_dir: Path, n: int) -> None:
    from api.brain import Brain
    from core.settings import Settings
    from core.types import NewMemory

    brain = await Brain.open(Settings(data_dir=data_dir))
    try:
        texts = synthetic_texts(n)
        start = time.perf_counter()
        for lo in range(0, n, 500):
            await brain.remember_many("load", [NewMemory(content=t) for t in texts[lo : lo + 500]])
            if lo % 5000 == 0:
                rate = (lo + 500) / (time.perf_counter() - start)
                print(f"  preloaded {lo + 500}/{n} ({rate:.0f}/s)")
    finally:
        await brain.close()


async def make_key(data_dir: Path) -> str:
    from api.auth import create_key
    from core.settings import Settings
    from graph.runtime import open_graph

    runtime = await open_graph(Settings(data_dir=data_dir), attach=True)
    try:
        return (await create_key(runtime.store, "load", name="bench"))[1]
    finally:
        await runtime.close()


async def client(
    http: httpx.AsyncClient,
    deadline: float,
    seed: int,
    samples: dict[str, list[float]],
    errors: dict[str, int],
) -> None:
    rng = random.Random(seed)
    questions = synthetic_texts(200, seed=seed)
    session = f"s{seed}"
    while time.monotonic() < deadline:
        if rng.random() < 0.2:
            op, query = "recordTurn", RECORD
            variables: dict[str, Any] = {
                "input": {
                    "sessionId": session,
                    "userId": "u1",
                    "role": "USER",
                    "content": rng.choice(questions),
                }
            }
        else:
            op, query = "assembleContext", CONTEXT
            variables = {
                "input": {
                    "sessionId": session,
                    "userId": "u1",
                    "query": rng.choice(questions),
                    "tokenBudget": 2000,
                }
            }
        start = time.perf_counter()
        try:
            resp = await http.post("/graphql", json={"query": query, "variables": variables})
            body = resp.json()
            ok = resp.status_code == 200 and not body.get("errors")
            ok = ok and next(iter(body["data"].values()))["__typename"] not in (
                "InvalidInputError",
                "ForbiddenError",
                "NotFoundError",
            )
        except (httpx.HTTPError, ValueError):
            ok = False
        samples[op].append((time.perf_counter() - start) * 1000)
        if not ok:
            errors[op] += 1


async def run(args: argparse.Namespace, data_dir: Path) -> dict[str, Any]:
    print(f"preloading {args.memories} memories ...")
    await preload(data_dir, args.memories)
    port = _free_port()
    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "BRAIN_API__LOG_FORMAT": "text",
        "BRAIN_LOG_LEVEL": "warning",
        # The request path is measured: the consolidation scheduler's first runs over a
        # fresh 25,000-memory tenant (duplicates, re-profiling, ...) would share the cores.
        "BRAIN_LIFECYCLE__SCHEDULER": "false",
    }
    log = (data_dir / "serve.log").open("w")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "api.cli",
            "serve",
            "--port",
            str(port),
            "--data-dir",
            str(data_dir),
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        async with httpx.AsyncClient(base_url=url, timeout=30) as probe:
            for _ in range(600):
                try:
                    if (await probe.get("/healthz")).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                await asyncio.sleep(0.5)
            else:
                raise RuntimeError("server did not start: see " + log.name)
        key = await make_key(data_dir)
        samples: dict[str, list[float]] = {"recordTurn": [], "assembleContext": []}
        errors = {"recordTurn": 0, "assembleContext": 0}
        warmup_errors = {"recordTurn": 0, "assembleContext": 0}  # reported, not measured
        limits = httpx.Limits(max_connections=args.clients)
        headers = {"Authorization": f"Bearer {key}"}
        async with httpx.AsyncClient(
            base_url=url, timeout=60, limits=limits, headers=headers
        ) as http:
            if args.warmup > 0:
                print(f"warming up: {args.clients} clients for {args.warmup}s (not measured) ...")
                warm = time.monotonic() + args.warmup
                unmeasured: dict[str, list[float]] = {"recordTurn": [], "assembleContext": []}
                await asyncio.gather(
                    *(
                        client(http, warm, 1000 + i, unmeasured, warmup_errors)
                        for i in range(args.clients)
                    )
                )
                print(
                    f"  warm-up: {sum(map(len, unmeasured.values()))} requests, "
                    f"errors {warmup_errors}"
                )
            print(f"running {args.clients} clients for {args.seconds}s ...")
            load_before = os.getloadavg()[0]
            start = time.monotonic()
            deadline = start + args.seconds
            await asyncio.gather(
                *(client(http, deadline, i, samples, errors) for i in range(args.clients))
            )
            elapsed = time.monotonic() - start
            # Graph write transactions the driver ran again after a write conflict, by their
            # first statement: each one cost its request a backoff and the transaction again.
            retries = _retries((await http.get("/metrics")).text)
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(60)
        log.close()
    total = sum(len(v) for v in samples.values())
    return {
        "machine": machine(),
        "memories": args.memories,
        "clients": args.clients,
        "seconds": round(elapsed, 1),
        "warmup_seconds": args.warmup,
        "warmup_errors": warmup_errors,
        "requests": total,
        "throughput_rps": round(total / elapsed, 1),
        "errors": errors,
        "latency": {op: percentiles(v) for op, v in samples.items() if v},
        "graph_write_retries": retries,
        # 1-minute load average before the clients start and when they stop: the server,
        # the clients and the graph engine share the machine's 2 cores (and any other work).
        "load_average_1m": [round(load_before, 2), round(os.getloadavg()[0], 2)],
    }


def main() -> None:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--memories", type=int, default=25_000)
    p.add_argument("--clients", type=int, default=32)
    p.add_argument("--seconds", type=float, default=60.0)
    p.add_argument(
        "--warmup", type=float, default=20.0, help="seconds of unmeasured load first (0: none)"
    )
    p.add_argument("--out", type=Path, default=Path("bench/results/api_load.json"))
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="brain-load-") as tmp:
        result = asyncio.run(run(args, Path(tmp)))
    print(f"\n{'operation':<18}{'n':>8}{'p50 ms':>10}{'p95 ms':>10}{'p99 ms':>10}{'errors':>8}")
    for op, lat in result["latency"].items():
        print(
            f"{op:<18}{lat['n']:>8}{lat['p50_ms']:>10}{lat['p95_ms']:>10}{lat['p99_ms']:>10}"
            f"{result['errors'][op]:>8}"
        )
    print(f"throughput: {result['throughput_rps']} requests/s")
    print(f"graph writes retried after a conflict: {result['graph_write_retries']}")
    print(f"load average (1 min) before/after: {result['load_average_1m']}")
    write_json(args.out, result)


if __name__ == "__main__":
    main()
