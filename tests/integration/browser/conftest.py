"""Browser fixtures: the real ASGI app served by uvicorn on loopback (in the test's event
loop, over the session's engines) and Debian's Chromium driven by Playwright.

The browser is /usr/bin/chromium from Debian's packages (`make install` installs it when it is
missing); Playwright never downloads a browser. Every request to a host other than the test
server is aborted and recorded, so a page that needs the internet fails its test.
"""

from __future__ import annotations

import asyncio
import os
import socket
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import uvicorn
from playwright.async_api import (
    BrowserContext,
    ConsoleMessage,
    Page,
    Request,
    Route,
    async_playwright,
)

from api.app import create_app
from api.brain import Brain

CHROMIUM = "/usr/bin/chromium"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


async def screenshot(page: Page, name: str) -> bytes:
    """A PNG of the page; also written to $BRAIN_SCREENSHOT_DIR when set (docs/img is made
    that way: `BRAIN_SCREENSHOT_DIR=docs/img pytest tests/integration/browser`)."""
    png = await page.screenshot()
    directory = os.environ.get("BRAIN_SCREENSHOT_DIR")
    if directory:
        Path(directory, f"{name}.png").write_bytes(png)
    return png


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
async def server(brain: Brain) -> AsyncIterator[str]:
    """The app on a loopback port, served from this event loop (the session's Brain)."""
    port = _free_port()
    config = uvicorn.Config(
        create_app(brain.settings, brain), host="127.0.0.1", port=port, log_level="warning"
    )
    uv = uvicorn.Server(config)
    task = asyncio.create_task(uv.serve())
    while not uv.started:
        await asyncio.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    uv.should_exit = True
    await task


@pytest.fixture(scope="session")
async def browser_context(
    tmp_path_factory: pytest.TempPathFactory,
) -> AsyncIterator[BrowserContext]:
    """Chromium with a new empty profile, one for the session (pages are per test)."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: run `make install` (it installs Debian's chromium)")
    async with async_playwright() as pw:
        context = await pw.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("chromium-profile")),
            executable_path=CHROMIUM,
            headless=True,
            args=FLAGS,
            viewport={"width": 1400, "height": 900},
        )
        yield context
        await context.close()


@dataclass
class Tab:
    """A page with what it logged: console errors, uncaught exceptions, off-host requests."""

    page: Page
    errors: list[str] = field(default_factory=list)
    offsite: list[str] = field(default_factory=list)


@pytest.fixture
async def tab(browser_context: BrowserContext, server: str) -> AsyncIterator[Tab]:
    page = await browser_context.new_page()
    t = Tab(page)
    host = urlsplit(server).netloc

    async def only_local(route: Route, request: Request) -> None:
        if urlsplit(request.url).netloc in (host, "") or request.url.startswith(("data:", "blob:")):
            await route.continue_()
        else:
            t.offsite.append(request.url)
            await route.abort()

    def on_console(msg: ConsoleMessage) -> None:
        if msg.type == "error":
            t.errors.append(msg.text)

    await page.route("**/*", only_local)
    page.on("console", on_console)
    page.on("pageerror", lambda e: t.errors.append(str(e)))
    yield t
    await page.close()
