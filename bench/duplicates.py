"""Duplicate-merge precision and recall on labelled pairs (issue 23).

    python -m bench.duplicates [--data tests/data/lifecycle/duplicate_pairs.jsonl]
                               [--out bench/results/duplicates.json]

Each pair of ``tests/data/lifecycle/duplicate_pairs.jsonl`` (made by
``tests/data/lifecycle/make_duplicate_pairs.py``) is embedded with the service's embedder and
decided the way the MERGE_DUPLICATES job decides two memories of one type and scope with no
stated subject or entities: cosine >= ``lifecycle.duplicate_similarity`` and, since issue 23,
the statement guard (``ingest.lifecycle.duplicates.compatible``). It prints precision and
recall of "merge" against the labels, for cosine alone and with the guard, per kind of pair,
and every wrong merge.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from bench.common import machine, write_json
from core.settings import Settings
from ingest.lifecycle.duplicates import compatible
from vectors.factory import build_embedder

DATA = Path("tests/data/lifecycle/duplicate_pairs.jsonl")


def _row(text: str) -> dict[str, Any]:
    return {"entity_ids": [], "content": text}


def _scores(decided: list[tuple[bool, bool]]) -> dict[str, Any]:
    """Precision and recall of ``merged`` (first) against ``duplicate`` (second)."""
    tp = sum(1 for m, d in decided if m and d)
    fp = sum(1 for m, d in decided if m and not d)
    fn = sum(1 for m, d in decided if not m and d)
    return {
        "merged": tp + fp,
        "wrong_merges": fp,
        "missed_duplicates": fn,
        "precision": round(tp / (tp + fp), 4) if tp + fp else 1.0,
        "recall": round(tp / (tp + fn), 4) if tp + fn else 1.0,
    }


async def run(data: Path) -> dict[str, Any]:
    rows = [json.loads(line) for line in data.read_text().splitlines() if line.strip()]
    settings = Settings()
    embedder = build_embedder(settings.embedder)
    try:
        texts = sorted({r[k] for r in rows for k in ("a", "b")})
        vectors = dict(zip(texts, await embedder.embed_documents(texts), strict=True))
    finally:
        await embedder.close()
    threshold = settings.lifecycle.duplicate_similarity
    results = []
    for r in rows:
        a = np.asarray(vectors[r["a"]], dtype=np.float64)
        b = np.asarray(vectors[r["b"]], dtype=np.float64)
        cosine = float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))
        close = cosine >= threshold
        guarded = close and compatible(_row(r["a"]), _row(r["b"]))
        results.append({**r, "cosine": round(cosine, 4), "cosine_only": close, "merged": guarded})
    dup = [r["label"] == "duplicate" for r in results]
    kinds = Counter(r["kind"] for r in results)
    per_kind = {
        kind: {
            "pairs": n,
            "label": next(r["label"] for r in results if r["kind"] == kind),
            "cosine_only_merged": sum(r["cosine_only"] for r in results if r["kind"] == kind),
            "merged": sum(r["merged"] for r in results if r["kind"] == kind),
        }
        for kind, n in sorted(kinds.items())
    }
    return {
        "machine": machine(),
        "pairs": len(results),
        "duplicates": sum(dup),
        "different": len(results) - sum(dup),
        "threshold": threshold,
        "cosine_only": _scores([(r["cosine_only"], d) for r, d in zip(results, dup, strict=True)]),
        "guarded": _scores([(r["merged"], d) for r, d in zip(results, dup, strict=True)]),
        "per_kind": per_kind,
        "wrong_merges": [
            {k: r[k] for k in ("a", "b", "kind", "cosine")}
            for r, d in zip(results, dup, strict=True)
            if r["merged"] and not d
        ],
    }


def _print(out: dict[str, Any]) -> None:
    print(
        f"{out['pairs']} pairs ({out['duplicates']} duplicate, {out['different']} different), "
        f"cosine >= {out['threshold']}"
    )
    print(f"{'rule':<14}{'merged':>8}{'wrong':>8}{'missed':>8}{'precision':>11}{'recall':>8}")
    for name in ("cosine_only", "guarded"):
        s = out[name]
        print(
            f"{name:<14}{s['merged']:>8}{s['wrong_merges']:>8}{s['missed_duplicates']:>8}"
            f"{s['precision']:>11.3f}{s['recall']:>8.3f}"
        )
    print(f"\n{'kind':<16}{'label':<11}{'pairs':>6}{'cosine':>8}{'guarded':>9}")
    for kind, k in out["per_kind"].items():
        print(
            f"{kind:<16}{k['label']:<11}{k['pairs']:>6}{k['cosine_only_merged']:>8}{k['merged']:>9}"
        )
    for wrong in out["wrong_merges"]:
        print(f"WRONG MERGE ({wrong['kind']}, {wrong['cosine']}): {wrong['a']!r} / {wrong['b']!r}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--out", type=Path, default=Path("bench/results/duplicates.json"))
    args = parser.parse_args()
    out = asyncio.run(run(args.data))
    _print(out)
    write_json(args.out, out)


if __name__ == "__main__":
    main()
