"""Facts that change in conversation, through the public API (``bench/data/changes_dev.json``,
a development set): each scenario records its turns with ``recordTurn`` in a fresh tenant,
then checks what a new session's ``assembleContext`` says (the current value first; an
earlier value only after it, marked as earlier), what ``search(asOf:)`` puts first, and what
the procedural layer holds."""

from __future__ import annotations

import json
import re
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from api.auth import create_key
from api.brain import Brain
from tests.integration.api_client import Client

pytestmark = pytest.mark.integration

SCENARIOS = json.loads(
    (Path(__file__).resolve().parents[3] / "bench" / "data" / "changes_dev.json").read_text()
)
START = datetime(2025, 1, 6, 9, tzinfo=UTC).timestamp()
DAY = 86400.0

TURN = """mutation($input: RecordTurnInput!) { recordTurn(input: $input) {
  __typename ... on Error { message } } }"""
SEARCH = """query($q: String!, $asOf: DateTime) {
  search(input: {query: $q, topK: 10, asOf: $asOf, userId: "u1"}) {
    ... on SearchResults { hits { memory { content } } } } }"""
CONTEXT = """query($q: String!) {
  assembleContext(input: {sessionId: "ask", userId: "u1", query: $q}) {
    ... on Context { text layers { procedural } } } }"""


def _iso(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).isoformat()


def _has(text: str, value: str) -> bool:
    return re.search(rf"(?<![\w]){re.escape(value.lower())}(?![\w])", text.lower()) is not None


def context_problem(text: str, current: str, stale: list[str], labelled: bool = True) -> str | None:
    """Why a context fails: the current value missing, a stale value before it, or (when
    ``labelled``: the stale value was once the value) a stale value after it on a line that
    does not say it is earlier."""
    lines = text.splitlines()
    first_current = next((i for i, line in enumerate(lines) if _has(line, current)), None)
    if first_current is None:
        return f"current value {current!r} missing"
    for i, line in enumerate(lines):
        for old in stale:
            if _has(line, old) and not _has(line, current):
                if i < first_current:
                    return f"stale {old!r} before current: {line!r}"
                if labelled and not re.search(r"earlier|corrected|until", line, re.I):
                    return f"stale {old!r} unlabelled: {line!r}"
    return None


async def run(client: Client, scenario: dict[str, Any]) -> list[str]:
    for turn in scenario["turns"]:
        result = await client.data(
            TURN,
            input={
                "sessionId": turn["session"],
                "userId": "u1",
                "role": turn["role"],
                "content": turn["text"],
                "at": _iso(START + turn["day"] * DAY),
            },
        )
        assert result["recordTurn"]["__typename"] == "TurnResult", result
    problems = []
    for check in scenario["checks"]:
        if check["type"] == "context":
            ctx = (await client.data(CONTEXT, q=check["query"]))["assembleContext"]
            labelled = scenario["kind"] != "negative"  # a hypothetical was never the value
            why = context_problem(ctx["text"], check["current"], check["stale"], labelled)
            if why:
                problems.append(f"context {check['query']!r}: {why}\n{ctx['text']}")
        elif check["type"] == "asof":
            at = _iso(START + check["day"] * DAY)
            hits = (await client.data(SEARCH, q=check["query"], asOf=at))["search"]["hits"]
            top = hits[0]["memory"]["content"] if hits else ""
            if not _has(top, check["current"]) or any(_has(top, s) for s in check["stale"]):
                problems.append(f"asOf day {check['day']}: top hit {top!r}")
        elif check["type"] == "procedural":
            ctx = (await client.data(CONTEXT, q=check["query"]))["assembleContext"]
            layer = ctx["layers"]["procedural"] or ""
            missing = [c for c in check["contains"] if c.lower() not in layer.lower()]
            present = [a for a in check["absent"] if a.lower() in layer.lower()]
            if missing or present:
                problems.append(f"procedural: missing {missing} present {present}: {layer!r}")
    return problems


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s["name"] for s in SCENARIOS])
async def test_a_changed_value_reads_current_first(brain: Brain, scenario: dict[str, Any]) -> None:
    _, key = await create_key(brain.graph, f"t-{uuid.uuid4().hex[:12]}")
    problems = await run(Client(brain, key), scenario)
    assert not problems, "\n".join(problems)


async def test_the_deploy_target_chain_has_three_versions(brain: Brain) -> None:
    # The seeds' chain said three ways: a copula, a switch, a revert. The third statement
    # supersedes the second (a slot: no rule reads "reverted ... to"), and the current
    # version's lineage shows all three in order, each with when it replaced the one before.
    _, key = await create_key(brain.graph, f"t-{uuid.uuid4().hex[:12]}")
    client = Client(brain, key)
    said = [
        (0, "Our deploy target is staging."),
        (10, "We switched the deploy target to production."),
        (20, "We reverted the deploy target to staging after the incident."),
    ]
    for day, text in said:
        turn = {"sessionId": f"s{day}", "userId": "u1", "role": "USER", "content": text}
        await client.data(TURN, input={**turn, "at": _iso(START + day * DAY)})
    found = await client.data(CURRENT, q="What is our deploy target?")
    (current,) = [h["memory"] for h in found["search"]["hits"] if h["memory"]["slot"]][:1]
    assert current["slot"] == "deploy target <thing>" and "staging" in current["content"]
    links = (await client.data(LINEAGE, id=current["id"]))["lineage"]["links"]
    values = [link["memory"]["content"] for link in links]
    assert [("staging" in v, "production" in v) for v in values] == [
        (True, False),
        (False, True),
        (True, False),
    ], values
    assert [link["current"] for link in links] == [False, False, True]
    replaced = [link["replacedAt"] for link in links]
    assert replaced[0] is None
    assert [r[:10] for r in replaced[1:]] == [_iso(START + d * DAY)[:10] for d in (10, 20)]


CURRENT = """query($q: String!) {
  search(input: {query: $q, topK: 5, userId: "u1"}) {
    ... on SearchResults { hits { memory { id content slot } } } } }"""
LINEAGE = """query($id: ID!) { lineage(memoryId: $id) {
  ... on Lineage { links { memory { content } current replacedAt } } } }"""
