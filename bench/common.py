"""Shared benchmark helpers: percentiles, synthetic business text, machine description."""

from __future__ import annotations

import json
import os
import platform
import random
import statistics
import time
from collections.abc import Sequence
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
