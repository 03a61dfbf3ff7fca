"""Where a recordTurn's time goes: phases along the turn, by kind of turn (diagnostic).

    python -m bench.turn_phases [--memories 25000] [--turns 300] [--warmup 20]
                                [--out bench/results/turn_phases.json]

The same tenant, preload, warm-up and turns as ``bench.ingest`` (its ``ingest_bench``,
``preload`` and ``warm_up``). Each measured turn records
when (ms after the call) its text was parsed, its resolution was done, its graph transaction
started and committed, and its vectors were shown, plus the time and count of every graph
statement it sent. Turns are grouped by what their statements say they did: ``create`` (a
person or another entity was created), ``reads-entities`` (entities missing from the cache
were read) and ``plain`` (neither). It times the code by wrapping four methods of the
classes under test (the parser, the turn recorder's resolve step, the tenant's transaction,
the index sync) for the length of the run; nothing else changes.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bench.common import (
    forget_query_vectors,
    machine,
    percentiles,
    write_json,
)
from bench.ingest import TENANT, business_turns, ingest_bench, preload, warm_up
from core.ingest_types import TurnInput
from graph.tenant import TenantGraph
from ingest.turns import TurnRecorder
from ingest.write.sync import IndexSync
from resolution.parse import Parser

# (class, method, mark at its end, mark at its start): the phases along a turn.
PHASES = [
    (Parser, "parse", "parsed", None),
    (TurnRecorder, "_resolve", "resolved", None),
    (TenantGraph, "write_many", "committed", "transaction"),
    (IndexSync, "show", "shown", None),
]


class Marks:
    """The first time each phase was reached in the current turn (the last, for commits)."""

    def __init__(self) -> None:
        self.t0 = 0.0
        self.at: dict[str, float] = {}

    def start(self) -> None:
        self.t0, self.at = time.perf_counter(), {}

    def reach(self, name: str, last: bool = False) -> None:
        if last or name not in self.at:
            self.at[name] = (time.perf_counter() - self.t0) * 1000


@contextlib.contextmanager
def timed(marks: Marks) -> Iterator[None]:
    """Wrap the phase methods for the length of the block."""
    originals = [(cls, name, getattr(cls, name)) for cls, name, _, _ in PHASES]

    def wrap(method: Any, end: str, begin: str | None) -> Any:
        async def wrapper(*args: Any, **kwargs: Any) -> Any:
            if begin is not None:
                marks.reach(begin)
            try:
                return await method(*args, **kwargs)
            finally:
                marks.reach(end, last=end == "committed")

        return wrapper

    for (cls, name, end, begin), (_, _, method) in zip(PHASES, originals, strict=True):
        setattr(cls, name, wrap(method, end, begin))
    try:
        yield
    finally:
        for cls, name, method in originals:
            setattr(cls, name, method)


def kind_of(statements: list[str]) -> str:
    if any(s.startswith(("entity_create", "identity_create")) for s in statements):
        return "create"
    if "resolution_entity_get" in statements:
        return "reads-entities"
    return "plain"


async def run(n: int, turns: int, warmup: float, data_dir: Path) -> dict[str, Any]:
    async with ingest_bench(data_dir) as bench:
        graph, embedder, service = bench.graph, bench.embedder, bench.service
        await preload(bench, n)
        await warm_up(bench, warmup)
        marks = Marks()
        phases: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
        statements: dict[str, list[float]] = defaultdict(list)
        print(f"measuring {turns} turns ...", flush=True)
        with timed(marks):
            for i, text in enumerate(business_turns(turns + 20)):
                sent: list[tuple[str, float]] = []
                graph.observer = lambda name, seconds, sent=sent: sent.append((name, seconds))
                forget_query_vectors(embedder)
                marks.start()
                turn = TurnInput(session_id=f"bench-{i // 20}", user_id="u", content=text)
                await service.turns.record_turn(TENANT, turn)
                marks.reach("total")
                if i < 20:
                    continue  # warm-up, as in bench.ingest
                kind = kind_of([name for name, _ in sent])
                for group in (kind, "all"):
                    for phase, ms in marks.at.items():
                        phases[group][phase].append(ms)
                    phases[group]["statements"].append(float(len(sent)))
                for name, seconds in sent:
                    statements[name].append(seconds * 1000)
        graph.observer = None
        return {
            "machine": machine(),
            "memories": n,
            "turns": turns,
            "phases_ms_after_call": {
                group: {
                    "share": round(len(found["total"]) / turns, 3),
                    **{phase: percentiles(v) for phase, v in found.items()},
                }
                for group, found in phases.items()
            },
            "statements_ms": {
                name: {**percentiles(v), "per_turn": round(len(v) / turns, 2)}
                for name, v in sorted(statements.items(), key=lambda kv: -sum(kv[1]))
            },
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=int, default=25_000)
    parser.add_argument("--turns", type=int, default=300)
    parser.add_argument("--warmup", type=float, default=20.0)
    parser.add_argument("--out", type=Path, default=Path("bench/results/turn_phases.json"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = asyncio.run(run(args.memories, args.turns, args.warmup, Path(tmp)))
    order = ["parsed", "resolved", "transaction", "committed", "shown", "total"]
    print(f"{'turns':16s} {'share':>6s}  " + "  ".join(f"{p:>16s}" for p in order))
    for group, found in out["phases_ms_after_call"].items():
        cells = [
            f"{found[p]['p50_ms']:7.1f}/{found[p]['p95_ms']:7.1f}" if p in found else " " * 15
            for p in order
        ]
        print(f"{group:16s} {found['share']:6.2f}  " + "  ".join(f"{c:>16s}" for c in cells))
    print("statements (p50 / p95 ms, per turn):")
    for name, found in out["statements_ms"].items():
        print(f"  {name:36s} {found['p50_ms']:6.2f} {found['p95_ms']:6.2f}  {found['per_turn']}")
    write_json(args.out, out)


if __name__ == "__main__":
    main()
