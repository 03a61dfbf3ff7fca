"""Malformed text in every text input of the schema is a typed error naming the field.

The inputs are found by walking the schema (each root field's arguments, into input objects
and lists, down to String and ID), so an input added later is covered without a line here.
Each request carries exactly one bad string, sent as a client would (JSON ``\\ud800``
escapes), and every other argument valid.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest
from graphql import (
    GraphQLEnumType,
    GraphQLField,
    GraphQLInputObjectType,
    GraphQLInputType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLScalarType,
    GraphQLSchema,
    GraphQLUnionType,
    Undefined,
    get_named_type,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from api.auth import create_key
from api.brain import Brain
from api.gql.schema import build_schema
from tests.integration.api_client import Client

pytestmark = pytest.mark.integration

SCHEMA: GraphQLSchema = build_schema()._schema
VALID_ID = "00000000-0000-4000-8000-000000000000"


@dataclass(frozen=True)
class Slot:
    """One text input: a root field and the path of names down to a String or ID."""

    operation: str  # "query" | "mutation"
    field: str
    path: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.field}({'.'.join(self.path)})"


def _slots_under(
    kind: GraphQLInputType, path: tuple[str, ...], seen: frozenset[str]
) -> list[tuple[str, ...]]:
    named = get_named_type(kind)
    if isinstance(named, GraphQLScalarType) and named.name in ("String", "ID"):
        return [path]
    if isinstance(named, GraphQLInputObjectType) and named.name not in seen:
        return [
            p
            for name, f in named.fields.items()
            for p in _slots_under(f.type, (*path, name), seen | {named.name})
        ]
    return []


def text_slots() -> list[Slot]:
    slots = []
    for operation, root in (("query", SCHEMA.query_type), ("mutation", SCHEMA.mutation_type)):
        assert root is not None
        for field_name, field in root.fields.items():
            for arg_name, arg in field.args.items():
                for path in _slots_under(arg.type, (arg_name,), frozenset()):
                    slots.append(Slot(operation, field_name, path))
    return slots


SLOTS = text_slots()


def _valid(kind: GraphQLInputType) -> Any:
    """A minimal valid value of an input type (input objects: their required fields)."""
    if isinstance(kind, GraphQLNonNull):
        return _valid(kind.of_type)
    if isinstance(kind, GraphQLList):
        return [_valid(kind.of_type)]
    if isinstance(kind, GraphQLEnumType):
        return next(iter(kind.values))
    if isinstance(kind, GraphQLInputObjectType):
        return {
            name: _valid(f.type)
            for name, f in kind.fields.items()
            if isinstance(f.type, GraphQLNonNull) and f.default_value is Undefined
        }
    assert isinstance(kind, GraphQLScalarType)
    return {
        "String": "plain-text",  # also a valid session or user id
        "ID": VALID_ID,
        "Int": 1,
        "Float": 0.5,
        "Boolean": False,
        "DateTime": "2024-01-01T00:00:00+00:00",
    }[kind.name]


def _with_bad(kind: GraphQLInputType, path: tuple[str, ...], bad: str) -> Any:
    """A valid value of ``kind`` whose input at ``path`` (below it) holds ``bad``."""
    if isinstance(kind, GraphQLNonNull):
        return _with_bad(kind.of_type, path, bad)
    if isinstance(kind, GraphQLList):
        return [_with_bad(kind.of_type, path, bad)]
    if not path:
        return bad
    assert isinstance(kind, GraphQLInputObjectType)
    value = _valid(kind)
    value[path[0]] = _with_bad(kind.fields[path[0]].type, path[1:], bad)
    return value


def _selection(field: GraphQLField) -> str:
    named = get_named_type(field.type)
    if isinstance(named, GraphQLUnionType):
        typed = (
            " ... on InvalidInputError { field }"
            if "InvalidInputError" in [t.name for t in named.types]
            else ""
        )
        return "{ __typename ... on Error { message code }" + typed + " }"
    return "{ __typename }" if isinstance(named, GraphQLObjectType) else ""


def request(slot: Slot, bad: str) -> tuple[bytes, str]:
    """The JSON body of a request with ``bad`` at the slot, and the field name expected."""
    root = SCHEMA.query_type if slot.operation == "query" else SCHEMA.mutation_type
    assert root is not None
    field = root.fields[slot.field]
    variables: dict[str, Any] = {}
    for name, arg in field.args.items():
        if name == slot.path[0]:
            variables[name] = _with_bad(arg.type, slot.path[1:], bad)
        elif isinstance(arg.type, GraphQLNonNull):
            variables[name] = _valid(arg.type)
    params = ", ".join(f"${n}: {field.args[n].type}" for n in variables)
    args = ", ".join(f"{n}: ${n}" for n in variables)
    query = f"{slot.operation}({params}) {{ {slot.field}({args}) {_selection(field)} }}"
    # ensure_ascii: the surrogate travels as a "\ud800" escape, as JSON clients send it.
    body = json.dumps({"query": query, "variables": variables}, ensure_ascii=True)
    return body.encode("ascii"), slot.path[-1]


malformed = st.one_of(
    st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF),  # an unpaired surrogate
    st.just("\udc00\ud800"),  # a pair in the wrong order
    st.just("\x00"),
)
plain = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x2FFF), max_size=12)
bad_text = st.builds(lambda a, bad, b: a + bad + b, plain, malformed, plain)


def test_the_walk_finds_the_inputs_named_in_the_issue() -> None:
    names = {str(s) for s in SLOTS}
    for expected in (
        "remember(input.content)",
        "search(input.query)",
        "recordTurn(input.content)",
        "ingestDocument(input.text)",
        "createEntity(input.name)",
        "createEntity(input.aliases)",
        "addAlias(alias)",
    ):
        assert expected in names


@pytest.fixture(scope="module")
async def admin_client(brain: Brain) -> Client:
    _, key = await create_key(brain.graph, "text-inputs", admin=True)
    return Client(brain, key)


@pytest.mark.parametrize("slot", SLOTS, ids=str)
@settings(
    max_examples=4,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(bad=bad_text)
async def test_malformed_text_is_a_typed_error_naming_the_field(
    admin_client: Client, slot: Slot, bad: str
) -> None:
    body, field = request(slot, bad)
    resp = await admin_client.http.post(
        "/graphql",
        content=body,
        headers={**admin_client.headers, "Content-Type": "application/json"},
    )
    assert resp.status_code == 200, resp.text
    answer = resp.json()
    assert "Internal error" not in resp.text, answer
    result = (answer.get("data") or {}).get(slot.field)
    if result is not None:
        assert result["__typename"] == "InvalidInputError", (str(slot), answer)
        assert result["field"] == field and field in result["message"]
    else:  # a field whose result has no InvalidInputError: the error, unmasked
        (error,) = answer["errors"]
        assert error["message"].startswith(field), (str(slot), answer)


@pytest.mark.parametrize("importance", [1e308, -5.0, 1.0000001])
async def test_importance_out_of_range_states_the_range(
    admin_client: Client, importance: float
) -> None:
    for operation in ("remember", "pinCore"):
        body = await admin_client.gql(
            f'mutation($i: Float!) {{ {operation}(input: {{content: "x", importance: $i}}) '
            "{ __typename ... on InvalidInputError { field message } } }",
            i=importance,
        )
        result = body["data"][operation]
        assert result["__typename"] == "InvalidInputError" and result["field"] == "importance"
        assert "importance must be a number from 0 to 1" in result["message"]


async def test_the_facade_refuses_malformed_names_and_aliases(brain: Brain, tenant_id: str) -> None:
    """Names reach the graph from the CLI and library callers too, not only through GraphQL."""
    from core.errors import InvalidInput
    from core.types import EntityType

    for name, aliases in (("Pe\x00ter", []), ("Peter", ["P\ud800"]), ("Peter", ["\x00"])):
        with pytest.raises(InvalidInput) as refused:
            await brain.entities.create(tenant_id, name, EntityType.PERSON, aliases)
        assert refused.value.field in ("name", "aliases")
    entity = await brain.entities.create(tenant_id, "Peter", EntityType.PERSON)
    with pytest.raises(InvalidInput):
        await brain.entities.add_alias(tenant_id, entity.id, "Pete\x00")
    assert (await brain.entities.get(tenant_id, entity.id)).aliases == entity.aliases


async def test_project_ids_are_checked_like_session_ids(admin_client: Client) -> None:
    checks = {
        "remember": 'remember(input: {content: "x", projectId: $p})',
        "recordTurn": 'recordTurn(input: {sessionId: "s1", userId: "u", role: USER, '
        'content: "hi", projectId: $p})',
        "search": 'search(input: {query: "x", projectId: $p})',
        "assembleContext": 'assembleContext(input: {sessionId: "s1", userId: "u", projectId: $p})',
        "consolidate": "consolidate(scope: {projectId: $p})",
    }
    for name, call in checks.items():
        operation = "mutation" if name in ("remember", "recordTurn", "consolidate") else "query"
        body = await admin_client.gql(
            f"{operation}($p: String!) {{ {call} "
            "{ __typename ... on InvalidInputError { field message } } }",
            p="bad project!",
        )
        assert body["data"][name] == {
            "__typename": "InvalidInputError",
            "field": "projectId",
            "message": "projectId must be 1-200 characters of letters, digits and . _ : @ / + -",
        }, name


ID_SLOTS = [s for s in SLOTS if s.path[-1] in ("sessionId", "userId")]


def test_the_walk_finds_the_ids_named_in_issue_43() -> None:
    names = {str(s) for s in ID_SLOTS}
    for expected in (
        "remember(input.userId)",
        "remember(input.sessionId)",
        "recordTurn(input.userId)",
        "search(input.userId)",
        "assembleContext(input.userId)",
        "erase(input.userId)",
        "closeSession(sessionId)",
    ):
        assert expected in names, sorted(names)


@pytest.mark.parametrize("slot", ID_SLOTS, ids=str)
async def test_session_and_user_ids_follow_one_rule_everywhere(
    brain: Brain, tenant_id: str, slot: Slot
) -> None:
    """Issue 43, item 5: a 32k-character userId was accepted everywhere (1 MB in remember
    failed as BACKEND_ERROR), and remember did not check its sessionId."""
    _, key = await create_key(brain.graph, tenant_id, admin=True)
    client = Client(brain, key)
    for bad in ("u" * 32_000, "has space", "line\nbreak", ""):
        body, field = request(slot, bad)
        resp = await client.http.post(
            "/graphql", content=body, headers={**client.headers, "Content-Type": "application/json"}
        )
        answer = resp.json()
        result = (answer.get("data") or {}).get(slot.field)
        assert result is not None and result["__typename"] == "InvalidInputError", (slot, answer)
        assert result["field"] == field
        assert result["message"] == (
            f"{field} must be 1-200 characters of letters, digits and . _ : @ / + -"
        )
    assert await brain.graph.tenant(tenant_id).memory_counts() == (0, 0)  # nothing stored
