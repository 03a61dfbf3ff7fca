"""A read's orchestration: what its text refers to, the session's recent turns and tracked
entities, confirmed tasks and named time windows, then the search or the context assembly.

``brain.reads`` is these two reads. Resolution is reached
through the small ``ReferenceReader`` interface (``resolution/reads.py`` implements it), so
the read side depends on resolution's output types only, not on how it resolves.

Example::

    reads = Reads(graph, ReadResolver(resolver), retriever, assembler, settings.retrieval)
    response = await reads.search("acme", SearchQuery(query="What did Peter say?"))
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from dataclasses import dataclass, field, replace
from typing import Protocol

from core.clock import now
from core.resolution_types import Clarification, References, TrackedEntity
from core.retrieval_types import (
    AssembledContext,
    ContextRequest,
    SearchMode,
    SearchQuery,
    SearchResponse,
)
from core.settings import RetrievalSettings
from core.types import Entity, Memory
from core.validation import check_scope_id
from graph.retrieval_ops import SessionView
from graph.store import GraphStore
from retrieval.assembly import ContextAssembler
from retrieval.retriever import Retriever


class ReferenceReader(Protocol):
    """What a read's text refers to, read-only (nothing created, the session not advanced)."""

    async def references(
        self,
        tenant_id: str,
        text: str | None,
        session_id: str | None,
        tracker: Awaitable[str | None] | None,
    ) -> References:
        """``tracker``: the session's stored entity tracker, being read with the session."""


@dataclass
class ReadContext:
    """What a read needs besides its query (see ``Reads.context``)."""

    entity_ids: list[str] = field(default_factory=list)
    entities: dict[str, Entity] = field(default_factory=dict)  # those read while resolving
    turns: tuple[Memory, ...] = ()
    tracked: tuple[TrackedEntity, ...] = ()
    clarification: Clarification | None = None
    task_ids: tuple[str, ...] = ()
    windows: tuple[tuple[float, float], ...] = ()
    exclude: tuple[str, ...] = ()  # people the names did not mean (``SearchQuery``)
    described: tuple[str, ...] = ()  # the resolved entities by their key facts


class Reads:
    """Search and context assembly as the API runs them. One per service.

    Args:
        graph: sessions and confirmed tasks are read here.
        references: resolution's read-only pass over the query text.
        retriever, assembler: the search and the context layers.
        settings: ``salient_entity_min`` (which tracked entities feed the entity path).
    """

    def __init__(
        self,
        graph: GraphStore,
        references: ReferenceReader,
        retriever: Retriever,
        assembler: ContextAssembler,
        settings: RetrievalSettings,
    ) -> None:
        self.graph = graph
        self.references = references
        self.retriever = retriever
        self.assembler = assembler
        self.settings = settings

    async def search(self, tenant_id: str, query: SearchQuery) -> SearchResponse:
        """Multi-path search. The query's references are resolved (without creating anything
        or advancing the session) to feed the entity path and its time expressions; a session
        adds its working memory and tracked entities; confirmed tasks feed the task bonus."""
        read = await self.context(tenant_id, query.query, query.session_id)
        return await self.retriever.search(
            tenant_id,
            replace(
                query,
                entity_ids=tuple(dict.fromkeys([*query.entity_ids, *read.entity_ids])),
                recent_turns=query.recent_turns or read.turns,
                active_task_ids=query.active_task_ids or read.task_ids,
                time_windows=query.time_windows or read.windows,
                exclude_entity_ids=read.exclude,
            ),
            read.entities,
        )

    async def assemble_context(
        self,
        tenant_id: str,
        session_id: str,
        user_id: str | None = None,
        project_id: str | None = None,
        query: str | None = None,
        token_budget: int | None = None,
        mode: SearchMode = SearchMode.ANSWER,
    ) -> AssembledContext:
        """The five token-budgeted layers for the next model call of ``session_id``: the
        caller chooses the session, user, project, query, budget and mode; the read fills in
        the entities, the session's turns and tracker."""
        request = ContextRequest(
            session_id=session_id,
            user_id=user_id,
            project_id=project_id,
            query=query,
            token_budget=token_budget,
            mode=mode,
        )
        read = await self.context(tenant_id, request.query, request.session_id)
        return await self.assembler.assemble(
            tenant_id,
            replace(
                request,
                entity_ids=tuple(read.entity_ids),
                exclude_entity_ids=read.exclude,
                described=read.described,
                recent_turns=read.turns,
                tracked=read.tracked,
                clarification=read.clarification,
            ),
            read.entities,
        )

    async def context(
        self, tenant_id: str, text: str | None, session_id: str | None
    ) -> ReadContext:
        """What the read side needs besides the query: resolved and tracked entities, the
        session's recent turns, active tasks, and time windows named in the text. The session
        (window, turns, tracker: one read), the confirmed tasks and the parse run
        concurrently.

        Raises:
            InvalidInput: a malformed session id.
        """
        tenant = self.graph.tenant(tenant_id)
        query = text if text and text.strip() else None
        view: asyncio.Future[SessionView] | None = None
        tracker: Awaitable[str | None] | None = None
        if session_id is not None:
            check_scope_id(session_id, "sessionId")
            view = asyncio.ensure_future(tenant.session_view(session_id))
            tracker = _tracker(view)

        async def turns() -> tuple[Memory, ...]:
            return (await view).window(now()) if view is not None else ()

        refs, recent, task_ids = await asyncio.gather(
            self.references.references(tenant_id, query, session_id, tracker),
            turns(),
            tenant.confirmed_task_ids(50),
        )
        return read_context(refs, recent, tuple(task_ids), self.settings.salient_entity_min)


def read_context(
    refs: References,
    turns: tuple[Memory, ...],
    task_ids: tuple[str, ...],
    salient_min: float,
) -> ReadContext:
    """The text's entities, then the session's tracked ones at least ``salient_min`` salient
    that it did not exclude; the exclusions minus any entity the read keeps."""
    out = ReadContext(
        entity_ids=list(refs.entity_ids),
        entities=dict(refs.entities),
        turns=turns,
        tracked=refs.tracked,
        clarification=refs.clarification,
        task_ids=task_ids,
        windows=refs.windows,
        exclude=refs.excluded,
        described=refs.described,
    )
    for t in refs.tracked:
        out.entities.setdefault(t.entity.id, t.entity)
        # A salient namesake (the session's other Sarah) is not who the query names.
        fresh = t.entity.id not in out.entity_ids and t.entity.id not in out.exclude
        if t.salience >= salient_min and fresh:
            out.entity_ids.append(t.entity.id)
    out.exclude = tuple(i for i in out.exclude if i not in out.entity_ids)
    return out


async def _tracker(view: Awaitable[SessionView]) -> str | None:
    return (await view).tracker
