"""`brain mcp` driven by the MCP SDK's own clients against a real `brain serve`: over stdio,
started as docs/CLIENT.md's Claude Desktop configuration says (its args and environment
variables), and over streamable HTTP (`--http PORT`)."""

from __future__ import annotations

import asyncio
import json
import re
import signal
import socket
import subprocess
import sys
import time

import httpx
import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from tests.integration.client.conftest import ROOT, Service, brain_command, brain_env, free_port

pytestmark = [pytest.mark.integration, pytest.mark.slow]

TOOLS = {"record_turn", "get_context", "search", "remember", "correct", "forget", "history"}


def _documented_config(service: Service) -> StdioServerParameters:
    """The Claude Desktop snippet of the README (docs/CLIENT.md repeats it word for word) with
    this service's URL and key; `brain` is this tree's CLI (`python -m cli`)."""
    blocks = [
        re.search(r"```json\n(.*?)```", (ROOT / name).read_text(), re.S)
        for name in ("README.md", "docs/CLIENT.md")
    ]
    assert blocks[0] is not None and blocks[1] is not None
    assert blocks[0].group(1) == blocks[1].group(1)
    server = json.loads(blocks[0].group(1))["mcpServers"]["ai-brain"]
    assert server["command"] == "brain" and server["args"] == ["mcp"]
    assert set(server["env"]) == {"BRAIN_URL", "BRAIN_API_KEY"}
    env = {**brain_env(), "BRAIN_URL": service.url, "BRAIN_API_KEY": service.key}
    return StdioServerParameters(
        command=sys.executable, args=["-m", "cli", *server["args"]], env=env, cwd=ROOT
    )


def _text(result: object) -> str:
    content = result.content  # type: ignore[attr-defined]
    return "\n".join(c.text for c in content)


async def test_mcp_tools_over_stdio(service: Service) -> None:
    async with (
        stdio_client(_documented_config(service)) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        assert {t.name for t in (await session.list_tools()).tools} == TOOLS

        said = "My sister Ines moved to Porto last spring"
        recorded = await session.call_tool(
            "record_turn", {"content": said, "session_id": "mcp-1", "user_id": "ana"}
        )
        assert not recorded.is_error and said in _text(recorded)
        context = await session.call_tool(
            "get_context",
            {"query": "where does Ines live?", "session_id": "mcp-1", "user_id": "ana"},
        )
        assert not context.is_error and "Porto" in _text(context)

        remembered = await session.call_tool(
            "remember", {"content": "The wifi password is tulip42"}
        )
        old_id = re.search(r"\[([^\]]+)\]", _text(remembered))
        assert old_id is not None
        corrected = await session.call_tool(
            "correct", {"memory_id": old_id.group(1), "content": "The wifi password is lotus77"}
        )
        new_id = re.search(r"\[([^\]]+)\]", _text(corrected))
        assert new_id is not None and new_id.group(1) != old_id.group(1)
        history = _text(await session.call_tool("history", {"memory_id": new_id.group(1)}))
        assert history.index("tulip42") < history.index("lotus77 (current)")

        found = _text(await session.call_tool("search", {"query": "wifi password"}))
        assert "lotus77" in found
        forgotten = await session.call_tool("forget", {"memory_id": new_id.group(1)})
        assert not forgotten.is_error
        assert "lotus77" not in _text(await session.call_tool("search", {"query": "wifi password"}))

        refused = await session.call_tool("history", {"memory_id": "not-an-id"})
        assert refused.is_error and "INVALID_INPUT" in _text(refused)


PIN = "mutation($c: String!) { pinCore(input: {content: $c}) { ... on Memory { id } } }"


async def test_mcp_core_memory_resources(service: Service) -> None:
    """memory://core reads the tenant's core memory (a pinned item here), and the template
    memory://core/{user_id} the same for a named user; both are listed."""
    pinned = httpx.post(
        f"{service.url}/graphql",
        json={"query": PIN, "variables": {"c": "Lumen Bakery sells sourdough to cafes"}},
        headers={"Authorization": f"Bearer {service.key}"},
    ).json()
    memory_id = pinned["data"]["pinCore"]["id"]
    async with (
        stdio_client(_documented_config(service)) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        listed = await session.list_resources()
        assert [str(r.uri) for r in listed.resources] == ["memory://core"]
        templates = await session.list_resource_templates()
        assert [t.uri_template for t in templates.resource_templates] == ["memory://core/{user_id}"]
        for uri in ("memory://core", "memory://core/bo"):
            read_back = await session.read_resource(uri)
            text = "\n".join(c.text for c in read_back.contents)  # type: ignore[union-attr]
            assert f"[{memory_id}] Lumen Bakery sells sourdough to cafes" in text, (uri, text)


async def test_mcp_over_streamable_http(service: Service) -> None:
    port = free_port()
    proc = subprocess.Popen(
        brain_command("mcp", "--url", service.url, "--key", service.key, "--http", str(port)),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=brain_env(),
        cwd=ROOT,
    )
    try:
        url = f"http://127.0.0.1:{port}/mcp"
        deadline = time.monotonic() + 60
        while True:  # until it listens
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline
                await asyncio.sleep(0.2)
        async with (
            streamable_http_client(url) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            assert {t.name for t in (await session.list_tools()).tools} == TOOLS
            await session.call_tool("remember", {"content": "The boat is moored at pier 9"})
            found = await session.call_tool("search", {"query": "where is the boat moored?"})
            assert "pier 9" in _text(found)
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
