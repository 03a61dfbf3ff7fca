"""Entity tracker arithmetic: scene / topic / mention stickiness, decay, pronoun choice."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from core.settings import ResolutionSettings
from core.types import EntityType
from resolution.tracker import CAP, EntityTracker, dump_state, load_state
from resolution.types import TrackerState

T = EntityTracker(ResolutionSettings())
TYPES = {
    "wobs": EntityType.ORG,
    "peter": EntityType.PERSON,
    "anderson": EntityType.PROJECT,
    "anna": EntityType.PERSON,
}
PERSON = frozenset({EntityType.PERSON})
THING = frozenset(set(EntityType) - {EntityType.PERSON})


def test_seed_scene_stays_topic_fades() -> None:
    s = T.step(TrackerState(), ["wobs", "peter"], scene_hints=["wobs"], types=TYPES)
    assert s.scope == {"wobs": "scene", "peter": "topic"}
    s = T.step(s, ["peter"], types=TYPES)
    assert T.pick(s, PERSON, TYPES) == "peter"
    peter_before = s.salience["peter"]
    s = T.step(s, ["anderson"], types=TYPES)
    assert s.scope["peter"] == "mention" and s.scope["anderson"] == "topic"
    s = T.step(s, [], types=TYPES)
    assert s.scope["wobs"] == "scene"
    assert s.salience["peter"] < peter_before / 2
    assert s.salience["wobs"] > s.salience["peter"]
    assert T.pick(s, THING, TYPES) == "anderson"  # the topic, not the scene
    assert s.turn == 4


def test_first_org_becomes_scene_without_hint() -> None:
    s = T.step(TrackerState(), ["wobs"], types=TYPES)
    assert s.scope["wobs"] == "scene"


def test_pick_respects_type_and_floor() -> None:
    s = TrackerState(salience={"anna": 0.01, "wobs": 1.0}, scope={"wobs": "scene"})
    assert T.pick(s, PERSON, TYPES) is None  # below the floor
    assert T.pick(s, None, TYPES) == "wobs"


def test_state_round_trip_and_garbage() -> None:
    s = T.step(TrackerState(), ["peter", "anna"], types=TYPES)
    assert load_state(dump_state(s)) == s
    assert load_state("not json") == TrackerState()
    assert load_state(None) == TrackerState()


@given(st.lists(st.lists(st.sampled_from(sorted(TYPES)), max_size=3), max_size=30))
def test_salience_bounded_and_unmentioned_never_grow(turns: list[list[str]]) -> None:
    s = TrackerState()
    for named in turns:
        before = dict(s.salience)
        s = T.step(s, named, types=TYPES)
        for ident, value in s.salience.items():
            assert 0 < value <= CAP
            if ident not in named:
                assert value <= before.get(ident, 0.0)
        assert set(s.scope) == set(s.salience)
