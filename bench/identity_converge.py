"""The identity proposal job where it has something to do (part of ``bench.identity``).

Provisional entities that really converge on someone: people known by full name and their
work topics only, then named by first name "from" an organisation never stated (undecidable:
one provisional entity each), talking about the same topics. ``REPROFILE`` +
``PROPOSE_IDENTITIES`` run, and each proposal is checked against the truth.
"""

from __future__ import annotations

import random
from typing import Any

from bench.identity import DAY, T0, VERBS, _orgs, _surnames, proposals

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
    surnames, orgs = _surnames(rng)[:10], _orgs(rng)[-10:]
    owner: dict[str, int] = {}
    n = 0
    for phase in ("known", "cued"):
        for i, topics in enumerate(DOMAINS):
            for topic in topics:
                n += 1
                who = f"Tobias {surnames[i]}" if phase == "known" else f"Tobias from {orgs[i]}"
                verb = rng.choice(VERBS)
                result = await brain.ingest.record_turn(
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
