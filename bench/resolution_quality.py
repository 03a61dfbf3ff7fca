"""Resolution quality on the labelled sets in tests/data/resolution/.

    HF_HUB_OFFLINE=1 .venv/bin/python -m bench.resolution_quality [--seed N]

Prints and writes bench/results/resolution_quality.json (``resolution_quality-seedN.json``
for another seed):

- disambiguation: a generated tenant where each first name is shared by six people with
  distinct profiles; accuracy of resolving by context, silent wrong merges, and the rate of
  clarifications on truly ambiguous queries (no context). Seed 0 is the fixed layout (first
  name i gets professions i, i+2, ...); any other seed draws six professions per first name
  and shuffles the surnames, so a threshold cannot fit one layout. The held-out paraphrases
  are reported apart (``heldout``);
- linking: alias / entity-linking precision and recall over labelled sentences, and
  alias-declaration precision and recall;
- coreference: pronoun antecedents over multi-turn cases through the session tracker.

The same functions back the tests in tests/integration/resolution/test_quality.py.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from bench.common import percentiles
from core.types import EntityType, NewMemory
from ingest.write.writer import MemoryWriter
from resolution.patterns import find_aliases
from resolution.resolver import Resolver

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "resolution"
RESULTS = Path(__file__).resolve().parent / "results"
DAY = 86_400.0
T0 = 1_673_863_200.0  # 2023-01-16


def _load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((DATA / name).read_text())
    return data


def people(data: dict[str, Any], seed: int = 0) -> list[dict[str, Any]]:
    """The generated people. Seed 0: first name i gets professions i, i+2, ... (mod the
    sorted list). Other seeds: six professions drawn per first name, surnames shuffled."""
    professions = sorted(data["professions"])
    out: list[dict[str, Any]] = []
    rng = random.Random(seed)
    surnames_list = list(data["surnames"])
    if seed:
        rng.shuffle(surnames_list)
    surnames = iter(surnames_list)
    for i, first in enumerate(data["first_names"]):
        if seed:
            jobs = rng.sample(professions, data["per_name"])
        else:
            jobs = [professions[(i + k * 2) % len(professions)] for k in range(data["per_name"])]
        for job in jobs:
            out.append({"first": first, "name": f"{first} {next(surnames)}", "job": job})
    return out


async def _resolve_set(
    resolver: Resolver, tenant: str, crowd: list[dict[str, Any]], ids: dict[str, str], key: str
) -> dict[str, Any]:
    data = _load("disambiguation.json")
    correct = clarified = wrong = 0
    failures: list[dict[str, Any]] = []
    for person in crowd:
        for query in data["professions"][person["job"]][key]:
            text = query.format(first=person["first"])
            result = await resolver.resolve(tenant, text, at=T0 + 400 * DAY)
            hit = [r for r in result.resolved if r.mention.text == person["first"]]
            chosen = hit[0].entity.id if hit and hit[0].entity else None
            if chosen == ids[person["name"]]:
                correct += 1
            elif chosen is None and result.clarification is not None:
                clarified += 1
                failures.append({"text": text, "want": person["name"], "got": "clarification"})
            else:
                wrong += 1
                names = {v: k for k, v in ids.items()}
                got = names.get(chosen, chosen) if chosen else None
                failures.append({"text": text, "want": person["name"], "got": got})
    total = correct + clarified + wrong
    return {
        "queries": total,
        "correct": correct,
        "clarified": clarified,
        "wrong": wrong,
        "accuracy": round(correct / max(1, total), 4),
        "failures": failures,
    }


async def disambiguation(
    resolver: Resolver, writer: MemoryWriter, tenant: str, seed: int = 0, heldout: bool = False
) -> dict[str, Any]:
    data = _load("disambiguation.json")
    crowd = people(data, seed)
    g = resolver.graph.tenant(tenant)
    ids: dict[str, str] = {}
    memories: list[NewMemory] = []
    for n, person in enumerate(crowd):
        # Half are also known by their bare first name, half only by their full name.
        aliases = [person["first"]] if n % 2 == 0 else []
        entity = await g.create_entity(person["name"], EntityType.PERSON, aliases, at=T0)
        ids[person["name"]] = entity.id
        for fact in data["professions"][person["job"]]["facts"]:
            text = fact.format(name=person["name"])
            memories.append(NewMemory(content=text, entity_ids=[entity.id], created_at=T0))
    for i in range(0, len(memories), 200):
        await writer.remember(tenant, memories[i : i + 200])
    progress: list[tuple[int, int]] = []
    report = await resolver.profiles.reprofile_entities(
        tenant, progress=lambda d, t: progress.append((d, t))
    )
    resolver.names.invalidate(tenant)
    started = time.perf_counter()
    main = await _resolve_set(resolver, tenant, crowd, ids, "queries")
    total = main["queries"]
    amb_total = amb_clarified = amb_wrong = 0
    amb_failures: list[dict[str, Any]] = []
    for first in data["first_names"]:
        for query in data["ambiguous"]:
            text = query.format(first=first)
            result = await resolver.resolve(tenant, text, at=T0 + 400 * DAY)
            amb_total += 1
            named = [r for r in result.resolved if r.mention.text == first]
            if result.clarification is not None and named and named[0].entity is None:
                amb_clarified += 1
                continue
            if named and named[0].entity is not None:
                amb_wrong += 1
            got = named[0].entity.name if named and named[0].entity else None
            mentions = [r.mention.text for r in result.resolved]
            amb_failures.append({"text": text, "got": got, "mentions": mentions})
    seconds = time.perf_counter() - started
    out = {
        "seed": seed,
        "people": len(crowd),
        "first_names": len(data["first_names"]),
        "queries": total,
        "correct": main["correct"],
        "clarified": main["clarified"],
        "wrong": main["wrong"],
        "accuracy": main["accuracy"],
        "no_wrong_merge_rate": round(1 - main["wrong"] / total, 4),
        "ambiguous_queries": amb_total,
        "ambiguous_clarified": amb_clarified,
        "ambiguous_guessed": amb_wrong,
        "clarification_rate": round(amb_clarified / amb_total, 4),
        "reprofile_seconds": round(report.seconds, 3),
        "reprofile_progress_calls": len(progress),
        "ms_per_query": round(1000 * seconds / (total + amb_total), 2),
        "failures": main["failures"][:20],
        "ambiguous_failures": amb_failures,
    }
    if heldout:
        out["heldout"] = await _resolve_set(resolver, tenant, crowd, ids, "heldout")
    return out


async def linking(resolver: Resolver, tenant: str) -> dict[str, Any]:
    data = _load("linking.json")
    g = resolver.graph.tenant(tenant)
    by_id: dict[str, str] = {}
    for e in data["entities"]:
        entity = await g.create_entity(e["name"], EntityType(e["type"]), e["aliases"], at=T0)
        by_id[entity.id] = e["name"]
    resolver.names.invalidate(tenant)
    tp = fp = fn = 0
    a_tp = a_fp = a_fn = 0
    misses: list[dict[str, Any]] = []
    latencies: list[float] = []
    for s in data["sentences"]:
        started = time.perf_counter()
        result = await resolver.resolve(tenant, s["text"], at=T0)
        latencies.append(1000 * (time.perf_counter() - started))
        got = {by_id.get(i, i) for i in result.entity_ids}
        want = set(s["entities"])
        tp += len(got & want)
        fp += len(got - want)
        fn += len(want - got)
        if got != want:
            misses.append({"text": s["text"], "want": sorted(want), "got": sorted(got)})
        declared = {(a.name, a.alias) for a in find_aliases(s["text"])}
        gold = {tuple(p) for p in s.get("aliases", [])}
        a_tp += len(declared & gold)
        a_fp += len(declared - gold)
        a_fn += len(gold - declared)
    return {
        "sentences": len(data["sentences"]),
        "precision": round(tp / max(1, tp + fp), 4),
        "recall": round(tp / max(1, tp + fn), 4),
        "alias_declaration_precision": round(a_tp / max(1, a_tp + a_fp), 4),
        "alias_declaration_recall": round(a_tp / max(1, a_tp + a_fn), 4),
        "resolve_latency": percentiles(latencies),
        "misses": misses[:20],
    }


async def coreference(resolver: Resolver, tenant: str) -> dict[str, Any]:
    data = _load("coreference.json")
    total = right = 0
    misses: list[dict[str, Any]] = []
    for case in data["cases"]:
        case_tenant = f"{tenant}-{case['id']}"
        g = resolver.graph.tenant(case_tenant)
        for e in case["entities"]:
            await g.create_entity(e["name"], EntityType(e["type"]), e.get("aliases", []), at=T0)
        session = f"coref-{uuid.uuid4().hex[:8]}"
        for n, turn in enumerate(case["turns"]):
            result = await resolver.resolve(
                case_tenant,
                turn["text"],
                session_id=session,
                at=T0 + 60 * n,
                create_missing=bool(case.get("create_missing")),
            )
            for pronoun, want in turn.get("expect", {}).items():
                total += 1
                found = [r for r in result.resolved if r.mention.text == pronoun]
                got = found[0].entity.name if found and found[0].entity else None
                if got == want:
                    right += 1
                else:
                    misses.append({"case": case["id"], "turn": n, "want": want, "got": got})
    return {
        "cases": len(data["cases"]),
        "pronouns": total,
        "correct": right,
        "accuracy": round(right / max(1, total), 4),
        "misses": misses,
    }


async def run(seed: int = 0) -> dict[str, Any]:
    from api.brain import Brain
    from core.settings import GraphSettings, Settings

    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=Path(tmp), graph=GraphSettings(heap="512m"))
        brain = await Brain.open(settings)
        try:
            resolver = Resolver(brain.graph, brain.embedder, settings.resolution)
            await resolver.load()
            tenant = f"q-{uuid.uuid4().hex[:8]}"
            out = {
                "disambiguation": await disambiguation(
                    resolver, brain.writer, tenant + "-d", seed=seed, heldout=True
                ),
                "linking": await linking(resolver, tenant + "-l"),
                "coreference": await coreference(resolver, tenant + "-c"),
            }
        finally:
            await brain.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=0, help="layout of the generated tenant")
    args = parser.parse_args()
    out = asyncio.run(run(args.seed))
    RESULTS.mkdir(parents=True, exist_ok=True)
    suffix = f"-seed{args.seed}" if args.seed else ""
    path = RESULTS / f"resolution_quality{suffix}.json"
    path.write_text(json.dumps(out, indent=2, ensure_ascii=False) + "\n")
    for section, figures in out.items():
        shown = {k: v for k, v in figures.items() if "failures" not in k and k != "misses"}
        if isinstance(shown.get("heldout"), dict):
            shown["heldout"] = {k: v for k, v in shown["heldout"].items() if k != "failures"}
        print(section, json.dumps(shown))
    print(f"written {path}")


if __name__ == "__main__":
    main()
