"""Resolution for the read side: what a search's or a context's text refers to, without
creating anything or advancing the session (``retrieval/reads.py`` asks through its
``ReferenceReader`` interface, so retrieval does not depend on resolution)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Sequence

from core.resolution_types import References, TrackedEntity
from resolution.resolver import Resolver
from resolution.tracker import load_state
from resolution.types import Resolution, TrackerState


class ReadResolver:
    """The resolver's light, read-only pass for reads (a ``retrieval.reads.ReferenceReader``)."""

    def __init__(self, resolver: Resolver) -> None:
        self.resolver = resolver

    async def references(
        self,
        tenant_id: str,
        text: str | None,
        session_id: str | None,
        tracker: Awaitable[str | None] | None,
    ) -> References:
        """The text's references and, in a session, the session's tracked entities.

        ``tracker`` is the session's stored tracker (JSON) as the caller reads it with the
        session: parsing the text does not wait for it.
        """
        if session_id is None or tracker is None:
            if text is None:
                return References()
            resolved = await self.resolver.resolve(
                tenant_id, text, update_session=False, light=True
            )
            return _references(resolved, ())
        stored = tracker

        async def state() -> TrackerState:
            return load_state(await stored)

        resolved_in, tracked = await self.resolver.peek(
            tenant_id, text, session_id, asyncio.ensure_future(state()), light=True
        )
        return _references(resolved_in, tracked)


def _references(resolved: Resolution | None, tracked: Sequence[TrackedEntity]) -> References:
    if resolved is None:
        return References(tracked=tuple(tracked))
    asked = resolved.clarification.candidates if resolved.clarification else ()
    return References(
        entity_ids=tuple(resolved.entity_ids),
        entities={r.entity.id: r.entity for r in resolved.resolved if r.entity},
        clarification=resolved.clarification,
        windows=tuple((t.start, t.end) for t in resolved.parsed.times),
        excluded=tuple(dict.fromkeys((*resolved.namesakes, *(c.id for c in asked)))),
        described=resolved.described,
        tracked=tuple(tracked),
    )
