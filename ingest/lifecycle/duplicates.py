"""Duplicate merge: memories of the same tenant, type and scope whose vectors are nearly
identical (cosine >= 0.92 by default) are merged.

The more specific memory wins (more entities, a subject and predicate, more text; a pinned
memory never loses). The loser is kept and hidden behind a ``MERGED_INTO`` link with the reason
and the similarity; the winner's importance becomes max(importances) + 0.05 (capped). A merge is
undone with ``unmerge_memory``.

Two memories are never merged when they are about different things or say different values:
both must share the user and project, a stated subject, predicate and object must agree,
one's entities must contain the other's, and their texts must agree on numbers, names, dates,
negation and the words that carry a value (``ingest/lifecycle/statements.py``): "The
warehouse 1 door code is 1000" and "The warehouse 3 door code is 1000" are 0.97 similar and
two facts.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from core.lifecycle_types import MemoryDigest
from graph.tenant import TenantGraph
from ingest.lifecycle.context import JobCall, JobContext, batches
from ingest.lifecycle.similarity import fetch_vectors, matrix, similar_pairs
from ingest.lifecycle.statements import same_statement

_CONTENT_BATCH = 500  # memories hydrated per round trip


def _specificity(m: MemoryDigest) -> tuple[Any, ...]:
    return (
        m.pinned,
        len(m.entity_ids),
        m.subject is not None,
        m.predicate is not None,
        m.length,
        m.access_count,
        -m.created_at,  # then the older one: it holds the history
    )


def compatible(a: MemoryDigest, b: MemoryDigest) -> bool:
    """Could ``a`` and ``b`` say the same thing about the same things?"""
    stated = ((a.subject, b.subject), (a.predicate, b.predicate), (a.object, b.object))
    for x, y in stated:  # "traffic is 500" is not "... 800"
        if x is not None and y is not None and x != y:
            return False
    ea, eb = set(a.entity_ids), set(b.entity_ids)
    if not (ea <= eb or eb <= ea):
        return False
    if a.content is None or b.content is None:
        return True  # memories without text: the caller compares texts elsewhere
    return same_statement(a.content, b.content)


def plan_merges(
    rows: list[MemoryDigest], pairs: list[tuple[int, int, float]]
) -> dict[int, list[tuple[int, float]]]:
    """Winner index -> [(loser index, similarity)]. Most similar pairs first; a memory that
    lost or won in this run is not merged again (no chains within one run). A memory that
    duplicates two memories about different things ("Peter writes the posts" next to two
    Peters' facts) is ambiguous and stays as it is."""
    partners: dict[int, set[int]] = defaultdict(set)
    for i, j, _ in pairs:
        if compatible(rows[i], rows[j]):
            partners[i].add(j)
            partners[j].add(i)
    lost: set[int] = set()
    won: dict[int, list[tuple[int, float]]] = defaultdict(list)
    for i, j, sim in pairs:
        if i in lost or j in lost or j not in partners[i]:
            continue
        winner, loser = (i, j) if _specificity(rows[i]) >= _specificity(rows[j]) else (j, i)
        if rows[loser].pinned or loser in won:
            continue
        if any(not compatible(rows[winner], rows[p]) for p in partners[loser] - {winner}):
            continue
        won[winner].append((loser, sim))
        lost.add(loser)
    return won


async def _with_content(
    tenant: TenantGraph, members: list[MemoryDigest], pairs: list[tuple[int, int, float]]
) -> None:
    """Add the text to the memories that are in a similar pair (the few the guard compares;
    the listing carries no text, so the job reads a tenant's contents only where they
    matter)."""
    wanted = sorted({members[k].id for i, j, _ in pairs for k in (i, j)})
    found: dict[str, str] = {}
    for chunk in batches(wanted, _CONTENT_BATCH):
        found.update({i: m.content for i, m in (await tenant.get_memories(chunk)).items()})
    for m in members:
        if m.id in found:
            m.content = found[m.id]


async def merge_duplicates(ctx: JobContext, call: JobCall) -> dict[str, int]:
    tenant = call.tenant(ctx)
    settings = ctx.settings
    rows = await tenant.current_memories(
        settings.duplicate_types,
        call.at,
        project_id=call.scope.project_id,
        session_id=call.scope.session_id,
    )
    vectors = await fetch_vectors(ctx, call.tenant_id, [r.id for r in rows])
    groups: dict[tuple[Any, ...], list[MemoryDigest]] = defaultdict(list)
    for row in rows:
        if row.id in vectors:
            groups[(row.type, row.user_id, row.project_id)].append(row)
    planned: list[dict[str, Any]] = []
    raised: dict[str, float] = {}  # winner id -> its importance after the merges
    for members in groups.values():
        if len(members) < 2:
            continue
        pairs = similar_pairs(
            matrix([m.id for m in members], vectors), settings.duplicate_similarity
        )
        await _with_content(tenant, members, pairs)
        for w, losers in plan_merges(members, pairs).items():
            winner = members[w]
            top = max([winner.importance, *(members[i].importance for i, _ in losers)])
            importance = round(
                min(settings.importance_cap, top + settings.merge_importance_bonus), 4
            )
            raised[winner.id] = importance
            for i, sim in losers:
                planned.append(
                    {
                        "loser_id": members[i].id,
                        "winner_id": winner.id,
                        "reason": f"duplicate (cosine {sim:.3f}); the more specific memory kept",
                        "similarity": round(sim, 4),
                        "importance": importance,
                        "before": winner.importance,
                    }
                )
    merged = 0
    for chunk in batches(planned, settings.batch_size):
        applied = await tenant.apply_merges(chunk, call.at)
        changes: dict[str, dict[str, Any]] = {}
        for loser_id, winner_id in applied:
            changes[loser_id] = {"superseded_at": call.at}
            changes[winner_id] = {"importance": raised[winner_id]}
        await ctx.writer.sync.show(call.tenant_id, changes=changes, present_only=True)
        merged += len(applied)
        ctx.say(f"{call.tenant_id}: merged {merged} of {len(planned)} duplicates")
    return {"compared": len(vectors), "merged": merged}
