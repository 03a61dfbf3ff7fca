"""Episode -> pattern compression.

Episodes that keep happening ("checked Peter's batch for AI text" every week) are clustered
and summarized into one ``pattern`` memory, which links its source episodes (``SUMMARIZES``;
each episode's ``summarized_by``). The episodes stay current and visible: a summary keeps
three sentences of many, so hiding its sources would lose whatever the others said, and
compression must never lower recall. The pattern adds the recurring view beside them.

Clustering (networkx): episodes older than a few days are nodes; two are joined when they share
an entity and their vectors are similar; Louvain communities of at least ``pattern_min_episodes``
become patterns. The summary is extractive by default (the most central episode, then the most
different other ones); with an LLM configured it is written by the model, and the extractive
one is kept when the model fails.
"""

from __future__ import annotations

import logging
import time
from collections import Counter

import networkx as nx
import numpy as np

from core.lifecycle_types import MemoryDigest
from core.types import Memory, MemoryType, NewMemory
from ingest.lifecycle.context import JobCall, JobContext
from ingest.lifecycle.similarity import Matrix, fetch_vectors, matrix, similar_pairs

log = logging.getLogger(__name__)

_DAY = 86_400.0
_PATTERNS_PER_BATCH = 100  # patterns written, embedded and indexed together
_SUMMARY_PROMPT = (
    "You summarize recurring events from a business assistant's memory. Given episodes that "
    "repeat, write one or two sentences stating the recurring pattern (what happens, with whom, "
    "how often). Use only facts present in the episodes. Reply with the summary text only."
)


def clusters(
    rows: list[MemoryDigest], m: Matrix, threshold: float, minimum: int
) -> list[list[int]]:
    """Communities of episodes that share an entity and are similar, largest first."""
    g: nx.Graph[int] = nx.Graph()
    g.add_nodes_from(range(len(rows)))
    for i, j, sim in similar_pairs(m, threshold):
        if set(rows[i].entity_ids) & set(rows[j].entity_ids):
            g.add_edge(i, j, weight=sim)
    g.remove_nodes_from([n for n, degree in list(g.degree()) if degree == 0])
    if g.number_of_nodes() < minimum:
        return []
    found = nx.community.louvain_communities(g, weight="weight", seed=0)
    return sorted((sorted(c) for c in found if len(c) >= minimum), key=lambda c: (-len(c), c[0]))


def extractive_summary(
    contents: list[str], m: Matrix, created: list[float], max_sentences: int
) -> str:
    """The most central episode first, then the ones least like those already chosen."""
    sims = m @ m.T
    order = [int(np.argmax(sims.sum(axis=1)))]
    while len(order) < min(max_sentences, len(contents)):
        closest = sims[:, order].max(axis=1)
        closest[order] = np.inf
        candidate = int(np.argmin(closest))
        if closest[candidate] >= 0.95:  # the rest say the same thing again
            break
        order.append(candidate)
    first = time.strftime("%Y-%m-%d", time.gmtime(min(created)))
    last = time.strftime("%Y-%m-%d", time.gmtime(max(created)))
    said = " | ".join(_clip(" ".join(contents[i].split())) for i in order)
    return f"Recurring ({len(contents)} times, {first} to {last}): {said}"


def _clip(text: str, limit: int = 400) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


async def _llm_summary(ctx: JobContext, contents: list[str], fallback: str) -> str:
    if ctx.llm is None:
        return fallback
    try:
        listing = "\n".join(f"- {c}" for c in contents)
        text = (await ctx.llm.complete(_SUMMARY_PROMPT, listing)).strip()
    except Exception:  # a model failure never blocks compression: keep the extractive summary
        log.warning("LLM pattern summary failed; using the extractive one", exc_info=True)
        return fallback
    return text if 0 < len(text) <= 2000 else fallback


def _common(values: list[str | None]) -> str | None:
    distinct = set(values)
    return distinct.pop() if len(distinct) == 1 else None


async def compress_episodes(ctx: JobContext, call: JobCall) -> dict[str, int]:
    tenant = call.tenant(ctx)
    settings = ctx.settings
    rows = [
        r
        for r in await tenant.current_memories(
            [MemoryType.EPISODIC.value],
            call.at,
            created_before=call.at - settings.pattern_min_age_days * _DAY,
            project_id=call.scope.project_id,
            session_id=call.scope.session_id,
        )
        if r.entity_ids and r.summarized_by is None  # summarized once
    ]
    vectors = await fetch_vectors(ctx, call.tenant_id, [r.id for r in rows])
    rows = [r for r in rows if r.id in vectors]
    counts = {"episodes": len(rows), "patterns": 0, "compressed": 0}
    if len(rows) < settings.pattern_min_episodes:
        return counts
    m = matrix([r.id for r in rows], vectors)
    found = clusters(rows, m, settings.pattern_similarity, settings.pattern_min_episodes)
    for start in range(0, len(found), _PATTERNS_PER_BATCH):
        batch = [
            [rows[i] for i in members] for members in found[start : start + _PATTERNS_PER_BATCH]
        ]
        memories = await tenant.get_memories([r.id for chosen in batch for r in chosen])
        patterns: list[tuple[Memory, list[str]]] = []
        for chosen in batch:
            chosen = [r for r in chosen if r.id in memories]
            if len(chosen) < settings.pattern_min_episodes:
                continue
            contents = [memories[r.id].content for r in chosen]
            created = [r.created_at for r in chosen]
            sub = matrix([r.id for r in chosen], vectors)
            summary = extractive_summary(contents, sub, created, settings.pattern_max_sentences)
            summary = await _llm_summary(ctx, contents, summary)
            pattern = _pattern(ctx, call, chosen, summary, min(created))
            patterns.append((pattern, [r.id for r in chosen]))
        if not patterns:
            continue
        # Graph first (patterns unindexed, episodes linked), then the vectors: a crash in
        # between leaves the rest to the reconciler.
        linked = await tenant.create_patterns(patterns, call.at)
        await ctx.writer.sync.show(call.tenant_id, new=[p for p, _ in patterns])
        counts["patterns"] += len(patterns)
        counts["compressed"] += linked
        ctx.say(f"{call.tenant_id}: {counts['patterns']} patterns, {counts['compressed']} episodes")
    return counts


def _pattern(
    ctx: JobContext, call: JobCall, chosen: list[MemoryDigest], summary: str, since: float
) -> Memory:
    entity_counts = Counter(e for r in chosen for e in r.entity_ids)
    half = len(chosen) / 2
    entities = [e for e, n in entity_counts.most_common() if n >= half] or [
        entity_counts.most_common(1)[0][0]
    ]
    top = max(float(r.importance or 0.0) for r in chosen)
    return ctx.writer.build(
        call.tenant_id,
        NewMemory(
            content=summary,
            type=MemoryType.PATTERN,
            user_id=_common([r.user_id for r in chosen]),
            project_id=_common([r.project_id for r in chosen]),
            importance=min(ctx.settings.importance_cap, round(top + 0.1, 4)),
            created_at=call.at,
            valid_from=since,
            source=f"lifecycle:compress:{call.run_id}",
            entity_ids=entities,
        ),
        at=call.at,
    )
