"""/explore in a real browser against a seeded tenant: the scene's node and edge counts, the
scrubber showing the value current before a correction (checked against vizGraph(asOf)) and
the shaders drawing each memory in its state at that time (pixels read back from WebGL),
clicking a node opening its detail, the entity graph with its identity questions (a hollow
provisional entity, a scored POSSIBLY_SAME_AS link, the candidates on click), a refused key,
no console errors and no request leaving the server."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from playwright.async_api import Page, expect

from api.auth import create_key
from api.brain import Brain
from core.clock import now
from core.lifecycle_types import JobName
from core.types import EntityType, NewMemory
from tests.integration.browser.conftest import Tab, screenshot

pytestmark = [pytest.mark.integration, pytest.mark.slow]

DAY = 86_400.0
BACKGROUND = [11, 16, 32]  # #0b1020


async def seed(brain: Brain, tenant_id: str) -> float:
    """Peter writes for WOBS; WOBS deployed to Heroku (said 10 days ago, corrected to AWS
    now); a remark in another session. Laid out by the layout job. Returns the first time."""
    g = brain.graph.tenant(tenant_id)
    wobs = await g.create_entity("WOBS", EntityType.ORG)
    peter = await g.create_entity("Peter", EntityType.PERSON)
    await g.relate(peter.id, wobs.id, "works_for")
    t0 = now() - 10 * DAY

    async def say(content: str, session: str, at: float, entities: list[str]) -> str:
        item = NewMemory(
            content=content, session_id=session, created_at=at, valid_from=at, entity_ids=entities
        )
        return (await brain.memories.remember(tenant_id, item)).id

    heroku = await say("WOBS deploys to Heroku", "s1", t0, [wobs.id])
    await say("Peter writes for WOBS", "s1", t0 + DAY, [peter.id, wobs.id])
    await say("The weather was fine", "s2", t0 + 2 * DAY, [])
    await brain.memories.supersede(tenant_id, heroku, "WOBS deploys to AWS", "migrated")
    await brain.lifecycle.consolidate(tenant_id, [JobName.LAYOUT])
    return t0


async def js(page: Page, expression: str) -> Any:
    """Evaluate in the page (DevTools evaluation: the page's CSP forbids eval, not this)."""
    return await page.evaluate(expression)


async def until(page: Page, expression: str, timeout: float = 20.0) -> Any:
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        value = await js(page, expression)
        if value:
            return value
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out waiting for {expression}")
        await asyncio.sleep(0.1)


async def sign_in(page: Page, server: str, key: str) -> None:
    await page.goto(f"{server}/explore")
    await page.fill("#key", key)
    await page.click("#signin-form button")


async def test_explore_scene_scrubber_detail_and_entities(
    brain: Brain, server: str, tab: Tab, tenant_id: str
) -> None:
    t0 = await seed(brain, tenant_id)
    _, key = await create_key(brain.graph, tenant_id)
    page = tab.page
    await sign_in(page, server, key)
    await until(page, "window.__explore.ready")
    counts = await js(page, "window.__explore.counts()")
    assert counts["current"] == 3 and counts["superseded"] == 1, counts
    # AWS continues session s1 (its version inherits the session and WOBS): writes -> AWS is
    # SAME_SESSION and ENTITY_OVERLAP; s1 -> s2 -> s1 makes two TEMPORAL_SEQ links.
    assert counts["edges"] == {
        "SUPERSEDES": 1,
        "ENTITY_OVERLAP": 1,
        "SAME_SESSION": 1,
        "TEMPORAL_SEQ": 2,
    }, counts
    assert counts["entities"] == 2 and counts["relations"] == 1, counts
    await screenshot(page, "explore-space")
    heroku = await js(page, "window.__explore.idOf('WOBS deploys to Heroku')")
    aws = await js(page, "window.__explore.idOf('WOBS deploys to AWS')")
    # Now: Heroku is a superseded ghost (dark red), AWS a current fact (teal).
    red, teal = await pixels(page, heroku), await pixels(page, aws)
    assert red[0] > 2 * red[1] and teal[1] > 2 * teal[0], (red, teal)

    # Scrub to three days after the first statement: Heroku is the current deploy target.
    span = await js(page, "[window.__explore.model.start, window.__explore.model.end]")
    value = round((t0 * 1000 + 3 * DAY * 1000 - span[0]) / (span[1] - span[0]) * 1000)
    await page.locator("#scrub").fill(str(value))
    await expect(page.locator("#server-state")).to_contain_text("matches", timeout=20_000)
    await expect(page.locator("#server-state")).to_contain_text("server: 3 current")
    current = await js(page, "window.__explore.current()")
    assert "WOBS deploys to Heroku" in current and "WOBS deploys to AWS" not in current
    counts = await js(page, "window.__explore.counts()")
    assert counts["edges"].get("SAME_SESSION") == 1 and counts["edges"].get("ENTITY_OVERLAP") == 1
    # What the GPU drew then: Heroku current (teal), AWS not there yet (background).
    teal, gone = await pixels(page, heroku), await pixels(page, aws)
    assert teal[1] > 2 * teal[0] and gone == BACKGROUND, (teal, gone)

    # Clicking the Heroku node opens its detail: current at this time, with its lineage.
    spot = await js(page, f"window.__explore.screenPos('{heroku}')")
    await page.mouse.click(spot["x"], spot["y"])
    await expect(page.locator("#detail-content")).to_have_text("WOBS deploys to Heroku")
    await expect(page.locator("#detail-state")).to_have_text("current")
    await expect(page.locator("#lineage li")).to_have_count(2)
    await screenshot(page, "explore-detail")

    # The entity filter leaves Peter's memory alone in the scene.
    await page.select_option("#f-entity", label="Peter")
    assert (await js(page, "window.__explore.counts()"))["current"] == 1
    await page.select_option("#f-entity", label="all")

    # The entity graph: click Peter for his profile and memories.
    await page.click("text=Entity graph")
    peter = await js(page, "window.__explore.model.entities.find(e => e.label === 'Peter').id")
    await asyncio.sleep(1.0)  # the 2D layout settles and fits
    spot = await until(page, f"window.__explore.entityPos('{peter}')")
    await page.mouse.click(spot["x"], spot["y"])
    await expect(page.locator("#detail h3")).to_contain_text("Peter")
    await expect(page.locator("#detail")).to_contain_text("works_for: WOBS")
    await expect(page.locator("#detail")).to_contain_text("Memories (1)")
    await screenshot(page, "explore-entities")
    assert tab.errors == [] and tab.offsite == []


async def pixels(page: Page, memory_id: str) -> list[int]:
    """The colour WebGL drew at a memory's centre (that memory alone in the frame)."""
    return list(await js(page, f"window.__explore.pixelAt('{memory_id}')"))


async def test_entity_graph_draws_identity_questions(
    brain: Brain, server: str, tab: Tab, tenant_id: str
) -> None:
    g = brain.graph.tenant(tenant_id)
    acme = await g.create_entity("Acme", EntityType.ORG)
    sarah = await g.create_entity("Sarah", EntityType.PERSON)
    await g.relate(sarah.id, acme.id, "works_for")
    other = await g.create_identity("Sarah", EntityType.PERSON, True, [(sarah.id, 0.58)])
    for content, about in (
        ("Sarah from Acme sent the plan", [sarah.id, acme.id]),
        ("Sarah called about the invoice", [other.id]),
    ):
        await brain.memories.remember(tenant_id, NewMemory(content=content, entity_ids=about))
    _, key = await create_key(brain.graph, tenant_id)
    page = tab.page
    await sign_in(page, server, key)
    await until(page, "window.__explore.ready && window.__explore.questions !== undefined")
    counts = await js(page, "window.__explore.counts()")
    assert (counts["entities"], counts["provisional"], counts["sameAs"]) == (3, 1, 1), counts
    drawn = await js(page, "window.__explore.identities()")
    assert drawn == {
        "provisional": ["Sarah"],
        "sameAs": [{"from": "Sarah", "to": "Sarah", "score": 0.58}],
    }, drawn

    await page.click("text=Entity graph")
    await asyncio.sleep(1.0)  # the 2D layout settles and fits
    spot = await until(page, f"window.__explore.entityPos('{other.id}')")
    # The provisional entity is a hollow ring (background at its centre), the known one filled;
    # both read from one drawn frame, once the layout has settled where it is drawn.
    hollow, filled = await until(
        page,
        f"(() => {{ const e = window.__explore, h = e.entityPixel('{other.id}'),"
        f" f = e.entityPixel('{sarah.id}'); return f && f.join() !== '11,16,32' && [h, f]; }})()",
    )
    assert hollow == BACKGROUND, (hollow, filled)
    await page.mouse.click(spot["x"], spot["y"])
    await expect(page.locator("#detail .question h4")).to_contain_text("who is Sarah?")
    await expect(page.locator("#detail .candidates li")).to_have_count(1)
    await expect(page.locator("#detail .candidates li")).to_contain_text("0.58")
    await screenshot(page, "explore-identity")
    assert tab.errors == [] and tab.offsite == []


async def test_an_entity_lists_each_thing_said_once(
    brain: Brain, server: str, tab: Tab, tenant_id: str
) -> None:
    """A turn and the statement extracted from it hold the same words, and a sentence said
    again is another memory: the entity's detail shows one line for them (with how many),
    and leaves out what is forgotten."""
    g = brain.graph.tenant(tenant_id)
    marta = await g.create_entity("Marta", EntityType.PERSON)
    for content in ("Marta runs payroll.", "Marta runs payroll", "marta runs payroll!"):
        await brain.memories.remember(tenant_id, NewMemory(content=content, entity_ids=[marta.id]))
    gone = await brain.memories.remember(
        tenant_id, NewMemory(content="Marta likes sailing.", entity_ids=[marta.id])
    )
    await brain.memories.forget(tenant_id, gone.id)
    _, key = await create_key(brain.graph, tenant_id)
    page = tab.page
    await sign_in(page, server, key)
    await until(page, "window.__explore.ready")
    await page.click("text=Entity graph")
    await asyncio.sleep(1.0)  # the 2D layout settles and fits
    spot = await until(page, f"window.__explore.entityPos('{marta.id}')")
    await page.mouse.click(spot["x"], spot["y"])
    await expect(page.locator("#detail")).to_contain_text("Memories (1)")
    await expect(page.locator("#detail li[data-memory]")).to_have_count(1)
    await expect(page.locator("#detail li[data-memory]")).to_contain_text("×3")
    await screenshot(page, "explore-entity-said-once")
    assert tab.errors == [] and tab.offsite == []


async def test_a_bad_key_is_refused(server: str, tab: Tab) -> None:
    await sign_in(tab.page, server, "brn_not-a-key")
    await expect(tab.page.locator("#signin-error")).to_contain_text("Key refused")
    await screenshot(tab.page, "explore-signin-refused")
    assert await tab.page.locator("#app").is_hidden()
    assert await js(tab.page, "sessionStorage.getItem('brain.apiKey')") is None
    # the refused request itself is a 401, which the browser logs; nothing else may fail
    assert [e for e in tab.errors if "status of 401" not in e] == [] and tab.offsite == []
