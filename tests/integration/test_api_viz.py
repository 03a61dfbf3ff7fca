"""`vizGraph` for the explorer: asOf, validity intervals, the four memory links, the stable
sample under a limit, and refused input — through the real ASGI app on the embedded engines."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from api.auth import create_key
from api.brain import Brain
from core.clock import now
from core.types import EntityType, NewMemory
from tests.integration.api_client import Client

pytestmark = pytest.mark.integration

NODES = (
    "nodes { id kind label laidOut validFrom supersededAt expiresAt halfLifeDays entityIds"
    " provisional position { x y z } }"
)
VIZ = f"""query($asOf: DateTime, $history: Boolean! = false, $limit: Int! = 2000) {{
  vizGraph(asOf: $asOf, history: $history, limit: $limit) {{
    __typename
    ... on VizGraph {{ total sampled {NODES} edges {{ source target relation weight kind }} }}
    ... on InvalidInputError {{ field message }} }} }}"""
DAY = 86_400.0


def iso(t: float) -> str:
    return datetime.fromtimestamp(t, tz=UTC).isoformat()


async def seed(brain: Brain, tenant_id: str) -> dict[str, Any]:
    """Peter and WOBS; a deploy fact said 10 days ago and corrected now; two sessions."""
    g = brain.graph.tenant(tenant_id)
    wobs = await g.create_entity("WOBS", EntityType.ORG)
    peter = await g.create_entity("Peter", EntityType.PERSON)
    t0 = now() - 10 * DAY

    async def say(content: str, session: str, at: float, entities: list[str]) -> str:
        item = NewMemory(
            content=content, session_id=session, created_at=at, valid_from=at, entity_ids=entities
        )
        return (await brain.memories.remember(tenant_id, item)).id

    heroku = await say("WOBS deploys to Heroku", "s1", t0, [wobs.id])
    writes = await say("Peter writes for WOBS", "s1", t0 + DAY, [peter.id, wobs.id])
    other = await say("The weather was fine", "s2", t0 + 2 * DAY, [])
    aws = (await brain.memories.supersede(tenant_id, heroku, "WOBS deploys to AWS", "migrated")).id
    return {
        "t0": t0,
        "heroku": heroku,
        "writes": writes,
        "other": other,
        "aws": aws,
        "wobs": wobs.id,
        "peter": peter.id,
    }


@pytest.fixture
async def client(brain: Brain, tenant_id: str) -> Client:
    _, key = await create_key(brain.graph, tenant_id)
    return Client(brain, key)


async def viz(client: Client, **variables: Any) -> dict[str, Any]:
    result: dict[str, Any] = (await client.data(VIZ, **variables))["vizGraph"]
    return result


async def test_as_of_shows_the_state_before_a_correction(
    brain: Brain, client: Client, tenant_id: str
) -> None:
    s = await seed(brain, tenant_id)
    before = await viz(client, asOf=iso(s["t0"] + 3 * DAY))
    labels = {n["label"] for n in before["nodes"] if n["kind"] == "memory"}
    assert labels == {"WOBS deploys to Heroku", "Peter writes for WOBS", "The weather was fine"}
    current = await viz(client)
    labels = {n["label"] for n in current["nodes"] if n["kind"] == "memory"}
    assert labels == {"WOBS deploys to AWS", "Peter writes for WOBS", "The weather was fine"}
    first_day = await viz(client, asOf=iso(s["t0"] + 0.5 * DAY))
    assert [n["label"] for n in first_day["nodes"] if n["kind"] == "memory"] == [
        "WOBS deploys to Heroku"
    ]


async def test_history_carries_intervals_and_the_four_links(
    brain: Brain, client: Client, tenant_id: str
) -> None:
    s = await seed(brain, tenant_id)
    view = await viz(client, history=True)
    nodes = {n["id"]: n for n in view["nodes"]}
    assert {s["heroku"], s["aws"], s["writes"], s["other"], s["wobs"], s["peter"]} == set(nodes)
    old, new = nodes[s["heroku"]], nodes[s["aws"]]
    assert old["supersededAt"] is not None and new["supersededAt"] is None
    assert old["validFrom"] == iso(s["t0"])
    assert nodes[s["writes"]]["halfLifeDays"] == 90.0 and old["expiresAt"] is None
    edges = {(e["source"], e["target"], e["relation"]): e for e in view["edges"]}
    assert (s["aws"], s["heroku"], "SUPERSEDES") in edges
    assert (s["heroku"], s["writes"], "SAME_SESSION") in edges
    assert (s["writes"], s["other"], "TEMPORAL_SEQ") in edges
    overlap = (
        edges.get((s["heroku"], s["writes"], "ENTITY_OVERLAP"))
        or edges[(s["writes"], s["heroku"], "ENTITY_OVERLAP")]
    )
    assert overlap["weight"] == 0.5  # {WOBS} vs {Peter, WOBS}
    assert (s["writes"], s["peter"], "ABOUT") in edges
    assert all(len(n["position"]) == 3 for n in nodes.values())
    assert view["total"] == 4 and view["sampled"] is False
    lean = await client.data(
        "{ vizGraph(history: true, about: false) { ... on VizGraph { edges { relation } } } }"
    )
    relations = [e["relation"] for e in lean["vizGraph"]["edges"]]
    assert "ABOUT" not in relations and "SUPERSEDES" in relations


async def test_limit_is_a_stable_sample(brain: Brain, client: Client, tenant_id: str) -> None:
    s = await seed(brain, tenant_id)
    first = await viz(client, history=True, limit=2)
    again = await viz(client, history=True, limit=2)
    ids = [n["id"] for n in first["nodes"] if n["kind"] == "memory"]
    assert len(ids) == 2 and first["total"] == 4 and first["sampled"] is True
    assert ids == [n["id"] for n in again["nodes"] if n["kind"] == "memory"]
    assert ids == sorted([s["heroku"], s["aws"], s["writes"], s["other"]])[:2]


async def test_bad_input_is_refused(client: Client) -> None:
    for variables, field in (
        ({"limit": 0}, "limit"),
        ({"limit": 10_001}, "limit"),
        ({"history": True, "asOf": iso(now())}, "asOf"),
    ):
        result = await viz(client, **variables)
        assert result["__typename"] == "InvalidInputError" and result["field"] == field


async def test_pages_are_served_from_local_files(client: Client) -> None:
    page = await client.http.get("/explore")
    assert page.status_code == 200 and '<script src="/assets/explore.js">' in page.text
    assert "default-src 'self'" in page.headers["content-security-policy"]
    assert (await client.http.get("/assets/explore.js")).status_code == 200
    ide = await client.http.get("/graphql", headers={"Accept": "text/html"})
    assert '<script src="/assets/graphiql.js">' in ide.text
    assert "unpkg" not in ide.text and "cdn" not in ide.text.lower()
    # A GET query is still GraphQL, whatever the Accept header.
    get = await client.http.get(
        "/graphql", params={"query": "{ health { ok } }"}, headers=client.headers
    )
    assert get.json()["data"]["health"]["ok"] is True
    assert (await client.http.get("/")).headers["location"] == "/explore"


async def test_an_unbuilt_explorer_says_how_to_build_it(brain: Brain, tmp_path: Path) -> None:
    settings = brain.settings.model_copy(
        update={"api": brain.settings.api.model_copy(update={"web_dir": tmp_path})}
    )
    page = await Client(brain, None, settings).http.get("/explore")
    assert page.status_code == 503 and "make install" in page.text


COLUMNS = """{ vizGraph(history: true) { ... on VizGraph { columns {
  memoryIds typeNames types positions laidOut validFrom supersededAt expiresAt createdAt
  halfLifeDays labels sessionNames sessions memoryEntities entityIds entityNames
  entityProvisional relationNames links linkWeights entityLinks } } } }"""


async def test_columns_are_the_same_view_as_nodes_and_edges(
    brain: Brain, client: Client, tenant_id: str
) -> None:
    s = await seed(brain, tenant_id)
    g = brain.graph.tenant(tenant_id)
    wobs2 = await g.create_identity("WOBS", EntityType.ORG, True, [(s["wobs"], 0.61)])
    item = NewMemory(content="WOBS hired a designer", session_id="s2", entity_ids=[wobs2.id])
    hired = (await brain.memories.remember(tenant_id, item)).id
    view = await viz(client, history=True)
    c = (await client.data(COLUMNS))["vizGraph"]["columns"]
    memories = [n for n in view["nodes"] if n["kind"] == "memory"]
    assert c["memoryIds"] == [n["id"] for n in memories]
    at = {m: i for i, m in enumerate(c["memoryIds"])}
    for i, n in enumerate(memories):
        assert c["labels"][i] == n["label"] and c["laidOut"][i] == n["laidOut"]
        assert c["positions"][i * 3 : i * 3 + 3] == [n["position"][k] for k in "xyz"]
        for field in ("validFrom", "supersededAt", "expiresAt"):
            when = n[field] and datetime.fromisoformat(n[field]).timestamp()
            assert c[field][i] == (when and pytest.approx(when, abs=1e-3))
    heroku = at[s["heroku"]]
    assert c["typeNames"][c["types"][heroku]] == "fact"
    assert c["validFrom"][heroku] == pytest.approx(s["t0"]) and c["expiresAt"][heroku] is None
    assert c["sessionNames"][c["sessions"][heroku]] == "s1"
    links = {
        (c["memoryIds"][a], c["memoryIds"][b], c["relationNames"][r])
        for a, b, r in zip(c["links"][::3], c["links"][1::3], c["links"][2::3], strict=True)
    }
    memory_edges = {
        (e["source"], e["target"], e["relation"]) for e in view["edges"] if e["kind"] == "memory"
    }
    assert links == memory_edges and len(c["linkWeights"]) == len(links)
    about = {
        (c["memoryIds"][a], c["entityIds"][b])
        for a, b in zip(c["memoryEntities"][::2], c["memoryEntities"][1::2], strict=True)
    }
    assert (s["writes"], s["peter"]) in about and (hired, wobs2.id) in about
    provisional = dict(zip(c["entityIds"], c["entityProvisional"], strict=True))
    assert provisional == {s["wobs"]: False, s["peter"]: False, wobs2.id: True}
    assert [n["provisional"] for n in view["nodes"] if n["id"] == wobs2.id] == [True]
