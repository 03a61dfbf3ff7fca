"""Extractive profile summaries, tags and the embedded profile text."""

from __future__ import annotations

from core.types import Entity, EntityType
from resolution.profiles import build_summary, context_tags, profile_facets, profile_text


def entity(name: str, tags: tuple[str, ...] = (), parent: str | None = None) -> Entity:
    return Entity(
        id=name.lower(),
        tenant_id="t",
        name=name,
        type=EntityType.PERSON,
        context_tags=tags,
        parent_id=parent,
        first_seen=0,
        last_seen=0,
    )


def test_summary_names_first_bounded_and_deduplicated() -> None:
    peter = entity("Peter")
    memories = [
        ("We do link building. Peter is one of our writers.", 0.5, 1.0),
        ("Peter is one of our writers.", 0.5, 2.0),
        ("The office moved to Lisbon.", 0.9, 3.0),
    ]
    summary = build_summary(peter, memories, max_chars=200)
    assert summary.startswith("Peter is one of our writers.")
    assert summary.count("Peter is one of our writers.") == 1
    assert len(build_summary(peter, memories * 50, max_chars=60)) <= 60


def test_tags_keep_declared_and_skip_names() -> None:
    tags = context_tags(entity("Peter", ("role:writer",)), "Peter writes articles articles")
    assert tags[0] == "role:writer" and "articles" in tags and "peter" not in tags


def test_profile_text_leaves_out_own_names_keeps_role_and_parent() -> None:
    wobs = Entity(
        id="w",
        tenant_id="t",
        name="Wolf of Blog Street",
        type=EntityType.ORG,
        context_tags=("link", "building"),
        first_seen=0,
        last_seen=0,
    )
    peter = entity("Peter", ("role:writer",), parent="w")
    text = profile_text(
        peter, "Peter is one of our writers. The sky is blue.", ["role:writer"], wobs
    )
    assert "Peter" not in text
    assert "writers" in text and "sky" not in text  # only sentences naming him
    assert "Role: writer." in text and "Wolf of Blog Street (link, building)" in text


def test_facets_are_the_describing_sentences_and_roles_without_names() -> None:
    peter = entity("Peter", ("role:writer", "articles")).model_copy(
        update={
            "aliases": ("Pete",),
            "profile_summary": "Pete's drafts are due Friday. Peter writes articles. "
            "The sky is blue.",
        }
    )
    assert profile_facets(peter) == ["drafts are due Friday.", "writes articles.", "Role: writer."]
    nobody = entity("Anna").model_copy(update={"profile_summary": "The office moved to Lisbon."})
    assert profile_facets(nobody) == ["The office moved to Lisbon."]  # no sentence names her
    assert profile_facets(entity("Tom")) == []
