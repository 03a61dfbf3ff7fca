"""Which of a session's tracked entities a read adds to the entity path (``read_context``)."""

from __future__ import annotations

from core.resolution_types import References, TrackedEntity
from core.settings import RetrievalSettings
from core.types import Entity, EntityType
from retrieval.reads import read_context


def person(i: str, name: str) -> Entity:
    return Entity(id=i, tenant_id="t", name=name, type=EntityType.PERSON, first_seen=0, last_seen=0)


PETER, SARAH, OTHER_SARAH, ANNA = (
    person("peter", "Peter"),
    person("sarah", "Sarah"),
    person("sarah2", "Sarah"),
    person("anna", "Anna"),
)
REFS = References(
    entity_ids=("peter",),
    entities={"peter": PETER},
    excluded=("sarah2",),  # the query's "Sarah" did not mean her
    tracked=(
        TrackedEntity(SARAH, 0.5),
        TrackedEntity(OTHER_SARAH, 0.9),
        TrackedEntity(ANNA, 0.2),
    ),
)


def test_tracked_entities_at_the_default_threshold_join_the_named_ones() -> None:
    default = RetrievalSettings().salient_entity_min
    ctx = read_context(REFS, (), (), default)
    assert default == 0.3
    assert ctx.entity_ids == ["peter", "sarah"]  # Anna is below, the other Sarah excluded
    assert ctx.exclude == ("sarah2",)
    assert set(ctx.entities) == {"peter", "sarah", "sarah2", "anna"}


def test_the_threshold_setting_decides_who_joins() -> None:
    assert read_context(REFS, (), (), 0.6).entity_ids == ["peter"]
    assert read_context(REFS, (), (), 0.1).entity_ids == ["peter", "sarah", "anna"]


def test_an_excluded_namesake_never_joins_however_salient() -> None:
    assert "sarah2" not in read_context(REFS, (), (), 0.0).entity_ids
