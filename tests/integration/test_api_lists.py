"""Every list input has a size limit (issue 43, item 8): createEntity with 50,000 aliases took
2.8 s, search with 100,000 types 5.8 s. The list inputs are found by walking the schema, so a
list added later is covered without a line here."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

import pytest
from graphql import (
    GraphQLEnumType,
    GraphQLInputObjectType,
    GraphQLInputType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLScalarType,
    get_named_type,
)

from api.auth import create_key
from api.brain import Brain
from api.gql.checks import BATCH_LISTS
from tests.integration.api_client import Client
from tests.integration.test_api_text_inputs import SCHEMA, _selection, _valid

pytestmark = pytest.mark.integration


@dataclass(frozen=True)
class ListSlot:
    operation: str
    field: str
    path: tuple[str, ...]  # argument, then input fields, down to the list
    item: GraphQLInputType

    def __str__(self) -> str:
        return f"{self.field}({'.'.join(self.path)})"


def _lists_under(kind: GraphQLInputType, path: tuple[str, ...]) -> list[tuple[Any, ...]]:
    inner = kind.of_type if isinstance(kind, GraphQLNonNull) else kind
    if isinstance(inner, GraphQLList):
        return [(path, inner.of_type)]
    named = get_named_type(kind)
    if isinstance(named, GraphQLInputObjectType):
        return [x for n, f in named.fields.items() for x in _lists_under(f.type, (*path, n))]
    return []


def list_slots() -> list[ListSlot]:
    slots = []
    for operation, root in (("query", SCHEMA.query_type), ("mutation", SCHEMA.mutation_type)):
        assert root is not None
        for name, field in root.fields.items():
            for arg_name, arg in field.args.items():
                for path, item in _lists_under(arg.type, (arg_name,)):
                    slots.append(ListSlot(operation, name, path, item))
    return slots


SLOTS = list_slots()


def _item(kind: GraphQLInputType, i: int) -> Any:
    named = get_named_type(kind)
    if isinstance(named, GraphQLEnumType):
        return list(named.values)[i % len(named.values)]
    assert isinstance(named, GraphQLScalarType)
    return str(uuid.UUID(int=i + 1)) if named.name == "ID" else f"alias-{i}"


def _body(slot: ListSlot, items: list[Any]) -> dict[str, Any]:
    root = SCHEMA.query_type if slot.operation == "query" else SCHEMA.mutation_type
    assert root is not None
    field = root.fields[slot.field]
    variables: dict[str, Any] = {}
    for name, arg in field.args.items():
        if name == slot.path[0]:
            value: Any = items
            kind = arg.type
            if len(slot.path) > 1:
                value = _valid(kind)
                holder = value
                named = get_named_type(kind)
                for step in slot.path[1:-1]:
                    assert isinstance(named, GraphQLInputObjectType)
                    holder = holder.setdefault(step, _valid(named.fields[step].type))
                    named = get_named_type(named.fields[step].type)
                holder[slot.path[-1]] = items
            variables[name] = value
        elif isinstance(arg.type, GraphQLNonNull):
            variables[name] = _valid(arg.type)
    params = ", ".join(f"${n}: {field.args[n].type}" for n in variables)
    args = ", ".join(f"{n}: ${n}" for n in variables)
    query = f"{slot.operation}({params}) {{ {slot.field}({args}) {_selection(field)} }}"
    return {"query": query, "variables": variables}


def test_the_walk_finds_the_lists_named_in_the_issue() -> None:
    names = {str(s) for s in SLOTS}
    assert {"createEntity(input.aliases)", "search(input.types)", "erase(input.memoryIds)"} <= names


@pytest.mark.parametrize("slot", SLOTS, ids=str)
async def test_every_list_input_has_a_limit(brain: Brain, tenant_id: str, slot: ListSlot) -> None:
    _, key = await create_key(brain.graph, tenant_id, admin=True)
    client = Client(brain, key)
    limits = brain.settings.limits
    field = slot.path[-1]
    limit = limits.max_batch if field in BATCH_LISTS else limits.max_list_items
    resp = await client.post(_body(slot, [_item(slot.item, i) for i in range(limit + 1)]))
    answer = resp.json()
    result = (answer.get("data") or {}).get(slot.field)
    assert result is not None and result["__typename"] == "InvalidInputError", (slot, answer)
    assert result["field"] == field
    assert result["message"] == f"{field} has {limit + 1} items; the limit is {limit}"
    assert await brain.graph.tenant(tenant_id).memory_counts() == (0, 0)
    assert await brain.graph.tenant(tenant_id).entity_count() == 0


async def test_a_body_with_too_many_list_items_is_refused_before_graphql(
    brain: Brain, tenant_id: str
) -> None:
    _, key = await create_key(brain.graph, tenant_id)
    client = Client(brain, key)
    query = 'query($t: [MemoryType!]) { search(input: {query: "x", types: $t}) { __typename } }'
    limit = brain.settings.api.max_body_list_items
    resp = await client.post({"query": query, "variables": {"t": ["FACT"] * (limit + 1)}})
    assert resp.status_code == 400
    [error] = resp.json()["errors"]
    assert error["extensions"]["code"] == "BAD_REQUEST"
    assert error["message"] == f"the request body has more than {limit} list items"
    # at the limit, the field's own limit answers (a typed error, after GraphQL ran)
    resp = await client.post({"query": query, "variables": {"t": ["FACT"] * limit}})
    assert resp.json()["data"]["search"]["__typename"] == "InvalidInputError"
