"""What the adapters share: each adapter operation is written once, as a *plan* (a generator
that yields the client's calls and receives their results), and run by the sync client or
the async one; only the waiting differs, as in ``ai_brain.client.calls``.

    def plan() -> Plan[int]:
        hits = yield calls.search("deploy", 10, "ANSWER", None, None, None, None)
        return len(hits)

    run(plan(), BrainClient(...))           # or: await arun(plan(), AsyncBrainClient(...))

A call that fails is thrown into the plan at its ``yield``, so a plan catches the client's
typed errors (``ConflictError`` ...) where it made the call.

Also here: ``memories``, the paged listing of the GraphQL API's ``memories`` query with each
memory's source, which the adapters need and the client's own calls do not return.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Generator
from dataclasses import dataclass
from typing import Any, TypeVar, cast

from ai_brain.client import calls
from ai_brain.client import documents as doc
from ai_brain.client.calls import Call
from ai_brain.client.client import AsyncBrainClient, BrainClient
from ai_brain.client.errors import BrainError, NotFoundError
from ai_brain.client.models import Memory

T = TypeVar("T")

Plan = Generator[Call[Any], Any, T]

PAGE = 100  # memories per listing request: the service's default max_page_size


def run(plan: Plan[T], client: BrainClient) -> T:
    """Run ``plan``'s calls one after the other with the sync client; the plan's result."""
    try:
        call = next(plan)
        while True:
            try:
                result = client.execute(call)
            except BrainError as e:
                call = plan.throw(e)
            else:
                call = plan.send(result)
    except StopIteration as stop:
        return cast(T, stop.value)


async def arun(plan: Plan[T], client: BrainClient | AsyncBrainClient) -> T:
    """Run ``plan`` with the async client, or with the sync one in a worker thread (so a sync
    client serves async callers too, on any event loop)."""
    if isinstance(client, BrainClient):
        return await asyncio.to_thread(run, plan, client)
    try:
        call = next(plan)
        while True:
            try:
                result = await client.execute(call)
            except BrainError as e:
                call = plan.throw(e)
            else:
                call = plan.send(result)
    except StopIteration as stop:
        return cast(T, stop.value)


MEMORIES = f"""
query Memories($filter: MemoryFilter, $first: Int!, $after: String) {{
  memories(filter: $filter, first: $first, after: $after) {{
    __typename
    ... on MemoryConnection {{
      edges {{ node {{ ...MemoryFields source }} }}
      pageInfo {{ hasNextPage endCursor }}
    }}
    {doc.ERRORS}
  }}
}}
{doc.MEMORY}"""


@dataclass(frozen=True)
class Page:
    """One page of a memory listing, newest first."""

    memories: list[Memory]
    sources: dict[str, str | None]  # memory id -> its source ("turn:user", "api", ...)
    after: str | None  # the cursor of the next page; None: this was the last


def _page(result: dict[str, Any]) -> Page:
    nodes = [edge["node"] for edge in result["edges"]]
    info = result["pageInfo"]
    return Page(
        memories=[Memory.model_validate(n) for n in nodes],
        sources={n["id"]: n.get("source") for n in nodes},
        after=info["endCursor"] if info["hasNextPage"] else None,
    )


def memories(
    *,
    user_id: str | None = None,
    project_id: str | None = None,
    session_id: str | None = None,
    types: list[str] | None = None,
    first: int = PAGE,
    after: str | None = None,
) -> Call[Page]:
    """A page of current, live memories with these exact scope values (``memories``)."""
    given = {
        "userId": user_id,
        "projectId": project_id,
        "sessionId": session_id,
        "types": [t.upper() for t in types] if types is not None else None,
    }
    variables: dict[str, Any] = {
        "filter": {k: v for k, v in given.items() if v is not None},
        "first": first,
    }
    if after is not None:
        variables["after"] = after
    return Call(MEMORIES, "memories", "MemoryConnection", variables, _page)


def every_memory(
    *,
    user_id: str | None = None,
    project_id: str | None = None,
    session_id: str | None = None,
    types: list[str] | None = None,
) -> Plan[Page]:
    """Every page of a listing, as one page (newest first; its ``after`` is None)."""
    found: list[Memory] = []
    sources: dict[str, str | None] = {}
    after: str | None = None
    while True:
        page: Page = yield memories(
            user_id=user_id, project_id=project_id, session_id=session_id, types=types, after=after
        )
        found.extend(page.memories)
        sources.update(page.sources)
        if page.after is None:
            return Page(found, sources, None)
        after = page.after


def forget(memory_id: str) -> Plan[None]:
    """Forget a memory; one forgotten or erased meanwhile is no error."""
    with contextlib.suppress(NotFoundError):
        yield calls.forget(memory_id)
