"""Lifecycle jobs on the real engines: duplicate merge (and undo), episode -> pattern
compression, decay and soft prune, working-memory flush, re-profiling, reconciliation of
payload drift, job reports and resumption, and tenant isolation of all of it."""

from __future__ import annotations

import pytest

from api.brain import Brain
from core.clock import NEVER, now
from core.errors import InvalidInput, NotFound
from core.ingest_types import TurnInput
from core.lifecycle_types import FeedbackOutcome, JobName, JobRun, RunStatus
from core.retrieval_types import SearchQuery
from core.types import DecayClass, EntityType, MemoryType, NewMemory

pytestmark = pytest.mark.integration

DAY = 86_400.0


async def _search_ids(brain: Brain, tenant_id: str, query: str) -> list[str]:
    result = await brain.reads.search(tenant_id, SearchQuery(query=query, top_k=20))
    return [h.memory.id for h in result.hits]


async def test_duplicate_merge_keeps_the_more_specific_memory_and_can_be_undone(
    brain: Brain, tenant_id: str
) -> None:
    peter = await brain.entities.create(tenant_id, "Peter Novak", EntityType.PERSON)
    anna = await brain.entities.create(tenant_id, "Anna Berg", EntityType.PERSON)
    wobs = await brain.entities.create(tenant_id, "WOBS", EntityType.ORG)
    specific = await brain.memories.remember(
        tenant_id,
        NewMemory(
            content="Peter Novak writes the weekly blog posts for WOBS.",
            importance=0.6,
            entity_ids=[peter.id, wobs.id],
        ),
    )
    vague = await brain.memories.remember(
        tenant_id,
        NewMemory(
            content="Peter Novak writes the weekly blog posts for WOBS",
            importance=0.7,
            entity_ids=[peter.id],
        ),
    )
    # Same words about someone else: never a duplicate of Peter's fact.
    other = await brain.memories.remember(
        tenant_id,
        NewMemory(
            content="Peter Novak writes the weekly blog posts for WOBS.", entity_ids=[anna.id]
        ),
    )
    unrelated = await brain.memories.remember(
        tenant_id, NewMemory(content="The Anderson order ships on Tuesday.")
    )

    report = await brain.lifecycle.consolidate(tenant_id, [JobName.MERGE_DUPLICATES])

    (run,) = report.runs
    assert run.status is RunStatus.DONE and run.counts["merged"] == 1
    loser = await brain.memories.get(tenant_id, vague.id)
    winner = await brain.memories.get(tenant_id, specific.id)
    assert loser.merged_into == specific.id and not loser.is_current
    assert winner.is_current and winner.importance == pytest.approx(0.75)  # max + 0.05
    for kept in (other.id, unrelated.id):
        assert (await brain.memories.get(tenant_id, kept)).is_current
    merges = await brain.lifecycle.merges(tenant_id, vague.id)
    assert [(m.loser_id, m.winner_id) for m in merges] == [(vague.id, specific.id)]
    assert "duplicate" in merges[0].reason and merges[0].similarity >= 0.92
    found = await _search_ids(brain, tenant_id, "who writes the weekly blog posts for WOBS?")
    assert specific.id in found and vague.id not in found
    payload = (await brain.index.retrieve(tenant_id, [vague.id]))[vague.id]
    assert payload["superseded_at"] == pytest.approx(loser.superseded_at)

    restored = await brain.lifecycle.unmerge(tenant_id, vague.id)

    assert restored.is_current and restored.merged_into is None
    assert (await brain.memories.get(tenant_id, specific.id)).importance == pytest.approx(0.6)
    assert vague.id in await _search_ids(brain, tenant_id, "weekly blog posts for WOBS")
    with pytest.raises(InvalidInput):
        await brain.lifecycle.unmerge(tenant_id, vague.id)  # no longer merged


async def test_repeated_episodes_compress_into_a_pattern_that_links_them(
    brain: Brain, tenant_id: str
) -> None:
    peter = await brain.entities.create(tenant_id, "Peter Novak", EntityType.PERSON)
    start = now() - 60 * DAY
    texts = [
        "Checked Peter Novak's new batch of articles with the AI detector; it passed as human.",
        "Ran Peter Novak's latest batch of articles through the AI detector, passed as human.",
        "Peter Novak's batch of articles went through the AI detector and passed as human.",
        "Checked the new batch of articles from Peter Novak with the AI detector: human.",
        "Peter Novak's latest articles were checked with the AI detector and read as human; "
        "one of them was the Lisbon tram guide.",
        "Checked Peter Novak's batch of articles with the AI content detector; passed.",
    ]
    episodes = await brain.memories.remember_many(
        tenant_id,
        [
            NewMemory(
                content=t,
                type=MemoryType.EPISODIC,
                entity_ids=[peter.id],
                created_at=start + i * 7 * DAY,
            )
            for i, t in enumerate(texts)
        ],
    )
    recent = await brain.memories.remember(
        tenant_id,
        NewMemory(
            content="Checked Peter Novak's newest batch of articles with the AI detector.",
            type=MemoryType.EPISODIC,
            entity_ids=[peter.id],
        ),
    )

    report = await brain.lifecycle.consolidate(tenant_id, [JobName.COMPRESS_EPISODES])

    (run,) = report.runs
    assert run.status is RunStatus.DONE, run.error
    assert run.counts["patterns"] == 1 and run.counts["compressed"] == len(texts)
    sources = {e.id for e in episodes}
    hidden = await brain.memories.get_many(tenant_id, sorted(sources))
    pattern_ids = {m.summarized_by for m in hidden.values()}
    assert len(pattern_ids) == 1 and None not in pattern_ids
    pattern = await brain.memories.get(tenant_id, str(pattern_ids.pop()))
    assert pattern.type is MemoryType.PATTERN and pattern.decay_class is DecayClass.NONE
    assert pattern.entity_ids == (peter.id,) and pattern.content.startswith("Recurring (6 times")
    # A summary beside its sources, never a replacement: every episode stays current.
    assert all(m.is_current and m.is_live(now()) for m in hidden.values())
    assert set(await brain.graph.tenant(tenant_id).pattern_sources(pattern.id)) == sources
    assert (await brain.memories.get(tenant_id, recent.id)).is_current  # too recent to compress
    found = await _search_ids(brain, tenant_id, "Peter Novak articles AI detector")
    assert pattern.id in found
    # A detail only one compressed episode holds is still found, as that episode.
    lisbon = await _search_ids(brain, tenant_id, "Which article was the Lisbon tram guide?")
    assert episodes[4].id in lisbon[:2]

    again = await brain.lifecycle.consolidate(tenant_id, [JobName.COMPRESS_EPISODES])
    assert again.runs[0].counts["patterns"] == 0  # idempotent


async def test_decay_and_prune_spare_foundations_pins_and_recent_use(
    brain: Brain, tenant_id: str
) -> None:
    old = now() - 120 * DAY
    faded = await brain.memories.remember(
        tenant_id,
        NewMemory(content="Traffic was 500 visits last week.", importance=0.2, created_at=old),
    )
    role = await brain.memories.remember(
        tenant_id,
        NewMemory(
            content="Peter is a writer at WOBS.",
            importance=0.3,
            created_at=old,
            subject="peter",
            predicate="role",
            object="writer",
        ),
    )
    pinned = await brain.memories.remember(
        tenant_id,
        NewMemory(content="Always reply in English.", importance=0.05, created_at=old, pinned=True),
    )
    young = await brain.memories.remember(
        tenant_id,
        NewMemory(content="Lunch was pizza.", importance=0.05, created_at=now() - 5 * DAY),
    )
    assert role.decay_class is DecayClass.NONE  # identity and roles never decay

    decay_report = await brain.lifecycle.consolidate(tenant_id, [JobName.DECAY])
    rows = {r["id"]: r for r in await brain.graph.tenant(tenant_id).decay_candidates(now())}
    assert decay_report.runs[0].counts["updated"] >= 2
    assert rows[faded.id]["effective_importance"] == pytest.approx(0.2 * 0.5 ** (120 / 90), 0.01)
    assert role.id not in rows and pinned.id not in rows  # they do not decay at all

    prune_report = await brain.lifecycle.consolidate(tenant_id, [JobName.PRUNE])

    # Age and fading change ranking, never visibility: nothing here is a restatement.
    assert prune_report.runs[0].counts["pruned"] == 0
    for kept in (faded.id, role.id, pinned.id, young.id):
        assert (await brain.memories.get(tenant_id, kept)).is_live(now())
    assert faded.id in await _search_ids(brain, tenant_id, "traffic visits last week")
    assert role.id in await _search_ids(brain, tenant_id, "what does Peter do at WOBS?")


async def test_prune_hides_only_a_restatement_behind_the_first_statement(
    brain: Brain, tenant_id: str
) -> None:
    text = "The Lisbon office opens at 9."
    first = await brain.memories.remember(
        tenant_id, NewMemory(content=text, created_at=now() - 9 * DAY)
    )
    again = await brain.memories.remember(tenant_id, NewMemory(content=text))
    other = await brain.memories.remember(
        tenant_id, NewMemory(content="The Porto office opens at 9.")
    )

    report = await brain.lifecycle.consolidate(tenant_id, [JobName.PRUNE])

    assert report.runs[0].counts["pruned"] == 1
    hidden = await brain.memories.get(tenant_id, again.id)
    assert hidden.pruned_at is not None and hidden.carried_by == first.id
    assert not hidden.is_live(now() + 1)
    for kept in (first.id, other.id):
        assert (await brain.memories.get(tenant_id, kept)).is_live(now() + 1)
    found = await _search_ids(brain, tenant_id, "When does the Lisbon office open?")
    assert found[0] == first.id and again.id not in found
    repeat = await brain.lifecycle.consolidate(tenant_id, [JobName.PRUNE])
    assert repeat.runs[0].counts["pruned"] == 0  # the statement keeps its one record


async def test_closing_a_session_promotes_used_turns_and_keeps_every_turn(
    brain: Brain, tenant_id: str
) -> None:
    say = brain.ingest.turns.record_turn
    hello = await say(tenant_id, TurnInput(session_id="wm", content="Hi there, thanks!"))
    useful = await say(
        tenant_id,
        TurnInput(session_id="wm", content="The Anderson order needs twelve articles by Friday."),
    )
    unused = await say(
        tenant_id, TurnInput(session_id="wm", content="The invoice template moved to Drive.")
    )
    brain.access.note(tenant_id, [useful.episode.id], now())  # as a search hit would
    await brain.access.flush()
    turns = [hello.episode.id, useful.episode.id, unused.episode.id]
    before = await brain.memories.get_many(tenant_id, turns)
    assert [before[t].access_count for t in turns] == [0, 1, 0]

    await brain.close_session(tenant_id, "wm")

    runs = await brain.lifecycle.runs(tenant_id, first=5, job=JobName.PROMOTE_WORKING)
    assert runs[0].trigger == "session_close" and runs[0].counts["sessions"] == 1
    assert runs[0].counts["promoted"] == 1 and runs[0].counts["kept"] == 2
    kept = await brain.memories.get(tenant_id, useful.episode.id)
    assert kept.is_live(now()) and kept.decay_class is DecayClass.SLOW
    for turn in (hello.episode.id, unused.episode.id):
        settled = await brain.memories.get(tenant_id, turn)  # the record stays, as it was
        assert settled.is_live(now() + 1) and settled.is_current
        assert settled.decay_class is DecayClass.MEDIUM
    payload = (await brain.index.retrieve(tenant_id, [unused.episode.id]))[unused.episode.id]
    assert payload["expires_at"] >= NEVER
    kept_payload = (await brain.index.retrieve(tenant_id, [kept.id]))[kept.id]
    assert kept_payload["decay_class"] == "slow"  # the ranking reads the class from here
    found = await brain.reads.search(tenant_id, SearchQuery(query="Where is the invoice template?"))
    # never retrieved before: the turn, or the statement extracted from it ("moved to Drive")
    top = found.hits[0].memory if found.hits else None
    assert top is not None and (
        top.id == unused.episode.id or (top.source or "").endswith(unused.episode.id)
    )
    assert unused.episode.id in [h.memory.id for h in found.hits]
    again = await brain.lifecycle.consolidate(tenant_id, [JobName.PROMOTE_WORKING])
    assert again.runs[0].counts["sessions"] == 0  # flushed once

    later = await say(tenant_id, TurnInput(session_id="wm", content="Back again, hello!"))
    await brain.close_session(tenant_id, "wm")  # a reopened session is flushed again
    runs = await brain.lifecycle.runs(tenant_id, first=1, job=JobName.PROMOTE_WORKING)
    assert runs[0].counts == {"sessions": 1, "promoted": 0, "kept": 1}
    assert (await brain.memories.get(tenant_id, later.episode.id)).is_live(now() + 1)


async def test_reprofile_job_rebuilds_profiles_touched_by_other_jobs(
    brain: Brain, tenant_id: str
) -> None:
    peter = await brain.entities.create(tenant_id, "Peter Novak", EntityType.PERSON)
    for text in ("Peter Novak edits the link-building guides.", "Peter Novak edits guides"):
        await brain.memories.remember(tenant_id, NewMemory(content=text, entity_ids=[peter.id]))
    assert (await brain.entities.get(tenant_id, peter.id)).profile_summary is None

    report = await brain.lifecycle.consolidate(
        tenant_id, [JobName.MERGE_DUPLICATES, JobName.REPROFILE]
    )

    assert [r.counts.get("entities") for r in report.runs][-1] == 1
    assert "link-building" in (
        (await brain.entities.get(tenant_id, peter.id)).profile_summary or ""
    )
    again = await brain.lifecycle.consolidate(tenant_id, [JobName.REPROFILE])
    assert again.runs[0].counts["entities"] == 0


async def test_reconcile_repairs_payload_drift_and_missing_points(
    brain: Brain, tenant_id: str
) -> None:
    drifted, lost = await brain.memories.remember_many(
        tenant_id,
        [
            NewMemory(content="WOBS invoices on the first of the month.", importance=0.8),
            NewMemory(content="The style guide lives in the shared drive."),
        ],
    )
    await brain.index.set_payload(tenant_id, [drifted.id], {"importance": 0.01, "type": "task"})
    await brain.index.delete(tenant_id, [lost.id])

    report = await brain.lifecycle.consolidate(tenant_id, [JobName.RECONCILE])

    counts = report.runs[0].counts
    assert counts["drifted"] == 1 and counts["missing"] == 1 and counts["checked"] == 2
    payload = (await brain.index.retrieve(tenant_id, [drifted.id]))[drifted.id]
    assert payload["importance"] == pytest.approx(0.8) and payload["type"] == "fact"
    assert lost.id in await _search_ids(brain, tenant_id, "where is the style guide?")
    clean = await brain.lifecycle.consolidate(tenant_id, [JobName.RECONCILE])
    assert clean.runs[0].counts["drifted"] == 0 and clean.runs[0].counts["missing"] == 0


async def test_an_interrupted_run_is_resumed_and_closed(brain: Brain, tenant_id: str) -> None:
    tenant = brain.graph.tenant(tenant_id)
    dead = JobRun(
        id="00000000-0000-4000-8000-000000000001",
        tenant_id=tenant_id,
        job=JobName.DECAY,
        status=RunStatus.RUNNING,
        started_at=now() - 60,
    )
    await tenant.save_run(dead)

    report = await brain.lifecycle.consolidate(tenant_id, [JobName.DECAY])

    assert report.runs[0].resumed == dead.id and report.runs[0].status is RunStatus.DONE
    closed = (await tenant.runs_by_id([dead.id]))[dead.id]
    assert closed.status is RunStatus.FAILED and report.runs[0].id in (closed.error or "")
    listed = await brain.lifecycle.runs(tenant_id, first=10)
    assert [r.id for r in listed][:2] == [report.runs[0].id, dead.id]  # newest first


async def test_feedback_adjusts_importance_within_bounds(brain: Brain, tenant_id: str) -> None:
    a, b = await brain.memories.remember_many(
        tenant_id,
        [
            NewMemory(content="Use Originality.ai to check content.", importance=0.5),
            NewMemory(content="Peter prefers briefs as bullet lists.", importance=0.97),
        ],
    )
    result = await brain.lifecycle.feedback(tenant_id, "s-fb", [a.id, b.id], True, None)
    assert result.changes[a.id][0] == 0.5
    assert result.changes[a.id][1] == pytest.approx(0.55)
    assert result.changes[b.id][1] == pytest.approx(1.0)  # capped

    await brain.lifecycle.feedback(tenant_id, "s-fb", [a.id], True, FeedbackOutcome.POSITIVE)
    assert (await brain.memories.get(tenant_id, a.id)).importance == pytest.approx(0.70)
    payload = (await brain.index.retrieve(tenant_id, [a.id]))[a.id]
    assert payload["importance"] == pytest.approx(0.70)
    await brain.lifecycle.feedback(tenant_id, "s-fb", [a.id], False, FeedbackOutcome.NEGATIVE)
    assert (await brain.memories.get(tenant_id, a.id)).importance == pytest.approx(0.55)
    with pytest.raises(InvalidInput):
        await brain.lifecycle.feedback(tenant_id, "s-fb", [], True)


async def test_lifecycle_never_reaches_another_tenant(
    brain: Brain, tenant_id: str, other_tenant_id: str
) -> None:
    mine = await brain.memories.remember(
        tenant_id, NewMemory(content="Invoices go out on Mondays.")
    )
    theirs = [
        await brain.memories.remember(
            other_tenant_id, NewMemory(content="Invoices go out on Mondays")
        )
        for _ in range(2)
    ]
    before = {m.id: (await brain.memories.get(other_tenant_id, m.id)).importance for m in theirs}

    await brain.lifecycle.consolidate(tenant_id)

    with pytest.raises(NotFound):
        await brain.lifecycle.feedback(tenant_id, "s", [theirs[0].id], True)
    with pytest.raises(NotFound):
        await brain.lifecycle.unmerge(tenant_id, theirs[0].id)
    with pytest.raises(NotFound):
        await brain.lifecycle.merges(tenant_id, theirs[0].id)
    for m in theirs:
        after = await brain.memories.get(other_tenant_id, m.id)
        assert after.is_current and after.importance == before[m.id]
    assert (await brain.memories.get(tenant_id, mine.id)).is_current
    assert await brain.lifecycle.runs(other_tenant_id, first=5) == []
