"""LoCoMo evidence-retrieval benchmark (issue: retrieval and context assembly).

    python -m bench.locomo --data DIR [--out FILE.json] [--k 20]

Each conversation goes into its own tenant through the real durable write path
(``MemoryWriter``: graph first, then vectors, then marked indexed), one memory per turn,
"Speaker: text", stamped with its session's date (turns a minute apart), in the session's
``session_id``, ABOUT the speaker's entity and any other speaker it names. Turns are built one
by one and written per session so embedding is batched. Then, for every question with
evidence, the full pipeline (``Retriever.search`` with the question's entities found by exact
alias lookup, as a resolver would) and three baselines on the same index (dense, BM25 and
the engine's RRF of the two) each return a top-k; we report evidence recall@1/5/10/20,
NDCG@10 and MRR overall and per category (1-5), and how often each path contributed.
Nothing here looks at question texts beyond passing them as queries.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import re
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from bench.common import machine, write_json
from core.clock import to_epoch
from core.retrieval_types import SearchQuery
from core.settings import GraphSettings, Settings
from core.text import content_hash
from core.times import find_times
from core.types import DecayClass, EntityType, Memory, MemoryType
from graph.runtime import open_graph
from graph.tenant import TenantGraph
from ingest.write.writer import MemoryWriter
from retrieval.retriever import Retriever
from vectors.factory import build_embedder, build_vector_index
from vectors.vector_index import VectorFilter, VectorIndex

KS = (1, 5, 10, 20)
_DIA = re.compile(r"D\d+:\d+")
_WORD = re.compile(r"[A-Z][\w'-]+")
TURN_SPACING_S = 60.0


# Relevance floors tried on the hits (share of the best candidate's relevance): the context's
# floor (``RetrievalSettings.context_floor``) is calibrated on these.
FLOORS = (0.0, 0.1, 0.2, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6)


def parse_date(text: str) -> float:
    """ "1:56 pm on 8 May, 2023" → epoch seconds (UTC)."""
    value = datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y")
    stamp = to_epoch(value)
    assert stamp is not None
    return stamp


def sessions(conv: dict[str, Any]) -> list[tuple[int, float, list[dict[str, Any]]]]:
    out = []
    for key, turns in conv.items():
        m = re.fullmatch(r"session_(\d+)", key)
        if m and isinstance(turns, list) and turns:
            n = int(m.group(1))
            out.append((n, parse_date(conv[f"session_{n}_date_time"]), turns))
    return sorted(out)


def evidence_ids(raw: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(e for item in raw for e in _DIA.findall(str(item))))


def metrics(ranked: Sequence[str], relevant: set[str]) -> dict[str, float]:
    out = {f"recall@{k}": len(relevant & set(ranked[:k])) / len(relevant) for k in KS}
    dcg = sum(1 / math.log2(i + 2) for i, d in enumerate(ranked[:10]) if d in relevant)
    ideal = sum(1 / math.log2(i + 2) for i in range(min(10, len(relevant))))
    out["ndcg@10"] = dcg / ideal if ideal else 0.0
    first = next((i for i, d in enumerate(ranked) if d in relevant), None)
    out["mrr"] = 1 / (first + 1) if first is not None else 0.0
    return out


def mean(rows: list[dict[str, float]]) -> dict[str, float]:
    if not rows:
        return {}
    return {k: round(sum(r[k] for r in rows) / len(rows), 4) for k in rows[0]}


async def ingest(
    writer: MemoryWriter, tenant: TenantGraph, conv: dict[str, Any]
) -> tuple[dict[str, str], dict[str, str], float]:
    """Store every turn; returns (memory id → dia_id, entity name → id, last session time)."""
    names = [conv["speaker_a"], conv["speaker_b"]]
    people = {n: (await tenant.create_entity(n, EntityType.PERSON)).id for n in names}
    to_dia: dict[str, str] = {}
    last = 0.0
    for n, start, turns in sessions(conv):
        batch = []
        for i, turn in enumerate(turns):
            text = f"{turn['speaker']}: {turn['text']}"
            at = start + i * TURN_SPACING_S
            about = {people[turn["speaker"]]} if turn["speaker"] in people else set()
            about |= {people[p] for p in names if p.split()[0] in turn["text"]}
            memory = Memory(
                id=writer.build(tenant.tenant_id, _new(text)).id,
                tenant_id=tenant.tenant_id,
                type=MemoryType.EPISODIC,
                content=text,
                session_id=f"session-{n}",
                created_at=at,
                valid_from=at,
                content_hash=content_hash(text),
                decay_class=DecayClass.MEDIUM,
                entity_ids=tuple(sorted(about)),
                source="locomo",
            )
            batch.append(memory)
            to_dia[memory.id] = turn["dia_id"]
            last = max(last, at)
        await writer.store(batch)
    return to_dia, people, last


def _new(text: str) -> Any:
    from core.types import NewMemory

    return NewMemory(content=text)


async def question_entities(
    tenant: TenantGraph, question: str, cache: dict[str, str]
) -> tuple[str, ...]:
    """Entity ids named in the question by exact alias lookup (what a resolver does first)."""
    found: list[str] = []
    for word in dict.fromkeys(_WORD.findall(question)):
        word = word.removesuffix("'s")
        if word not in cache:
            hits = await tenant.find_by_alias(word)
            cache[word] = hits[0].id if len(hits) == 1 else ""
        if cache[word]:
            found.append(cache[word])
    return tuple(dict.fromkeys(found))


def windows(question: str, at: float) -> tuple[tuple[float, float], ...]:
    """Explicit time expressions of the question, resolved like resolution/ does for a turn."""
    return tuple((t.start, t.end) for t in find_times(question, at))


async def baselines(
    index: VectorIndex, vector: list[float], question: str, tenant_id: str, at: float, k: int
) -> dict[str, list[str]]:
    flt = VectorFilter(tenant_id=tenant_id, live_at=at)
    dense, bm25, rrf = await asyncio.gather(
        index.dense_search(vector, flt, k),
        index.keyword_search(question, flt, k),
        index.hybrid_search(vector, question, flt, k, prefetch=50),
    )
    return {
        "dense": [h.id for h in dense],
        "bm25": [h.id for h in bm25],
        "rrf": [h.id for h in rrf],
    }


async def run(data: Path, k: int, overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    files = sorted(data.glob("*.json"))
    if not files:
        raise SystemExit(f"no LoCoMo files in {data}")
    with tempfile.TemporaryDirectory(prefix="locomo-") as tmp:
        settings = Settings(data_dir=Path(tmp), graph=GraphSettings(heap="1g"))
        if overrides:
            settings.retrieval = type(settings.retrieval).model_validate(
                {**settings.retrieval.model_dump(), **overrides}
            )
        runtime = await open_graph(settings)
        embedder = build_embedder(settings.embedder)
        index = build_vector_index(settings, embedder.dimension)
        await index.open()
        writer = MemoryWriter(runtime.store, index, embedder, settings.limits)
        retriever = Retriever(
            runtime.store, index, embedder, settings.retrieval, settings.limits, access=None
        )
        rows: dict[str, list[tuple[int, dict[str, float]]]] = defaultdict(list)
        paths: dict[str, int] = defaultdict(int)
        path_top: dict[str, int] = defaultdict(int)
        timings: dict[str, Any] = {"ingest_s": 0.0, "turns": 0, "questions": 0}
        search_ms: list[float] = []
        try:
            for path in files:
                conv_all = json.loads(path.read_text())
                conv = conv_all.get("conversation", conv_all)
                tenant_id = f"locomo-{path.stem}"
                tenant = runtime.store.tenant(tenant_id)
                start = time.perf_counter()
                to_dia, _, last = await ingest(writer, tenant, conv)
                timings["ingest_s"] += time.perf_counter() - start
                timings["turns"] += len(to_dia)
                at = last + 86_400.0
                names: dict[str, str] = {}
                for qa in conv_all["qa"]:
                    relevant = set(evidence_ids(qa.get("evidence", [])))
                    if not relevant:
                        continue
                    category = int(qa.get("category", 0))
                    entities = await question_entities(tenant, qa["question"], names)
                    t0 = time.perf_counter()
                    response = await retriever.search(
                        tenant_id,
                        SearchQuery(
                            query=qa["question"],
                            top_k=k,
                            entity_ids=entities,
                            time_windows=windows(qa["question"], at),
                            at=at,
                        ),
                    )
                    search_ms.append((time.perf_counter() - t0) * 1000)
                    ranked = {"pipeline": [to_dia.get(h.memory.id, "") for h in response.hits]}
                    for floor in FLOORS:  # what a context's relevance floor would leave
                        ranked[f"floor {floor}"] = [
                            to_dia.get(h.memory.id, "")
                            for h in response.hits
                            if h.signals.get("relevance_gate", 1.0) >= floor
                        ]
                    for hit in response.hits[:10]:
                        for p in hit.paths:
                            path_top[p] += 1
                            if to_dia.get(hit.memory.id) in relevant:
                                paths[p] += 1
                    vector = await embedder.embed_query(qa["question"])
                    for name, ids in (
                        await baselines(index, vector, qa["question"], tenant_id, at, k)
                    ).items():
                        ranked[name] = [to_dia.get(i, "") for i in ids]
                    for name, order in ranked.items():
                        rows[name].append((category, metrics(order, relevant)))
                    timings["questions"] += 1
        finally:
            await index.close()
            await embedder.close()
            await runtime.close()
    return report(rows, paths, path_top, {**timings, "search_ms": search_ms})


def report(
    rows: dict[str, list[tuple[int, dict[str, float]]]],
    paths: dict[str, int],
    path_top: dict[str, int],
    timings: dict[str, Any],
) -> dict[str, Any]:
    def summary(name: str) -> tuple[dict[str, float], dict[str, dict[str, float]]]:
        cats: dict[str, list[dict[str, float]]] = defaultdict(list)
        for cat, m in rows[name]:
            cats[str(cat)].append(m)
        per = {c: {**mean(v), "n": len(v)} for c, v in sorted(cats.items())}
        return mean([m for _, m in rows[name]]), per

    overall, per_category = summary("pipeline")
    out: dict[str, Any] = {"overall": overall, "per_category": per_category, "baselines": {}}
    for name in ("dense", "bm25", "rrf"):
        base, base_cat = summary(name)
        out["baselines"][name] = {**base, "per_category": base_cat}
    evidence = sum(paths.values()) or 1
    out["paths"] = {
        p: {
            "evidence_hits_top10": paths.get(p, 0),
            "share_of_evidence_hits": round(paths.get(p, 0) / evidence, 4),
            "hits_top10": path_top[p],
        }
        for p in sorted(path_top)
    }
    out["relevance_floor"] = {
        name.split(" ", 1)[1]: round(summary(name)[0]["recall@10"], 4)
        for name in rows
        if name.startswith("floor ")
    }
    searches = sorted(timings.pop("search_ms"))
    out["run"] = {
        **{k: round(v, 2) if isinstance(v, float) else v for k, v in timings.items()},
        "search_p50_ms": round(searches[len(searches) // 2], 2) if searches else None,
        "machine": machine(),
        "embedder": "all-MiniLM-L6-v2 (packaged)",
    }
    return out


def print_table(result: dict[str, Any]) -> None:
    cols = ["recall@1", "recall@5", "recall@10", "recall@20", "ndcg@10", "mrr"]
    print(f"{'system':<12}" + "".join(f"{c:>11}" for c in cols))
    systems = [("pipeline", result["overall"])] + [(n, b) for n, b in result["baselines"].items()]
    for name, vals in systems:
        print(f"{name:<12}" + "".join(f"{vals[c]:>11.3f}" for c in cols))
    print("\nrecall@10 per category (n):")
    for cat, vals in result["per_category"].items():
        base = {
            n: b["per_category"].get(cat, {}).get("recall@10", 0.0)
            for n, b in result["baselines"].items()
        }
        best = max(base.values())
        flag = "" if vals["recall@10"] >= best else "  < best baseline"
        print(
            f"  {cat} ({vals['n']:>3}): pipeline {vals['recall@10']:.3f}  "
            + "  ".join(f"{n} {v:.3f}" for n, v in base.items())
            + flag
        )
    print("\npaths (evidence hits in top-10):", json.dumps(result["paths"]))
    print("recall@10 left by a relevance floor on the hits:", json.dumps(result["relevance_floor"]))


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--k", type=int, default=20)
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="FIELD=JSON",
        help="override a RetrievalSettings field for an experiment (reported in the output)",
    )
    args = parser.parse_args(argv)
    overrides = {f: json.loads(v) for f, v in (item.split("=", 1) for item in args.set)}
    result = asyncio.run(run(args.data, args.k, overrides))
    result["run"]["settings_overrides"] = overrides
    print_table(result)
    if args.out:
        write_json(args.out, result)


if __name__ == "__main__":
    main()
