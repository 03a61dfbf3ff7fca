"""Identity proposals: open identity questions whose profiles have converged.

The write path makes a provisional entity when a turn names a known name it cannot tell apart
("Tom from Globex" when the known Tom's organisation was never stated). As more turns arrive,
each entity's living profile (rebuilt by ``reprofile``, which runs just before this job) says
more about who it is. This job scores every open question's candidates by the similarity of
the two profiles and marks one candidate ``proposed`` when the provisional entity's profile is
close to it and clearly closer than to any other. Nothing is merged: a curator answers with
``confirmSameEntity`` (undoable) or ``confirmDistinctEntities``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from graph.identity_ops import IdentityProposal, IdentityQuestion
from ingest.lifecycle.context import JobCall, JobContext


def similarity(a: Sequence[float] | None, b: Sequence[float] | None) -> float | None:
    """Cosine similarity of two profile embeddings (None when either profile is unbuilt)."""
    if not a or not b:
        return None
    x, y = np.asarray(a, dtype=np.float32), np.asarray(b, dtype=np.float32)
    norm = float(np.linalg.norm(x) * np.linalg.norm(y))
    return float(x @ y / norm) if norm else None


def proposals(q: IdentityQuestion, threshold: float, margin: float) -> list[IdentityProposal]:
    """The rescored links of one question: each candidate's profile similarity, and
    ``proposed`` for the one that clears ``threshold`` by ``margin`` over the runner-up."""
    scored = [
        (c.entity.id, s)
        for c in q.candidates
        if (s := similarity(q.entity.profile_embedding, c.entity.profile_embedding)) is not None
    ]
    ranked = sorted(scored, key=lambda p: -p[1])
    best = ranked[0] if ranked else None
    runner_up = ranked[1][1] if len(ranked) > 1 else None
    chosen = (
        best[0]
        if best and best[1] >= threshold and (runner_up is None or best[1] - runner_up >= margin)
        else None
    )
    return [IdentityProposal(q.entity.id, i, round(s, 4), i == chosen) for i, s in scored]


async def propose_identities(ctx: JobContext, call: JobCall) -> dict[str, int]:
    tenant = call.tenant(ctx)
    threshold = ctx.settings.identity_propose_similarity
    margin = ctx.settings.identity_propose_margin
    counts = {"questions": 0, "rescored": 0, "proposed": 0}
    after: str | None = None
    while True:
        page = await tenant.identity_questions(ctx.settings.batch_size, after)
        if not page:
            return counts
        after = page[-1].entity.id
        rescored = [p for q in page for p in proposals(q, threshold, margin)]
        await tenant.propose_identities(rescored, call.at)
        counts["questions"] += len(page)
        counts["rescored"] += len(rescored)
        counts["proposed"] += sum(1 for p in rescored if p.proposed)
        ctx.say(f"{call.tenant_id}: weighed {counts['questions']} identity questions")
