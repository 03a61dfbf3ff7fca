"""``brain mcp``: an MCP server (the official ``mcp`` SDK) over a running ``brain serve``,
through ``AsyncBrainClient``. The tenant is the API key's. Tools:

    record_turn   store a conversation turn
    get_context   the memory to read before answering (assembleContext)
    search        memories ranked for a query
    remember      store one memory explicitly
    correct       replace a memory by a corrected one (supersede)
    forget        soft-delete a memory
    history       a memory's versions, oldest first (lineage)

and two resources, core memory as text, one "[id] content" line per item:

    memory://core              the tenant's shared core and the default user's own
    memory://core/{user_id}    the shared core and that user's own

Tools answer in plain text with memory ids in brackets, so a model can pass an id back to
``correct``, ``forget`` or ``history``. A failure is a tool error that reads
``CODE: message (request id)``.
"""

from __future__ import annotations

from collections.abc import Awaitable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TypeVar

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError

from ai_brain.client import AsyncBrainClient, BrainError, Memory

T = TypeVar("T")

INSTRUCTIONS = (
    "Long-term memory for this user. Call get_context before answering a question that may "
    "depend on what the user said before; call record_turn with what the user says (and your "
    "answers) so later conversations can use it. Memory ids are shown in brackets."
)


@dataclass(frozen=True)
class Defaults:
    """The user and session a tool call is about when the model does not say."""

    user_id: str = "user"
    session_id: str = ""

    def session(self, given: str | None) -> str:
        return given or self.session_id or f"mcp-{datetime.now(UTC):%Y%m%d}"


async def _call(action: Awaitable[T]) -> T:
    try:
        return await action
    except BrainError as e:
        raise ToolError(str(e)) from e


def _line(memory: Memory) -> str:
    return f"[{memory.id}] {memory.content}"


def build_server(client: AsyncBrainClient, defaults: Defaults | None = None) -> MCPServer:
    """The MCP server whose tools call ``client``."""
    d = defaults or Defaults()
    server: MCPServer = MCPServer("ai-brain", instructions=INSTRUCTIONS)

    @server.tool()
    async def record_turn(
        content: str,
        role: str = "user",
        session_id: str | None = None,
        user_id: str | None = None,
    ) -> str:
        """Store one conversation turn (role: user, assistant or tool); facts, entities and
        tasks in it are extracted and retrievable at once."""
        turn = await _call(
            client.record_turn(d.session(session_id), user_id or d.user_id, content, role=role)
        )
        lines = [f"recorded {_line(turn.episode)}"]
        lines += [f"extracted {_line(m)}" for m in turn.extracted if m.id != turn.episode.id]
        if turn.clarification is not None:
            lines.append(f"clarify: {turn.clarification.question}")
        return "\n".join(lines)

    @server.tool()
    async def get_context(
        query: str | None = None,
        session_id: str | None = None,
        user_id: str | None = None,
        token_budget: int | None = None,
    ) -> str:
        """What memory knows that is relevant to ``query`` (core facts, memories, documents,
        the recent conversation), as text to read before answering."""
        context = await _call(
            client.context(
                d.session(session_id),
                user_id or d.user_id,
                query=query,
                token_budget=token_budget,
            )
        )
        return context.text or "(nothing remembered yet)"

    @server.tool()
    async def search(query: str, top_k: int = 5, user_id: str | None = None) -> str:
        """Memories ranked for ``query``, best first, with their ids and scores."""
        hits = await _call(client.search(query, top_k=top_k, user_id=user_id))
        if not hits:
            return "(no memories found)"
        return "\n".join(f"{_line(h.memory)} (score {h.score:.2f})" for h in hits)

    @server.tool()
    async def remember(content: str, type: str = "fact", user_id: str | None = None) -> str:
        """Store one memory explicitly (type: fact, preference, procedural, semantic ...)."""
        memory = await _call(client.remember(content, type=type, user_id=user_id))
        return f"remembered {_line(memory)}"

    @server.tool()
    async def correct(memory_id: str, content: str, reason: str | None = None) -> str:
        """Replace the memory ``memory_id`` by a corrected one; the old version is kept in its
        history."""
        memory = await _call(client.supersede(memory_id, content, reason=reason))
        return f"{_line(memory)} replaces [{memory_id}]"

    @server.tool()
    async def forget(memory_id: str) -> str:
        """Forget the memory ``memory_id`` (it no longer comes back in search or context)."""
        memory = await _call(client.forget(memory_id))
        return f"forgot {_line(memory)}"

    @server.tool()
    async def history(memory_id: str) -> str:
        """The versions of the memory ``memory_id``, oldest first, the current one marked."""
        lineage = await _call(client.lineage(memory_id))
        lines = []
        for link in lineage.links:
            when = link.replaced_at
            note = "current" if link.current else f"replaced {when:%Y-%m-%d}" if when else "old"
            if link.reason:
                note += f", reason: {link.reason}"
            lines.append(f"{_line(link.memory)} ({note})")
        return "\n".join(lines)

    async def core_text(user_id: str) -> str:
        try:
            items = await client.core(user_id)
        except BrainError as e:
            raise ResourceError(str(e)) from e
        return "\n".join(_line(m) for m in items) or "(no core memory yet)"

    @server.resource("memory://core", name="core", mime_type="text/plain")
    async def core() -> str:
        """Core memory: what is always true of this business and the default user (who they
        are, the business, its projects, standing rules), pinned or learned from
        conversation."""
        return await core_text(d.user_id)

    @server.resource("memory://core/{user_id}", name="user-core", mime_type="text/plain")
    async def user_core(user_id: str) -> str:
        """Core memory of the business and of the user ``user_id``."""
        return await core_text(user_id)

    return server


def run(
    url: str,
    api_key: str,
    *,
    http_port: int | None = None,
    host: str = "127.0.0.1",
    defaults: Defaults | None = None,
) -> int:
    """Serve MCP on stdio, or on streamable HTTP at ``host:http_port/mcp`` when a port is
    given, until the client disconnects or the process is interrupted."""

    async def main() -> None:
        async with AsyncBrainClient(url, api_key) as client:
            server = build_server(client, defaults)
            if http_port is None:
                await server.run_stdio_async()
            else:
                await server.run_streamable_http_async(host=host, port=http_port)

    anyio.run(main)
    return 0
