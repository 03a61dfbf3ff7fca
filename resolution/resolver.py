"""The resolve step: from parsed mentions to the tenant's entities.

For each name: exact alias match first (normalized case, accents, punctuation, acronyms),
plus, for a bare first name, the entities whose names start with it, and near-miss
spellings when nothing else matched. Candidates of the mention's type win when any agrees.
A single candidate is the answer; several are separated purely by context
(``disambiguate.py``); when context cannot separate them the result carries a
``Clarification`` ("Which Peter?"). Inside a session, a clarification is avoided only
when exactly one candidate is already in the conversation's focus (the tracker): that is
context too, never frequency or recency. Pronouns resolve through the session's entity
tracker. ``create_missing`` (the write path) creates confident new names and records
declared aliases and relations (``linking.py``).

    resolver = Resolver(store, embedder, settings.resolution)
    result = await resolver.resolve("acme", "Check if Peter's content passes as human")
    result.clarification or result.entity_ids
"""

from __future__ import annotations

import asyncio
import importlib.util
from collections import OrderedDict
from collections.abc import Awaitable, Sequence

from core.clock import now
from core.errors import BackendError, InvalidInput
from core.locks import StripedLocks
from core.resolution_types import Clarification, NewIdentity, TrackedEntity
from core.settings import LimitSettings, ResolutionSettings
from core.text import normalize_name
from core.types import Entity, EntityType
from graph.store import GraphStore
from resolution.disambiguate import Disambiguator, Scored
from resolution.entity_cache import CacheRenewal, EntityCache
from resolution.gazetteer import Gazetteer, GazetteerCache, KnownName
from resolution.linking import link_new
from resolution.parse import PRONOUNS, Parser
from resolution.profiles import ProfileBuilder
from resolution.reading import describe_turn, namesakes, settle_by_cues
from resolution.tracker import FOCUSED, EntityTracker, dump_state, load_state
from resolution.turn import PENDING, Turn
from resolution.types import (
    Mention,
    NameEvidence,
    Resolution,
    ResolvedMention,
    TrackerState,
    type_filter,
)
from vectors.embedding.embedder import Embedder

_CREATION_STRIPES = 64  # entity-creation locks, shared by tenants that hash alike

MAX_SESSION_ID = 200
# Speaker names that are a role, not a person ("user", "assistant").
GENERIC_SPEAKERS = frozenset(
    {"user", "assistant", "system", "tool", "bot", "me", "ai", "human", "agent", "customer"}
)


def check_coref_backend(settings: ResolutionSettings) -> None:
    """Refuse at start a configured coreference backend that cannot run here."""
    if settings.coref == "fastcoref" and importlib.util.find_spec("fastcoref") is None:
        raise BackendError(
            "resolution.coref is 'fastcoref' but the fastcoref package is not installed; "
            "install it with its model or set resolution.coref = 'rules'"
        )


class Resolver:
    """Implements ``resolution.types.EntityResolver`` over a graph store and an embedder."""

    def __init__(
        self,
        graph: GraphStore,
        embedder: Embedder,
        settings: ResolutionSettings,
        parser: Parser | None = None,
        max_text_chars: int = LimitSettings().max_content_chars,
    ) -> None:
        check_coref_backend(settings)
        self.settings = settings
        self.graph = graph
        self.embedder = embedder
        self.parser = parser or Parser(settings, max_text_chars)
        self.disambiguator = Disambiguator(embedder, settings)
        self.tracker = EntityTracker(settings)
        self.names = GazetteerCache(graph, settings.max_cached_tenants, settings.gazetteer_ttl)
        self.entities = EntityCache(settings.entity_cache_ttl, settings.max_cached_tenants)
        self.profiles = ProfileBuilder(graph, embedder, settings, self.entities)
        self._session_locks: OrderedDict[tuple[str, str], asyncio.Lock] = OrderedDict()
        self._creation_locks = StripedLocks(_CREATION_STRIPES)
        self.renewal = CacheRenewal(graph, self.entities)

    async def load(self) -> None:
        """Load the spaCy model now rather than on the first call."""
        await self.parser.load()

    async def refresh_profiles(self, tenant_id: str, entity_ids: Sequence[str]) -> list[Entity]:
        """Rebuild these entities' profiles and embed their facets for disambiguation: the
        queued profile job, so a turn that later has to choose among them finds the facet
        vectors ready instead of embedding a candidate set on its request path."""
        entities = await self.profiles.refresh(tenant_id, entity_ids)
        await self.disambiguator.warm(entities)
        return entities

    async def resolve(
        self,
        tenant_id: str,
        text: str,
        session_id: str | None = None,
        at: float | None = None,
        create_missing: bool = False,
        update_session: bool = True,
        tracker: Awaitable[TrackerState] | None = None,
        profiles_later: bool = False,
        source_memory_id: str | None = None,
        light: bool = False,
        document: NameEvidence | None = None,
    ) -> Resolution:
        """Parse ``text`` and resolve its references (see ``EntityResolver.resolve``).

        ``update_session=False`` reads the session's tracker (for pronouns) without storing
        the state it moves to (``Resolution.state``): a diagnostic or a context request that
        must not count as a turn, or a caller that stores it in its own transaction.
        ``tracker`` is the stored tracker when the caller reads the session anyway; it is
        awaited while the text is parsed. ``profiles_later``: the profiles of entities this
        call creates or changes are left to the caller's queued refresh instead of being
        rebuilt before returning (a candidate without a profile is still profiled on demand
        when context has to choose). ``source_memory_id``: the id the caller gives the memory
        of this text; relations the text states record it (erasing that memory erases them),
        and the identity decisions about its names come back in ``Resolution.decisions``, the
        people it introduces (a known name that is someone new, or maybe) in
        ``Resolution.created``, for the caller to store with that memory, in its transaction,
        and to announce with ``introduced`` once committed: the turn's path makes no extra
        transaction for them, and a failed turn leaves no entity behind.
        ``light``: a search query's parse, without the statistical NER (``Parser.parse``).

        Raises:
            InvalidInput: empty tenant, non-string text, text too long, bad session id.
        """
        if not isinstance(tenant_id, str) or not tenant_id:
            raise InvalidInput("a tenant id is required", field="tenantId")
        _check_session(session_id)
        when = now() if at is None else float(at)
        nlp = await self.parser.load()
        gazetteer = await self.names.get(tenant_id, nlp)
        if session_id is None:
            parsed = await self.parser.parse(text, when, gazetteer, light)
            turn = Turn(tenant_id, parsed, when, gazetteer, None, profiles_later=profiles_later)
            turn.source_memory_id, turn.document = source_memory_id, document
            return await self._resolve_turn(turn, create_missing)
        stored = tracker if tracker is not None else self._stored_state(tenant_id, session_id)
        if not update_session:
            turn = await self._session_turn(tenant_id, text, when, gazetteer, stored, light)
            turn.profiles_later, turn.source_memory_id = profiles_later, source_memory_id
            return await self._resolve_turn(turn, create_missing)
        async with self._session_lock(tenant_id, session_id):
            turn = await self._session_turn(tenant_id, text, when, gazetteer, stored, light)
            turn.profiles_later, turn.source_memory_id = profiles_later, source_memory_id
            result = await self._resolve_turn(turn, create_missing)
            assert result.state is not None
            await self.graph.tenant(tenant_id).save_session_tracker(
                session_id, dump_state(result.state), result.state.turn
            )
            return result

    async def peek(
        self,
        tenant_id: str,
        text: str | None,
        session_id: str,
        tracker: Awaitable[TrackerState],
        at: float | None = None,
        light: bool = False,
    ) -> tuple[Resolution | None, list[TrackedEntity]]:
        """A read inside a session, for a context request: what ``resolve`` makes of ``text``
        without creating anything or advancing the session (None without a text), and the
        session's tracked entities as stored (``tracked``), from one entity read.

        ``tracker`` is the session's stored tracker state (the caller reads the session);
        ``light`` as for ``resolve``.
        """
        if not isinstance(tenant_id, str) or not tenant_id:
            raise InvalidInput("a tenant id is required", field="tenantId")
        _check_session(session_id)
        if text is None:
            return None, await self.tracked_in(tenant_id, await tracker)
        when = now() if at is None else float(at)
        gazetteer = await self.names.get(tenant_id, await self.parser.load())
        turn = await self._session_turn(tenant_id, text, when, gazetteer, tracker, light)
        result = await self._resolve_turn(turn, False)
        return result, turn.before

    async def tracked(self, tenant_id: str, session_id: str) -> list[TrackedEntity]:
        """The session's entities by salience, highest first (empty for an unknown session)."""
        _check_session(session_id)
        return await self.tracked_in(tenant_id, await self._stored_state(tenant_id, session_id))

    async def tracked_in(self, tenant_id: str, state: TrackerState) -> list[TrackedEntity]:
        """The entities of a tracker state by salience, highest first (one light read)."""
        found = await self.graph.tenant(tenant_id).resolution_entities(list(state.salience))
        return _ranked(state, found)

    async def _stored_state(self, tenant_id: str, session_id: str) -> TrackerState:
        stored = await self.graph.tenant(tenant_id).session_tracker(session_id)
        return load_state(stored[0] if stored else None)

    async def _session_turn(
        self,
        tenant_id: str,
        text: str,
        when: float,
        gazetteer: Gazetteer,
        stored: Awaitable[TrackerState],
        light: bool = False,
    ) -> Turn:
        """The turn's working data: the text is parsed while the stored tracker is read."""
        parse = asyncio.ensure_future(self.parser.parse(text, when, gazetteer, light))
        try:
            state = await stored
        except BaseException:
            parse.cancel()
            raise
        return Turn(tenant_id, await parse, when, gazetteer, state)

    async def _resolve_turn(self, turn: Turn, create_missing: bool) -> Resolution:
        names = [(i, m) for i, m in enumerate(turn.parsed.mentions) if m.source != "pronoun"]
        pools = self._pools(turn.gazetteer, names, set(turn.parsed.by_place))
        # One read for every entity this turn may need: the candidates (with the profile
        # embeddings only where context may have to choose) and the tracked entities.
        tracked_ids = list(turn.state.salience) if turn.state is not None else []
        bound = self.settings.max_candidates
        full = {i for ids, _ in pools.values() if 1 < len(ids) <= bound for i in ids}
        turn.writing = create_missing
        known = await self.turn_entities(
            turn, [*(i for ids, _ in pools.values() for i in ids), *tracked_ids], full
        )
        if turn.state is not None:
            turn.before = _ranked(turn.state, known)
        await self._resolve_names(turn, names, pools)
        others: tuple[str, ...] = ()
        described: tuple[str, ...] = ()
        if create_missing:
            await link_new(self, turn, names)
        else:
            settle_by_cues(turn, names)
            others = tuple(sorted(namesakes(turn)))
            described = await describe_turn(turn, self.turn_entities)
        tracked: tuple[TrackedEntity, ...] = ()
        if turn.state is not None:
            await self._track(turn)
            assert turn.state is not None
            known = await self.turn_entities(turn, list(turn.state.salience))
            tracked = tuple(_ranked(turn.state, known))
        ordered = tuple(turn.resolved[i] for i in sorted(turn.resolved))
        return Resolution(
            turn.parsed,
            ordered,
            turn.clarification,
            tracked,
            turn.state,
            others,
            described,
            tuple(turn.decisions),
            turn.new_identities(),
        )

    async def turn_entities(
        self, turn: Turn, ids: Sequence[str], full: set[str] | None = None
    ) -> dict[str, Entity]:
        """The turn's entities by id, reading only ids not asked for yet in this turn."""
        wanted = list(dict.fromkeys(ids))
        missing = [i for i in wanted if i not in turn.entities and i not in turn.asked]
        if not missing:
            return {i: turn.entities[i] for i in wanted if i in turn.entities}
        turn.asked.update(missing)
        needs_profile = [i for i in missing if full and i in full]
        turn.entities.update(await self._kept_or_read(turn.tenant_id, missing, needs_profile))
        return {i: turn.entities[i] for i in wanted if i in turn.entities}

    async def _kept_or_read(
        self, tenant_id: str, ids: Sequence[str], profiled: Sequence[str] = ()
    ) -> dict[str, Entity]:
        """Entities by id, those in ``profiled`` with their profile embedding (None where
        they have none): what the entity cache kept, the rest read and kept. Turns and reads
        alike use what earlier ones read while the tenant's entities have not changed
        (``entity_cache.py``)."""
        writes = self.graph.entity_writes_of(tenant_id)
        found = self.entities.get(tenant_id, writes, ids, profiled)
        self.renewal.start(tenant_id, writes)  # once the kept entities are past the ttl
        rest = [i for i in ids if i not in found]
        if rest:
            need = [i for i in profiled if i in rest]
            since = self.entities.seq
            read = await self.graph.tenant(tenant_id).resolution_entities(rest, need)
            found.update(read)
            if self.graph.entity_writes_of(tenant_id) == writes:
                self.entities.put(tenant_id, writes, read.values(), need, since)
        return found

    async def close(self) -> None:
        """Stop background cache renewals (the graph is closing)."""
        await self.names.close()
        await self.renewal.close()

    def _pools(
        self, g: Gazetteer, names: Sequence[tuple[int, Mention]], by_place: set[tuple[int, int]]
    ) -> dict[str, tuple[set[str], str]]:
        """Candidate ids (and how they were found) per normalized name; a word capitalised by
        its place ("Glad you came") as written only, not by a scan for misspellings."""
        pools: dict[str, tuple[set[str], str]] = {}
        for _, m in names:
            key = normalize_name(m.text)
            if not key or key in pools:
                continue
            ids, method = g.exact(m.text), "alias"
            ids |= g.first_token(m.text)
            if len(ids) > len(g.exact(m.text)) and not g.exact(m.text):
                method = "similarity"
            if not ids and (m.start, m.end) not in by_place:
                ids, method = g.similar(m.text, self.settings.name_similarity), "similarity"
            # Every namesake is a candidate: stated attributes are checked on all of them
            # (a cheap read); only context scoring is bounded by ``max_candidates``.
            pools[key] = (ids, method)
        return pools

    async def _resolve_names(
        self,
        turn: Turn,
        names: Sequence[tuple[int, Mention]],
        pools: dict[str, tuple[set[str], str]],
    ) -> None:
        decided: dict[str, ResolvedMention] = {}
        for index, m in names:
            key = normalize_name(m.text)
            if key not in pools:
                continue
            if key not in decided:
                ids, method = pools[key]
                candidates = [turn.entities[i] for i in sorted(ids) if i in turn.entities]
                decided[key] = await self._choose(turn, m, type_filter(m, candidates), method)
            r = decided[key]
            turn.resolved[index] = ResolvedMention(
                m, r.entity, r.confidence, r.method, r.candidates
            )

    async def _choose(
        self, turn: Turn, m: Mention, candidates: list[Entity], method: str
    ) -> ResolvedMention:
        if not candidates:
            return ResolvedMention(m, None)
        if turn.writing and _person(m, candidates):
            # New or known is decided once the turn's organisations exist (``identity.py``).
            return ResolvedMention(m, None, 0.0, PENDING, tuple(candidates))
        if not turn.writing and _person(m, candidates):
            # A provisional person is an open "possibly the same as" of the settled people of
            # that name, not one more of them: a read means a settled person when there is
            # one (and leaves the provisional one's memories in, see ``reading.namesakes``).
            candidates = [c for c in candidates if not c.provisional] or candidates
        if len(candidates) == 1:
            return ResolvedMention(m, candidates[0], 1.0 if method == "alias" else 0.8, method)
        best, ranked = await self.by_context(turn, m, candidates)
        found = tuple(s.entity for s in ranked) or tuple(candidates)
        if best is not None:
            return ResolvedMention(m, best.entity, best.score, "context", found)
        focused = [
            c for c in candidates if turn.state and turn.state.salience.get(c.id, 0.0) >= FOCUSED
        ]
        if len(focused) == 1:
            return ResolvedMention(m, focused[0], 0.7, "tracker", found)
        if turn.clarification is None:
            listed = found[: self.settings.max_candidates]
            turn.clarification = Clarification(f"Which {m.text}?", m.text, listed)
        return ResolvedMention(m, None, 0.0, "ambiguous", found)

    async def by_context(
        self, turn: Turn, m: Mention, candidates: Sequence[Entity]
    ) -> tuple[Scored | None, list[Scored]]:
        """The clear context winner among ``candidates`` for the mention ``m`` (or None) and
        every candidate ranked (``Disambiguator.choose``); profiles missing are built first."""
        if not candidates or len(candidates) > self.settings.max_candidates:
            return None, []  # too many to tell apart by context alone: a cue or a question
        missing = [c.id for c in candidates if not c.profile_embedding]
        if missing:  # read without their vectors (a large pool): kept ones, or read now
            # (a name with more namesakes than context weighs: every turn naming it read
            # the few it weighs again, before they were kept)
            found = await self._kept_or_read(turn.tenant_id, missing, missing)
            turn.entities.update({i: e for i, e in found.items() if e.profile_embedding})
            candidates = [turn.entities.get(c.id, c) for c in candidates]
            missing = [c.id for c in candidates if not c.profile_embedding]
        if missing:  # a profile is derived data: build it now rather than score blind
            for e in await self.profiles.refresh(turn.tenant_id, missing):
                turn.entities[e.id] = e
            candidates = [turn.entities.get(c.id, c) for c in candidates]
        names = [m.text, *(a for c in candidates for a in (c.name, *c.aliases))]
        return await self.disambiguator.choose(turn.parsed.text, names, candidates)

    async def _track(self, turn: Turn) -> None:
        assert turn.state is not None
        named = [r.entity.id for _, r in sorted(turn.resolved.items()) if r.entity is not None]
        known = await self.turn_entities(turn, [*named, *turn.state.salience])
        types = {i: e.type for i, e in known.items()}
        state = self.tracker.step(turn.state, named, turn.scene_hints, types)
        for index, m in enumerate(turn.parsed.mentions):
            if m.source != "pronoun":
                continue
            allowed = PRONOUNS[m.text.lower()]
            ident = self.tracker.pick(state, allowed, types)
            if ident is not None and ident in known:
                self.tracker.touch(state, ident)
                turn.resolved[index] = ResolvedMention(m, known[ident], 0.6, "tracker")
        turn.state = state

    async def speaker(self, tenant_id: str, name: str, at: float) -> Entity | None:
        """The person a turn's ``speaker`` names: the one person known by exactly that name,
        else a new person (a speaker is someone, and the conversation is where users
        introduce them). None for a generic role name, or when several people share the name
        (the turn is then not linked to a guess)."""
        text = " ".join(name.split())
        if not text or normalize_name(text) in GENERIC_SPEAKERS:
            return None
        gazetteer = await self.names.get(tenant_id, await self.parser.load())
        people = [i for i in gazetteer.exact(text) if gazetteer.types.get(i) is EntityType.PERSON]
        tenant = self.graph.tenant(tenant_id)
        if len(people) > 1:
            return None
        if people:
            return await tenant.get_entity(people[0])
        async with self.creating(tenant_id):
            entity, fresh = await tenant.create_entity_once(
                text, EntityType.PERSON, EntityType.PERSON, at=at
            )
        if fresh:
            self.names.extend_soon(tenant_id, [KnownName(text, entity.id, entity.type)])
        return entity if entity.type is EntityType.PERSON else None

    def introduced(self, tenant_id: str, created: Sequence[NewIdentity]) -> None:
        """The caller committed these people (``Resolution.created``): their names join the
        tenant's gazetteer, so the next text finds them (its resolve waits for them; this
        call does not)."""
        if not created:
            return
        names = [
            KnownName(a, c.entity.id, c.entity.type) for c in created for a in c.entity.aliases
        ]
        self.names.extend_soon(tenant_id, names)
        # As committed, without a profile yet (the turn's job builds it and replaces them):
        # the next text naming them reads nothing.
        people = [c.entity for c in created]
        writes = self.graph.entity_writes_of(tenant_id)
        self.entities.put(tenant_id, writes, people, [e.id for e in people])

    def creating(self, tenant_id: str) -> asyncio.Lock:
        """Held while a turn creates an entity in ``tenant_id`` (one lock per stripe of
        tenants). The graph statement already makes the check for an entity a concurrent
        turn just created and the creation one step, in any process; the lock spares this
        process's turns the engine's conflicts and retries."""
        return self._creation_locks.of(tenant_id)

    def _session_lock(self, tenant_id: str, session_id: str) -> asyncio.Lock:
        key = (tenant_id, session_id)
        lock = self._session_locks.get(key)
        if lock is None:
            lock = self._session_locks[key] = asyncio.Lock()
            while len(self._session_locks) > 4096:
                oldest, old = next(iter(self._session_locks.items()))
                if old.locked():
                    break
                del self._session_locks[oldest]
        self._session_locks.move_to_end(key)
        return lock


def _person(m: Mention, candidates: Sequence[Entity]) -> bool:
    """A person's name: every candidate is a person and the text does not say otherwise."""
    if m.entity_type not in (None, EntityType.PERSON) and m.source != "ruler":
        return False
    return all(c.type is EntityType.PERSON for c in candidates)


def _check_session(session_id: str | None) -> None:
    if session_id is None:
        return
    if not isinstance(session_id, str) or not session_id.strip():
        raise InvalidInput("a session id must be a non-empty string", field="sessionId")
    if len(session_id) > MAX_SESSION_ID:
        raise InvalidInput(f"a session id is limited to {MAX_SESSION_ID} characters")


def _ranked(state: TrackerState, found: dict[str, Entity]) -> list[TrackedEntity]:
    out = [
        TrackedEntity(found[i], s, state.scope.get(i, "mention"))
        for i, s in state.salience.items()
        if i in found
    ]
    return sorted(out, key=lambda t: (-t.salience, t.entity.id))
