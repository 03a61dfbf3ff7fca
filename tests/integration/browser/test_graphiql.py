"""GraphiQL in a real browser with no internet: its assets come from this server, the key
pasted once becomes the Authorization header, and a query runs."""

from __future__ import annotations

import pytest
from playwright.async_api import expect

from api.auth import create_key
from api.brain import Brain
from core.types import NewMemory
from tests.integration.browser.conftest import Tab, screenshot

pytestmark = [pytest.mark.integration, pytest.mark.slow]


async def test_graphiql_runs_a_query_offline(
    brain: Brain, server: str, tab: Tab, tenant_id: str
) -> None:
    await brain.memories.remember(tenant_id, NewMemory(content="Peter is a writer at WOBS"))
    _, key = await create_key(brain.graph, tenant_id)
    page = tab.page
    await page.goto(f"{server}/graphql")
    await page.wait_for_selector(".graphiql-container", timeout=20_000)
    await page.fill("#apikey", key)
    await page.click("text=Use key")
    await page.wait_for_selector(".graphiql-container")
    # The example tabs are there, and the headers editor holds the pasted key.
    tabs = await page.locator(".graphiql-tab").all_inner_texts()
    assert any("RecordTurn" in t for t in tabs) and any("Lineage" in t for t in tabs), tabs
    await page.click("text=Headers")
    headers = await page.locator(".graphiql-editor-tool").inner_text()
    assert f"Bearer {key}" in headers
    # Run the Search example (the tab open first): the memory comes back, so the key was sent.
    await expect(page.locator(".graphiql-tab-active")).to_contain_text("Search")
    await page.click(".graphiql-execute-button")
    result = page.locator(".result-window")
    await expect(result).to_contain_text("Peter is a writer at WOBS", timeout=20_000)
    await screenshot(page, "graphiql")
    assert tab.offsite == [], "the page asked the internet for assets"
    assert tab.errors == []
