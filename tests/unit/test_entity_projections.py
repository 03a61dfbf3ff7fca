"""The statements that read entities without their profile embedding list the properties
they return (ArcadeDB does not let a key override ``.*``): the list must follow the Entity
model, or a new field would silently read as unset on those paths."""

from __future__ import annotations

import re

import pytest

from core.types import Entity
from graph.cypher import statement


@pytest.mark.parametrize(
    "name", ["resolution_entity_get", "resolution_entity_renew", "retrieval_entity_expand"]
)
def test_light_entity_projection_lists_every_entity_field(name: str) -> None:
    found = re.search(r"\be \{(.*?)\}\)? AS es?\b", statement(name), re.S)
    assert found is not None
    listed = set(re.findall(r"\.([a-z_]\w*)", found.group(1)))
    assert listed - {"profile_embedding"} == set(Entity.model_fields) - {"profile_embedding"}
