"""LoCoMo evidence retrieval through the product's public path, before and after a year.

    python -m bench.locomo_api --data DIR [--out FILE.json] [--k 20] [--months 12]

What a user of the service does, and nothing else: a real `brain serve` process (embedded
engines) gets every turn of each conversation through GraphQL ``recordTurn`` (its session,
its speaker, its session's date and time; one tenant and one user per conversation), learns
the speakers and the people they name from the conversation itself (no entity is created
through an internal call), then every question with evidence goes through ``search`` with
that user. Run twice:

1. right after ingestion, the service's clock a day after the last session;
2. after a simulated year: the service is restarted on the same data with its clock moved a
   month at a time (``BRAIN_CLOCK_START``, a clock you can move; not wall time) and every
   lifecycle job runs each month through ``consolidate`` (what the scheduler does on its
   timer; the timer itself is off so the run is repeatable).

A hit counts for the turn it came from: the turn's own episodic memory, or a memory extracted
from it (same session and time); ``episodes_only`` counts episodic hits alone. Reported:
evidence recall@1/5/10/20, NDCG@10 and MRR, overall and per category, for both runs, with
search latency. Nothing here looks at question texts beyond passing them as queries.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.common import machine, write_json
from bench.locomo import KS, TURN_SPACING_S, evidence_ids, mean, metrics, sessions
from bench.service import Service, iso

Answers = tuple[
    list[tuple[int, dict[str, float]]],  # per question: category, search metrics
    list[tuple[int, dict[str, float]]],  # the same over episodic hits alone
    list[float],  # search latency, ms
    list[tuple[int, dict[str, float]]],  # category, context evidence share and tokens
]
DAY = 86_400.0
MONTH = 30 * DAY
TURN = """mutation($input: RecordTurnInput!) { recordTurn(input: $input) {
  __typename ... on TurnResult { episode { id } extracted { id } } ... on Error { message } } }"""
SEARCH = """query($q: String!, $k: Int!, $user: String!) {
  search(input: {query: $q, topK: $k, userId: $user}) { __typename
    ... on SearchResults { hits { memory { id type } } } ... on Error { message } } }"""
CONTEXT = """query($q: String!, $user: String!, $budget: Int!) {
  assembleContext(input: {query: $q, userId: $user, sessionId: "questions", tokenBudget: $budget}) {
    __typename ... on Context { totalTokens items { memory { id } } }
    ... on Error { message } } }"""
CONSOLIDATE = """mutation { consolidate { __typename ... on ConsolidationReport {
  runs { job status error counts { name value } } } ... on Error { message } } }"""


class Conversation:
    """One LoCoMo conversation: its turns, questions, and the ids the service gave its turns."""

    def __init__(self, path: Path) -> None:
        raw = json.loads(path.read_text())
        self.name = path.stem
        self.conv = raw.get("conversation", raw)
        self.qa = [q for q in raw["qa"] if evidence_ids(q.get("evidence", []))]
        self.tenant = f"locomo-{self.name}"
        self.user = f"user-{self.name}"
        self.to_dia: dict[str, str] = {}  # memory id -> the turn's dia id
        self.episodes: set[str] = set()
        self.last = max(start for _, start, _ in sessions(self.conv))

    async def ingest(self, svc: Service, key: str) -> float:
        start = time.perf_counter()
        for n, at, turns in sessions(self.conv):
            for i, turn in enumerate(turns):
                data = await svc.gql(
                    key,
                    TURN,
                    input={
                        "sessionId": f"session-{n}",
                        "userId": self.user,
                        "speaker": turn["speaker"],
                        "content": turn["text"],
                        "at": iso(at + i * TURN_SPACING_S),
                    },
                )
                result = data["recordTurn"]
                if result["__typename"] != "TurnResult":
                    raise RuntimeError(f"recordTurn failed: {result}")
                episode = result["episode"]["id"]
                self.episodes.add(episode)
                self.to_dia[episode] = turn["dia_id"]
                for memory in result["extracted"]:
                    self.to_dia[memory["id"]] = turn["dia_id"]
        return time.perf_counter() - start

    async def ask(self, svc: Service, key: str, k: int, budget: int) -> Answers:
        turns, episodes, latency, contexts = [], [], [], []
        for qa in self.qa:
            relevant = set(evidence_ids(qa["evidence"]))
            t0 = time.perf_counter()
            data = await svc.gql(key, SEARCH, q=qa["question"], k=k, user=self.user)
            latency.append((time.perf_counter() - t0) * 1000)
            ids = [h["memory"]["id"] for h in data["search"]["hits"]]
            category = int(qa.get("category", 0))
            turns.append((category, metrics([self.to_dia.get(i, "") for i in ids], relevant)))
            only = [self.to_dia[i] if i in self.episodes else "" for i in ids]
            episodes.append((category, metrics(only, relevant)))
            if budget:
                contexts.append((category, await self.context(svc, key, qa, relevant, budget)))
        return turns, episodes, latency, contexts

    async def context(
        self, svc: Service, key: str, qa: dict[str, Any], relevant: set[str], budget: int
    ) -> dict[str, float]:
        """The share of the question's evidence turns in a context of ``budget`` tokens."""
        data = await svc.gql(key, CONTEXT, q=qa["question"], user=self.user, budget=budget)
        context = data["assembleContext"]
        if context["__typename"] != "Context":
            raise RuntimeError(f"assembleContext failed: {context}")
        held = {self.to_dia.get(item["memory"]["id"], "") for item in context["items"]}
        return {"evidence": len(relevant & held) / len(relevant), "tokens": context["totalTokens"]}


async def run(data: Path, k: int, months: int, workdir: Path, budget: int) -> dict[str, Any]:
    files = sorted(data.glob("*.json"))
    if not files:
        raise SystemExit(f"no LoCoMo files in {data}")
    convs = [Conversation(p) for p in files]
    t0 = max(c.last for c in convs) + DAY
    env = {"BRAIN_LIFECYCLE__SCHEDULER": "false"}
    out: dict[str, Any] = {
        "run": {"machine": machine(), "months": months, "k": k, "budget": budget}
    }

    async with Service(workdir, clock=t0, env=env) as svc:
        keys = {c.name: await svc.tenant_key(c.tenant) for c in convs}
        ids = workdir / "bench-turn-ids.json"
        if ids.exists():  # a kept workdir: ask again, no second ingestion
            kept = json.loads(ids.read_text())
            for c in convs:
                c.to_dia, c.episodes = kept[c.name]["to_dia"], set(kept[c.name]["episodes"])
            say(f"asking again on the turns kept in {workdir}")
        else:
            say("ingesting", sum(len(t) for c in convs for _, _, t in sessions(c.conv)), "turns")
            spent = await asyncio.gather(*(c.ingest(svc, keys[c.name]) for c in convs))
            turns = sum(len(c.episodes) for c in convs)
            out["run"] |= {"turns": turns, "ingest_wall_s": round(max(spent), 1)}
            out["run"]["turns_per_s"] = round(turns / max(spent), 1)
            say(f"ingested {turns} turns in {max(spent):.0f} s; asking")
            kept = {c.name: {"to_dia": c.to_dia, "episodes": sorted(c.episodes)} for c in convs}
            ids.write_text(json.dumps(kept))
        out["after_ingestion"] = await _ask_all(svc, keys, convs, k, budget)
        say_figures("after ingestion", out["after_ingestion"])
        say("R@10 per conversation:", out["after_ingestion"]["per_conversation"])

    at = t0
    jobs: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for month in range(1, months + 1):
        at += MONTH
        async with Service(workdir, clock=at, env=env) as svc:
            for c in convs:
                report = (await svc.gql(keys[c.name], CONSOLIDATE))["consolidate"]
                for r in report["runs"]:
                    if r["status"] != "DONE":
                        raise RuntimeError(f"{r['job']} failed: {r['error']}")
                    for count in r["counts"]:
                        jobs[r["job"]][count["name"]] += count["value"]
            say(f"month {month}: every job ran on {len(convs)} tenants")
            if month == months:
                out["after_year"] = await _ask_all(svc, keys, convs, k, budget)
    out["lifecycle_counts"] = {job: dict(v) for job, v in jobs.items()}
    if months:
        say_figures(f"after {months} months of lifecycle", out["after_year"])
    return out


async def _ask_all(
    svc: Service, keys: dict[str, str], convs: Sequence[Conversation], k: int, budget: int
) -> dict[str, Any]:
    answers = await asyncio.gather(*(c.ask(svc, keys[c.name], k, budget) for c in convs))
    turns = [row for a in answers for row in a[0]]
    episodes = [row for a in answers for row in a[1]]
    latency = sorted(ms for a in answers for ms in a[2])
    contexts = [row for a in answers for row in a[3]]
    return {
        "context": _context_figures(contexts) if contexts else {},
        "overall": mean([m for _, m in turns]),
        "per_conversation": {
            c.name: mean([m for _, m in a[0]])["recall@10"]
            for c, a in zip(convs, answers, strict=True)
        },
        "per_category": _per_category(turns),
        "episodes_only": mean([m for _, m in episodes]),
        "questions": len(turns),
        "search_p50_ms": round(latency[len(latency) // 2], 1),
        "search_p95_ms": round(latency[int(len(latency) * 0.95)], 1),
    }


def _per_category(rows: list[tuple[int, dict[str, float]]]) -> dict[str, dict[str, float]]:
    cats: dict[str, list[dict[str, float]]] = defaultdict(list)
    for cat, m in rows:
        cats[str(cat)].append(m)
    return {c: {**mean(v), "n": len(v)} for c, v in sorted(cats.items())}


def _context_figures(rows: list[tuple[int, dict[str, float]]]) -> dict[str, Any]:
    """Evidence share in the context overall and per category, and the context's tokens."""
    cats: dict[str, list[float]] = defaultdict(list)
    for cat, m in rows:
        cats[str(cat)].append(m["evidence"])
    tokens = sorted(m["tokens"] for _, m in rows)
    return {
        "evidence": round(sum(m["evidence"] for _, m in rows) / len(rows), 4),
        "per_category": {c: round(sum(v) / len(v), 4) for c, v in sorted(cats.items())},
        "tokens_p50": tokens[len(tokens) // 2],
        "tokens_p95": tokens[int(len(tokens) * 0.95)],
    }


def say(*parts: object) -> None:
    print(*parts, flush=True)


def say_figures(label: str, result: dict[str, Any]) -> None:
    o = result["overall"]
    figures = "  ".join(f"R@{k} {o[f'recall@{k}']:.3f}" for k in KS)
    say(
        f"{label}: {figures}  MRR {o['mrr']:.3f}  (episodes only R@10 "
        f"{result['episodes_only']['recall@10']:.3f}; search p50 {result['search_p50_ms']} ms)"
    )
    context = result["context"]
    for cat, vals in result["per_category"].items():
        in_context = f"; in context {context['per_category'][cat]:.3f}" if context else ""
        say(f"  category {cat} ({vals['n']:>3}): R@10 {vals['recall@10']:.3f}{in_context}")
    if context:
        say(
            f"  evidence in the context {context['evidence']:.3f} "
            f"(tokens p50 {context['tokens_p50']}, p95 {context['tokens_p95']})"
        )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--k", type=int, default=20)
    parser.add_argument("--months", type=int, default=12, help="0: ask right after ingestion only")
    parser.add_argument(
        "--workdir",
        type=Path,
        help="keep the service's data here; a second run on it asks again without ingesting",
    )
    parser.add_argument(
        "--budget", type=int, default=2000, help="assembleContext token budget; 0: search only"
    )
    args = parser.parse_args(argv)
    if args.workdir:
        result = asyncio.run(run(args.data, args.k, args.months, args.workdir, args.budget))
    else:
        with tempfile.TemporaryDirectory(prefix="locomo-api-") as tmp:
            result = asyncio.run(run(args.data, args.k, args.months, Path(tmp), args.budget))
    if args.out:
        write_json(args.out, result)


if __name__ == "__main__":
    main()
