"""A context carries what is current and relevant (through the API, fresh tenant): in a small
tenant, a question about hosting gets the hosting statements, not every memory above zero;
no sentence twice; each memory line dated, an earlier value right after the current one,
with the date it stopped being so."""

from __future__ import annotations

import re
import uuid
from datetime import UTC, datetime

import pytest

from api.auth import create_key
from api.brain import Brain
from core.clock import now
from tests.integration.api_client import Client

pytestmark = pytest.mark.integration

TURN = """mutation($content: String!, $at: DateTime!) {
  recordTurn(input: {sessionId: "s1", userId: "u1", content: $content, at: $at}) {
    __typename } }"""
CONTEXT = """query($q: String!) {
  assembleContext(input: {sessionId: "ask", userId: "u1", query: $q}) {
    ... on Context { text totalTokens layers { memories procedural } } } }"""
DAY = 86400.0


def _iso(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).isoformat()


async def test_a_small_tenant_gets_a_context_about_the_question(brain: Brain) -> None:
    _, key = await create_key(brain.graph, f"t-{uuid.uuid4().hex[:12]}")
    client = Client(brain, key)
    start = now() - 100 * DAY
    said = [
        "The staging server is on Hetzner.",
        "Marta Kowalczyk is our illustrator.",
        "🎉🎉🎉",
        "I went to a great ramen place with Joe on Saturday.",
        "Keep my blog posts shorter than 800 words, please.",
        "Our cat Miso turned three yesterday.",
        "We moved the staging server to AWS last week.",
    ]
    for i, text in enumerate(said):
        await client.data(TURN, content=text, at=_iso(start + i * 10 * DAY))
    ctx = (await client.data(CONTEXT, q="Where is the staging server hosted?"))["assembleContext"]
    lines = ctx["layers"]["memories"].splitlines()
    assert any("AWS" in line for line in lines)
    unrelated = ("Marta", "🎉", "ramen", "Miso", "800 words")
    assert not [line for line in lines if any(u in line for u in unrelated)], lines
    for line in lines:  # each line says when it was stated, or until when it was so
        assert re.match(
            r"^- \[\w+, \d{4}-\d{2}-\d{2}(, replaces an earlier statement)?"
            r"(, corrected on \d{4}-\d{2}-\d{2})?\] |^- earlier: .* \(until \d{4}-\d{2}-\d{2}\)$",
            line,
        ), line
    (current,) = [line for line in lines if "AWS" in line and line.startswith("- [fact")]
    assert "replaces an earlier statement" in current
    (stale,) = [line for line in lines if "Hetzner" in line]
    assert stale.startswith("- earlier: ") and lines.index(stale) == lines.index(current) + 1

    blog = (await client.data(CONTEXT, q="How long should my blog posts be?"))["assembleContext"]
    # the turn and its preference: once (the preference is a standing rule: a core line)
    assert blog["text"].count("shorter than 800 words") == 1, blog["text"]


ROLE_TURN = """mutation($content: String!, $at: DateTime!, $role: Role!) {
  recordTurn(input: {sessionId: "s1", userId: "u1", content: $content, at: $at, role: $role}) {
    __typename } }"""


async def test_chatter_and_acknowledgements_stay_out_of_a_small_tenants_context(
    brain: Brain,
) -> None:
    """The best of the rest is not relevant: past the search's first two hits, lines only
    faintly like the question (below a cosine of 0.25), with no word of it, stay out, though
    they pass the share of the best candidate's relevance; so do the assistant's
    acknowledgements."""
    _, key = await create_key(brain.graph, f"t-{uuid.uuid4().hex[:12]}")
    client = Client(brain, key)
    start = now() - 30 * DAY
    said = [
        ("USER", "Dimitri from Kessler replaced the oven's thermostat in May."),
        ("ASSISTANT", "Noted, I'll keep that in mind."),
        ("USER", "the new saturday girl called the baguettes bread sticks to a customer"),
        ("USER", "Our flour comes from Holloway Mill and we pay net 14."),
        ("ASSISTANT", "Got it, net 14 for Holloway Mill."),
        ("USER", "Sam is our morning baker, he starts at 4am"),
        ("USER", "If the oven plays up, Dimitri is the one to call."),
    ]
    for i, (role, text) in enumerate(said):
        await client.data(ROLE_TURN, content=text, role=role, at=_iso(start + i * DAY))
    ctx = (await client.data(CONTEXT, q="who should I ask about the oven?"))["assembleContext"]
    lines = ctx["layers"]["memories"].splitlines()
    assert any("thermostat" in line for line in lines), lines
    assert any("the one to call" in line for line in lines), lines
    unrelated = ("Noted", "bread sticks", "Holloway", "morning baker")
    assert not [line for line in lines if any(u in line for u in unrelated)], lines
