"""The lifecycle's pure rules: who wins a duplicate merge, when a memory is ambiguous, the
decayed importance, the extractive pattern summary, payload drift, feedback deltas, and the
scheduler's due check."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from core.lifecycle_types import FeedbackOutcome, JobName, MemoryDigest
from core.settings import LifecycleSettings
from ingest.lifecycle.decay import _effective
from ingest.lifecycle.duplicates import compatible, plan_merges
from ingest.lifecycle.feedback import delta
from ingest.lifecycle.patterns import extractive_summary
from ingest.lifecycle.scheduler import Scheduler
from ingest.lifecycle.similarity import similar_pairs
from ingest.lifecycle.upkeep import drifted


def row(i: str, entities: tuple[str, ...] = (), **extra: Any) -> MemoryDigest:
    base = {
        "id": i,
        "entity_ids": list(entities),
        "pinned": False,
        "subject": None,
        "predicate": None,
        "length": 40,
        "access_count": 0,
        "created_at": 100.0,
        "importance": 0.5,
    }
    return MemoryDigest(**{**base, **extra})


def test_the_more_specific_memory_wins_and_pins_never_lose() -> None:
    rows = [row("a", ("peter",)), row("b", ("peter", "wobs")), row("c", pinned=True)]
    assert plan_merges(rows, [(0, 1, 0.97)]) == {1: [(0, 0.97)]}
    assert plan_merges(rows, [(0, 2, 0.97)]) == {2: [(0, 0.97)]}  # the pinned one wins
    both_pinned = [row("a", pinned=True), row("b", pinned=True)]
    assert plan_merges(both_pinned, [(0, 1, 0.99)]) == {}


def test_different_subjects_or_entities_are_never_duplicates() -> None:
    assert not compatible(row("a", ("peter",)), row("b", ("anna",)))
    assert not compatible(row("a", subject="p1"), row("b", subject="p2"))
    traffic = {"subject": "wobs", "predicate": "monthly_traffic"}
    assert not compatible(row("a", object="500", **traffic), row("b", object="800", **traffic))
    assert compatible(row("a", ("peter",)), row("b", ("peter", "wobs")))
    assert compatible(row("a"), row("b", ("peter",)))


def test_a_memory_duplicating_two_different_things_is_left_alone() -> None:
    rows = [row("vague"), row("peter's", ("peter",)), row("anna's", ("anna",))]
    assert plan_merges(rows, [(0, 1, 0.99), (0, 2, 0.99)]) == {}


def test_no_chains_within_one_run() -> None:
    rows = [row("a", ("x",)), row("b", ("x", "y")), row("c", ("x", "y", "z"))]
    plan = plan_merges(rows, [(0, 1, 0.99), (1, 2, 0.98)])
    assert plan == {1: [(0, 0.99)]}  # b won once, so it cannot lose to c in the same run


def test_similar_pairs_finds_pairs_above_the_threshold_across_blocks() -> None:
    rng = np.random.default_rng(0)
    m = rng.normal(size=(1500, 8)).astype(np.float32)
    m[1400] = m[3] + 0.001
    m /= np.linalg.norm(m, axis=1, keepdims=True)
    pairs = similar_pairs(m, 0.999)
    assert (3, 1400) in [(i, j) for i, j, _ in pairs]
    assert all(i < j and s >= 0.999 for i, j, s in pairs)


def test_effective_importance_halves_every_half_life_and_access_resets_it() -> None:
    day = 86_400.0
    old = {"importance": 0.8, "decay_class": "slow", "created_at": 0.0, "last_accessed_at": None}
    assert _effective(old, 90 * day) == pytest.approx(0.4)
    touched = {**old, "last_accessed_at": 89 * day}
    assert _effective(touched, 90 * day) == pytest.approx(0.8 * math.exp(-math.log(2) / 90))
    assert _effective({**old, "decay_class": "none"}, 900 * day) == pytest.approx(0.8)


def test_extractive_summary_leads_with_the_most_central_episode() -> None:
    angles = np.radians([-10.0, 0.0, 10.0, 180.0])  # B sits in the middle of A and C
    v = np.stack([np.cos(angles), np.sin(angles)], axis=1).astype(np.float32)
    texts = ["checked batch A", "checked batch B", "checked batch C", "invoice sent"]
    summary = extractive_summary(texts, v, [0.0, 86_400.0, 2 * 86_400.0, 3 * 86_400.0], 2)
    assert summary.startswith("Recurring (4 times, 1970-01-01 to 1970-01-04): checked batch B")
    assert "invoice sent" in summary  # the most different one comes second


def test_drift_compares_floats_lists_and_missing_keys() -> None:
    expected = {"importance": 0.5, "entity_ids": ["a", "b"], "type": "fact", "pinned": False}
    assert drifted(expected, {**expected, "entity_ids": ["b", "a"]}) == {}
    assert drifted(expected, {**expected, "importance": 0.1}) == {"importance": 0.5}
    assert drifted(expected, {"importance": 0.5, "entity_ids": ["a", "b"], "type": "fact"}) == {
        "pinned": False
    }


def test_feedback_deltas() -> None:
    assert delta(True, None, 0.05, 0.1) == pytest.approx(0.05)
    assert delta(True, FeedbackOutcome.POSITIVE, 0.05, 0.1) == pytest.approx(0.15)
    assert delta(False, FeedbackOutcome.NEGATIVE, 0.05, 0.1) == pytest.approx(-0.15)
    assert delta(False, FeedbackOutcome.NEUTRAL, 0.05, 0.1) == pytest.approx(-0.05)


def test_due_jobs_follow_intervals_and_zero_disables() -> None:
    settings = LifecycleSettings(intervals={"decay": 100.0, "prune": 0.0, "reconcile": 50.0})
    scheduler = Scheduler(None, None, settings)  # type: ignore[arg-type]
    assert scheduler.due({}, 1000.0) == [JobName.DECAY, JobName.RECONCILE]
    assert scheduler.due({"decay": 950.0, "reconcile": 900.0}, 1000.0) == [JobName.RECONCILE]


def test_a_new_tenants_jobs_wait_for_their_first_interval() -> None:
    settings = LifecycleSettings(intervals={"decay": 100.0, "reconcile": 50.0})
    scheduler = Scheduler(None, None, settings)  # type: ignore[arg-type]
    assert scheduler.due({}, 1000.0, since=999.6) == []  # first writes 0.4 s ago
    assert scheduler.due({}, 1000.0, since=940.0) == [JobName.RECONCILE]
    assert scheduler.due({"reconcile": 990.0}, 1000.0, since=800.0) == [JobName.DECAY]


def test_unknown_job_intervals_are_rejected() -> None:
    with pytest.raises(ValueError, match="unknown jobs"):
        LifecycleSettings(intervals={"defrag": 10.0})
