"""The read side's context for a query: who its names are, the session's recent turns and
tracked entities, confirmed tasks and named time windows (``Brain.search`` and
``Brain.assemble_context`` both start here)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from core.clock import now
from core.resolution_types import Clarification, TrackedEntity
from core.types import Entity, Memory
from graph.retrieval_ops import SessionView
from graph.store import GraphStore
from ingest.sessions import check_session_id
from resolution.resolver import Resolver
from resolution.tracker import load_state
from resolution.types import Resolution, TrackerState

# Tracked entities at least this salient feed the entity path of a session's reads.
SALIENT = 0.3


@dataclass
class Enriched:
    """What a read needs besides its query (see ``enrich``)."""

    entity_ids: list[str] = field(default_factory=list)
    entities: dict[str, Entity] = field(default_factory=dict)  # those read while resolving
    turns: tuple[Memory, ...] = ()
    tracked: tuple[TrackedEntity, ...] = ()
    clarification: Clarification | None = None
    task_ids: tuple[str, ...] = ()
    windows: tuple[tuple[float, float], ...] = ()
    exclude: tuple[str, ...] = ()  # people the names did not mean (``SearchQuery``)
    described: tuple[str, ...] = ()  # the resolved entities by their key facts


# Tracked entities at least this salient feed the entity path of a session's reads.
SALIENT = 0.3


async def enrich(
    graph: GraphStore,
    resolver: Resolver,
    tenant_id: str,
    text: str | None,
    session_id: str | None,
) -> Enriched:
    """What the read side needs besides the query: resolved and tracked entities, the
    session's recent turns, active tasks, and time windows named in the text. The session
    (window, turns, tracker: one read), the confirmed tasks and the parse run
    concurrently."""
    tenant = graph.tenant(tenant_id)
    query = text if text and text.strip() else None
    view: asyncio.Future[SessionView] | None = None
    state: asyncio.Future[TrackerState] | None = None
    if session_id is not None:
        check_session_id(session_id)
        view = asyncio.ensure_future(tenant.session_view(session_id))

        async def stored() -> TrackerState:
            assert view is not None
            return load_state((await view).tracker)

        state = asyncio.ensure_future(stored())

    async def resolution() -> tuple[Resolution | None, list[TrackedEntity]]:
        if state is None:
            if query is None:
                return None, []
            return (
                await resolver.resolve(tenant_id, query, update_session=False, light=True),
                [],
            )
        assert session_id is not None
        return await resolver.peek(tenant_id, query, session_id, state, light=True)

    async def turns() -> tuple[Memory, ...]:
        return (await view).window(now()) if view is not None else ()

    (resolved, salient), recent, task_ids = await asyncio.gather(
        resolution(), turns(), tenant.confirmed_task_ids(50)
    )
    out = Enriched(turns=recent, tracked=tuple(salient), task_ids=tuple(task_ids))
    if resolved is not None:
        out.entity_ids.extend(resolved.entity_ids)
        out.entities.update({r.entity.id: r.entity for r in resolved.resolved if r.entity})
        out.clarification = resolved.clarification
        out.windows = tuple((t.start, t.end) for t in resolved.parsed.times)
        out.described = resolved.described
        asked = resolved.clarification.candidates if resolved.clarification else ()
        out.exclude = tuple(dict.fromkeys(i for i in (*resolved.namesakes, *(c.id for c in asked))))
    for t in salient:
        out.entities.setdefault(t.entity.id, t.entity)
        # A salient namesake (the session's other Sarah) is not who the query names.
        fresh = t.entity.id not in out.entity_ids and t.entity.id not in out.exclude
        if t.salience >= SALIENT and fresh:
            out.entity_ids.append(t.entity.id)
    out.exclude = tuple(i for i in out.exclude if i not in out.entity_ids)
    return out
