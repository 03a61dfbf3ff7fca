"""Scenarios of facts that change in conversation, checked through the product's public path.

    python -m bench.scenarios --data bench/data/changes_heldout.json [--out FILE.json]
        [--only NAME] [--verbose] [--concurrency 2] [--workdir DIR]

A real `brain serve` process (embedded engines, bench.service.Service) gets each scenario in
a fresh tenant made through the API. Every turn goes through GraphQL ``recordTurn`` with the
scenario's session (prefixed by the tenant), userId "u1", its role and ``at`` = START + day.
The service's clock is set a day after the last turn of any scenario. Then the checks run:

``{"type": "context", "query": Q, "current": C, "stale": [S, ...]}``
    ``assembleContext(query: Q)`` for userId "u1" in a new session. Matching is a
    case-insensitive substring search over the context text (``Context.text``; when empty,
    the five layers joined in their documented order: procedural, projectContext, memories,
    documentChunks, recentConversation). Passes when C occurs, no S occurs before the first
    C, and every occurrence of an S after it is on a line (newline-delimited) that contains
    "earlier", "corrected" or "until".
``{"type": "asof", "day": D, "query": Q, "current": C, "stale": [S, ...]}``
    ``search(query: Q, asOf: START + D, topK: 10, userId: "u1")``. Passes when there is a
    hit and the top hit's content contains C and none of the S (case-insensitive).
``{"type": "procedural", "query": Q, "contains": [...], "absent": [...]}``
    ``assembleContext(query: Q)`` as above; passes when its procedural layer contains every
    string of ``contains`` and none of ``absent`` (case-insensitive).

A scenario passes when all its checks pass. Printed: PASS/FAIL per scenario with the first
failing reason (and the start of the context with --verbose), passes per kind and the total.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bench.common import machine, write_json
from bench.service import Service

START = datetime(2025, 1, 6, 9, 0, tzinfo=UTC)
USER = "u1"
LABELS = ("earlier", "corrected", "until")
LAYERS = ("procedural", "projectContext", "memories", "documentChunks", "recentConversation")

TURN = """mutation($input: RecordTurnInput!) { recordTurn(input: $input) {
  __typename ... on TurnResult { episode { id } supersededIds } ... on Error { message } } }"""
CONTEXT = (
    "query($input: AssembleContextInput!) { assembleContext(input: $input) {"
    " __typename ... on Context { text layers { " + " ".join(LAYERS) + " } }"
    " ... on Error { message } } }"
)
SEARCH = """query($input: SearchInput!) { search(input: $input) { __typename
  ... on SearchResults { hits { score memory { id type content } } } ... on Error { message } } }"""


@dataclass
class CheckResult:
    type: str
    query: str
    passed: bool
    reason: str
    detail: dict[str, Any] = field(default_factory=dict)


@dataclass
class ScenarioResult:
    name: str
    kind: str
    passed: bool
    checks: list[CheckResult]
    seconds: float
    context_head: str = ""  # the start of the first failing context check's text
    superseded: int = 0  # memories the scenario's turns superseded (recordTurn supersededIds)

    @property
    def reason(self) -> str:
        failed = [c for c in self.checks if not c.passed]
        return failed[0].reason if failed else "ok"


def at_day(day: float) -> str:
    return (START + timedelta(days=day)).isoformat()


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def _line_at(text: str, index: int) -> str:
    start = text.rfind("\n", 0, index) + 1
    end = text.find("\n", index)
    return text[start : end if end >= 0 else len(text)]


def judge_context(
    text: str, current: str, stale: Sequence[str], labelled: bool = True
) -> tuple[bool, str, dict[str, Any]]:
    """The context rule: ``current`` present; no stale value before its first occurrence;
    later stale values only on lines labelled earlier/corrected/until (``labelled``; a
    negative control's other value, a hypothetical or a plan, was never the value, so no
    label is asked of it)."""
    low = text.lower()
    first = low.find(current.lower())
    if first < 0:
        return False, f"current {current!r} missing", {"failure": "missing"}
    current_line = _line_at(text, first)
    for value in stale:
        needle = value.lower()
        i = low.find(needle)
        while i >= 0:
            line = _line_at(text, i)
            if i < first:
                return (
                    False,
                    f"stale {value!r} before current {current!r}: {line.strip()[:200]}",
                    {"failure": "stale_before", "line": line.strip()},
                )
            if labelled and not any(label in line.lower() for label in LABELS):
                same = line == current_line
                return (
                    False,
                    f"stale {value!r} on an unlabelled line"
                    f"{' (same line as current)' if same else ''}: {line.strip()[:200]}",
                    {"failure": "stale_unlabelled", "same_line_as_current": same, "line": line},
                )
            i = low.find(needle, i + 1)
    return True, "ok", {}


def current_first(text: str, current: str, stale: Sequence[str]) -> bool:
    """A looser reading, reported beside the rule (not used for pass/fail): ``current`` occurs
    and before any stale value."""
    low = text.lower()
    first = low.find(current.lower())
    return first >= 0 and all(not 0 <= low.find(s.lower()) < first for s in stale)


def judge_hit(content: str | None, current: str, stale: Sequence[str]) -> tuple[bool, str]:
    if content is None:
        return False, "no hits"
    low = content.lower()
    if current.lower() not in low:
        return False, f"top hit lacks {current!r}: {content[:200]}"
    for value in stale:
        if value.lower() in low:
            return False, f"top hit has stale {value!r}: {content[:200]}"
    return True, "ok"


def judge_procedural(
    layer: str, contains: Sequence[str], absent: Sequence[str]
) -> tuple[bool, str]:
    low = layer.lower()
    missing = [v for v in contains if v.lower() not in low]
    present = [v for v in absent if v.lower() in low]
    if missing or present:
        parts = []
        if missing:
            parts.append(f"procedural layer lacks {missing}")
        if present:
            parts.append(f"procedural layer has {present}")
        return False, "; ".join(parts) + f": {layer.strip()[:200]!r}"
    return True, "ok"


def context_text(ctx: dict[str, Any]) -> str:
    text = str(ctx.get("text") or "")
    if text.strip():
        return text
    layers = ctx["layers"]
    return "\n".join(str(layers[name]) for name in LAYERS if layers[name])


class Runner:
    def __init__(self, svc: Service, verbose: bool) -> None:
        self.svc = svc
        self.verbose = verbose

    async def context(self, key: str, tenant: str, query: str, n: int) -> dict[str, Any]:
        data = await self.svc.gql(
            key,
            CONTEXT,
            input={"sessionId": f"{tenant}:check-{n}", "userId": USER, "query": query},
        )
        result: dict[str, Any] = data["assembleContext"]
        if result["__typename"] != "Context":
            raise RuntimeError(f"assembleContext failed: {result}")
        return result

    async def run(self, scenario: dict[str, Any]) -> ScenarioResult:
        t0 = time.perf_counter()
        name = str(scenario["name"])
        tenant = f"sc-{slug(name)}"
        key = await self.svc.tenant_key(tenant)
        superseded = 0
        for turn in scenario["turns"]:
            data = await self.svc.gql(
                key,
                TURN,
                input={
                    "sessionId": f"{tenant}:{turn['session']}",
                    "userId": USER,
                    "role": turn["role"],
                    "content": turn["text"],
                    "at": at_day(float(turn["day"])),
                },
            )
            if data["recordTurn"]["__typename"] != "TurnResult":
                raise RuntimeError(f"{name}: recordTurn failed: {data['recordTurn']}")
            superseded += len(data["recordTurn"]["supersededIds"])
        checks: list[CheckResult] = []
        head = ""
        for n, check in enumerate(scenario["checks"]):
            kind = check["type"]
            query = str(check["query"])
            if kind == "context":
                ctx = await self.context(key, tenant, query, n)
                text = context_text(ctx)
                labelled = scenario["kind"] != "negative"
                ok, reason, detail = judge_context(text, check["current"], check["stale"], labelled)
                detail["current_first"] = current_first(text, check["current"], check["stale"])
                checks.append(CheckResult(kind, query, ok, reason, detail))
                if not ok and not head:
                    head = text
            elif kind == "procedural":
                ctx = await self.context(key, tenant, query, n)
                layer = str(ctx["layers"]["procedural"])
                ok, reason = judge_procedural(layer, check["contains"], check["absent"])
                checks.append(CheckResult(kind, query, ok, reason, {"procedural": layer}))
                if not ok and not head:
                    head = context_text(ctx)
            elif kind == "asof":
                data = await self.svc.gql(
                    key,
                    SEARCH,
                    input={
                        "query": query,
                        "topK": 10,
                        "userId": USER,
                        "asOf": at_day(float(check["day"])),
                    },
                )
                result = data["search"]
                if result["__typename"] != "SearchResults":
                    raise RuntimeError(f"{name}: search failed: {result}")
                hits = result["hits"]
                top = str(hits[0]["memory"]["content"]) if hits else None
                ok, reason = judge_hit(top, check["current"], check["stale"])
                reason = f"asOf day {check['day']}: {reason}" if not ok else reason
                checks.append(
                    CheckResult(kind, query, ok, reason, {"day": check["day"], "top": top})
                )
            else:
                raise ValueError(f"{name}: unknown check type {kind!r}")
        passed = all(c.passed for c in checks)
        seconds = time.perf_counter() - t0
        return ScenarioResult(
            name, str(scenario["kind"]), passed, checks, seconds, head, superseded
        )


def report(result: ScenarioResult, verbose: bool, lines: int) -> None:
    status = "PASS" if result.passed else "FAIL"
    extra = "" if result.passed else f": {result.reason}"
    print(f"{status} {result.name} ({result.kind}){extra}", flush=True)
    if verbose and not result.passed:
        print(f"    memories superseded by the turns: {result.superseded}")
        for c in result.checks:
            if not c.passed:
                print(f"    [{c.type}] {c.query!r}: {c.reason}")
        if result.context_head:
            print("    --- context (first lines) ---")
            for line in result.context_head.splitlines()[:lines]:
                print(f"    | {line[:180]}")
        print(flush=True)


async def run(
    scenarios: list[dict[str, Any]], workdir: Path, concurrency: int, verbose: bool, lines: int
) -> dict[str, Any]:
    last = max(float(t["day"]) for s in scenarios for t in s["turns"])
    clock = (START + timedelta(days=last + 1)).timestamp()
    env = {"BRAIN_LIFECYCLE__SCHEDULER": "false"}
    t0 = time.perf_counter()
    async with Service(workdir, clock=clock, env=env) as svc:
        await asyncio.to_thread(svc.admin_key)  # made once, before the tenants race for it
        runner = Runner(svc, verbose)
        gate = asyncio.Semaphore(concurrency)

        async def one(scenario: dict[str, Any]) -> ScenarioResult:
            async with gate:
                result = await runner.run(scenario)
            report(result, verbose, lines)
            return result

        results = await asyncio.gather(*(one(s) for s in scenarios))
        startup = svc.startup_s
    wall = time.perf_counter() - t0

    per_kind: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for r in results:
        per_kind[r.kind][0] += int(r.passed)
        per_kind[r.kind][1] += 1
    passed = sum(int(r.passed) for r in results)
    print()
    for kind, (ok, n) in sorted(per_kind.items()):
        print(f"  {kind:<26} {ok:>3}/{n}")
    checks = [c for r in results for c in r.checks]
    checks_ok = sum(int(c.passed) for c in checks)
    print(f"  {'total':<26} {passed:>3}/{len(results)}  (checks {checks_ok}/{len(checks)})")
    contexts = [c for c in checks if c.type == "context"]
    first = sum(int(bool(c.detail.get("current_first"))) for c in contexts)
    print(f"  context checks with the current value before any stale one: {first}/{len(contexts)}")
    print(f"  wall {wall:.0f} s (service startup {startup:.0f} s)", flush=True)
    return {
        "run": {
            "machine": machine(),
            "start": START.isoformat(),
            "clock": datetime.fromtimestamp(clock, tz=UTC).isoformat(),
            "concurrency": concurrency,
            "wall_s": round(wall, 1),
            "startup_s": round(startup, 1),
        },
        "summary": {
            "passed": passed,
            "scenarios": len(results),
            "checks_passed": checks_ok,
            "checks": len(checks),
            "context_current_first": first,
            "context_checks": len(contexts),
            "per_kind": {k: {"passed": v[0], "scenarios": v[1]} for k, v in per_kind.items()},
        },
        "scenarios": [
            {
                "name": r.name,
                "kind": r.kind,
                "passed": r.passed,
                "seconds": round(r.seconds, 2),
                "superseded": r.superseded,
                "checks": [
                    {
                        "type": c.type,
                        "query": c.query,
                        "passed": c.passed,
                        "reason": c.reason,
                        **c.detail,
                    }
                    for c in r.checks
                ],
            }
            for r in results
        ],
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--only", action="append", help="a scenario name (repeatable)")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--lines", type=int, default=25, help="context lines shown on failure")
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--workdir", type=Path, help="keep the service's data here")
    args = parser.parse_args(argv)
    scenarios: list[dict[str, Any]] = json.loads(args.data.read_text())
    if args.only:
        scenarios = [s for s in scenarios if s["name"] in set(args.only)]
        if not scenarios:
            raise SystemExit(f"no scenario named {args.only}")
    if args.workdir:
        out = asyncio.run(run(scenarios, args.workdir, args.concurrency, args.verbose, args.lines))
    else:
        with tempfile.TemporaryDirectory(prefix="bench-scenarios-") as tmp:
            out = asyncio.run(run(scenarios, Path(tmp), args.concurrency, args.verbose, args.lines))
    out["run"]["data"] = str(args.data)
    if args.out:
        write_json(args.out, out)


if __name__ == "__main__":
    main()
