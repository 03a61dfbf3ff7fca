"""The supersede-or-conflict decision for a newly stated fact."""

from __future__ import annotations

from core.ingest_types import Session
from core.settings import IngestSettings
from core.types import Memory, MemoryType
from ingest.extract.corrections import Action, plan_fact
from ingest.sessions import next_session, slide

SINGLE = IngestSettings().single_valued_predicates


def fact(subject: str, predicate: str, obj: str, ident: str = "m1") -> Memory:
    return Memory(
        id=ident,
        tenant_id="t",
        type=MemoryType.FACT,
        content=f"{subject} {predicate} {obj}",
        created_at=1.0,
        valid_from=1.0,
        content_hash="h",
        subject=subject,
        predicate=predicate,
        object=obj,
    )


def test_single_valued_change_supersedes_with_a_reason() -> None:
    plan = plan_fact(
        "peter", "role", "editor", False, False, [fact("peter", "role", "writer")], SINGLE
    )
    assert plan.action is Action.SUPERSEDE and [m.id for m in plan.existing] == ["m1"]
    assert "writer" in (plan.reason or "") and "editor" in (plan.reason or "")


def test_never_across_subjects_or_predicates() -> None:
    existing = [fact("anna", "role", "writer"), fact("peter", "employer", "WOBS", "m2")]
    plan = plan_fact("peter", "role", "editor", False, True, existing, SINGLE)
    assert plan.action is Action.CREATE


def test_same_value_is_skipped_and_case_does_not_matter() -> None:
    plan = plan_fact("p", "employer", "wobs", False, False, [fact("p", "employer", "WOBS")], SINGLE)
    assert plan.action is Action.SKIP


def test_preferences_are_single_valued_per_topic() -> None:
    old = fact("user:u", "preference:indentation", "tabs")
    plan = plan_fact("user:u", "preference:indentation", "spaces", False, False, [old], SINGLE)
    assert plan.action is Action.SUPERSEDE


def test_retraction_of_a_single_value_supersedes() -> None:
    plan = plan_fact("p", "role", "writer", True, True, [fact("p", "role", "writer")], SINGLE)
    assert plan.action is Action.SUPERSEDE and "retracted" in (plan.reason or "")


def test_multi_valued_contradiction_is_a_conflict() -> None:
    plan = plan_fact(
        "user:u", "likes", "tea", True, False, [fact("user:u", "likes", "tea")], SINGLE
    )
    assert plan.action is Action.CONFLICT
    corrected = plan_fact(
        "x", "belongs_to", "Globex", False, True, [fact("x", "belongs_to", "WOBS")], SINGLE
    )
    assert corrected.action is Action.CONFLICT
    added = plan_fact(
        "x", "belongs_to", "Globex", False, False, [fact("x", "belongs_to", "WOBS")], SINGLE
    )
    assert added.action is Action.CREATE  # several values may hold at once


def test_the_window_keeps_the_first_turn() -> None:
    window: list[str] = []
    for i in range(30):
        window = slide(window, str(i), 20)
    assert len(window) == 20 and window[0] == "0" and window[1:] == [str(i) for i in range(11, 30)]


def test_session_expiry_is_idle_capped_by_ttl() -> None:
    s = IngestSettings(session_idle_seconds=100, session_ttl_seconds=1000)
    props, index = next_session(None, "a", 0.0, s, "u", None)
    assert index == 1 and props["expires_at"] == 100 and props["window"] == ["a"]
    session = Session(
        id="x",
        started_at=0.0,
        last_turn_at=950.0,
        expires_at=1000.0,
        turn_count=9,
        window=("a", "b"),
    )
    props, index = next_session(session, "c", 990.0, s, None, None)
    assert props["expires_at"] == 1000.0 and props["window"] == ["a", "b", "c"] and index == 10
    props, _ = next_session(session, "d", 1001.0, s, None, None)  # expired: a fresh window
    assert props["window"] == ["d"] and props["started_at"] == 1001.0
