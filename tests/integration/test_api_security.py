"""The API's protective limits and the N+1 guarantee, through the real ASGI app."""

from __future__ import annotations

from typing import Any

import pytest
from graphql import get_introspection_query

from api.auth import create_key
from api.brain import Brain
from api.gql.export import SCHEMA_FILE
from api.gql.schema import schema_sdl
from core.settings import ApiSettings
from core.types import EntityType, NewMemory
from tests.integration.api_client import Client

pytestmark = pytest.mark.integration


@pytest.fixture
async def client(brain: Brain, tenant_id: str) -> Client:
    _, key = await create_key(brain.graph, tenant_id)
    return Client(brain, key)


def test_checked_in_schema_matches_the_code() -> None:
    assert SCHEMA_FILE.read_text() == schema_sdl(), "API changed: run `make schema` and commit"


async def test_oversized_body_is_rejected_before_graphql(brain: Brain, tenant_id: str) -> None:
    _, key = await create_key(brain.graph, tenant_id)
    small = brain.settings.model_copy(
        update={"api": brain.settings.api.model_copy(update={"max_body_bytes": 10_000})}
    )
    client = Client(brain, key, small)
    big = "x" * 20_000
    resp = await client.post(
        {"query": f'mutation {{ remember(input: {{content: "{big}"}}) {{ __typename }} }}'}
    )
    assert resp.status_code == 413
    assert resp.json()["errors"][0]["extensions"]["code"] == "REQUEST_ENTITY_TOO_LARGE"
    assert (await brain.graph.tenant(tenant_id).memory_counts())[0] == 0


async def test_deep_queries_are_rejected(client: Client) -> None:
    nested = "id"
    for _ in range(14):
        nested = f"supersededBy {{ {nested} }}"
    deep = f"{{ memories {{ ... on MemoryConnection {{ edges {{ node {{ {nested} }} }} }} }} }}"
    for _ in range(2):  # the second time from the validation cache
        body = await client.gql(deep)
        assert body["data"] is None and "depth" in body["errors"][0]["message"]


async def test_alias_amplified_queries_are_rejected(client: Client) -> None:
    fields = " ".join(f'a{i}: search(input: {{query: "x"}}) {{ __typename }}' for i in range(40))
    for _ in range(2):  # the second time from the validation cache
        body = await client.gql("{ " + fields + " }")
        assert body["data"] is None and "aliases" in body["errors"][0]["message"].lower()


async def test_a_query_text_is_validated_once(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    import strawberry.schema.schema as strawberry_schema

    calls = []
    validate = strawberry_schema.validate

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(args[1])
        return validate(*args, **kwargs)

    monkeypatch.setattr(strawberry_schema, "validate", counted)
    query = "query($q: String!) { search(input: {query: $q}) { __typename } } # validated once"
    for q in ("first", "second", "third"):
        body = await client.gql(query, q=q)
        assert body["data"]["search"]["__typename"] == "SearchResults", body
    assert len(calls) == 1
    other = await client.gql("{ __typename }")
    assert other["data"] == {"__typename": "Query"} and len(calls) == 2


async def test_oversized_queries_are_rejected(client: Client) -> None:
    fields = " ".join("__typename" for _ in range(3000))
    body = await client.gql("{ " + fields + " }")
    assert body["data"] is None and "token" in body["errors"][0]["message"].lower()
    assert body["errors"][0]["extensions"]["code"] == "QUERY_TOO_LARGE"
    # Bytes are counted before the lexer reads them (a 2 MB comment took it 0.2 s).
    padded = "#" + "x" * 100_000 + "\n{ __typename }"
    body = await client.gql(padded)
    assert body["data"] is None and body["errors"][0]["extensions"]["code"] == "QUERY_TOO_LARGE"
    assert body["errors"][0]["message"].startswith("the query is 100016 bytes; the limit is")


async def test_fragment_cycles_and_fan_outs_are_refused(client: Client) -> None:
    cycle = "query { ...A } fragment A on Query { health { ok } ...B } fragment B on Query { ...A }"
    fan_out = " ".join(
        ["query { ...F0 }"]
        + [f"fragment F{i} on Query {{ ...F{i + 1} ...F{i + 1} }}" for i in range(22)]
        + ["fragment F22 on Query { health { ok } }"]
    )
    for text, words in [(cycle, "spreads itself"), (fan_out, "fields selected")]:
        body = await client.gql(text)
        assert body["data"] is None and words in body["errors"][0]["message"], body
        assert body["errors"][0]["extensions"]["code"] == "QUERY_TOO_COMPLEX"
    # GraphiQL's introspection query (fragments nested eight deep) is within every limit.
    schema = await client.data(get_introspection_query(descriptions=True))
    assert schema["__schema"]["mutationType"]["name"] == "Mutation"


async def test_a_query_that_cannot_be_checked_in_time_changes_nothing(
    brain: Brain, tenant_id: str
) -> None:
    _, key = await create_key(brain.graph, tenant_id)
    api = brain.settings.api.model_copy(update={"validation_budget_seconds": 1e-6})
    client = Client(brain, key, brain.settings.model_copy(update={"api": api}))
    body = await client.gql(
        'mutation { remember(input: {content: "never checked", type: FACT}) { __typename } }'
    )
    assert body["data"] is None and "could not be checked" in body["errors"][0]["message"]
    assert body["errors"][0]["extensions"]["code"] == "QUERY_TOO_COMPLEX"
    assert (await brain.graph.tenant(tenant_id).memory_counts())[0] == 0


async def test_page_size_and_cursor_are_validated(client: Client) -> None:
    for args in ["first: 0", "first: 1000", 'after: "garbage!"']:
        data = await client.data(
            f"{{ memories({args}) {{ __typename ... on InvalidInputError {{ field }} }} }}"
        )
        assert data["memories"]["__typename"] == "InvalidInputError", args


async def test_malformed_ids_and_enums_are_typed_errors(client: Client) -> None:
    for query in [
        '{ entity(id: "nope") { __typename } }',
        '{ relationships(entityId: "nope") { __typename } }',
        'mutation { unmergeEntities(mergeId: "nope") { __typename } }',
        'mutation { addAlias(entityId: "nope", alias: "x") { __typename } }',
    ]:
        data = await client.data(query)
        assert next(iter(data.values()))["__typename"] == "InvalidInputError", query
    body = await client.gql("{ entities(filter: {type: ROBOT}) { __typename } }")
    assert body["data"] is None and "ROBOT" in body["errors"][0]["message"]


async def test_memories_connection_pages_without_gaps(
    brain: Brain, client: Client, tenant_id: str
) -> None:
    made = await brain.memories.remember_many(
        tenant_id, [NewMemory(content=f"note {i}") for i in range(7)]
    )
    seen: list[str] = []
    after = None
    while True:
        data = await client.data(
            "query($after: String) { memories(first: 3, after: $after) { ... on MemoryConnection {"
            " edges { cursor node { id content } } pageInfo { hasNextPage endCursor } } } }",
            after=after,
        )
        page = data["memories"]
        seen += [e["node"]["id"] for e in page["edges"]]
        if not page["pageInfo"]["hasNextPage"]:
            break
        after = page["pageInfo"]["endCursor"]
    assert sorted(seen) == sorted(m.id for m in made) and len(seen) == len(set(seen))


async def test_nested_fields_are_batched_not_n_plus_1(
    brain: Brain, client: Client, tenant_id: str
) -> None:
    g = brain.graph.tenant(tenant_id)
    people = [await g.create_entity(f"Person {i}", EntityType.PERSON) for i in range(5)]
    items = [NewMemory(content=f"fact {i}", entity_ids=[people[i % 5].id]) for i in range(20)]
    made = await brain.memories.remember_many(tenant_id, items)
    for m in made[:10]:
        await brain.memories.supersede(tenant_id, m.id, m.content + " (fixed)", "fix")
    query = (
        "{ memories(first: 30, filter: {includeSuperseded: true}) { ... on MemoryConnection {"
        " edges { node { id entities { name } supersededBy { id entities { name } } supersedes { id } } } } } }"
    )
    before = brain.graph.round_trips
    data = await client.data(query)
    trips = brain.graph.round_trips - before
    assert len(data["memories"]["edges"]) == 30
    names = {e["name"] for edge in data["memories"]["edges"] for e in edge["node"]["entities"]}
    assert names == {p.name for p in people}
    # auth (1) + list (1) + hydrate (1) + one batch per nested level, independent of 30 items
    assert trips <= 8, trips


async def test_entity_curation_through_the_api(client: Client) -> None:
    create = (
        'mutation($name: String!) { createEntity(input: {name: $name, type: PERSON, aliases: ["Pete"]})'
        " { ... on Entity { id name aliases } } }"
    )
    a = (await client.data(create, name="Peter Smith"))["createEntity"]
    b = (await client.data(create, name="P. Smith"))["createEntity"]
    found = await client.data(
        '{ entities(filter: {alias: "pete"}) { ... on EntityConnection { edges { node { id } } } } }'
    )
    assert {e["node"]["id"] for e in found["entities"]["edges"]} == {a["id"], b["id"]}
    merge = await client.data(
        f'mutation {{ mergeEntities(keepId: "{a["id"]}", dropIds: ["{b["id"]}"], reason: "same") {{'
        " ... on EntityMerge { id dropIds by } } }"
    )
    merge_id = merge["mergeEntities"]["id"]
    assert merge["mergeEntities"]["by"].startswith("key:")
    found = await client.data(
        '{ entities(filter: {alias: "pete"}) { ... on EntityConnection { edges { node { id } } } } }'
    )
    assert [e["node"]["id"] for e in found["entities"]["edges"]] == [a["id"]]
    undone = await client.data(
        f'mutation {{ unmergeEntities(mergeId: "{merge_id}") {{ ... on EntityMerge {{ undoneAt }} }} }}'
    )
    assert undone["unmergeEntities"]["undoneAt"] is not None
    again = await client.data(
        f'mutation {{ unmergeEntities(mergeId: "{merge_id}") {{ __typename }} }}'
    )
    assert again["unmergeEntities"]["__typename"] == "ConflictError"


async def test_core_memory_lifecycle(client: Client) -> None:
    pin = await client.data(
        'mutation { pinCore(input: {content: "Always answer in British English"}) { ... on Memory { id pinned } } }'
    )
    mid = pin["pinCore"]["id"]
    assert pin["pinCore"]["pinned"]
    upd = await client.data(
        f'mutation {{ updateCore(id: "{mid}", input: {{content: "Always answer in US English"}}) {{ ... on Memory {{ id pinned }} }} }}'
    )
    new_id = upd["updateCore"]["id"]
    core = await client.data("{ core { ... on MemoryList { memories { id content } } } }")
    assert [m["content"] for m in core["core"]["memories"]] == ["Always answer in US English"]
    await client.data(f'mutation {{ unpinCore(id: "{new_id}") {{ ... on Memory {{ pinned }} }} }}')
    core = await client.data("{ core { ... on MemoryList { memories { id } } } }")
    assert core["core"]["memories"] == []


async def test_metrics_expose_operation_latency(client: Client) -> None:
    await client.data('{ search(input: {query: "anything"}) { __typename } }')
    text = (await client.http.get("/metrics")).text
    assert 'brain_request_seconds_count{operation="search"}' in text
    assert "brain_engine_seconds_count" in text and "brain_index_lag" in text
    assert "brain_queue_depth" in text


async def test_metrics_count_graph_write_retries(client: Client, brain: Brain) -> None:
    # What the store reports when the driver runs a conflicting transaction again (a real
    # conflict is provoked in tests/integration/test_graph_contract.py).
    brain.graph._retried(["memory_create", "ingest_turn_session"])
    text = (await client.http.get("/metrics")).text
    assert 'brain_graph_write_retries_total{statement="memory_create"} 1.0' in text


async def test_cors_only_for_configured_origins(brain: Brain, tenant_id: str) -> None:
    settings = brain.settings.model_copy(
        update={"api": ApiSettings(cors_origins=["https://app.example"])}
    )
    client = Client(brain, None, settings)
    ok = await client.http.options(
        "/graphql",
        headers={"Origin": "https://app.example", "Access-Control-Request-Method": "POST"},
    )
    assert ok.headers.get("access-control-allow-origin") == "https://app.example"
    bad = await client.http.options(
        "/graphql",
        headers={"Origin": "https://evil.example", "Access-Control-Request-Method": "POST"},
    )
    assert bad.headers.get("access-control-allow-origin") is None


async def test_only_admin_keys_manage_tenants_and_keys(
    brain: Brain, tenant_id: str, other_tenant_id: str
) -> None:
    _, user_key = await create_key(brain.graph, tenant_id)
    _, admin_key = await create_key(brain.graph, "ops", admin=True)
    user, admin = Client(brain, user_key), Client(brain, admin_key)
    mutation = f'mutation {{ createApiKey(tenant: "{other_tenant_id}") {{ __typename ... on NewApiKey {{ id key }} }} }}'
    assert (await user.data(mutation))["createApiKey"]["__typename"] == "ForbiddenError"
    assert (await user.data("{ tenants { __typename } }"))["tenants"][
        "__typename"
    ] == "ForbiddenError"
    made = (await admin.data(mutation))["createApiKey"]
    assert made["__typename"] == "NewApiKey"
    other = Client(brain, made["key"])
    remembered = await other.data(
        'mutation { remember(input: {content: "hello"}) { ... on Memory { id } } }'
    )
    assert remembered["remember"]["id"]
    assert (await brain.graph.tenant(other_tenant_id).memory_counts())[0] == 1
    tenants = (await admin.data("{ tenants { ... on TenantList { tenants } } }"))["tenants"][
        "tenants"
    ]
    assert other_tenant_id in tenants
    revoked = await admin.data(f'mutation {{ revokeApiKey(id: "{made["id"]}") {{ __typename }} }}')
    assert revoked["revokeApiKey"]["__typename"] == "RevokedKey"
    assert (await other.post({"query": "{ core { __typename } }"})).status_code == 401
    bad = await admin.data('mutation { createApiKey(tenant: "no spaces!") { __typename } }')
    assert bad["createApiKey"]["__typename"] == "InvalidInputError"


async def test_a_body_that_is_not_json_gets_a_json_error(client: Client) -> None:
    """Issue 43, item 6: invalid UTF-8 in a body was a plain-text HTTP 500."""
    for body in (b'{"query": "{ __typename }"', b'{"query": "\xff\xfe"}', b"\xff", b"\xc3("):
        resp = await client.http.post(
            "/graphql",
            content=body,
            headers={**client.headers, "Content-Type": "application/json"},
        )
        assert resp.status_code == 400, resp.text
        assert resp.headers["content-type"].startswith("application/json")
        [error] = resp.json()["errors"]
        assert error["extensions"]["code"] == "BAD_REQUEST"
        assert error["extensions"]["requestId"] == resp.headers["x-request-id"]
