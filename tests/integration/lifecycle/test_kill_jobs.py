"""Kill the process in the middle of each lifecycle job; the next run completes it with
consistent data.

For each job, this process seeds a fresh tenant in the session's graph and in a Qdrant Edge shard
of its own, closes the shard, and starts a child that runs the job and is SIGKILLed at a step
inside it (after the job's first graph write, before the vector side caught up). This process
then reopens the shard and runs the job again followed by reconciliation, and checks: the
interrupted run is recorded as failed and named by the run that finished it, no memory is left
unindexed, every vector payload agrees with the graph, and the job's end state is what an
uninterrupted run produces.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest

from api.brain import Brain
from core.clock import now
from core.ingest_types import TurnInput
from core.lifecycle_types import JobName, RunStatus
from core.settings import GraphSettings, LifecycleSettings, Settings
from core.types import DecayClass, EntityType, MemoryType, NewMemory
from graph.launcher import ROOT_USER
from graph.runtime import GraphRuntime
from vectors.embedding.embedder import Embedder
from vectors.factory import build_vector_index

pytestmark = [pytest.mark.integration, pytest.mark.slow]

DAY = 86_400.0

CHILD = textwrap.dedent(
    """
    import asyncio, os, signal, sys
    from api.brain import Brain
    from core.lifecycle_types import JobName
    from core.settings import Settings
    from graph.store import GraphStore
    from vectors.factory import build_embedder
    from vectors.factory import build_vector_index
    import graph.lifecycle_ops, vectors.edge_index

    job, kill_at, tenant = JobName(sys.argv[1]), sys.argv[2], sys.argv[3]
    calls = {"n": 0}

    def killer(original, after):
        async def wrapped(*args, **kwargs):
            calls["n"] += 1
            if calls["n"] > after:
                os.kill(os.getpid(), signal.SIGKILL)
            return await original(*args, **kwargs)
        return wrapped

    name, _, after = kill_at.partition(":")
    owner = (
        vectors.edge_index.EdgeVectorIndex
        if name in ("set_payload", "upsert")
        else graph.lifecycle_ops.LifecycleOps
    )
    setattr(owner, name, killer(getattr(owner, name), int(after or 0)))

    async def main():
        settings = Settings()
        g = settings.graph
        store = await GraphStore.connect(g.uri, g.user, g.password.get_secret_value(), g.database)
        embedder = build_embedder(settings.embedder)
        index = build_vector_index(settings, embedder.dimension)
        await index.open()
        brain = Brain(settings, store, index, embedder)
        await brain.lifecycle.consolidate(tenant, [job])
        print("job completed: the kill did not happen", flush=True)

    asyncio.run(main())
    """
)

Seed = Callable[[Brain, str], Awaitable[None]]
Check = Callable[[Brain, str], Awaitable[None]]


async def _seed_duplicates(brain: Brain, tenant_id: str) -> None:
    peter = await brain.entities.create(tenant_id, "Peter Novak", EntityType.PERSON)
    await brain.memories.remember_many(
        tenant_id,
        [
            NewMemory(content="Peter Novak owns the WOBS style guide.", entity_ids=[peter.id]),
            NewMemory(content="Peter Novak owns the WOBS style guide"),
            NewMemory(content="Anna runs the outreach calendar.", importance=0.7),
            NewMemory(content="Anna runs the outreach calendar", importance=0.2),
        ],
    )


async def _check_duplicates(brain: Brain, tenant_id: str) -> None:
    current = await brain.memories.page(tenant_id, first=50)
    everything = await brain.memories.page(tenant_id, first=50, include_superseded=True)
    assert len(current) == 2 and len(everything) == 4
    hidden = [m for m in everything if m.merged_into]
    assert len(hidden) == 2 and {m.merged_into for m in hidden} == {m.id for m in current}


async def _seed_episodes(brain: Brain, tenant_id: str) -> None:
    peter = await brain.entities.create(tenant_id, "Peter Novak", EntityType.PERSON)
    start = now() - 60 * DAY
    await brain.memories.remember_many(
        tenant_id,
        [
            NewMemory(
                content=f"Checked Peter Novak's batch {i} of articles with the AI detector; "
                "it passed as human.",
                type=MemoryType.EPISODIC,
                entity_ids=[peter.id],
                created_at=start + i * DAY,
            )
            for i in range(6)
        ],
    )


async def _check_episodes(brain: Brain, tenant_id: str) -> None:
    everything = await brain.memories.page(tenant_id, first=50, include_superseded=True)
    patterns = [m for m in everything if m.type is MemoryType.PATTERN]
    assert len(patterns) == 1 and patterns[0].is_current
    episodes = [m for m in everything if m.type is MemoryType.EPISODIC]
    assert len(episodes) == 6 and {m.summarized_by for m in episodes} == {patterns[0].id}


async def _seed_faded(brain: Brain, tenant_id: str) -> None:
    old = now() - 200 * DAY
    await brain.memories.remember_many(
        tenant_id,
        [
            NewMemory(content=f"Traffic note {i}: 500 visits.", importance=0.1, created_at=old)
            for i in range(3)
        ]
        + [NewMemory(content="Peter is a writer at WOBS.", predicate="role", created_at=old)],
    )


async def _seed_restated(brain: Brain, tenant_id: str) -> None:
    old = now() - 200 * DAY
    await brain.memories.remember_many(
        tenant_id,
        [
            NewMemory(content="Traffic was 500 visits a week.", created_at=old + i * DAY)
            for i in range(3)
        ]
        + [NewMemory(content="Peter is a writer at WOBS.", predicate="role", created_at=old)],
    )


async def _check_pruned(brain: Brain, tenant_id: str) -> None:
    live = await brain.memories.page(tenant_id, first=50)
    assert sorted(m.content for m in live) == [
        "Peter is a writer at WOBS.",
        "Traffic was 500 visits a week.",
    ]
    kept = next(m for m in live if m.content.startswith("Traffic"))
    gone = await brain.memories.page(tenant_id, first=50, include_forgotten=True)
    pruned = [m for m in gone if m.pruned_at is not None]
    assert len(pruned) == 2 and {m.carried_by for m in pruned} == {kept.id}


async def _check_decayed(brain: Brain, tenant_id: str) -> None:
    rows = await brain.graph.tenant(tenant_id).decay_candidates(now())
    assert len(rows) == 3 and all(r["effective_importance"] is not None for r in rows)


async def _seed_session(brain: Brain, tenant_id: str) -> None:
    said = []
    for text in ("Hi, thanks!", "The Anderson order needs twelve articles.", "See you soon."):
        said.append(
            await brain.ingest.turns.record_turn(tenant_id, TurnInput(session_id="k", content=text))
        )
    brain.access.note(tenant_id, [said[1].episode.id], now())  # retrieved once: promoted
    await brain.access.flush()
    await brain.ingest.turns.close_session(tenant_id, "k")  # closed, not yet flushed


async def _check_session(brain: Brain, tenant_id: str) -> None:
    turns = await brain.memories.page(
        tenant_id, first=50, session_id="k", types=[MemoryType.EPISODIC], include_forgotten=True
    )
    assert len(turns) == 3 and all(m.is_live(now() + 1) for m in turns)  # the record stays
    slow = [m.content for m in turns if m.decay_class is DecayClass.SLOW]
    assert slow == ["The Anderson order needs twelve articles."]


async def _seed_stale_profiles(brain: Brain, tenant_id: str) -> None:
    for name in ("Peter Novak", "Anna Berg", "Ivo Kral"):
        entity = await brain.entities.create(tenant_id, name, EntityType.PERSON)
        await brain.memories.remember(
            tenant_id, NewMemory(content=f"{name} edits the guides.", entity_ids=[entity.id])
        )


async def _check_profiles(brain: Brain, tenant_id: str) -> None:
    assert await brain.graph.tenant(tenant_id).stale_entities(10) == []
    entities = await brain.entities.page(tenant_id, first=10)
    assert all("edits the guides" in (e.profile_summary or "") for e in entities)


async def _seed_drift(brain: Brain, tenant_id: str) -> None:
    memories = await brain.memories.remember_many(
        tenant_id, [NewMemory(content=f"Client {i} pays net 30.") for i in range(3)]
    )
    for m in memories:
        await brain.index.set_payload(tenant_id, [m.id], {"type": "task", "importance": 0.0})


async def _nothing(brain: Brain, tenant_id: str) -> None:
    return None


CASES: dict[str, tuple[JobName, str, Seed, Check]] = {
    "merge": (JobName.MERGE_DUPLICATES, "set_payload", _seed_duplicates, _check_duplicates),
    "compress": (JobName.COMPRESS_EPISODES, "upsert", _seed_episodes, _check_episodes),
    "prune": (JobName.PRUNE, "set_payload", _seed_restated, _check_pruned),
    "decay": (JobName.DECAY, "set_effective_importance:1", _seed_faded, _check_decayed),
    "promote": (JobName.PROMOTE_WORKING, "set_payload", _seed_session, _check_session),
    "reprofile": (JobName.REPROFILE, "clear_stale", _seed_stale_profiles, _check_profiles),
    "reconcile": (JobName.RECONCILE, "set_payload:1", _seed_drift, _nothing),
}


@pytest.fixture
async def shard_settings(tmp_path: Path, embedded_graph: GraphRuntime) -> Settings:
    assert embedded_graph.engine is not None and embedded_graph.engine.info is not None
    return Settings(
        data_dir=tmp_path,
        graph=GraphSettings(uri=embedded_graph.engine.info.uri),
        lifecycle=LifecycleSettings(batch_size=1),
    )


async def _open(
    settings: Settings, runtime: GraphRuntime, embedder: Embedder
) -> AsyncIterator[Brain]:
    index = build_vector_index(settings, embedder.dimension)
    await index.open()
    try:
        yield Brain(settings, runtime.store, index, embedder)
    finally:
        await index.close()


@pytest.mark.parametrize("case", list(CASES))
async def test_killed_job_is_finished_by_the_next_run(
    case: str,
    shard_settings: Settings,
    embedded_graph: GraphRuntime,
    embedder: Embedder,
    tenant_id: str,
) -> None:
    job, kill_at, seed, check = CASES[case]
    async for brain in _open(shard_settings, embedded_graph, embedder):
        await seed(brain, tenant_id)
    assert embedded_graph.engine is not None and embedded_graph.engine.info is not None
    info = embedded_graph.engine.info
    env = {
        **os.environ,
        "BRAIN_DATA_DIR": str(shard_settings.data_dir),
        "BRAIN_GRAPH__URI": info.uri,
        "BRAIN_GRAPH__USER": ROOT_USER,
        "BRAIN_GRAPH__PASSWORD": info.password,
        "BRAIN_LIFECYCLE__BATCH_SIZE": "1",
        "HF_HUB_OFFLINE": "1",
    }
    child = subprocess.run(
        [sys.executable, "-c", CHILD, job.value, kill_at, tenant_id],
        env=env,
        cwd=Path(__file__).resolve().parents[3],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert child.returncode == -signal.SIGKILL, child.stdout + child.stderr

    async for brain in _open(shard_settings, embedded_graph, embedder):
        tenant = brain.graph.tenant(tenant_id)
        (dead,) = await tenant.runs(limit=5, job=job)
        assert dead.status is RunStatus.RUNNING  # what the killed process left

        report = await brain.lifecycle.consolidate(tenant_id, [job, JobName.RECONCILE])

        assert report.ok, [r.error for r in report.runs]
        assert report.runs[0].resumed == dead.id
        closed = (await tenant.runs_by_id([dead.id]))[dead.id]
        assert closed.status is RunStatus.FAILED
        await check(brain, tenant_id)
        assert (await tenant.memory_counts())[1] == 0  # nothing left unindexed
        audit = await brain.lifecycle.consolidate(tenant_id, [JobName.RECONCILE])
        counts = audit.runs[0].counts
        assert counts["drifted"] == counts["missing"] == counts["reindexed"] == 0, counts
        assert counts["checked"] == (await tenant.memory_counts())[0]
