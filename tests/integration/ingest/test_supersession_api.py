"""Supersession through the public API, one fresh tenant per scenario
(``tests/data/ingest/supersession.json``): each scenario states a value, later changes it in
other words, then asks. The current value must be the first hit of ``search``, the only one a
context presents as current (an earlier turn stating the old value reads "earlier: ..."),
and ``search(asOf:)`` before the change must still find the old value."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from api.auth import create_key
from api.brain import Brain
from core.clock import now
from tests.integration.api_client import Client

pytestmark = pytest.mark.integration

SCENARIOS = json.loads(
    (Path(__file__).resolve().parents[2] / "data" / "ingest" / "supersession.json").read_text()
)
DAY = 86400.0

TURN = """mutation($content: String!, $at: DateTime!, $session: String!) {
  recordTurn(input: {sessionId: $session, userId: "u1", content: $content, at: $at}) {
    __typename ... on TurnResult { supersededIds } } }"""
SEARCH = """query($q: String!, $asOf: DateTime) {
  search(input: {query: $q, topK: 10, asOf: $asOf}) {
    ... on SearchResults { hits { memory { type content current correctedAt } } } } }"""
CONTEXT = """query($q: String!) {
  assembleContext(input: {sessionId: "ask", userId: "u1", query: $q}) {
    ... on Context { layers { memories procedural projectContext } } } }"""


def _iso(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).isoformat()


async def _record(client: Client, scenario: dict[str, Any], start: float) -> list[float]:
    times = []
    for i, (days_ago, text) in enumerate(scenario["turns"]):
        at = start - days_ago * DAY
        times.append(at)
        result = await client.data(TURN, content=text, at=_iso(at), session=f"s{i}")
        assert result["recordTurn"]["__typename"] == "TurnResult"
    return times


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s["name"] for s in SCENARIOS])
async def test_the_current_value_replaces_the_old_one(
    brain: Brain, scenario: dict[str, Any]
) -> None:
    _, key = await create_key(brain.graph, f"t-{uuid.uuid4().hex[:12]}")
    client = Client(brain, key)
    times = await _record(client, scenario, now())
    current, old = scenario["current"], scenario["old"]

    hits = (await client.data(SEARCH, q=scenario["query"]))["search"]["hits"]
    assert hits and current in hits[0]["memory"]["content"], [h["memory"] for h in hits]
    stale = [
        h["memory"]
        for h in hits
        if old in h["memory"]["content"] and current not in h["memory"]["content"]
    ]
    assert all(m["type"] == "EPISODIC" and m["correctedAt"] for m in stale), json.dumps(stale)

    layers = (await client.data(CONTEXT, q=scenario["query"]))["assembleContext"]["layers"]
    lines = "\n".join(layers.values()).splitlines()
    assert any(current in line for line in lines), lines
    for line in lines:
        if old in line and current not in line:
            assert line.startswith("- earlier: "), line  # never presented as current

    before = (times[-2] + times[-1]) / 2  # after the last but one statement, before the last
    past = (await client.data(SEARCH, q=scenario["query"], asOf=_iso(before)))["search"]["hits"]
    said = [h["memory"]["content"] for h in past]
    assert said and old in said[0], said
