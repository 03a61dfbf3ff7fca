"""API load benchmark: `brain serve` on loopback, 32 concurrent clients for 60 s.

    python -m bench.api_load [--memories 25000] [--clients 32] [--seconds 60] [--warmup 20]
                             [--conversation ../shared/data/locomo/26.json]
                             [--mix turn=20,context=80] [--out bench/results/api_load.json]

Preloads N synthetic memories into a fresh data directory (in-process, through the durable
write path), or with ``--conversation`` a LoCoMo conversation's turns through ``recordTurn``
(its sessions, speakers and dates), starts `brain serve` on a free loopback port as a child
process (consolidation scheduler off: the request path is measured), creates an API key, then
runs the clients: ``--mix`` says the share of recordTurn, assembleContext and search requests
(default 20 % recordTurn, 80 % assembleContext; issue 41's mix is
``turn=20,context=40,search=40`` on a conversation). The queries are the conversation's
questions (else synthetic sentences) and the turns its own lines again, in new sessions.
Every request loop is bounded by the deadline and the run stops by itself. Reports
throughput, p50/p95/p99 per operation, errors, and the CPU the service and its graph engine
used per request.

The clients first run the same mix for ``--warmup`` seconds, not measured: a fresh graph
engine spends its first minute compiling its hot code (the JVM's JIT compiler took most of a
core then), which a long-running service pays once.
"""

from __future__ import annotations

import argparse
import asyncio
import json
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
SEARCH = """query($input: SearchInput!) {
  search(input: $input) { __typename ... on SearchResults { hits { score } } } }"""
OPERATIONS = {"turn": "recordTurn", "context": "assembleContext", "search": "search"}


def parse_mix(text: str) -> dict[str, float]:
    """``turn=20,context=40,search=40`` → each operation's share (summing to 1)."""
    shares: dict[str, float] = {}
    for part in text.split(","):
        name, _, value = part.partition("=")
        if name.strip() not in OPERATIONS:
            raise argparse.ArgumentTypeError(f"--mix: {name!r} is not one of {sorted(OPERATIONS)}")
        shares[OPERATIONS[name.strip()]] = float(value)
    total = sum(shares.values())
    if total <= 0:
        raise argparse.ArgumentTypeError("--mix: the shares sum to zero")
    return {op: share / total for op, share in shares.items()}


class Material:
    """What the clients send: questions to ask and lines to record as turns."""

    def __init__(self, conversation: Path | None) -> None:
        if conversation is None:
            self.questions = synthetic_texts(2000, seed=11)
            self.lines = synthetic_texts(2000, seed=13)
            return
        from bench.locomo import sessions

        raw = json.loads(conversation.read_text())
        conv = raw.get("conversation", raw)
        self.questions = [str(q["question"]) for q in raw["qa"]]
        self.lines = [t["text"] for _, _, turns in sessions(conv) for t in turns]


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process and its children's threads so far (Linux)."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for p in [pid, *_children(pid)]:
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / ticks
    return total


def _children(pid: int) -> list[int]:
    try:
        found = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return []
    return [int(c) for c in found]


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
            await brain.memories.remember_many(
                "load", [NewMemory(content=t) for t in texts[lo : lo + 500]]
            )
            if lo % 5000 == 0:
                rate = (lo + 500) / (time.perf_counter() - start)
                print(f"  preloaded {lo + 500}/{n} ({rate:.0f}/s)")
    finally:
        await brain.close()


async def preload_conversation(data_dir: Path, conversation: Path) -> None:
    """Every turn of a LoCoMo conversation through ``record_turn`` (the public write path),
    in its sessions with its speakers and dates."""
    from api.brain import Brain
    from bench.locomo import TURN_SPACING_S, sessions
    from core.ingest_types import TurnInput
    from core.settings import Settings

    raw = json.loads(conversation.read_text())
    conv = raw.get("conversation", raw)
    brain = await Brain.open(Settings(data_dir=data_dir))
    try:
        done, start = 0, time.perf_counter()
        for n, at, turns in sessions(conv):
            for i, turn in enumerate(turns):
                said = TurnInput(
                    session_id=f"session-{n}",
                    user_id="u1",
                    speaker=turn["speaker"],
                    content=turn["text"],
                    at=at + i * TURN_SPACING_S,
                )
                await brain.memories.record_turn("load", said)
                done += 1
            print(f"  recorded {done} turns ({done / (time.perf_counter() - start):.0f}/s)")
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
    material: Material,
    mix: dict[str, float],
    samples: dict[str, list[float]],
    errors: dict[str, int],
) -> None:
    rng = random.Random(seed)
    session = f"s{seed}"
    ops, weights = list(mix), list(mix.values())
    while time.monotonic() < deadline:
        op = rng.choices(ops, weights)[0]
        if op == "recordTurn":
            query = RECORD
            turn = {"sessionId": session, "userId": "u1", "content": rng.choice(material.lines)}
            variables: dict[str, Any] = {"input": {**turn, "role": "USER"}}
        elif op == "search":
            query = SEARCH
            variables = {"input": {"query": rng.choice(material.questions), "topK": 10}}
        else:
            query = CONTEXT
            variables = {
                "input": {
                    "sessionId": session,
                    "userId": "u1",
                    "query": rng.choice(material.questions),
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
    material = Material(args.conversation)
    if args.conversation is not None:
        print(f"recording {args.conversation} ...")
        await preload_conversation(data_dir, args.conversation)
    else:
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
            "cli",
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
        samples: dict[str, list[float]] = {op: [] for op in args.mix}
        errors = dict.fromkeys(args.mix, 0)
        warmup_errors = dict.fromkeys(args.mix, 0)  # reported, not measured
        limits = httpx.Limits(max_connections=args.clients)
        headers = {"Authorization": f"Bearer {key}"}
        async with httpx.AsyncClient(
            base_url=url, timeout=60, limits=limits, headers=headers
        ) as http:
            if args.warmup > 0:
                print(f"warming up: {args.clients} clients for {args.warmup}s (not measured) ...")
                warm = time.monotonic() + args.warmup
                unmeasured: dict[str, list[float]] = {op: [] for op in args.mix}
                await asyncio.gather(
                    *(
                        client(http, warm, 1000 + i, material, args.mix, unmeasured, warmup_errors)
                        for i in range(args.clients)
                    )
                )
                print(
                    f"  warm-up: {sum(map(len, unmeasured.values()))} requests, "
                    f"errors {warmup_errors}"
                )
            print(f"running {args.clients} clients for {args.seconds}s ...")
            load_before = os.getloadavg()[0]
            cpu_before = cpu_seconds(proc.pid)
            start = time.monotonic()
            deadline = start + args.seconds
            await asyncio.gather(
                *(
                    client(http, deadline, i, material, args.mix, samples, errors)
                    for i in range(args.clients)
                )
            )
            elapsed = time.monotonic() - start
            cpu_used = cpu_seconds(proc.pid) - cpu_before
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
        "memories": None if args.conversation else args.memories,
        "conversation": str(args.conversation) if args.conversation else None,
        "mix": {op: round(share, 3) for op, share in args.mix.items()},
        # The service's and its graph engine's CPU over the measured window, per request.
        "service_cpu_ms_per_request": round(cpu_used / max(total, 1) * 1000, 1),
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
    p.add_argument("--conversation", type=Path, help="a LoCoMo conversation to record first")
    p.add_argument("--mix", type=parse_mix, default=parse_mix("turn=20,context=80"))
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
    print(f"service + engine CPU per request: {result['service_cpu_ms_per_request']} ms")
    print(f"graph writes retried after a conflict: {result['graph_write_retries']}")
    print(f"load average (1 min) before/after: {result['load_average_1m']}")
    write_json(args.out, result)


if __name__ == "__main__":
    main()
