"""Context precision: how many of a context's lines an assistant needs, on labelled small tenants.

    python -m bench.context_precision [--data bench/data/context_precision.json]
        [--budget 2000] [--out FILE.json] [--verbose]

The set (``bench/data/context_precision.json``, written by a helper that never saw the
service's code) is twelve small tenants, each a conversation of 25–40 user and assistant
turns over days or weeks, and 5–7 queries per tenant, each labelled with the turns an
assistant answering it would want in front of it.

What a user of the service does: a real `brain serve` process (embedded engines) gets each
tenant's turns through GraphQL ``recordTurn`` (userId "u1", one session per day, the turn's
role); then each query goes through ``assembleContext`` (a new session, ``tokenBudget``
2,000 by default). A context line is one item of the query-dependent layers (``memories``,
``procedural``, ``documentChunks``); it is **relevant** when it is a labelled turn's episode
or a memory extracted from that turn. Core lines (``projectContext``: what is always
injected, whatever the query) are counted apart.

Reported, overall and per tenant: precision (relevant lines / lines; micro over all lines
and the mean over queries with at least one line), recall (labelled turns present / labelled
turns), lines and tokens per query, queries whose context has an unrelated line, and core
lines per context.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bench.common import machine, write_json
from bench.service import Service

START = datetime(2025, 3, 3, 9, 0, tzinfo=UTC)
USER = "u1"
QUERY_LAYERS = ("MEMORIES", "PROCEDURAL", "DOCUMENT_CHUNKS")
TURN = """mutation($input: RecordTurnInput!) { recordTurn(input: $input) {
  __typename ... on TurnResult { episode { id } extracted { id } } ... on Error { message } } }"""
CONTEXT = """query($input: AssembleContextInput!) { assembleContext(input: $input) {
  __typename ... on Context { totalTokens items { layer memory { id content } } }
  ... on Error { message } } }"""


@dataclass
class QueryResult:
    tenant: str
    query: str
    lines: int
    relevant_lines: int
    labelled: int
    found: int
    tokens: int
    core_lines: int
    unrelated: list[str] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)


def at(day: float, index: int) -> str:
    """The turn's time: its day, a minute per turn from nine in the morning."""
    return (START + timedelta(days=day, minutes=index)).isoformat()


async def run_tenant(svc: Service, tenant: dict[str, Any], budget: int) -> list[QueryResult]:
    name = str(tenant["name"])
    key = await svc.tenant_key(f"cp-{name}")
    source: dict[str, str] = {}  # memory id -> the turn it came from
    text = {t["id"]: t["text"] for t in tenant["turns"]}
    for i, turn in enumerate(tenant["turns"]):
        data = await svc.gql(
            key,
            TURN,
            input={
                "sessionId": f"day-{turn['day']}",
                "userId": USER,
                "role": turn["role"],
                "content": turn["text"],
                "at": at(float(turn["day"]), i),
            },
        )
        result = data["recordTurn"]
        if result["__typename"] != "TurnResult":
            raise RuntimeError(f"{name}: recordTurn failed: {result}")
        for memory in [result["episode"], *result["extracted"]]:
            source[memory["id"]] = turn["id"]
    out = []
    for n, q in enumerate(tenant["queries"]):
        data = await svc.gql(
            key,
            CONTEXT,
            input={
                "sessionId": f"ask-{n}",
                "userId": USER,
                "query": q["query"],
                "tokenBudget": budget,
            },
        )
        ctx = data["assembleContext"]
        if ctx["__typename"] != "Context":
            raise RuntimeError(f"{name}: assembleContext failed: {ctx}")
        relevant = set(q["relevant"])
        items = [i for i in ctx["items"] if i["layer"] in QUERY_LAYERS]
        turns = [source.get(i["memory"]["id"], "") for i in items]
        held = {t for t in turns if t}
        out.append(
            QueryResult(
                tenant=name,
                query=q["query"],
                lines=len(items),
                relevant_lines=sum(t in relevant for t in turns),
                labelled=len(relevant),
                found=len(relevant & held),
                tokens=ctx["totalTokens"],
                core_lines=sum(i["layer"] == "PROJECT_CONTEXT" for i in ctx["items"]),
                unrelated=[
                    i["memory"]["content"]
                    for i, t in zip(items, turns, strict=True)
                    if t not in relevant
                ],
                missed=[text[t] for t in sorted(relevant - held)],
            )
        )
    return out


def figures(rows: Sequence[QueryResult]) -> dict[str, Any]:
    lines = sum(r.lines for r in rows)
    with_lines = [r for r in rows if r.lines]
    tokens = sorted(r.tokens for r in rows)
    return {
        "queries": len(rows),
        "precision": round(sum(r.relevant_lines for r in rows) / lines, 4) if lines else 0.0,
        "precision_per_query": (
            round(sum(r.relevant_lines / r.lines for r in with_lines) / len(with_lines), 4)
            if with_lines
            else 0.0
        ),
        "recall": round(sum(r.found for r in rows) / sum(r.labelled for r in rows), 4),
        "lines_per_query": round(lines / len(rows), 2),
        "queries_with_unrelated_line": sum(bool(r.unrelated) for r in rows),
        "core_lines_per_query": round(sum(r.core_lines for r in rows) / len(rows), 2),
        "tokens_p50": tokens[len(tokens) // 2],
    }


async def run(data: Path, budget: int, workdir: Path, verbose: bool) -> dict[str, Any]:
    tenants = json.loads(data.read_text())["tenants"]
    last = max(float(t["day"]) for tenant in tenants for t in tenant["turns"])
    clock = (START + timedelta(days=last + 1)).timestamp()
    env = {"BRAIN_LIFECYCLE__SCHEDULER": "false"}
    async with Service(workdir, clock=clock, env=env) as svc:
        rows = [r for t in tenants for r in await run_tenant(svc, t, budget)]
    if verbose:
        for r in rows:
            print(f"\n[{r.tenant}] {r.query}  ({r.relevant_lines}/{r.lines} relevant)")
            for line in r.unrelated:
                print(f"   unrelated: {line[:110]}")
            for line in r.missed:
                print(f"   missed:    {line[:110]}")
    out: dict[str, Any] = {
        "run": {"machine": machine(), "data": str(data), "budget": budget},
        "overall": figures(rows),
        "per_tenant": {
            t["name"]: figures([r for r in rows if r.tenant == t["name"]]) for t in tenants
        },
    }
    o = out["overall"]
    print(
        f"context precision {o['precision']:.3f} (per query {o['precision_per_query']:.3f}), "
        f"recall {o['recall']:.3f}, {o['lines_per_query']} lines a query, "
        f"{o['queries_with_unrelated_line']}/{o['queries']} queries with an unrelated line, "
        f"{o['core_lines_per_query']} core lines, tokens p50 {o['tokens_p50']}",
        flush=True,
    )
    return out


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--data", type=Path, default=Path(__file__).parent / "data" / "context_precision.json"
    )
    parser.add_argument("--budget", type=int, default=2000)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--verbose", action="store_true", help="print each query's misses")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="context-precision-") as tmp:
        result = asyncio.run(run(args.data, args.budget, Path(tmp), args.verbose))
    if args.out:
        write_json(args.out, result)


if __name__ == "__main__":
    main()
