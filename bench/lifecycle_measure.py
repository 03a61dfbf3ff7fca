"""What `bench.lifecycle` measures at each month's end: memories and turns visible, the
duplicate rate, the probes through ``search`` and through ``assembleContext``, what the
lifecycle jobs did, and what became of every memory at the end of the year."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import numpy as np

from api.brain import Brain
from bench.lifecycle_tenant import DAY, START, USER, Probe, Script
from core.clock import NEVER, now
from core.lifecycle_types import MemoryDigest, RunStatus
from core.retrieval_types import SearchQuery
from core.types import MemoryType
from retrieval.access import AccessRecorder

DUPLICATE_COSINE = 0.92
ALL_TYPES = [t.value for t in MemoryType]


@dataclass
class Variant:
    name: str
    tenant: str
    jobs: bool
    record_access: bool
    months: list[dict[str, Any]] = field(default_factory=list)
    consolidations: list[dict[str, Any]] = field(default_factory=list)
    turn_ms: list[float] = field(default_factory=list)
    fates: dict[str, Any] = field(default_factory=dict)
    turn_ids: set[str] = field(default_factory=set)


async def live_rows(brain: Brain, tenant: str) -> list[MemoryDigest]:
    return await brain.graph.tenant(tenant).current_memories(ALL_TYPES, now())


async def duplicate_rate(
    brain: Brain, tenant: str, rows: Sequence[MemoryDigest]
) -> tuple[int, dict[str, int]]:
    """(memories with a near-duplicate of the same type, that count by type)."""
    ids = [r.id for r in rows]
    vectors: dict[str, list[float]] = {}
    for lo in range(0, len(ids), 2000):
        vectors.update(await brain.index.vectors(tenant, ids[lo : lo + 2000]))
    by_type: dict[str, list[str]] = defaultdict(list)
    for r in rows:
        if r.id in vectors:
            by_type[r.type].append(r.id)
    found: dict[str, int] = {}
    for kind, members in by_type.items():
        m = np.asarray([vectors[i] for i in members], dtype=np.float32)
        m /= np.maximum(np.linalg.norm(m, axis=1, keepdims=True), 1e-12)
        has = np.zeros(len(members), dtype=bool)
        for lo in range(0, len(members), 1024):
            block = m[lo : lo + 1024] @ m.T
            for k in range(block.shape[0]):
                block[k, lo + k] = -1.0  # not its own duplicate
            has[lo : lo + 1024] = (block >= DUPLICATE_COSINE).any(axis=1)
        if has.any():
            found[kind] = int(has.sum())
    return sum(found.values()), found


async def run_probes(
    brain: Brain, variant: Variant, probes: Sequence[Probe], day: int
) -> dict[str, Any]:
    saved = brain.retriever.access
    if not variant.record_access:
        brain.retriever.access = None
    results: dict[str, dict[str, int]] = defaultdict(lambda: {"passed": 0, "total": 0})
    failed: list[dict[str, Any]] = []
    # Hits that are current but state a replaced value: extracted facts and preferences (the
    # target: none), turn records (the episodic audit trail of what was said), and the
    # unsupported correction (a multi-valued predicate: a conflict, not a supersede).
    stale = {"facts": 0, "turn_records": 0, "conflict_facts": 0}
    stale_probes: list[str] = []
    examples: list[str] = []
    not_current = 0
    try:
        for probe in probes:
            expected = probe.expected(day)
            if expected is None:
                continue
            response = await brain.reads.search(
                variant.tenant, SearchQuery(query=probe.query, top_k=10)
            )
            hits = response.hits
            not_current += sum(1 for h in hits if not h.memory.is_current)
            passed = any(
                h.memory.is_current and probe.states(expected, h.memory.content) for h in hits
            )
            results[probe.kind]["total"] += 1
            results[probe.kind]["passed"] += int(passed)
            if not passed:
                failed.append(
                    {
                        "probe": probe.name,
                        "query": probe.query,
                        "top": [
                            f"[{h.memory.type.value}] {h.memory.content[:90]}" for h in hits[:3]
                        ],
                    }
                )
            old = probe.stale(day)
            for h in hits:
                if not h.memory.is_current or not any(
                    probe.states(v, h.memory.content) for v in old
                ):
                    continue
                if probe.states(expected, h.memory.content):
                    continue  # states the change itself ("now X" after "Y")
                if (h.memory.source or "").startswith("turn:"):
                    stale["turn_records"] += 1
                elif probe.kind == "conflict":
                    stale["conflict_facts"] += 1
                else:
                    stale["facts"] += 1
                    stale_probes.append(probe.name)
                examples.append(f"{probe.name}: [{h.memory.source}] {h.memory.content[:100]}")
    finally:
        brain.retriever.access = saved
    return {
        "recall": dict(results),
        "failed": failed,
        "stale_hits": stale,
        "stale_fact_probes": sorted(set(stale_probes)),
        "stale_examples": sorted(set(examples))[:10],
        "hits_not_current": not_current,
    }


async def run_contexts(
    brain: Brain, variant: Variant, probes: Sequence[Probe], day: int
) -> dict[str, Any]:
    """The probes through ``assembleContext`` (the text an LLM would get): recall = the
    context states the expected value; precision = no line states a replaced value as
    current (a turn that said it and is marked "corrected later" is the record, not a claim).
    Foundations and current facts only."""
    saved = brain.retriever.access
    if not variant.record_access:
        brain.retriever.access = None
    total = stated = clean = 0
    failed: list[str] = []
    try:
        for probe in probes:
            expected = probe.expected(day)
            if expected is None or probe.kind not in ("foundation", "current"):
                continue
            context = await brain.reads.assemble_context(
                variant.tenant, f"probe-{day}", user_id=USER, query=probe.query
            )
            lines = [line for line in context.text.splitlines() if line.strip()]
            total += 1
            found = any(probe.states(expected, line) for line in lines)
            stale = [
                line
                for line in lines
                if "corrected later" not in line
                and any(probe.states(v, line) for v in probe.stale(day))
                and not probe.states(expected, line)
            ]
            stated += int(found)
            clean += int(not stale)
            if not found or stale:
                failed.append(f"{probe.name}: {'missing' if not found else stale[0][:100]}")
    finally:
        brain.retriever.access = saved
    return {
        "probes": total,
        "recall": round(stated / total, 4) if total else None,
        "precision": round(clean / total, 4) if total else None,
        "failed": failed,
    }


async def job_counts(brain: Brain, tenant: str, since: float) -> dict[str, dict[str, int]]:
    """What every lifecycle job run started after ``since`` did (counts summed per job),
    including the working-memory flushes run by ``close_session``."""
    out: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    before: tuple[float, str] | None = None
    while True:
        runs = await brain.lifecycle.runs(tenant, first=200, before=before)
        for run in runs:
            if run.started_at <= since:
                return {job: dict(counts) for job, counts in sorted(out.items())}
            out[run.job.value]["runs"] += 1
            out[run.job.value]["failed"] += int(run.status is not RunStatus.DONE)
            for key, value in run.counts.items():
                out[run.job.value][key] += value
        if len(runs) < 200:
            return {job: dict(counts) for job, counts in sorted(out.items())}
        before = (runs[-1].started_at, runs[-1].id)


async def measure(
    brain: Brain, variant: Variant, script: Script, day: int, access: AccessRecorder
) -> dict[str, Any]:
    await access.flush()
    since = START + (variant.months[-1]["day"] - 1) * DAY + 23 * 3600 if variant.months else 0.0
    jobs = await job_counts(brain, variant.tenant, since) if variant.jobs else {}
    rows = await live_rows(brain, variant.tenant)
    total, _unindexed = await brain.graph.tenant(variant.tenant).memory_counts()
    by_type: dict[str, int] = defaultdict(int)
    for r in rows:
        by_type[r.type] += 1
    dups, dup_types = await duplicate_rate(brain, variant.tenant, rows)
    probes = await run_probes(brain, variant, script.probes, day)
    contexts = await run_contexts(brain, variant, script.probes, day)
    turns_visible = sum(1 for r in rows if r.id in variant.turn_ids)
    date = datetime.fromtimestamp(START + day * DAY, tz=UTC)
    return {
        "day": day + 1,
        "month": date.strftime("%Y-%m"),
        "turns_recorded": len(variant.turn_ids),
        "turns_visible": turns_visible,
        "turns_hidden": len(variant.turn_ids) - turns_visible,
        "contexts": contexts,
        "memories_current_live": len(rows),
        "memories_in_graph": total,
        "current_by_type": dict(sorted(by_type.items())),
        "duplicates": dups,
        "duplicate_rate": round(dups / len(rows), 4) if rows else 0.0,
        "duplicates_by_type": dup_types,
        **probes,
        "lifecycle_jobs_this_month": jobs,
    }


async def fates(brain: Brain, tenant: str) -> dict[str, Any]:
    """What became of every memory of the year: current, summarized by a pattern (still
    current), superseded by a correction, merged, pruned or forgotten; with the patterns and
    the pruned memories themselves."""
    at = now()
    table: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    patterns: list[str] = []
    pruned: list[str] = []
    async for record in brain.transfer.export(tenant):
        if record["kind"] != "memory":
            continue
        m = record["memory"]
        if m.get("merged_into"):
            fate = "merged"
        elif m.get("summarized_by") and not m.get("superseded_by"):
            fate = "summarized_current"
        elif m.get("pruned_at") is not None:
            fate = "pruned"
            pruned.append(f"[{m['type']}] {m['content'][:100]}")
        elif m.get("superseded_by"):
            fate = "superseded"
        elif float(m.get("expires_at") or NEVER) <= at:
            fate = "expired"
        else:
            fate = "current"
            if m["type"] == MemoryType.PATTERN.value:
                patterns.append(m["content"][:300])
        table[m["type"]][fate] += 1
    return {
        "by_type": {t: dict(f) for t, f in sorted(table.items())},
        "patterns": patterns,
        "pruned": pruned,
    }
