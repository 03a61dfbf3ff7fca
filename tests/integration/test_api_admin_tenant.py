"""Admin keys act for a tenant named in X-Brain-Tenant (what `brain` commands do against a
running service); every other key stays in its own tenant. /export streams a tenant."""

from __future__ import annotations

import json

import pytest

from api.auth import create_key
from api.brain import Brain
from tests.integration.api_client import Client

pytestmark = pytest.mark.integration

REMEMBER = (
    'mutation { remember(input: {content: "Ada reviews the budget"}) '
    "{ __typename ... on Memory { id } ... on Error { code message } } }"
)
SEARCH = (
    '{ search(input: {query: "who reviews the budget?"}) { ... on SearchResults '
    "{ hits { memory { id } } } ... on Error { code message } } }"
)


async def test_admin_keys_act_for_the_named_tenant_and_no_other_key_does(
    brain: Brain, tenant_id: str, other_tenant_id: str
) -> None:
    _, admin_key = await create_key(brain.graph, "ops", admin=True)
    _, plain_key = await create_key(brain.graph, other_tenant_id)
    admin, plain = Client(brain, admin_key), Client(brain, plain_key)
    admin.headers["X-Brain-Tenant"] = tenant_id
    stored = (await admin.data(REMEMBER))["remember"]
    assert (await brain.memories.get(tenant_id, stored["id"])).content == "Ada reviews the budget"
    hits = (await admin.data(SEARCH))["search"]["hits"]
    assert [h["memory"]["id"] for h in hits] == [stored["id"]]

    plain.headers["X-Brain-Tenant"] = tenant_id  # not an admin key: refused, nothing stored
    refused = (await plain.data(REMEMBER))["remember"]
    assert refused["code"] == "FORBIDDEN" and "only admin keys" in refused["message"]
    assert (await brain.graph.tenant(tenant_id).memory_counts())[0] == 1
    plain.headers["X-Brain-Tenant"] = other_tenant_id  # its own tenant: fine
    assert (await plain.data(SEARCH))["search"]["hits"] == []
    admin.headers["X-Brain-Tenant"] = "bad tenant!"
    bad = (await admin.data(REMEMBER))["remember"]
    assert bad["code"] == "INVALID_INPUT" and "tenant names" in bad["message"]

    admin.headers["X-Brain-Tenant"] = tenant_id
    exported = await admin.http.get("/export", headers=admin.headers)
    lines = [json.loads(line) for line in exported.text.splitlines()]
    assert lines[0] == {**lines[0], "kind": "header", "tenant": tenant_id}
    assert stored["id"] in exported.text
    mine = await plain.http.get(
        "/export", headers={"Authorization": plain.headers["Authorization"]}
    )
    assert (
        stored["id"] not in mine.text
        and json.loads(mine.text.splitlines()[0])["tenant"] == other_tenant_id
    )
    anonymous = await plain.http.get("/export")
    assert anonymous.status_code == 403 and anonymous.headers["x-request-id"]
