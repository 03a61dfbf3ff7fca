"""``BrainClient`` and ``AsyncBrainClient``: the service's main operations as typed calls.

    from ai_brain.client import BrainClient

    with BrainClient("http://127.0.0.1:8000", api_key) as brain:
        brain.record_turn("s1", "ana", "Our deploy target is Fly.io")
        prompt_memory = brain.context("s1", "ana", query="where do we deploy?").text

The two clients take the same arguments and return the same models; the async one is awaited.
Failures raise the tree in ``ai_brain.client.errors``; ``ENGINE_UNAVAILABLE`` (a storage engine
restarting) is retried ``retries`` times with exponential backoff first.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from datetime import datetime
from types import TracebackType
from typing import Any, TypeVar

import httpx

from ai_brain.client import calls
from ai_brain.client.calls import Call
from ai_brain.client.errors import BrainError, DocumentJobFailed, TransportError
from ai_brain.client.models import (
    Context,
    Document,
    DocumentJob,
    EntityMerge,
    IdentityQuestion,
    Lineage,
    Memory,
    SearchHit,
    Turn,
)
from ai_brain.client.response import read, retryable

T = TypeVar("T")


def endpoint(url: str) -> str:
    """The GraphQL endpoint of a service given by its base URL or the endpoint itself."""
    base = url.rstrip("/")
    return base if base.endswith("/graphql") else base + "/graphql"


class _Base:
    def __init__(self, url: str, api_key: str, retries: int, backoff: float) -> None:
        self.url = endpoint(url)
        self.retries = retries
        self.backoff = backoff
        self._headers = {"Authorization": f"Bearer {api_key}"}

    def _payload(self, call: Call[Any]) -> dict[str, Any]:
        return {"query": call.document, "variables": call.variables}

    def _delay(self, attempt: int) -> float:
        return float(self.backoff * 2**attempt)


def _transport_error(e: httpx.HTTPError) -> TransportError:
    return TransportError(f"{type(e).__name__}: {e}", "TRANSPORT_ERROR")


class BrainClient(_Base):
    """A synchronous client of a running ``brain serve``; the tenant is the key's.

    Args:
        url: the service (``http://host:port``) or its ``/graphql`` endpoint.
        api_key: a key from ``brain keys create``.
        timeout: seconds per request.
        retries: how often to resend a call that met ``ENGINE_UNAVAILABLE``.
        backoff: seconds before the first resend; doubled each time.
        transport: an httpx transport to send through instead of the network (tests, proxies).
    """

    def __init__(
        self,
        url: str,
        api_key: str,
        *,
        timeout: float = 60.0,
        retries: int = 3,
        backoff: float = 0.5,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        super().__init__(url, api_key, retries, backoff)
        self._http = httpx.Client(timeout=timeout, headers=self._headers, transport=transport)

    def __enter__(self) -> BrainClient:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def execute(self, call: Call[T]) -> T:
        """Run one prepared call (a builder of ``ai_brain.client.calls``, or one made the same
        way): its typed result, or its typed error; ``ENGINE_UNAVAILABLE`` is retried."""
        for attempt in range(self.retries + 1):
            try:
                response = self._http.post(self.url, json=self._payload(call))
            except httpx.HTTPError as e:
                raise _transport_error(e) from e
            try:
                return read(call, response)
            except BrainError as e:
                if not retryable(e) or attempt == self.retries:
                    raise
            time.sleep(self._delay(attempt))
        raise AssertionError("unreachable")

    def record_turn(
        self,
        session_id: str,
        user_id: str,
        content: str,
        *,
        role: str = "USER",
        project_id: str | None = None,
        speaker: str | None = None,
        at: datetime | None = None,
    ) -> Turn:
        """Store one conversation turn (``recordTurn``); its memories are retrievable at once.

        ``role`` is USER, ASSISTANT or TOOL."""
        return self.execute(
            calls.record_turn(session_id, user_id, content, role, project_id, speaker, at)
        )

    def context(
        self,
        session_id: str,
        user_id: str,
        *,
        query: str | None = None,
        project_id: str | None = None,
        token_budget: int | None = None,
        mode: str = "ANSWER",
    ) -> Context:
        """The memory to put in the prompt before a model call (``assembleContext``)."""
        return self.execute(
            calls.context(session_id, user_id, query, project_id, token_budget, mode)
        )

    def search(
        self,
        query: str,
        *,
        top_k: int = 10,
        mode: str = "ANSWER",
        user_id: str | None = None,
        project_id: str | None = None,
        session_id: str | None = None,
        types: list[str] | None = None,
    ) -> list[SearchHit]:
        """Memories ranked for ``query``, best first."""
        return self.execute(
            calls.search(query, top_k, mode, user_id, project_id, session_id, types)
        )

    def remember(
        self,
        content: str,
        *,
        type: str = "FACT",
        importance: float | None = None,
        project_id: str | None = None,
        session_id: str | None = None,
        user_id: str | None = None,
        pinned: bool = False,
    ) -> Memory:
        """Store one memory explicitly."""
        return self.execute(
            calls.remember(content, type, importance, project_id, session_id, user_id, pinned)
        )

    def supersede(self, memory_id: str, content: str, *, reason: str | None = None) -> Memory:
        """Replace a memory by a corrected one (the chain is kept; see ``lineage``)."""
        return self.execute(calls.supersede(memory_id, content, reason))

    def forget(self, memory_id: str) -> Memory:
        """Soft-delete a memory: it no longer comes back in search or context."""
        return self.execute(calls.forget(memory_id))

    def lineage(self, memory_id: str) -> Lineage:
        """A memory's supersede chain, oldest first."""
        return self.execute(calls.lineage(memory_id))

    def core(self, user_id: str | None = None) -> list[Memory]:
        """Core memory, injected into every context: the tenant's shared items (the business,
        its projects, what was pinned) and, with ``user_id``, that user's own (name, role,
        standing rules), whether pinned or learned from conversation."""
        return self.execute(calls.core(user_id))

    def ingest_document(
        self,
        source_path: str,
        text: str,
        *,
        project_id: str | None = None,
        wait: float = 600.0,
        on_progress: Callable[[DocumentJob], None] | None = None,
    ) -> Document:
        """Store a document (a new version of ``source_path`` supersedes the old one's chunks).
        A large one is ingested by a background job: this waits for it up to ``wait`` seconds,
        calling ``on_progress`` with the job each time it is read.

        Raises:
            DocumentJobFailed: the job failed (its error says why; send the document again).
            TimeoutError: the job was still running after ``wait`` seconds (it goes on).
        """
        found = self.execute(calls.ingest_document(source_path, text, project_id))
        deadline = time.monotonic() + wait
        while isinstance(found, DocumentJob):
            if (done := _finished(found, deadline, on_progress)) is not None:
                return done
            time.sleep(POLL)
            found = self.execute(calls.document_job(found.id))
        return found

    def identity_questions(self, first: int = 20) -> list[IdentityQuestion]:
        """Open identity questions: a provisional entity and the known ones it may be."""
        return self.execute(calls.identity_questions(first))

    def confirm_same(
        self, entity_id: str, other_id: str, *, reason: str | None = None
    ) -> EntityMerge:
        """Answer "the same": an undoable merge (a provisional entity into the known one)."""
        return self.execute(calls.confirm_same(entity_id, other_id, reason))

    def confirm_distinct(self, entity_id: str, other_id: str, *, reason: str | None = None) -> None:
        """Answer "different": recorded, and never asked again."""
        self.execute(calls.confirm_distinct(entity_id, other_id, reason))


class AsyncBrainClient(_Base):
    """The asynchronous ``BrainClient``: the same arguments, awaited calls."""

    def __init__(
        self,
        url: str,
        api_key: str,
        *,
        timeout: float = 60.0,
        retries: int = 3,
        backoff: float = 0.5,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        super().__init__(url, api_key, retries, backoff)
        self._http = httpx.AsyncClient(timeout=timeout, headers=self._headers, transport=transport)

    async def __aenter__(self) -> AsyncBrainClient:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    async def execute(self, call: Call[T]) -> T:
        """See ``BrainClient.execute``."""
        for attempt in range(self.retries + 1):
            try:
                response = await self._http.post(self.url, json=self._payload(call))
            except httpx.HTTPError as e:
                raise _transport_error(e) from e
            try:
                return read(call, response)
            except BrainError as e:
                if not retryable(e) or attempt == self.retries:
                    raise
            await asyncio.sleep(self._delay(attempt))
        raise AssertionError("unreachable")

    async def record_turn(
        self,
        session_id: str,
        user_id: str,
        content: str,
        *,
        role: str = "USER",
        project_id: str | None = None,
        speaker: str | None = None,
        at: datetime | None = None,
    ) -> Turn:
        """See ``BrainClient.record_turn``."""
        return await self.execute(
            calls.record_turn(session_id, user_id, content, role, project_id, speaker, at)
        )

    async def context(
        self,
        session_id: str,
        user_id: str,
        *,
        query: str | None = None,
        project_id: str | None = None,
        token_budget: int | None = None,
        mode: str = "ANSWER",
    ) -> Context:
        """See ``BrainClient.context``."""
        return await self.execute(
            calls.context(session_id, user_id, query, project_id, token_budget, mode)
        )

    async def search(
        self,
        query: str,
        *,
        top_k: int = 10,
        mode: str = "ANSWER",
        user_id: str | None = None,
        project_id: str | None = None,
        session_id: str | None = None,
        types: list[str] | None = None,
    ) -> list[SearchHit]:
        """See ``BrainClient.search``."""
        return await self.execute(
            calls.search(query, top_k, mode, user_id, project_id, session_id, types)
        )

    async def remember(
        self,
        content: str,
        *,
        type: str = "FACT",
        importance: float | None = None,
        project_id: str | None = None,
        session_id: str | None = None,
        user_id: str | None = None,
        pinned: bool = False,
    ) -> Memory:
        """See ``BrainClient.remember``."""
        return await self.execute(
            calls.remember(content, type, importance, project_id, session_id, user_id, pinned)
        )

    async def supersede(self, memory_id: str, content: str, *, reason: str | None = None) -> Memory:
        """See ``BrainClient.supersede``."""
        return await self.execute(calls.supersede(memory_id, content, reason))

    async def forget(self, memory_id: str) -> Memory:
        """See ``BrainClient.forget``."""
        return await self.execute(calls.forget(memory_id))

    async def lineage(self, memory_id: str) -> Lineage:
        """See ``BrainClient.lineage``."""
        return await self.execute(calls.lineage(memory_id))

    async def core(self, user_id: str | None = None) -> list[Memory]:
        """See ``BrainClient.core``."""
        return await self.execute(calls.core(user_id))

    async def ingest_document(
        self,
        source_path: str,
        text: str,
        *,
        project_id: str | None = None,
        wait: float = 600.0,
        on_progress: Callable[[DocumentJob], None] | None = None,
    ) -> Document:
        """As ``BrainClient.ingest_document``."""
        found = await self.execute(calls.ingest_document(source_path, text, project_id))
        deadline = time.monotonic() + wait
        while isinstance(found, DocumentJob):
            if (done := _finished(found, deadline, on_progress)) is not None:
                return done
            await asyncio.sleep(POLL)
            found = await self.execute(calls.document_job(found.id))
        return found

    async def identity_questions(self, first: int = 20) -> list[IdentityQuestion]:
        """As ``BrainClient.identity_questions``."""
        return await self.execute(calls.identity_questions(first))

    async def confirm_same(
        self, entity_id: str, other_id: str, *, reason: str | None = None
    ) -> EntityMerge:
        """As ``BrainClient.confirm_same``."""
        return await self.execute(calls.confirm_same(entity_id, other_id, reason))

    async def confirm_distinct(
        self, entity_id: str, other_id: str, *, reason: str | None = None
    ) -> None:
        """As ``BrainClient.confirm_distinct``."""
        await self.execute(calls.confirm_distinct(entity_id, other_id, reason))


POLL = 0.5  # seconds between reads of a document job


def _finished(
    job: DocumentJob, deadline: float, on_progress: Callable[[DocumentJob], None] | None
) -> Document | None:
    """The stored document of a job that is done; None while it runs (``on_progress`` told),
    until ``deadline`` (``time.monotonic``)."""
    if on_progress is not None:
        on_progress(job)
    if job.status == "FAILED":
        raise DocumentJobFailed(job.error or "the document job failed", job.id)
    if job.status == "DONE" and job.result is not None:
        return job.result
    if time.monotonic() > deadline:
        raise TimeoutError(f"document job {job.id} still {job.status} at its deadline")
    return None
