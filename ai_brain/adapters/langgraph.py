"""LangGraph's long-term memory store (``langgraph.store.base.BaseStore``) kept in AI Brain.

    from ai_brain.client import BrainClient
    from ai_brain.adapters.langgraph import AIBrainStore

    store = AIBrainStore(BrainClient("http://127.0.0.1:8000", "brn_..."))
    store.put(("users", "ana"), "prefs", {"theme": "dark"})
    store.search(("users", "ana"), query="which theme does Ana like?")
    graph = builder.compile(store=store)  # nodes that take ``store`` get this one

The mapping (one item = one AI Brain memory, written with ``remember``):

- the memory's ``userId`` is the store's ``user_id`` ("langgraph" unless given): every item
  of the store, and nothing else, is listed by that one indexed filter;
- its ``projectId`` is ``"lg:"`` and the namespace's labels joined by ``.`` (LangGraph forbids
  ``.`` in a label), its ``sessionId`` the key; characters AI Brain does not allow in these ids
  (anything but ASCII letters, digits and ``_ : @ / -``) are written ``+HH`` per UTF-8 byte,
  so both read back exactly. Each id is limited to 200 characters by AI Brain;
- its content is ``"<key>: <value as JSON>"``: what search embeds and matches, and what a
  person reads in AI Brain. The key is in the text so that two keys holding the same value
  are two statements (AI Brain's lifecycle merges near-identical memories of one user and
  project, and hides exact restatements);
- ``put`` on an existing key is a ``supersede`` (AI Brain keeps the old value in the
  memory's lineage); the same value again writes nothing. ``put(..., None)`` / ``delete`` is
  ``forget`` (a soft delete: the versions stay in the lineage);
- ``get`` reads the key's current memory through the project and session filters of the
  ``memories`` listing (no scan); ``created_at`` is the first version's, ``updated_at`` the
  current one's;
- ``search`` with a query is AI Brain's ``search`` (its retrieval paths and ranking; the
  item's ``score`` is AI Brain's): one search filtered to the namespace itself and one over
  the whole store for items in deeper namespaces under the prefix;
- ``search`` without a query and ``list_namespaces`` read the store's memories newest first,
  100 per request (the API has no prefix filter): a search stops once it has
  ``offset + limit`` items, a namespace listing reads them all.

What does not map exactly: ``index`` is ignored (AI Brain always indexes the whole content);
TTLs are not supported (``supports_ttl`` is False); a search with a query sees at most AI
Brain's 100 best hits, so items in deeper namespaces, a ``filter`` that drops many hits, or an
``offset`` past that are best effort; ``filter`` is applied to the values here, after the
search (``$eq $ne $gt $gte $lt $lte`` and nested dicts, as LangGraph's own stores); a memory of
the store rewritten outside it in plain text (a correction in AI Brain) reads back as
``{"content": "<its text>"}``. Two writers putting the same new key at the same moment can
make two memories; the newest is read, and the next put or delete settles both.
"""

from __future__ import annotations

import json
import string
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

try:
    from langgraph.store.base import (
        BaseStore,
        GetOp,
        Item,
        ListNamespacesOp,
        MatchCondition,
        Op,
        PutOp,
        Result,
        SearchItem,
        SearchOp,
        validate_op_namespace,
    )
except ImportError as e:  # pragma: no cover - depends on the installed extras
    raise ImportError(
        "ai_brain.adapters.langgraph needs LangGraph: pip install 'ai-brain[langgraph]'"
    ) from e

from ai_brain.adapters._plans import PAGE, Page, Plan, arun, forget, memories, run
from ai_brain.client import calls
from ai_brain.client.client import AsyncBrainClient, BrainClient
from ai_brain.client.errors import ConflictError
from ai_brain.client.models import Lineage, Memory, SearchHit

PROJECT_PREFIX = "lg:"
MAX_ID = 200  # AI Brain's limit on a session, user or project id
MAX_TOP_K = 100  # AI Brain's limit on a search's topK
RETRIES = 5  # supersedes of an item that another writer keeps changing
_PLAIN = frozenset(string.ascii_letters + string.digits + "_:@/-")


def escape(text: str) -> str:
    """``text`` in the characters AI Brain allows in an id: others as ``+HH`` per byte."""
    return "".join(c if c in _PLAIN else "".join(f"+{b:02X}" for b in c.encode()) for c in text)


def unescape(text: str) -> str:
    """The text ``escape`` wrote as ``text``; ValueError when it is not such text."""
    out = bytearray()
    i = 0
    while i < len(text):
        if text[i] == "+":
            out.append(int(text[i + 1 : i + 3], 16))
            i += 3
        else:
            out += text[i].encode()
            i += 1
    return out.decode()


def project_of(namespace: tuple[str, ...]) -> str:
    """The ``projectId`` of a namespace's items."""
    return PROJECT_PREFIX + ".".join(escape(label) for label in namespace)


def namespace_of(project_id: str | None) -> tuple[str, ...] | None:
    """The namespace a ``projectId`` stands for; None when it is not one of this store's."""
    if project_id is None or not project_id.startswith(PROJECT_PREFIX):
        return None
    body = project_id[len(PROJECT_PREFIX) :]
    try:
        return tuple(unescape(label) for label in body.split(".")) if body else ()
    except ValueError:  # a malformed +HH, or bytes that are not UTF-8
        return None


def key_of(session_id: str | None) -> str | None:
    """The key a ``sessionId`` stands for; None when it is not an escaped key."""
    if session_id is None:
        return None
    try:
        return unescape(session_id)
    except ValueError:
        return None


def _id(value: str, what: str) -> str:
    """An id within AI Brain's limits, or ValueError saying which part is too long."""
    if not value:
        raise ValueError(f"AI Brain needs a non-empty {what}")
    if len(value) > MAX_ID:
        raise ValueError(
            f"the {what} takes {len(value)} characters as an AI Brain id (at most {MAX_ID})"
        )
    return value


def content_of(key: str, value: Mapping[str, Any]) -> str:
    """The memory text of an item: the key, then the value as JSON."""
    return f"{key}: {json.dumps(dict(value), ensure_ascii=False)}"


def value_of(key: str, content: str) -> dict[str, Any]:
    """The value ``content_of`` wrote (AI Brain strips leading whitespace off a content);
    any other text as ``{"content": text}``."""
    head = f"{key}:".lstrip()
    text = content[len(head) :] if content.startswith(head) else content
    try:
        value = json.loads(text)
    except ValueError:
        return {"content": content}
    return value if isinstance(value, dict) else {"content": content}


def _compare(value: Any, wanted: Any) -> bool:
    """LangGraph's filter semantics: nested dicts, lists in order, ``$`` operators."""
    if isinstance(wanted, dict):
        if any(k.startswith("$") for k in wanted):
            return all(_operator(value, op, operand) for op, operand in wanted.items())
        return isinstance(value, dict) and all(_compare(value.get(k), v) for k, v in wanted.items())
    if isinstance(wanted, list | tuple):
        return (
            isinstance(value, list | tuple)
            and len(value) == len(wanted)
            and all(_compare(a, b) for a, b in zip(value, wanted, strict=True))
        )
    return bool(value == wanted)


def _operator(value: Any, op: str, operand: Any) -> bool:
    if op == "$eq":
        return bool(value == operand)
    if op == "$ne":
        return bool(value != operand)
    if value is None:
        return False
    try:
        a, b = float(value), float(operand)
    except (TypeError, ValueError):
        return False
    if op == "$gt":
        return a > b
    if op == "$gte":
        return a >= b
    if op == "$lt":
        return a < b
    if op == "$lte":
        return a <= b
    raise ValueError(f"unsupported filter operator: {op}")


def matches(value: Mapping[str, Any], filter: dict[str, Any] | None) -> bool:
    """Whether an item's value passes a search's ``filter`` (every condition holds)."""
    return not filter or all(_compare(value.get(k), v) for k, v in filter.items())


def _fits(condition: MatchCondition, namespace: tuple[str, ...]) -> bool:
    """A namespace matched by a prefix or suffix condition (``*`` matches any label)."""
    path = condition.path
    if len(namespace) < len(path):
        return False
    labels = namespace[: len(path)] if condition.match_type == "prefix" else namespace[-len(path) :]
    return all(p == "*" or p == label for p, label in zip(path, labels, strict=True))


class AIBrainStore(BaseStore):
    """A LangGraph ``BaseStore`` whose items are memories of one AI Brain user (module
    docstring: the mapping and its limits).

    Args:
        client: the sync client, for ``get``/``put``/``search``... and graphs run with
            ``invoke``; the async methods use it in a worker thread when no ``async_client``.
        async_client: the async client, for ``aget``/``aput``/``asearch``... and ``ainvoke``.
        user_id: the AI Brain user whose memories the items are. One store per user id:
            every item of the store is listed by this id.
        memory_type: the type of the memories written (FACT; SEMANTIC, PREFERENCE ...).
        importance: the importance of the memories written (0 to 1; AI Brain's default 0.5).
    """

    supports_ttl = False

    def __init__(
        self,
        client: BrainClient | None = None,
        *,
        async_client: AsyncBrainClient | None = None,
        user_id: str = "langgraph",
        memory_type: str = "FACT",
        importance: float | None = None,
    ) -> None:
        if client is None and async_client is None:
            raise TypeError("AIBrainStore needs a BrainClient, an AsyncBrainClient or both")
        self.client = client
        self.async_client = async_client
        self.user_id = user_id
        self.memory_type = memory_type
        self.importance = importance

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run ``ops`` in order (a read sees the writes before it in the batch)."""
        if self.client is None:
            raise TypeError(
                "this AIBrainStore has only an AsyncBrainClient: use the async methods "
                "(aget, aput, asearch, ... or graph.ainvoke), or give it a BrainClient"
            )
        return [run(self._plan(op), self.client) for op in ops]

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """As ``batch``, awaited (the sync client in a worker thread without an async one)."""
        client = self.async_client or self.client
        assert client is not None
        return [await arun(self._plan(op), client) for op in ops]

    # -- one plan per operation ------------------------------------------------------------

    def _plan(self, op: Op) -> Plan[Result]:
        validate_op_namespace(op)
        if isinstance(op, GetOp):
            return self._get(op.namespace, op.key)
        if isinstance(op, PutOp):
            return self._put(op)
        if isinstance(op, SearchOp):
            return self._search(op) if op.query else self._list(op)
        if isinstance(op, ListNamespacesOp):
            return self._namespaces(op)
        raise TypeError(f"unknown store operation: {op!r}")

    def _current(self, namespace: tuple[str, ...], key: str) -> Plan[list[Memory]]:
        """The key's current memories, newest first (one, unless two writers raced)."""
        project, session = _id(project_of(namespace), "namespace"), _id(escape(key), "key")
        page: Page = yield memories(
            user_id=self.user_id, project_id=project, session_id=session, first=10
        )
        return page.memories

    def _created(self, memory: Memory) -> Plan[datetime]:
        """When the item was first put: its first version's time (a lineage read when the
        memory replaced another)."""
        if memory.supersedes_id is None:
            return memory.created_at
        lineage: Lineage = yield calls.lineage(memory.id)
        return lineage.links[0].memory.created_at if lineage.links else memory.created_at

    def _item(
        self, memory: Memory, namespace: tuple[str, ...], key: str, score: float | None = None
    ) -> Plan[SearchItem]:
        created = yield from self._created(memory)
        return SearchItem(
            namespace=namespace,
            key=key,
            value=value_of(key, memory.content),
            created_at=created,
            updated_at=memory.created_at,
            score=score,
        )

    def _get(self, namespace: tuple[str, ...], key: str) -> Plan[Result]:
        found = yield from self._current(namespace, key)
        if not found:
            return None
        item = yield from self._item(found[0], namespace, key)
        return Item(
            value=item.value,
            key=key,
            namespace=namespace,
            created_at=item.created_at,
            updated_at=item.updated_at,
        )

    def _put(self, op: PutOp) -> Plan[Result]:
        found = yield from self._current(op.namespace, op.key)
        if op.value is None:
            for memory in found:
                yield from forget(memory.id)
            return None
        content = content_of(op.key, op.value)
        if not found:
            yield from self._remember(op.namespace, op.key, content)
            return None
        newest, *older = found
        for memory in older:  # a race of two first puts: keep the newest
            yield from forget(memory.id)
        if newest.content == content.strip():
            return None  # the same value: no new version
        target: str | None = newest.id
        for _ in range(RETRIES):
            if target is None:  # forgotten meanwhile: the put makes the item anew
                yield from self._remember(op.namespace, op.key, content)
                return None
            try:
                yield calls.supersede(target, content, "LangGraph store put")
                return None
            except ConflictError as e:  # superseded meanwhile: correct the chain's end
                target = e.current_id
        raise ConflictError(
            f"the item {op.namespace}/{op.key} kept changing while it was put", "CONFLICT"
        )

    def _remember(self, namespace: tuple[str, ...], key: str, content: str) -> Plan[None]:
        yield calls.remember(
            content,
            self.memory_type,
            self.importance,
            _id(project_of(namespace), "namespace"),
            _id(escape(key), "key"),
            self.user_id,
            False,
        )

    def _own(self, memory: Memory) -> tuple[tuple[str, ...], str] | None:
        """The namespace and key of one of this store's memories; None for any other."""
        if memory.user_id != self.user_id or not memory.current:
            return None
        namespace, key = namespace_of(memory.project_id), key_of(memory.session_id)
        return None if namespace is None or key is None else (namespace, key)

    def _search(self, op: SearchOp) -> Plan[Result]:
        """A search with a query: AI Brain's ranking, the prefix and the filter here."""
        assert op.query is not None
        wanted = op.offset + op.limit
        top_k = max(1, min(MAX_TOP_K, wanted if not op.filter else MAX_TOP_K))
        prefix = op.namespace_prefix
        hits: dict[str, SearchHit] = {}
        if prefix:  # the namespace itself, filtered by the service
            exact: list[SearchHit] = yield calls.search(
                op.query, top_k, "ANSWER", self.user_id, project_of(prefix), None, None
            )
            hits.update((h.memory.id, h) for h in exact)
        # Deeper namespaces under the prefix: the store's best hits, kept by their prefix.
        everywhere: list[SearchHit] = yield calls.search(
            op.query, MAX_TOP_K, "ANSWER", self.user_id, None, None, None
        )
        for hit in everywhere:
            known = hits.get(hit.memory.id)
            if known is None or hit.score > known.score:
                hits[hit.memory.id] = hit
        kept: list[tuple[SearchHit, tuple[str, ...], str]] = []
        for hit in sorted(hits.values(), key=lambda h: h.score, reverse=True):
            owned = self._own(hit.memory)
            if owned is None or owned[0][: len(prefix)] != prefix:
                continue
            if matches(value_of(owned[1], hit.memory.content), op.filter):
                kept.append((hit, *owned))
        items: list[SearchItem] = []
        for hit, namespace, key in kept[op.offset : wanted]:
            items.append((yield from self._item(hit.memory, namespace, key, hit.score)))
        return items

    def _list(self, op: SearchOp) -> Plan[Result]:
        """A search without a query: the store's items under the prefix, newest first."""
        wanted = op.offset + op.limit
        kept: list[tuple[Memory, tuple[str, ...], str]] = []
        after: str | None = None
        while len(kept) < wanted:
            page: Page = yield memories(user_id=self.user_id, first=PAGE, after=after)
            for memory in page.memories:
                owned = self._own(memory)
                if owned is None or owned[0][: len(op.namespace_prefix)] != op.namespace_prefix:
                    continue
                if matches(value_of(owned[1], memory.content), op.filter):
                    kept.append((memory, *owned))
            if page.after is None:
                break
            after = page.after
        items: list[SearchItem] = []
        for memory, namespace, key in kept[op.offset : wanted]:
            items.append((yield from self._item(memory, namespace, key)))
        return items

    def _namespaces(self, op: ListNamespacesOp) -> Plan[Result]:
        """Every namespace holding an item (all the store's memories are read)."""
        found: set[tuple[str, ...]] = set()
        after: str | None = None
        while True:
            page: Page = yield memories(user_id=self.user_id, first=PAGE, after=after)
            for memory in page.memories:
                owned = self._own(memory)
                if owned is not None:
                    found.add(owned[0])
            if page.after is None:
                break
            after = page.after
        chosen = [ns for ns in found if all(_fits(c, ns) for c in op.match_conditions or ())]
        if op.max_depth is not None:
            chosen = list({ns[: op.max_depth] for ns in chosen})
        return sorted(chosen)[op.offset : op.offset + op.limit]
