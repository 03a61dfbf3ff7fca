"""The identity proposal job, scored (``proposals``), and where it has something to do
(``convergence``); part of ``bench.identity``.

Provisional entities that really converge on someone: people known by full name and their
work topics only, then named by first name "from" an organisation never stated (undecidable:
one provisional entity each), talking about the same topics. ``REPROFILE`` +
``PROPOSE_IDENTITIES`` run, and each proposal is checked against the truth.
"""

from __future__ import annotations

import random
from typing import Any

from bench.identity_world import DAY, T0, VERBS, shuffled_orgs, shuffled_surnames

DOMAINS = (
    ("SEO audit", "search rankings", "backlink report"),
    ("payroll run", "tax return", "expense claims"),
    ("logo sketches", "brand colours", "typeface choice"),
    ("server migration", "database backups", "deploy pipeline"),
    ("podcast episode", "guest list", "audio editing"),
    ("office lease", "desk booking", "cleaning contract"),
    ("trade fair stand", "booth banners", "visitor badges"),
    ("recipe book", "food photos", "print proofs"),
    ("hiring plan", "interview rounds", "job adverts"),
    ("wedding shoot", "photo album", "camera rental"),
)


async def convergence(brain: Any, seed: int) -> dict[str, Any]:
    """Provisional entities that really converge: ten Tobiass known by full name and their
    work topics only (no organisation), then each mentioned by first name "from" an
    organisation never stated before (undecidable: a provisional Tobias), talking about the
    same topics. After REPROFILE + PROPOSE_IDENTITIES, is the proposed candidate the one?"""
    from core.ingest_types import TurnInput

    rng = random.Random(seed)
    tenant = f"id-{seed}-converge"
    surnames, orgs = shuffled_surnames(rng)[:10], shuffled_orgs(rng)[-10:]
    owner: dict[str, int] = {}
    n = 0
    for phase in ("known", "cued"):
        for i, topics in enumerate(DOMAINS):
            for topic in topics:
                n += 1
                who = f"Tobias {surnames[i]}" if phase == "known" else f"Tobias from {orgs[i]}"
                verb = rng.choice(VERBS)
                result = await brain.ingest.turns.record_turn(
                    tenant,
                    TurnInput(
                        session_id=f"c{n}",
                        user_id="u1",
                        content=f"{who} {verb} the {topic}.",
                        at=T0 + n * DAY,
                    ),
                )
                for e in result.entities:
                    if e.name.startswith("Tobias"):
                        owner.setdefault(e.id, i)
    if brain.ingest.queue is not None:
        await brain.ingest.queue.drain(120.0)
    return await proposals(brain, tenant, owner)


async def proposals(brain: Any, tenant: str, owner: dict[str, int]) -> dict[str, Any]:
    """Run the identity proposal job (after re-profiling) and score its proposals against
    the truth: is the proposed candidate the provisional entity's person? Also the mean
    profile similarity of true and false candidates (what the job's threshold stands on)."""
    from core.lifecycle_types import JobName

    await brain.lifecycle.consolidate(tenant, [JobName.REPROFILE, JobName.PROPOSE_IDENTITIES])
    found = await brain.graph.tenant(tenant).identity_questions(10_000)
    proposed = right = with_truth = top_right = 0
    true_scores: list[float] = []
    false_scores: list[float] = []
    for q in found:
        person = owner.get(q.entity.id)
        truth = [c for c in q.candidates if owner.get(c.entity.id) == person]
        with_truth += bool(truth)
        for c in q.candidates:
            (true_scores if c in truth else false_scores).append(c.score)
        if q.candidates and q.candidates[0] in truth:
            top_right += 1
        for c in q.candidates:
            if c.proposed:
                proposed += 1
                right += c in truth
    return {
        "questions": len(found),
        "with_true_candidate": with_truth,
        "true_candidate_first": top_right,
        "proposed": proposed,
        "proposal_precision": round(right / proposed, 4) if proposed else None,
        "proposal_recall": round(right / with_truth, 4) if with_truth else None,
        "mean_score_true": round(sum(true_scores) / len(true_scores), 4) if true_scores else None,
        "mean_score_false": round(sum(false_scores) / len(false_scores), 4)
        if false_scores
        else None,
    }
