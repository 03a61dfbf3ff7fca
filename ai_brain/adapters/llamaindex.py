"""A LlamaIndex memory block (``llama_index.core.memory.BaseMemoryBlock``, the ``Memory``
API) backed by AI Brain: it gives the agent AI Brain's assembled context for the latest user
message, and records the messages the memory hands it as turns.

    from llama_index.core.memory import Memory
    from ai_brain.client import BrainClient
    from ai_brain.adapters.llamaindex import AIBrainMemoryBlock

    memory = Memory.from_defaults(
        session_id="s-1",
        memory_blocks=[AIBrainMemoryBlock(client=BrainClient(url, key), user_id="ana")],
        tokenizer_fn=str.split,  # no tiktoken (below)
    )

The mapping:

- ``aget`` (when ``Memory.get``/``aget`` builds the prompt): ``assembleContext`` for the
  session, the user and, as the query, the text of the latest user message (the chat
  history plus the ``input`` given to ``get``); the block's content is the context's ``text``
  (AI Brain's five layers within ``token_budget``), which ``Memory`` puts in its system
  message (or the latest user message, by its ``insert_method``).
- ``aput``: each user, assistant and tool message with text is a ``recordTurn`` of that role,
  in order (system messages and messages without text are not recorded). ``Memory`` hands a
  block only the messages that overflow its short-term queue (over ``token_limit`` times
  ``chat_history_token_ratio``): so AI Brain learns a turn once it leaves the chat history,
  and the context then brings it back when it is relevant. To record every turn at once,
  call ``await block.aput(messages)`` yourself as well.
- The session is the block's ``session_id`` if given, else the ``Memory``'s (which passes
  its own to its blocks); it must be a valid AI Brain session id (the ``Memory``'s default,
  a UUID, is).

Tokens: ``Memory`` counts tokens with its ``tokenizer_fn``; without one it uses tiktoken's
``cl100k_base``, read from a cache llama-index ships unless ``TIKTOKEN_CACHE_DIR`` points
elsewhere, where tiktoken downloads it at run time (which fails on a machine without that
network). Pass ``tokenizer_fn`` (any ``str -> list``, e.g. ``str.split``) to keep tiktoken
out.

Clients: the block takes an ``AsyncBrainClient`` or a ``BrainClient``. ``Memory``'s sync
methods (``put_messages``, ``get``) run their coroutines on a new event loop each time, where
an async client's connections (bound to the loop that opened them) cannot follow: use a
``BrainClient`` there (its calls run in a worker thread), and an ``AsyncBrainClient`` when only
the async methods are used, from one event loop.
"""

from __future__ import annotations

from typing import Any

try:
    from llama_index.core.base.llms.types import ChatMessage, MessageRole
    from llama_index.core.bridge.pydantic import Field
    from llama_index.core.memory import BaseMemoryBlock
except ImportError as e:  # pragma: no cover - depends on the installed extras
    raise ImportError(
        "ai_brain.adapters.llamaindex needs llama-index-core: pip install 'ai-brain[llamaindex]'"
    ) from e

from ai_brain.adapters._plans import Plan, arun
from ai_brain.client import calls
from ai_brain.client.client import AsyncBrainClient, BrainClient
from ai_brain.client.models import Context

ROLES = {
    MessageRole.USER: "USER",
    MessageRole.ASSISTANT: "ASSISTANT",
    MessageRole.CHATBOT: "ASSISTANT",
    MessageRole.MODEL: "ASSISTANT",
    MessageRole.TOOL: "TOOL",
    MessageRole.FUNCTION: "TOOL",
}


def latest_user_text(messages: list[ChatMessage] | None) -> str | None:
    """The text of the last user message with text, if any."""
    for message in reversed(messages or []):
        if message.role == MessageRole.USER and (text := (message.content or "").strip()):
            return text
    return None


class AIBrainMemoryBlock(BaseMemoryBlock[str]):
    """AI Brain's context for the latest user message, as a ``Memory`` block (module
    docstring: the mapping, tokenizers and clients)."""

    name: str = Field(default="ai_brain", description="The block's name in the memory.")
    description: str | None = Field(
        default="What AI Brain remembers that bears on the conversation.",
        description="A description of the memory block.",
    )
    client: BrainClient | AsyncBrainClient = Field(
        exclude=True, description="The AI Brain client the block reads and writes through."
    )
    user_id: str = Field(description="The AI Brain user whose memory it is.")
    session_id: str | None = Field(
        default=None, description="The AI Brain session; None: the Memory's session."
    )
    project_id: str | None = Field(default=None, description="The AI Brain project, if any.")
    token_budget: int | None = Field(
        default=None, description="The context's token budget; None: AI Brain's default."
    )
    mode: str = Field(default="ANSWER", description="AI Brain's ranking profile.")

    def _session(self, given: Any) -> str:
        session = self.session_id or given
        if not isinstance(session, str) or not session:
            raise ValueError("AIBrainMemoryBlock needs a session_id (its own or the Memory's)")
        return session

    async def _aget(self, messages: list[ChatMessage] | None = None, **block_kwargs: Any) -> str:
        """The context text for the latest user message ("" when AI Brain has nothing)."""
        session = self._session(block_kwargs.get("session_id"))
        return await arun(self._context(session, latest_user_text(messages)), self.client)

    async def _aput(self, messages: list[ChatMessage]) -> None:
        """Record the messages as turns of the session, in order."""
        await arun(self._record(messages), self.client)

    def _context(self, session: str, query: str | None) -> Plan[str]:
        context: Context = yield calls.context(
            session, self.user_id, query, self.project_id, self.token_budget, self.mode
        )
        return context.text

    def _record(self, messages: list[ChatMessage]) -> Plan[None]:
        for message in messages:
            role, text = ROLES.get(message.role), (message.content or "").strip()
            if role is None or not text:
                continue
            session = self._session(message.additional_kwargs.get("session_id"))
            yield calls.record_turn(session, self.user_id, text, role, self.project_id, None, None)
