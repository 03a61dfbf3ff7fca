"""A small demo tenant, seeded once, so `make run` has something to ask about."""

from __future__ import annotations

from api.brain import Brain
from core.types import EntityType, MemoryType, NewMemory

DEMO_TENANT = "demo"


async def seed_demo(brain: Brain) -> bool:
    """Seed the demo tenant unless it already has memories; returns whether it seeded."""
    total, _ = await brain.admin.memory_counts(DEMO_TENANT)
    if total:
        return False
    wobs = await brain.entities.create(DEMO_TENANT, "Wolf of Blog Street", EntityType.ORG, ["WOBS"])
    peter = await brain.entities.create(DEMO_TENANT, "Peter", EntityType.PERSON)
    check = await brain.entities.create(DEMO_TENANT, "Human content check", EntityType.PROCESS)
    await brain.entities.relate(DEMO_TENANT, peter.id, wobs.id, "works_for")
    items = [
        NewMemory(
            content="The company is Wolf of Blog Street, also known as WOBS. We do link building.",
            type=MemoryType.SEMANTIC,
            importance=0.9,
            entity_ids=[wobs.id],
        ),
        NewMemory(
            content="Peter is one of our writers at WOBS.",
            type=MemoryType.SEMANTIC,
            importance=0.8,
            entity_ids=[peter.id, wobs.id],
        ),
        NewMemory(
            content="To check if content is human: run it through two detectors, read the first "
            "paragraph aloud, and flag any piece scoring above 30% AI.",
            type=MemoryType.PROCEDURAL,
            importance=0.9,
            entity_ids=[check.id],
        ),
        NewMemory(content="We deploy the blog network to Hetzner.", type=MemoryType.FACT),
    ]
    memories = await brain.memories.remember_many(DEMO_TENANT, items)
    await brain.memories.supersede(
        DEMO_TENANT, memories[3].id, "We deploy the blog network to AWS.", "moved hosting in 2024"
    )
    return True
