"""Hostile GraphQL documents: what checking them costs, and whether the service keeps answering.

    python -m bench.query_guard [--seconds 10] [--attackers 4]
                                [--out bench/results/query_guard.json]

1. In process: the time strawberry's depth and alias limiters (the validators before issue 43)
   took on the fan-out document ``F0 { ...F1 ...F1 } ... F<k> { health { ok } }`` for growing
   k (it doubles with each level), beside the time ``api.gql.cost.check_cost`` takes on the
   same documents and on the issue's 920-byte (k = 22) and 20-way ones.
2. Against `brain serve` on loopback: ``{ __typename }`` probes (one at a time, 10 ms apart)
   for ``--seconds`` alone, then for ``--seconds`` while ``--attackers`` clients send the
   attacks without pause, each as a new text (the document cache does not help). Reports the
   probes' latency in both phases and the attacks' answer times and error codes.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
from graphql import parse, validate
from strawberry.extensions.max_aliases import create_validator as max_aliases_rule
from strawberry.extensions.query_depth_limiter import create_validator as max_depth_rule

from api.gql.cost import CostLimits, check_cost
from api.gql.schema import build_schema
from bench.common import machine, percentiles, write_json
from bench.service import Service


def fan_out(levels: int, width: int = 2) -> str:
    spreads = [
        f"fragment F{i} on Query {{ {' '.join([f'...F{i + 1}'] * width)} }}" for i in range(levels)
    ]
    last = f"fragment F{levels} on Query {{ health {{ ok }} }}"
    return " ".join(["query { ...F0 }", *spreads, last])


ATTACKS = {
    "fan_out_22x2": fan_out(22, 2),
    "fan_out_19x20": fan_out(19, 20),
    "cycle": "query { ...A } fragment A on Query { health { ok } ...B }"
    " fragment B on Query { ...A }",
    "repeated_fields_400": "{" + " health { ok }" * 400 + " }",
}


def in_process() -> dict[str, Any]:
    schema = build_schema()._schema
    old_rules = [max_depth_rule(12, None), max_aliases_rule(30)]
    rows = []
    for levels in (12, 14, 16, 18):
        doc = parse(fan_out(levels))
        start = time.perf_counter()
        validate(schema, doc, old_rules)
        old_ms = (time.perf_counter() - start) * 1000
        start = time.perf_counter()
        check_cost(doc, CostLimits())
        new_ms = (time.perf_counter() - start) * 1000
        rows.append(
            {"levels": levels, "old_limiters_ms": round(old_ms, 2), "cost_ms": round(new_ms, 3)}
        )
        print(
            f"  fan-out {levels} levels: old limiters {old_ms:9.1f} ms, cost check {new_ms:.3f} ms"
        )
    attacks = {}
    for name, text in ATTACKS.items():
        doc = parse(text)
        start = time.perf_counter()
        errors = check_cost(doc, CostLimits())
        ms = (time.perf_counter() - start) * 1000
        attacks[name] = {"bytes": len(text), "cost_ms": round(ms, 3), "error": errors[0].message}
        print(f"  {name}: {len(text)} bytes, cost check {ms:.3f} ms: {errors[0].message}")
    return {"fan_out": rows, "attacks": attacks}


async def probe_loop(http: httpx.AsyncClient, url: str, until: float) -> list[float]:
    out = []
    while time.monotonic() < until:
        start = time.perf_counter()
        resp = await http.post(url, json={"query": "{ __typename }"})
        out.append((time.perf_counter() - start) * 1000)
        assert resp.json() == {"data": {"__typename": "Query"}}, resp.text
        await asyncio.sleep(0.01)
    return out


async def attack_loop(
    http: httpx.AsyncClient, url: str, until: float, worker: int, codes: Counter[str]
) -> list[float]:
    out = []
    n = 0
    while time.monotonic() < until:
        for text in ATTACKS.values():
            n += 1
            start = time.perf_counter()
            resp = await http.post(url, json={"query": f"{text} # {worker}-{n}"})
            out.append((time.perf_counter() - start) * 1000)
            body = resp.json()
            codes[(body.get("errors") or [{}])[0].get("extensions", {}).get("code", "none")] += 1
    return out


async def against_service(seconds: float, attackers: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="bench-guard-") as tmp:
        async with Service(Path(tmp) / "data") as svc, httpx.AsyncClient(timeout=60) as http:
            await probe_loop(http, svc.url, time.monotonic() + 2)  # warm up
            idle = await probe_loop(http, svc.url, time.monotonic() + seconds)
            codes: Counter[str] = Counter()
            until = time.monotonic() + seconds
            results = await asyncio.gather(
                probe_loop(http, svc.url, until),
                *(attack_loop(http, svc.url, until, w, codes) for w in range(attackers)),
            )
    busy, attacks = results[0], [ms for r in results[1:] for ms in r]
    out = {
        "probe_idle": {**percentiles(idle), "max_ms": round(max(idle), 2)},
        "probe_under_attack": {**percentiles(busy), "max_ms": round(max(busy), 2)},
        "attack_answers": {**percentiles(attacks), "max_ms": round(max(attacks), 2)},
        "attack_codes": dict(codes),
        "attackers": attackers,
        "seconds": seconds,
    }
    for name in ("probe_idle", "probe_under_attack", "attack_answers"):
        row = out[name]
        print(
            f"  {name}: p50 {row['p50_ms']} ms, p99 {row['p99_ms']} ms, max {row['max_ms']} ms "
            f"(n={row['n']})"
        )
    print(f"  attack codes: {dict(codes)}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--attackers", type=int, default=4)
    parser.add_argument("--out", type=Path, default=Path("bench/results/query_guard.json"))
    args = parser.parse_args()
    print("in process:")
    local = in_process()
    print("against brain serve:")
    served = asyncio.run(against_service(args.seconds, args.attackers))
    write_json(args.out, {"machine": machine(), "in_process": local, "service": served})


if __name__ == "__main__":
    main()
