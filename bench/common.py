"""Shared benchmark helpers: percentiles, synthetic business text, machine description."""

from __future__ import annotations

import contextlib
import json
import os
import platform
import random
import statistics
import tempfile
import time
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

NAMES = ["Peter", "Anna", "Marco", "Lena", "Omar", "Sofia", "Jonas", "Priya", "Liam", "Chen"]
ORGS = ["WOBS", "Acme", "Northwind", "Globex", "Initech", "Umbrella", "Hooli", "Vandelay"]
TOPICS = [
    "link building",
    "content audit",
    "invoice",
    "deploy",
    "backlink report",
    "SEO brief",
    "client onboarding",
    "guest post",
    "anchor text",
    "editorial calendar",
    "traffic report",
    "outreach campaign",
    "budget",
    "contract renewal",
    "server migration",
    "style guide",
]
VERBS = ["prefers", "finished", "reviewed", "asked about", "will send", "rejected", "approved"]


def synthetic_texts(n: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        out.append(
            f"{rng.choice(NAMES)} from {rng.choice(ORGS)} {rng.choice(VERBS)} the "
            f"{rng.choice(TOPICS)} for order {1000 + i} on day {rng.randint(1, 365)}"
        )
    return out


def percentiles(samples_ms: Sequence[float]) -> dict[str, float]:
    ordered = sorted(samples_ms)

    def pct(p: float) -> float:
        return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]

    return {
        "p50_ms": round(pct(50), 3),
        "p95_ms": round(pct(95), 3),
        "p99_ms": round(pct(99), 3),
        "mean_ms": round(statistics.fmean(ordered), 3),
        "n": len(ordered),
    }


def machine() -> dict[str, Any]:
    mem_gib = None
    try:
        with open("/proc/meminfo") as f:
            mem_gib = round(int(f.readline().split()[1]) / 1024 / 1024, 1)
    except OSError:
        pass
    return {
        "cpus": os.cpu_count(),
        "memory_gib": mem_gib,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "date": time.strftime("%Y-%m-%d"),
    }


def write_json(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n")
    print(f"wrote {path}")


def forget_query_vectors(embedder: Any) -> None:
    """Empty the embedder's cache of query vectors before a measured request, so that it
    embeds its texts as a request in new words would. The benchmarks' texts repeat once the
    resolver and the retriever cut the names out: "What did Person 7 say about the budget?"
    is embedded as "What did say about the budget?", and a disambiguation embeds the turn
    without its name ("Yesterday finished the budget.")."""
    inner = getattr(embedder, "inner", embedder)  # bench.storage.TimedEmbedder wraps one
    queries = getattr(inner, "queries", None)
    if queries is not None:
        queries.clear()


def thread_cpu(pid: int) -> dict[str, float]:
    """CPU seconds used so far by each thread of process ``pid``, summed by thread name
    (Linux ``/proc``; empty elsewhere). Java names its JIT threads "C1/C2 CompilerThre"."""
    tick = os.sysconf("SC_CLK_TCK")
    out: dict[str, float] = {}
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                name = f.read().strip()
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:  # the thread ended meanwhile
            continue
        out[name] = out.get(name, 0.0) + (int(fields[11]) + int(fields[12])) / tick
    return out


def cpu_per_turn(before: dict[str, float], after: dict[str, float], turns: int) -> dict[str, float]:
    """Milliseconds of CPU per turn by thread name between two ``thread_cpu`` readings."""
    used = {k: (v - before.get(k, 0.0)) * 1000 / turns for k, v in after.items()}
    return {k: round(v, 2) for k, v in sorted(used.items(), key=lambda kv: -kv[1]) if v > 0}


@contextlib.asynccontextmanager
async def scratch_brain(heap: str = "512m") -> AsyncIterator[Any]:
    """A ``Brain`` on a fresh temporary data directory with the scheduler off, closed and
    removed after (imported here: the other helpers must not load the service)."""
    from api.brain import Brain
    from core.settings import GraphSettings, LifecycleSettings, Settings

    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(
            data_dir=Path(tmp),
            graph=GraphSettings(heap=heap),
            lifecycle=LifecycleSettings(scheduler=False),
        )
        brain = await Brain.open(settings)
        try:
            yield brain
        finally:
            await brain.close()
