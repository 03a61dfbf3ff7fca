"""Concurrent writers on one tenant (issue 43, item 3): `brain serve` on loopback, N clients
writing to one tenant for a while, every request timed.

    python -m bench.writers [--turns 12] [--supersedes 4] [--seconds 60] [--warmup 15]
                            [--out bench/results/writers.json]

``--turns`` clients each send ``recordTurn`` in a session of their own, about a few people and
organisations all of them share (so their turns link the same entities and correct the same
statements: "Peter's role is now ..."); ``--supersedes`` clients each ``remember`` a fact and
then ``supersede`` it over and over. The bar: 16 writers for 60 s, recordTurn p99 <= 1 s and
no error. Reports p50/p95/p99/max per operation, errors by code, and the graph write
transactions retried after a conflict, by their first statement (from /metrics).
"""

from __future__ import annotations

import argparse
import asyncio
import contextvars
import os
import random
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

from bench.common import machine, percentiles, write_json
from bench.service import Service

TURN = """mutation($input: RecordTurnInput!) { recordTurn(input: $input) {
  __typename ... on Error { code message } } }"""
REMEMBER = """mutation($c: String!) { remember(input: {content: $c, type: FACT}) {
  __typename ... on Memory { id } ... on Error { code message } } }"""
SUPERSEDE = """mutation($id: ID!, $c: String!) { supersede(id: $id, input: {content: $c}) {
  __typename ... on Memory { id } ... on Error { code message } } }"""

URL: contextvars.ContextVar[str] = contextvars.ContextVar("url")
PEOPLE = ["Peter", "Maria Lopez", "Tom Baker", "Ada Klein"]
ORGS = ["WOBS", "Globex", "Initech"]
ROLES = ["editor", "writer", "accountant", "designer", "manager"]
PLACES = ["Berlin", "Lisbon", "Oslo", "Madrid"]


def turn_text(rng: random.Random, n: int) -> str:
    person, org = rng.choice(PEOPLE), rng.choice(ORGS)
    return rng.choice(
        [
            f"{person} from {org} is now our {rng.choice(ROLES)}.",
            f"{person} moved to {rng.choice(PLACES)} last week.",
            f"I met {person} at {org} today; we talked about order {1000 + n}.",
            f"Actually {person}'s role is {rng.choice(ROLES)}, not what I said.",
            f"Remind me to send {person} the {org} contract by Friday.",
            f"The deploy target is {rng.choice(['staging', 'production', 'AWS', 'Hetzner'])}.",
        ]
    )


async def _post(
    http: httpx.AsyncClient, query: str, **variables: Any
) -> tuple[dict[str, Any], str]:
    """The field's result and an error code ('' when it worked)."""
    try:
        resp = await http.post(URL.get(), json={"query": query, "variables": variables})
        body = resp.json()
    except (httpx.HTTPError, ValueError) as e:
        return {}, type(e).__name__
    if body.get("errors"):
        return {}, str(body["errors"][0].get("extensions", {}).get("code", "ERROR"))
    result = next(iter(body["data"].values()))
    return result, result.get("code", "") if "code" in result else ""


async def turns(
    http: httpx.AsyncClient,
    until: float,
    worker: int,
    out: dict[str, list[float]],
    errors: Counter[str],
) -> None:
    rng = random.Random(worker)
    n = 0
    while time.monotonic() < until:
        n += 1
        turn = {"sessionId": f"w{worker}", "userId": f"u{worker % 4}", "content": turn_text(rng, n)}
        start = time.perf_counter()
        _, code = await _post(http, TURN, input=turn)
        out["recordTurn"].append((time.perf_counter() - start) * 1000)
        if code:
            errors[f"recordTurn:{code}"] += 1


async def supersedes(
    http: httpx.AsyncClient,
    until: float,
    worker: int,
    out: dict[str, list[float]],
    errors: Counter[str],
) -> None:
    rng = random.Random(1000 + worker)
    current = ""
    n = 0
    while time.monotonic() < until:
        n += 1
        text = f"Warehouse {worker} ships order {n} from {rng.choice(PLACES)}."
        start = time.perf_counter()
        if current:
            result, code = await _post(http, SUPERSEDE, id=current, c=text)
            op = "supersede"
        else:
            result, code = await _post(http, REMEMBER, c=text)
            op = "remember"
        out[op].append((time.perf_counter() - start) * 1000)
        if code:
            errors[f"{op}:{code}"] += 1
            current = ""
        else:
            current = result.get("id", "")


def _retries(metrics: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for line in metrics.splitlines():
        if line.startswith('brain_graph_write_retries_total{statement="'):
            labels, value = line.rsplit(" ", 1)
            out[labels.split('"')[1]] = int(float(value))
    return out


async def run(args: argparse.Namespace, data: Path) -> dict[str, Any]:
    env = {"BRAIN_LIFECYCLE__SCHEDULER": "false"}
    async with Service(data, env=env) as svc:
        key = await svc.tenant_key("acme")
        headers = {"Authorization": f"Bearer {key}"}
        limits = httpx.Limits(max_connections=args.turns + args.supersedes)
        URL.set(svc.url)
        async with httpx.AsyncClient(timeout=120, headers=headers, limits=limits) as http:

            async def phase(seconds: float) -> tuple[dict[str, list[float]], Counter[str]]:
                out: dict[str, list[float]] = {"recordTurn": [], "remember": [], "supersede": []}
                errors: Counter[str] = Counter()
                until = time.monotonic() + seconds
                await asyncio.gather(
                    *(turns(http, until, w, out, errors) for w in range(args.turns)),
                    *(supersedes(http, until, w, out, errors) for w in range(args.supersedes)),
                )
                return out, errors

            if args.warmup:
                print(f"warming up {args.warmup} s (not measured) ...")
                _, warm_errors = await phase(args.warmup)
                print(f"  warm-up errors: {dict(warm_errors)}")
            before = _retries((await http.get(svc.url.replace("/graphql", "/metrics"))).text)
            load = os.getloadavg()[0]
            print(
                f"{args.turns} turn + {args.supersedes} supersede writers for {args.seconds} s ..."
            )
            out, errors = await phase(args.seconds)
            after = _retries((await http.get(svc.url.replace("/graphql", "/metrics"))).text)
        failed = [
            line
            for line in svc.log_path.read_text(errors="replace").splitlines()
            if '"level": "error"' in line and '"msg": ' in line
        ]
        logged = Counter(line.split('"msg": ')[1][:100] for line in failed)
        tracebacks = [line for line in failed if '"exc": ' in line][:3]
    retries = {k: v - before.get(k, 0) for k, v in after.items() if v - before.get(k, 0)}
    return {
        "machine": machine(),
        "writers": {"turns": args.turns, "supersedes": args.supersedes},
        "seconds": args.seconds,
        "latency": {
            op: {**percentiles(v), "max_ms": round(max(v), 1)} for op, v in out.items() if v
        },
        "errors": dict(errors),
        "graph_write_retries": retries,
        "logged_errors": dict(logged.most_common(10)),
        "logged_tracebacks": tracebacks,  # whole: an intermittent failure can be read after
        "load_average_1m": [round(load, 2), round(os.getloadavg()[0], 2)],
    }


def main() -> None:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--turns", type=int, default=12)
    p.add_argument("--supersedes", type=int, default=4)
    p.add_argument("--seconds", type=float, default=60.0)
    p.add_argument("--warmup", type=float, default=15.0)
    p.add_argument("--out", type=Path, default=Path("bench/results/writers.json"))
    p.add_argument(
        "--data", type=Path, help="a fresh data directory to keep (default: a temporary one)"
    )
    args = p.parse_args()
    if args.data is not None:  # kept, with the service's log (data/serve.log)
        result = asyncio.run(run(args, args.data))
    else:
        with tempfile.TemporaryDirectory(prefix="brain-writers-") as tmp:
            result = asyncio.run(run(args, Path(tmp) / "data"))
    print(f"\n{'operation':<12}{'n':>7}{'p50 ms':>10}{'p95 ms':>10}{'p99 ms':>10}{'max ms':>10}")
    for op, lat in result["latency"].items():
        print(
            f"{op:<12}{lat['n']:>7}{lat['p50_ms']:>10}{lat['p95_ms']:>10}{lat['p99_ms']:>10}"
            f"{lat['max_ms']:>10}"
        )
    print(f"errors: {result['errors']}")
    print(f"graph writes retried after a conflict: {result['graph_write_retries']}")
    print(f"errors in the service's log: {result['logged_errors']}")
    print(f"load average (1 min) before/after: {result['load_average_1m']}")
    write_json(args.out, result)


if __name__ == "__main__":
    main()
