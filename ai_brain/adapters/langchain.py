"""LangChain's chat message history (``langchain_core.chat_history.BaseChatMessageHistory``)
kept in AI Brain: each message is a recorded turn, so AI Brain also learns the facts the user
states and brings them back in context, in this session and later ones.

    from ai_brain.client import BrainClient
    from ai_brain.adapters.langchain import AIBrainChatMessageHistory

    history = AIBrainChatMessageHistory(brain, session_id="s-1", user_id="ana")
    history.add_user_message("We deploy to Fly.io on Fridays")
    history.add_ai_message("Noted: Fly.io, Fridays.")
    history.messages  # [HumanMessage(...), AIMessage(...)], oldest first

The mapping:

- ``add_messages``: one ``recordTurn`` per message, in order. A human message is a USER
  turn (its ``name``, if any, is the turn's speaker, whom AI Brain links the turn to), an AI
  message an ASSISTANT turn, a tool or function message a TOOL turn; a ``ChatMessage`` by its
  role (user/human, assistant/ai, tool/function). System messages are not recorded (AI Brain
  keeps conversation turns, and a system prompt is none); neither is a message without text
  (an AI message holding only tool calls): AI Brain refuses an empty turn.
- ``messages``: the session's turns (the user's EPISODIC memories with ``turn:`` as their
  source, read through the session filter of the ``memories`` listing), oldest first, as
  ``HumanMessage`` / ``AIMessage`` / ``ChatMessage(role="tool")``, each with the turn's memory
  id as its ``id``.
- ``clear``: ``forget`` each of those turns. The facts AI Brain extracted from them stay
  (they are the user's long-term memory now; ``forget`` or ``erase`` them in AI Brain).

Only a message's text comes back: names, tool calls, ``additional_kwargs`` and non-text
content parts are not kept, and AI Brain stores the text with surrounding whitespace trimmed.
"""

from __future__ import annotations

from collections.abc import Sequence

try:
    from langchain_core.chat_history import BaseChatMessageHistory
    from langchain_core.messages import (
        AIMessage,
        BaseMessage,
        ChatMessage,
        FunctionMessage,
        HumanMessage,
        ToolMessage,
    )
except ImportError as e:  # pragma: no cover - depends on the installed extras
    raise ImportError(
        "ai_brain.adapters.langchain needs langchain-core: pip install 'ai-brain[langchain]'"
    ) from e

from ai_brain.adapters._plans import Page, Plan, arun, every_memory, forget, run
from ai_brain.client import calls
from ai_brain.client.client import AsyncBrainClient, BrainClient
from ai_brain.client.models import Memory

# A ChatMessage's role to the turn's role.
ROLES = {
    "human": "USER",
    "user": "USER",
    "ai": "ASSISTANT",
    "assistant": "ASSISTANT",
    "tool": "TOOL",
    "function": "TOOL",
}


def role_of(message: BaseMessage) -> str | None:
    """The turn role a message is recorded as (its chunks too); None: not recorded (system
    messages)."""
    if isinstance(message, ChatMessage):
        return ROLES.get(message.role.lower())
    if isinstance(message, HumanMessage):
        return "USER"
    if isinstance(message, AIMessage):
        return "ASSISTANT"
    if isinstance(message, ToolMessage | FunctionMessage):
        return "TOOL"
    return None


def message_of(memory: Memory, source: str | None) -> BaseMessage:
    """A recorded turn as a LangChain message."""
    role = (source or "").removeprefix("turn:")
    if role == "assistant":
        return AIMessage(content=memory.content, id=memory.id)
    if role == "tool":
        return ChatMessage(role="tool", content=memory.content, id=memory.id)
    return HumanMessage(content=memory.content, id=memory.id)


class AIBrainChatMessageHistory(BaseChatMessageHistory):
    """The turns of one AI Brain session of one user, as a LangChain chat history (module
    docstring: the mapping and its limits).

    Args:
        client: the sync client (``messages``, ``add_messages``, ``clear``); the async methods
            use it in a worker thread when no ``async_client`` is given.
        session_id: the AI Brain session: 1-200 letters, digits and ``. _ : @ / + -``.
        user_id: the user whose turns they are (the AI Brain user whose memory they feed).
        async_client: the async client, for ``aget_messages``, ``aadd_messages``, ``aclear``.
        project_id: the project the turns are recorded in, if any.
    """

    def __init__(
        self,
        client: BrainClient | None = None,
        *,
        session_id: str,
        user_id: str,
        async_client: AsyncBrainClient | None = None,
        project_id: str | None = None,
    ) -> None:
        super().__init__()
        if client is None and async_client is None:
            raise TypeError("AIBrainChatMessageHistory needs a BrainClient or an AsyncBrainClient")
        self.client = client
        self.async_client = async_client
        self.session_id = session_id
        self.user_id = user_id
        self.project_id = project_id

    def _sync(self) -> BrainClient:
        if self.client is None:
            raise TypeError(
                "this history has only an AsyncBrainClient: use aget_messages, aadd_messages "
                "and aclear, or give it a BrainClient"
            )
        return self.client

    def _async(self) -> BrainClient | AsyncBrainClient:
        client = self.async_client or self.client
        assert client is not None
        return client

    # The base class declares ``messages`` as an attribute; a property is how LangChain's
    # stored histories implement it.
    @property
    def messages(self) -> list[BaseMessage]:  # type: ignore[override]
        """The session's turns, oldest first."""
        return run(self._messages(), self._sync())

    async def aget_messages(self) -> list[BaseMessage]:
        return await arun(self._messages(), self._async())

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        """Record each message as a turn of the session, in order."""
        run(self._add(messages), self._sync())

    async def aadd_messages(self, messages: Sequence[BaseMessage]) -> None:
        await arun(self._add(messages), self._async())

    def clear(self) -> None:
        """Forget the session's turns (what AI Brain learned from them stays)."""
        run(self._clear(), self._sync())

    async def aclear(self) -> None:
        await arun(self._clear(), self._async())

    # -- plans -----------------------------------------------------------------------------

    def _turns(self) -> Plan[list[tuple[Memory, str | None]]]:
        """The session's turn memories with their sources, oldest first."""
        page: Page = yield from every_memory(
            user_id=self.user_id,
            project_id=self.project_id,
            session_id=self.session_id,
            types=["EPISODIC"],
        )
        turns = [(m, page.sources.get(m.id)) for m in reversed(page.memories)]
        return [(m, source) for m, source in turns if (source or "").startswith("turn:")]

    def _messages(self) -> Plan[list[BaseMessage]]:
        turns = yield from self._turns()
        return [message_of(memory, source) for memory, source in turns]

    def _add(self, messages: Sequence[BaseMessage]) -> Plan[None]:
        for message in messages:
            role, text = role_of(message), str(message.text).strip()
            if role is None or not text:
                continue
            speaker = message.name if role == "USER" else None
            yield calls.record_turn(
                self.session_id, self.user_id, text, role, self.project_id, speaker, None
            )

    def _clear(self) -> Plan[None]:
        turns = yield from self._turns()
        for memory, _ in turns:
            yield from forget(memory.id)
