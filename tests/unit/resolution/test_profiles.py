"""Profile tags, the embedded profile text and its facets (the summary: test_summary.py)."""

from __future__ import annotations

from core.types import Entity, EntityType
from resolution.profiles import context_tags, profile_facets, profile_text


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


def test_the_days_of_the_summary_are_neither_embedded_nor_tags() -> None:
    """The stored summary dates each statement; what is compared for disambiguation is the
    statements alone (a day would pull every profile said that day together)."""
    summary = "[2023-01-10] Peter is one of our writers. [2024-11-02] Peter edits the guides."
    peter = entity("Peter", ("role:writer",))
    text = profile_text(peter, summary, ["role:writer"], None)
    assert text == "is one of our writers. edits the guides. Role: writer."
    tags = context_tags(peter, summary)
    assert tags[:2] == ["role:writer", "writers"] and not any(c.isdigit() for t in tags for c in t)
    dated = peter.model_copy(update={"profile_summary": summary})
    assert profile_facets(dated) == ["is one of our writers.", "edits the guides.", "Role: writer."]
