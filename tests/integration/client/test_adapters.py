"""`ai_brain.adapters` against a real `brain serve`, each through its framework's own
interface: LangGraph's store (directly and from a compiled graph's node), LangChain's chat
history and LlamaIndex's `Memory` with the AI Brain block. Every test has its own AI Brain
user (the service is shared by the package's tests)."""

from __future__ import annotations

import re
import subprocess
import sys
import uuid
from typing import Any, TypedDict

import pytest
from langchain_core.messages import (
    AIMessage,
    ChatMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langgraph.graph import StateGraph
from langgraph.store.base import BaseStore
from llama_index.core.base.llms.types import ChatMessage as LlamaMessage
from llama_index.core.memory import Memory

from ai_brain.adapters.langchain import AIBrainChatMessageHistory
from ai_brain.adapters.langgraph import AIBrainStore
from ai_brain.adapters.llamaindex import AIBrainMemoryBlock
from ai_brain.client import AsyncBrainClient, BrainClient
from tests.integration.client.conftest import ROOT, Service, brain_env

pytestmark = [pytest.mark.integration, pytest.mark.slow]


def fresh(name: str) -> str:
    """An id no other test uses."""
    return f"{name}-{uuid.uuid4().hex[:10]}"


# -- LangGraph -------------------------------------------------------------------------------


def test_store_put_get_overwrite_delete(service: Service) -> None:
    with BrainClient(service.url, service.key) as brain:
        store = AIBrainStore(brain, user_id=fresh("lg"))
        ana = ("users", "ana")
        assert store.get(ana, "prefs") is None

        store.put(ana, "prefs", {"theme": "dark", "food": "pizza"})
        first = store.get(ana, "prefs")
        assert first is not None
        assert first.value == {"theme": "dark", "food": "pizza"}
        assert first.namespace == ana and first.key == "prefs"

        store.put(ana, "prefs", {"theme": "light", "food": "pizza"})
        second = store.get(ana, "prefs")
        assert second is not None and second.value == {"theme": "light", "food": "pizza"}
        assert second.created_at == first.created_at  # the item's, kept across versions
        assert second.updated_at > first.updated_at

        # The overwrite is a supersede: AI Brain keeps the old value in the lineage.
        [hit] = [
            h
            for h in brain.search("theme food", user_id=store.user_id)
            if h.memory.project_id == "lg:users.ana"
        ]
        lineage = brain.lineage(hit.memory.id)
        assert [link.memory.content for link in lineage.links] == [
            'prefs: {"theme": "dark", "food": "pizza"}',
            'prefs: {"theme": "light", "food": "pizza"}',
        ]

        store.put(ana, "prefs", {"theme": "light", "food": "pizza"})  # the same value
        assert len(brain.lineage(hit.memory.id).links) == 2  # no new version

        store.delete(ana, "prefs")
        assert store.get(ana, "prefs") is None
        assert store.search(ana) == []
        assert hit.memory.id not in {h.memory.id for h in brain.search("theme food")}


def test_store_search_prefix_filter_and_namespaces(service: Service) -> None:
    with BrainClient(service.url, service.key) as brain:
        store = AIBrainStore(brain, user_id=fresh("lg"))
        store.put(("users", "ana"), "prefs", {"food": "pizza", "drink": "espresso"})
        store.put(("users", "ana"), "work", {"employer": "Globex", "role": "accountant"})
        store.put(("users", "ana", "hobbies"), "sport", {"sport": "bouldering", "level": 4})
        store.put(("users", "bo"), "prefs", {"food": "ramen", "drink": "tea"})
        odd = ("odd labels", "é/ü+x")
        store.put(odd, "a key & more", {"n": 1})

        hits = store.search(("users", "ana"), query="Ana's job and employer")
        assert hits[0].key == "work" and hits[0].value["employer"] == "Globex"
        assert hits[0].score is not None and hits[0].score > 0
        assert {(h.namespace, h.key) for h in hits} <= {
            (("users", "ana"), "prefs"),
            (("users", "ana"), "work"),
            (("users", "ana", "hobbies"), "sport"),
        }  # never Bo's, never outside the prefix

        # A deeper namespace is found under its prefix.
        climbing = store.search(("users",), query="bouldering sport")
        assert (climbing[0].namespace, climbing[0].key) == (("users", "ana", "hobbies"), "sport")

        # Without a query: every item under the prefix, most recently put first.
        listed = store.search(("users",), limit=10)
        assert [(i.namespace, i.key) for i in listed] == [
            (("users", "bo"), "prefs"),
            (("users", "ana", "hobbies"), "sport"),
            (("users", "ana"), "work"),
            (("users", "ana"), "prefs"),
        ]
        assert [i.key for i in store.search(("users",), limit=2, offset=1)] == ["sport", "work"]
        assert [i.namespace for i in store.search(("users",), filter={"drink": "tea"})] == [
            ("users", "bo")
        ]
        assert [i.key for i in store.search(("users",), filter={"level": {"$gte": 3}})] == ["sport"]
        ranked = store.search(
            ("users",), query="what does everyone drink?", filter={"food": "ramen"}
        )
        assert [(i.namespace, i.key) for i in ranked] == [(("users", "bo"), "prefs")]

        # Labels and keys with characters AI Brain's ids do not allow read back exactly.
        item = store.get(odd, "a key & more")
        assert item is not None and item.value == {"n": 1} and item.namespace == odd

        assert store.list_namespaces() == [
            odd,
            ("users", "ana"),
            ("users", "ana", "hobbies"),
            ("users", "bo"),
        ]
        assert store.list_namespaces(prefix=("users",), max_depth=2) == [
            ("users", "ana"),
            ("users", "bo"),
        ]
        assert store.list_namespaces(suffix=("hobbies",)) == [("users", "ana", "hobbies")]

        # Another store (another AI Brain user) sees none of it.
        other = AIBrainStore(brain, user_id=fresh("lg"))
        assert other.get(("users", "ana"), "prefs") is None
        assert other.list_namespaces() == []


class Visit(TypedDict, total=False):
    user: str
    greeting: str


def welcome(state: Visit, *, store: BaseStore) -> Visit:
    """A graph node: reads the user's preferences and counts their visits in the store."""
    namespace = ("users", state["user"])
    prefs = store.get(namespace, "prefs")
    seen = store.get(namespace, "visits")
    visits = (seen.value["count"] if seen else 0) + 1
    store.put(namespace, "visits", {"count": visits})
    theme = prefs.value["theme"] if prefs else "no"
    return {"greeting": f"{theme} theme, visit {visits}"}


async def awelcome(state: Visit, *, store: BaseStore) -> Visit:
    """``welcome`` with the store's async methods."""
    namespace = ("users", state["user"])
    prefs = await store.aget(namespace, "prefs")
    seen = await store.aget(namespace, "visits")
    visits = (seen.value["count"] if seen else 0) + 1
    await store.aput(namespace, "visits", {"count": visits})
    theme = prefs.value["theme"] if prefs else "no"
    return {"greeting": f"{theme} theme, visit {visits}"}


async def test_store_in_a_compiled_graph(service: Service) -> None:
    user = fresh("lg")
    with BrainClient(service.url, service.key) as brain:
        store = AIBrainStore(brain, user_id=user)
        store.put(("users", "ana"), "prefs", {"theme": "dark"})
        graph = StateGraph(Visit).add_node("welcome", welcome)
        compiled = graph.set_entry_point("welcome").compile(store=store)
        assert compiled.invoke({"user": "ana"})["greeting"] == "dark theme, visit 1"
        assert compiled.invoke({"user": "ana"})["greeting"] == "dark theme, visit 2"
        assert compiled.invoke({"user": "bo"})["greeting"] == "no theme, visit 1"

        async with AsyncBrainClient(service.url, service.key) as abrain:
            astore = AIBrainStore(async_client=abrain, user_id=user)
            agraph = StateGraph(Visit).add_node("welcome", awelcome)
            acompiled = agraph.set_entry_point("welcome").compile(store=astore)
            result = await acompiled.ainvoke({"user": "ana"})
            assert result["greeting"] == "dark theme, visit 3"
            hits = await astore.asearch(("users",), query="visits count")
            assert {(h.namespace, h.key) for h in hits} >= {
                (("users", "ana"), "visits"),
                (("users", "bo"), "visits"),
            }

        visits = store.get(("users", "ana"), "visits")
        assert visits is not None and visits.value == {"count": 3}


# -- LangChain -------------------------------------------------------------------------------


def test_chat_history_records_turns_and_reads_them_back(service: Service) -> None:
    user, session = fresh("lc"), fresh("chat")
    with BrainClient(service.url, service.key) as brain:
        history = AIBrainChatMessageHistory(brain, session_id=session, user_id=user)
        assert history.messages == []
        history.add_user_message("My sister Priya lives in Lisbon")
        history.add_ai_message("Noted: Priya lives in Lisbon.")
        history.add_messages(
            [
                SystemMessage("You are terse."),  # not a turn: not recorded
                AIMessage(content="", tool_calls=[{"name": "weather", "args": {}, "id": "c1"}]),
                ToolMessage("Lisbon: 24C and sunny", tool_call_id="c1"),
                HumanMessage("thanks", name="Ana"),
            ]
        )

        messages = AIBrainChatMessageHistory(brain, session_id=session, user_id=user).messages
        assert [(type(m), m.content) for m in messages] == [
            (HumanMessage, "My sister Priya lives in Lisbon"),
            (AIMessage, "Noted: Priya lives in Lisbon."),
            (ChatMessage, "Lisbon: 24C and sunny"),
            (HumanMessage, "thanks"),
        ]
        assert isinstance(messages[2], ChatMessage) and messages[2].role == "tool"
        assert all(m.id for m in messages)  # each turn's memory id
        assert (
            AIBrainChatMessageHistory(brain, session_id=fresh("chat"), user_id=user).messages == []
        )

        # The turns are AI Brain's memory of the user: another session's context has them.
        context = brain.context(fresh("chat"), user, query="where does my sister live?")
        assert "Priya lives in Lisbon" in context.text

        history.clear()
        assert history.messages == []
        again = brain.context(fresh("chat"), user, query="where does my sister live?")
        assert "My sister Priya lives in Lisbon" not in again.text


async def test_chat_history_async(service: Service) -> None:
    user, session = fresh("lc"), fresh("chat")
    async with AsyncBrainClient(service.url, service.key) as brain:
        history = AIBrainChatMessageHistory(async_client=brain, session_id=session, user_id=user)
        await history.aadd_messages(
            [HumanMessage("Our standup is at 9:15"), AIMessage("9:15 it is.")]
        )
        messages = await history.aget_messages()
        assert [(m.type, m.content) for m in messages] == [
            ("human", "Our standup is at 9:15"),
            ("ai", "9:15 it is."),
        ]
        with pytest.raises(TypeError, match="AsyncBrainClient"):
            _ = history.messages  # a sync read needs a sync client
        await history.aclear()
        assert await history.aget_messages() == []


# -- LlamaIndex ------------------------------------------------------------------------------


def no_default_tokenizer(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("llama-index's default tokenizer (tiktoken) was asked for")


async def test_llamaindex_memory_block(service: Service, monkeypatch: pytest.MonkeyPatch) -> None:
    # tiktoken may download its encoding: the memory must count with the tokenizer it is given.
    monkeypatch.setattr("llama_index.core.memory.memory.get_tokenizer", no_default_tokenizer)
    user, session = fresh("li"), fresh("chat")
    brain = BrainClient(service.url, service.key)
    try:
        block = AIBrainMemoryBlock(client=brain, user_id=user)
        # A small short-term queue: older messages overflow into the block, i.e. into AI Brain.
        memory = Memory.from_defaults(
            session_id=session,
            memory_blocks=[block],
            tokenizer_fn=str.split,
            token_limit=40,
            chat_history_token_ratio=0.5,
            token_flush_size=10,
        )
        memory.put_messages(
            [
                LlamaMessage(role="user", content="My cat is called Miso and she is nine"),
                LlamaMessage(role="assistant", content="Miso is a lovely name for a cat."),
            ]
        )
        memory.put_messages(
            [
                LlamaMessage(role="user", content="Let us plan the team offsite next month"),
                LlamaMessage(role="assistant", content="Sure, where would the team like to go?"),
            ]
        )
        # The overflowed turns are in AI Brain, with their roles.
        turns = AIBrainChatMessageHistory(brain, session_id=session, user_id=user).messages
        assert [(m.type, m.content) for m in turns][:2] == [
            ("human", "My cat is called Miso and she is nine"),
            ("ai", "Miso is a lovely name for a cat."),
        ]

        # A new conversation (no chat history of its own) gets the fact from AI Brain.
        async with AsyncBrainClient(service.url, service.key) as abrain:
            later = Memory.from_defaults(
                session_id=fresh("chat"),
                memory_blocks=[AIBrainMemoryBlock(client=abrain, user_id=user)],
                tokenizer_fn=str.split,
            )
            messages = await later.aget(input="what is my cat called?")
        assert messages[0].role == "system"
        assert "<ai_brain>" in (messages[0].content or "")
        assert "My cat is called Miso" in (messages[0].content or "")

        # Another user's memory block has nothing of it.
        stranger = Memory.from_defaults(
            session_id=fresh("chat"),
            memory_blocks=[AIBrainMemoryBlock(client=brain, user_id=fresh("li"))],
            tokenizer_fn=str.split,
        )
        assert "Miso" not in str([m.content for m in await stranger.aget(input="my cat?")])
    finally:
        brain.close()


# -- packaging and docs ----------------------------------------------------------------------


def test_the_client_needs_no_framework() -> None:
    """With no framework importable, `ai_brain.client` and `ai_brain.adapters` import, and an
    adapter module says which extra to install."""
    code = """
import sys
for name in ("langgraph", "langchain_core", "llama_index"):
    sys.modules[name] = None  # any import of it fails
import ai_brain.adapters
import ai_brain.client
for module in ("langgraph", "langchain", "llamaindex"):
    try:
        __import__("ai_brain.adapters." + module)
    except ImportError as e:
        print(e)
try:
    ai_brain.adapters.AIBrainStore
except ImportError as e:
    print("lazy:", e)
"""
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=brain_env(),
        cwd=ROOT,
        timeout=120,
        check=True,
    )
    assert done.stdout.splitlines() == [
        "ai_brain.adapters.langgraph needs LangGraph: pip install 'ai-brain[langgraph]'",
        "ai_brain.adapters.langchain needs langchain-core: pip install 'ai-brain[langchain]'",
        "ai_brain.adapters.llamaindex needs llama-index-core: pip install 'ai-brain[llamaindex]'",
        "lazy: ai_brain.adapters.langgraph needs LangGraph: pip install 'ai-brain[langgraph]'",
    ]


def test_the_documented_adapter_examples_run(
    service: Service, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/CLIENT.md's three adapter examples, as written, with this service's URL and key."""
    monkeypatch.setattr("llama_index.core.memory.memory.get_tokenizer", no_default_tokenizer)
    text = (ROOT / "docs" / "CLIENT.md").read_text()
    section = text.split("## Framework adapters", 1)[1]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) == 3
    scopes: list[dict[str, Any]] = []
    for code in blocks:
        code = code.replace("http://127.0.0.1:8000", service.url).replace(
            '"brn_..."', repr(service.key)
        )
        scope: dict[str, Any] = {"__name__": "docs_example"}
        exec(code, scope)
        scopes.append(scope)
    store, history, llama = scopes
    assert store["reply"] == "Welcome back, ana: dark theme"
    assert store["hits"][0].key == "prefs" and store["hits"][0].value["editor"] == "vim"
    assert [(m.type, m.content) for m in history["messages"]][-2:] == [
        ("human", "I'm allergic to peanuts"),
        ("ai", "Noted: no peanuts."),
    ]
    assert "My cat is called Miso" in (llama["messages"][0].content or "")
