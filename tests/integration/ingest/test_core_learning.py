"""Core memory learned from conversation, through the public API (docs/CORE.md): what a user
states about the business, themselves, an active project or how they want things done is in
``core`` and in every context's ``projectContext``, sourced; a later change replaces it; an
``unpinCore`` is remembered; a question, a supposition or someone else's view is never core."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from api.auth import create_key
from api.brain import Brain
from tests.integration.api_client import Client

pytestmark = pytest.mark.integration

DAY = 86_400.0
START = datetime(2025, 3, 3, 9, tzinfo=UTC).timestamp()
TURN = """mutation($input: RecordTurnInput!) { recordTurn(input: $input) {
  __typename ... on TurnResult { episode { id } extracted { id content pinned learned } }
  ... on Error { message } } }"""
CONTEXT = """query($q: String!, $user: String!, $session: String!) {
  assembleContext(input: {sessionId: $session, userId: $user, query: $q, tokenBudget: 4000}) {
    ... on Context { text layers { projectContext memories } } ... on Error { message } } }"""
CORE = """query($user: String) { core(userId: $user) { __typename
  ... on MemoryList { memories { id content pinned learned learnedFromId current
                                 learnedFrom { id content } } }
  ... on Error { message } } }"""
UNPIN = """mutation($id: ID!) { unpinCore(id: $id) {
  ... on Memory { id pinned } ... on Error { message } } }"""
LINEAGE = """query($id: ID!) { lineage(memoryId: $id) {
  ... on Lineage { links { current memory { content } } } ... on Error { message } } }"""
UNRELATED = "What is a good recipe for banana bread?"


@pytest.fixture
async def client(brain: Brain) -> Client:
    _, key = await create_key(brain.graph, f"t-{uuid.uuid4().hex[:12]}")
    return Client(brain, key)


def _iso(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).isoformat()


async def say(
    client: Client, content: str, day: float = 0, session: str = "s1", user: str = "dana"
) -> dict[str, Any]:
    data = await client.data(
        TURN,
        input={
            "sessionId": session,
            "userId": user,
            "content": content,
            "at": _iso(START + day * DAY),
        },
    )
    result: dict[str, Any] = data["recordTurn"]
    assert result["__typename"] == "TurnResult", result
    return result


async def core(client: Client, user: str | None = "dana") -> list[dict[str, Any]]:
    found = (await client.data(CORE, user=user))["core"]
    assert found["__typename"] == "MemoryList", found
    memories: list[dict[str, Any]] = found["memories"]
    return memories


async def context(client: Client, query: str = UNRELATED, user: str = "dana") -> dict[str, Any]:
    ctx: dict[str, Any] = (await client.data(CONTEXT, q=query, user=user, session="later"))[
        "assembleContext"
    ]
    return ctx


def _lines(items: list[dict[str, Any]]) -> list[str]:
    return [m["content"] for m in items]


async def test_stated_identity_role_project_and_rule_are_core_in_an_unrelated_context(
    client: Client,
) -> None:
    business = await say(client, "The company is Wolf of Blog Street, also known as WOBS.")
    await say(client, "We do link building.", day=0.01)
    await say(client, "I'm Dana Whitfield, head of ops.", day=0.02)
    await say(client, "We're migrating billing to Paddle, about half done.", day=0.03)
    await say(client, "Always answer in British English.", day=0.04)

    items = await core(client)
    lines = _lines(items)
    assert "The company is Wolf of Blog Street, also known as WOBS." in lines
    assert "We do link building." in lines
    assert "I'm Dana Whitfield." in lines  # the name and the role said beside it: two lines
    assert "I'm head of ops." in lines
    assert "We're migrating billing to Paddle, about half done." in lines
    assert "Always answer in British English." in lines
    assert all(m["learned"] and m["pinned"] and m["current"] for m in items)
    named = next(m for m in items if "Wolf of Blog Street" in m["content"])
    assert named["learnedFromId"] == business["episode"]["id"]  # sourced: the turn
    assert named["learnedFrom"]["content"].startswith("The company is Wolf of Blog Street")

    layer = (await context(client))["layers"]["projectContext"] or ""
    for said in ("Wolf of Blog Street", "link building", "Dana Whitfield", "head of ops",
                 "Paddle", "British English"):  # fmt: skip
        assert said in layer, (said, layer)


async def test_a_later_change_supersedes_the_core_item(client: Client) -> None:
    await say(client, "The company is Wolf of Blog Street, also known as WOBS.")
    await say(client, "I'm Dana Whitfield, head of ops.", day=0.01)
    await say(client, "We're now called Blogwolf.", day=30, session="s2")
    await say(client, "I moved to CFO.", day=31, session="s3")

    lines = _lines(await core(client))
    assert "We're now called Blogwolf." in lines
    assert "I moved to CFO." in lines
    assert "I'm Dana Whitfield." in lines  # the name stays: only the role changed
    assert not any("Wolf of Blog Street" in line or "head of ops" in line for line in lines)

    ctx = await context(client)
    layer = ctx["layers"]["projectContext"] or ""
    assert "Blogwolf" in layer and "CFO" in layer
    assert "Wolf of Blog Street" not in ctx["text"] and "head of ops" not in ctx["text"], ctx[
        "text"
    ]

    renamed = next(m for m in await core(client) if "Blogwolf" in m["content"])
    links = (await client.data(LINEAGE, id=renamed["id"]))["lineage"]["links"]
    assert [link["memory"]["content"] for link in links] == [
        "The company is Wolf of Blog Street, also known as WOBS.",
        "We're now called Blogwolf.",
    ]
    assert [link["current"] for link in links] == [False, True]


async def test_a_changed_rule_replaces_the_rule_and_another_rule_adds(client: Client) -> None:
    await say(client, "Always answer in British English.")
    await say(client, "Never schedule calls on Fridays.", day=0.01)
    await say(client, "Never schedule calls before 10am.", day=1, session="s2")
    await say(client, "Actually, answer in American English from now on.", day=2, session="s3")
    await say(client, "Please keep replies under 150 words.", day=3, session="s4")
    await say(client, "Please keep replies under 100 words.", day=4, session="s5")

    lines = _lines(await core(client))
    assert "Actually, answer in American English from now on." in lines
    assert "Never schedule calls on Fridays." in lines  # two rules about calls: both stand
    assert "Never schedule calls before 10am." in lines
    assert "Please keep replies under 100 words." in lines
    assert "Always answer in British English." not in lines
    assert "Please keep replies under 150 words." not in lines
    layer = (await context(client))["layers"]["projectContext"] or ""
    assert "American English" in layer and "British English" not in layer


async def test_unpin_core_is_remembered(client: Client) -> None:
    await say(client, "Always answer in British English.")
    await say(client, "We do link building.", day=0.01)
    rule = next(m for m in await core(client) if "British English" in m["content"])

    unpinned = (await client.data(UNPIN, id=rule["id"]))["unpinCore"]
    assert unpinned == {"id": rule["id"], "pinned": False}
    assert not any("British English" in line for line in _lines(await core(client)))

    # said again, in another session and in other words around it: not pinned again
    again = await say(client, "Always answer in British English.", day=5, session="s2")
    await say(client, "Remember: always answer in British English.", day=6, session="s3")
    assert not any(m["pinned"] for m in again["extracted"])
    lines = _lines(await core(client))
    assert not any("British English" in line for line in lines)
    assert "We do link building." in lines  # the other item is untouched
    layer = (await context(client))["layers"]["projectContext"] or ""
    assert "British English" not in layer


async def test_an_unpin_is_remembered_in_its_tenant_only(client: Client, brain: Brain) -> None:
    await say(client, "We do link building.")
    (line,) = await core(client)
    await client.data(UNPIN, id=line["id"])
    _, key = await create_key(brain.graph, f"t-{uuid.uuid4().hex[:12]}")
    other = Client(brain, key)
    await say(other, "We do link building.")
    assert _lines(await core(other)) == ["We do link building."]
    await say(client, "We do link building.", day=1, session="s2")
    assert await core(client) == []


async def test_erasing_the_turn_erases_what_core_learned_from_it(client: Client) -> None:
    said = await say(client, "I'm Dana Whitfield, head of ops. Always answer in British English.")
    learned = [m["id"] for m in said["extracted"] if m["learned"]]
    assert len(learned) == 3  # a name, a role, a rule
    report = (
        await client.data(
            "mutation($id: ID!) { erase(input: {memoryIds: [$id]}) { __typename "
            "... on EraseReport { memoryIds verified } } }",
            id=said["episode"]["id"],
        )
    )["erase"]
    assert report["verified"] and set(learned) <= set(report["memoryIds"])
    assert await core(client) == []


async def test_a_restated_item_is_one_line(client: Client) -> None:
    await say(client, "We do link building.")
    await say(client, "We do link building.", day=3, session="s2")
    assert _lines(await core(client)).count("We do link building.") == 1


@pytest.mark.parametrize(
    "said",
    [
        "Are we still called WOBS?",
        "If we were called Blogwolf, would clients notice?",
        "Tom says we should call it Blogwolf.",
        "Tom thinks we should always answer in American English.",
        "Maybe we'll migrate billing to Paddle next quarter.",
        "Back in 2019 we were called Wolfpack.",
        "Is Dana still head of ops?",
    ],
)
async def test_questions_suppositions_and_others_views_are_not_core(
    client: Client, said: str
) -> None:
    result = await say(client, said)
    assert not any(m["pinned"] or m["learned"] for m in result["extracted"]), result
    assert await core(client) == []
    assert not (await context(client))["layers"]["projectContext"]


async def test_personal_items_are_the_users_and_the_business_is_everyones(
    client: Client,
) -> None:
    await say(client, "The company is Wolf of Blog Street, also known as WOBS.")
    await say(client, "Always answer in British English.", day=0.01)
    await say(client, "I'm Dana Whitfield, head of ops.", day=0.02)

    ben = await context(client, user="ben")
    layer = ben["layers"]["projectContext"] or ""
    assert "Wolf of Blog Street" in layer
    assert "British English" not in ben["text"] and "Dana Whitfield" not in layer
    assert _lines(await core(client, "ben")) == [
        "The company is Wolf of Blog Street, also known as WOBS."
    ]
    assert _lines(await core(client, None)) == [  # without a user: what the tenant shares
        "The company is Wolf of Blog Street, also known as WOBS."
    ]
    assert len(await core(client)) == 4  # dana's: shared, her name, role and rule


async def test_core_stays_small_whatever_is_said(client: Client) -> None:
    projects = ["checkout", "onboarding flow", "pricing page", "mobile app", "help centre",
                "status page", "partner portal", "invoice emails"]  # fmt: skip
    for i, name in enumerate(projects):
        await say(client, f"We're rebuilding the {name}.", day=i)
    lines = _lines(await core(client))
    assert len(lines) == 5  # the five most recent projects
    assert "We're rebuilding the invoice emails." in lines
    assert "We're rebuilding the checkout." not in lines


@pytest.fixture
def learning_off(brain: Brain) -> Iterator[None]:
    settings = brain.ingest.turns.settings.ingest
    settings.learn_core = False
    yield
    settings.learn_core = True


async def test_the_setting_turns_it_off(client: Client, learning_off: None) -> None:
    result = await say(client, "The company is Wolf of Blog Street, also known as WOBS.")
    assert not any(m["pinned"] for m in result["extracted"])
    assert await core(client) == []


# The seed's example with other Peters around and noise between (issue 38).
WOBS = (
    "The company is Wolf of Blog Street, also known as WOBS. We do link building. "
    "Peter is one of our writers."
)
PROCESS = (
    "To check if content is passing as human, run it through Originality.ai, then read the "
    "first paragraph aloud; anything under 80% human goes back to the writer."
)
OTHER_PETERS = (
    "Peter Lang is the CTO at Northwind, one of our clients.",
    "My neighbour Peter is repainting his fence this weekend.",
    "Peter from our accountant's office sent over the VAT return.",
)
NOISE = (
    "The team lunch is at the Thai place on Thursday.",
    "Can you remind me to renew the domain next month?",
    "The office wifi password changed again.",
    "I booked the train to Leeds for the conference.",
    "Our quarterly review went well, the numbers were up.",
    "The printer on the second floor is jammed.",
    "Let's move the retro to Friday afternoon.",
    "I finished reading that book on negotiation.",
    "The new chairs for the meeting room arrived.",
    "Send the invoice reminder to Harlow & Co.",
    "The heating in the studio is broken again.",
    "I'm taking Monday off for a dentist appointment.",
    "The coffee machine needs descaling.",
    "Our Slack workspace hit the message limit.",
    "Marta is organising the summer party.",
    "The parking permit expires in June.",
    "We got a nice review on Trustpilot yesterday.",
    "I need to update my laptop this week.",
    "The fire drill is scheduled for Tuesday at 11.",
    "Jonas is back from paternity leave next week.",
    "The plants in reception need watering.",
    "I had a great call with the Bristol meetup organisers.",
    "The shared drive is almost full.",
    "Our insurance renewal letter came in the post.",
    "The lift is out of order until Wednesday.",
    "I ordered new business cards.",
    "The cleaners come on Mondays and Thursdays now.",
    "Sofia wants to try a four-day week trial.",
    "The whiteboard markers have all dried out.",
    "I signed up for the Brighton SEO conference.",
    "The kitchen fridge needs clearing out on Friday.",
    "We should get a second monitor for the design desk.",
    "The courier lost the parcel from Hamburg.",
    "I'm presenting at the Tuesday all-hands.",
    "The blinds in the boardroom are stuck.",
    "Our phone provider is raising prices in April.",
    "The bike rack outside is full every morning.",
    "I found a good podcast about remote work.",
    "The post office closes early on Saturdays.",
    "Nina brought cake for her birthday today.",
)


async def test_the_seed_context_says_whose_writer_peter_is(client: Client) -> None:
    january = datetime(2023, 1, 10, 10, tzinfo=UTC).timestamp()
    march = datetime(2023, 3, 14, 15, tzinfo=UTC).timestamp()

    async def at(content: str, when: float, session: str) -> None:
        data = await client.data(
            TURN,
            input={"sessionId": session, "userId": "u1", "content": content, "at": _iso(when)},
        )
        assert data["recordTurn"]["__typename"] == "TurnResult", data

    await at(WOBS, january, "s-jan")
    await at(PROCESS, march, "s-mar")
    for i, said in enumerate(OTHER_PETERS):
        await at(said, march + (10 + i) * DAY, f"s-peter-{i}")
    for i, said in enumerate(NOISE):
        await at(said, march + (20 + i) * DAY, f"s-noise-{i // 5}")

    ctx = (
        await client.data(
            CONTEXT, q="Check if Peter's content is passing as human", user="u1", session="now"
        )
    )["assembleContext"]
    text, layer = ctx["text"], ctx["layers"]["projectContext"] or ""
    assert "Wolf of Blog Street" in layer and "link building" in layer, text
    assert "Peter is one of our writers" in text, text
    assert "Originality.ai" in text, text
    for other in ("Northwind", "CTO", "fence", "VAT"):
        assert other not in text, (other, text)


async def test_a_core_line_a_later_statement_replaced_does_not_lead_the_context(
    client: Client,
) -> None:
    """The write path may miss a change said in other words; the read path's check then
    keeps the replaced core line out of the core layer of a context about it, so the old
    value is not the first thing the model reads."""
    await say(
        client,
        "I go to the gym Monday, Wednesday and Friday at 7am before work, so please don't "
        "book anything for me before 8:30 on those days.",
    )
    assert any("7am" in m["content"] for m in await core(client))
    await say(
        client,
        "New routine since I changed jobs. Gym is now Tuesdays and Thursdays at 6pm, so "
        "mornings are free again and evenings on those two days aren't.",
        day=33,
        session="s2",
    )
    ctx = await context(client, "When do I go to the gym?")
    assert "7am" not in ctx["layers"]["projectContext"]
    text = ctx["text"]
    assert "6pm" in text and ("7am" not in text or text.index("6pm") < text.index("7am"))
    # a context about something else keeps the line: only the question's slot is checked
    assert "7am" in (await context(client))["layers"]["projectContext"]
