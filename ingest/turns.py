"""recordTurn: the synchronous write path of a conversation turn.

One call, in order: validate, then the turn's phases (``TurnRecorder._record_with``; what each
hands the next is in ``ingest/turn_phases.py``):

- **resolve**: read the session and resolve the turn's entities (creating new ones) and its
  speaker concurrently; start embedding the turn;
- **extract**: run the inline rules (preferences, facts, decisions, episodes, procedures),
  read the turn's sentences as statements, the core lines it states and its topics;
- **draft**: the turn's episodic record (the audit trail) and its fact and task candidates;
- **plan**, holding the statements it makes: corrections against the current facts, the known
  tasks, the statements' replacements and the procedures' new versions;
- **stage**: the write set — the extracted memories with their entity links, supersede links,
  conflicts, core items, task mentions, the session's working-memory window and the deferred
  jobs;
- **commit**: ONE graph transaction, then the new memories are embedded, indexed and marked
  indexed;
- **announce**: the people it introduced are named for the next texts, the jobs scheduled;
- **result**: the ``TurnResult``.

The memories are retrievable on the next call. Heavier work (profile refresh, LLM extraction)
is persisted as jobs in that same transaction and run by the ``JobQueue``: it never blocks or
loses the turn.
"""

from __future__ import annotations

import asyncio
import logging
import math
from dataclasses import dataclass
from typing import Any

from core.clock import now
from core.errors import BackendError, InvalidInput, NotFound
from core.ids import new_id
from core.ingest_types import FactConflict, Job, Role, Session, Task, Turn, TurnInput
from core.locks import StripedLocks
from core.resolution_types import Clarification
from core.settings import Settings
from core.statements import Statement
from core.types import Entity, Memory, MemoryType, NewMemory, indexed_text
from core.validation import check_content, check_project_id
from graph.store import GraphStore
from ingest.extract.extraction import beside_turn, candidates, settle_ours
from ingest.extract.procedures import extract as extract_procedures
from ingest.extract.procedures import with_procedure
from ingest.extract.sentences import is_pleasantry
from ingest.extract.statements import extract as extract_statements
from ingest.jobs.queue import JobQueue
from ingest.learned.planning import CorePlanner, CoreWrite
from ingest.learned.recognise import recognise as learned_of
from ingest.sessions import check_session_id, next_session
from ingest.slots.analysis import statements as statements_of
from ingest.tasks import plan_tasks, scan
from ingest.turn_phases import Draft, Extraction, Planned, Resolved, Staged, Staging
from ingest.write.ordering import Held
from ingest.write.persist import commit
from ingest.write.planning import FactPlanner, fact_keys
from ingest.write.procedure_changes import ProcedureChanges
from ingest.write.slots import SlotPlanner, asserted
from ingest.write.topics import topic_entities
from ingest.write.writer import MemoryWriter
from resolution.tracker import load_state
from resolution.types import EntityResolver, ParsedText, Resolution, TrackerState

log = logging.getLogger(__name__)

PROFILE_JOB = "profile_refresh"
LLM_JOB = "llm_extract"
LOCK_STRIPES = 256
LONG_TURN = 2_000  # characters: statements of a longer turn are read in a worker thread


@dataclass(frozen=True)
class TurnResult:
    episode: Memory
    extracted: tuple[Memory, ...] = ()
    entities: tuple[Entity, ...] = ()
    tasks: tuple[Task, ...] = ()  # new candidates and known tasks said again
    clarification: Clarification | None = None
    superseded: tuple[str, ...] = ()  # ids of memories this turn's corrections replaced
    conflicts: tuple[FactConflict, ...] = ()
    jobs: tuple[str, ...] = ()
    session: Session | None = None


class TurnRecorder:
    """Records turns and owns the sessions' working memory.

    Args:
        settings: the service settings (``ingest`` and ``limits`` are used).
        graph, writer: the graph store and the durable memory writer.
        resolver: the resolve step (``resolution/``), called with ``create_missing=True``.
        queue: where deferred jobs go; without one, no jobs are created.
        llm_enabled: queue an ``llm_extract`` job for each user turn.
    """

    def __init__(
        self,
        settings: Settings,
        graph: GraphStore,
        writer: MemoryWriter,
        resolver: EntityResolver,
        queue: JobQueue | None = None,
        llm_enabled: bool = False,
    ) -> None:
        self.settings = settings
        self.graph = graph
        self.writer = writer
        self.resolver = resolver
        self.queue = queue
        self.llm_enabled = llm_enabled
        self.planner = FactPlanner(settings.ingest)
        self.slots = SlotPlanner(writer.index)
        self.procedures = ProcedureChanges(writer.index)
        self.learning = CorePlanner()
        # Turns of one session are recorded one at a time (the window is read-modify-write).
        self._sessions = StripedLocks(LOCK_STRIPES)

    async def record_turn(self, tenant_id: str, turn: TurnInput) -> TurnResult:
        """Record one turn; raises InvalidInput (nothing written) for bad input."""
        content = check_content(turn.content, self.settings.limits)
        session_id = check_session_id(turn.session_id)
        check_project_id(turn.project_id)
        if turn.speaker is not None and len(turn.speaker) > 200:
            raise InvalidInput("speaker is limited to 200 characters", field="speaker")
        at = self._turn_time(turn.at)
        async with self._sessions.of(tenant_id, session_id):
            return await self._record(tenant_id, turn, content, session_id, at)

    def _turn_time(self, at: float | None) -> float:
        """The turn's time: now, or the given time when it is not in the future beyond the
        allowed clock skew (``ingest.turn_max_future_seconds``)."""
        clock = now()
        if at is None:
            return clock
        when = float(at)
        if not math.isfinite(when) or when < 0:
            raise InvalidInput("at must be a time in epoch seconds", field="at")
        skew = self.settings.ingest.turn_max_future_seconds
        if when > clock + skew:
            raise InvalidInput(
                f"at is {when - clock:.0f} s in the future; at most {skew:.0f} s is allowed",
                field="at",
                limit=skew,
            )
        return when

    async def _record(
        self, tenant_id: str, turn: TurnInput, content: str, session_id: str, at: float
    ) -> TurnResult:
        started: list[asyncio.Future[list[float]]] = []  # the turn's vector, once started
        try:
            return await self._record_with(tenant_id, turn, content, session_id, at, started)
        finally:
            for vector in started:
                vector.cancel()  # a no-op once persist has it; frees the model on a failed turn

    async def _record_with(
        self,
        tenant_id: str,
        turn: TurnInput,
        content: str,
        session_id: str,
        at: float,
        started: list[asyncio.Future[list[float]]],
    ) -> TurnResult:
        """The turn as its phases, in order (``ingest/turn_phases.py``)."""
        resolved = await self._read_and_resolve(tenant_id, turn, content, session_id, at, started)
        extraction = await self._extract(resolved)
        draft = self._draft(resolved, extraction)
        # Turns stating the same fact or task in several sessions at once take turns from
        # the read of the current facts and tasks to the write: a correction is planned
        # against the one before it (one current value, one chain), an identical task is
        # one task. Turns stating other things do not wait for each other.
        async with self.writer.statements.holding(draft.keys) as held:
            planned = await self._plan(resolved, extraction, draft)
            staged = await self._stage(resolved, extraction, draft, planned)
            indexed = await self._commit(resolved, staged, held)
        self._announce(resolved, staged)
        return await self._result(resolved, draft, planned, staged, indexed)

    async def _read_and_resolve(
        self,
        tenant_id: str,
        turn: TurnInput,
        content: str,
        session_id: str,
        at: float,
        started: list[asyncio.Future[list[float]]],
    ) -> Resolved:
        """The resolve phase: the session read, the turn's names and its speaker resolved
        (new ones created), all at once; then the turn's vector is started (in ``started``)."""
        tenant = self.graph.tenant(tenant_id)
        # One read gives the session's window and its entity tracker; the resolver parses
        # the text meanwhile, and its new tracker state is stored with the window (stage).
        read = asyncio.ensure_future(tenant.get_session_and_tracker(session_id))

        async def stored() -> TrackerState:
            return load_state((await read)[1])

        episode_id = new_id()  # before resolution: the relations this turn states cite it
        # The turn is about who said it, too: the speaker's person, found (or made) meanwhile.
        speaker = asyncio.ensure_future(self._speaker(tenant_id, turn.speaker, at))
        try:
            resolution = await self._resolve(
                tenant_id, content, session_id, at, asyncio.ensure_future(stored()), episode_id
            )
        except BaseException:
            speaker.cancel()
            raise
        # The turn's own vector needs nothing but the text. It starts once the text is
        # resolved: the parse and the model would share the cores (and the parse holds the
        # interpreter), and the graph transaction it then overlaps is mostly waiting.
        vector = asyncio.ensure_future(self._embed(indexed_text(content, turn.speaker)))
        started.append(vector)
        session, _ = await read
        entities = {r.entity.id: r.entity for r in resolution.resolved if r.entity is not None}
        said_by = await speaker
        if said_by is not None:
            entities.setdefault(said_by.id, said_by)
        return Resolved(
            tenant_id=tenant_id,
            tenant=tenant,
            turn=turn,
            content=content,
            session_id=session_id,
            at=at,
            episode_id=episode_id,
            session=session,
            resolution=resolution,
            entities=entities,
            vector=vector,
        )

    async def _extract(self, r: Resolved) -> Extraction:
        """The extract phase: the inline rules' statements (preferences, facts, decisions,
        episodes, procedures) of a user's turn, its sentences as statements, the core lines
        it states, and its statements' topics (which join the turn's entities)."""
        content, resolution = r.content, r.resolution
        pleasantry = is_pleasantry(content)
        stating = r.turn.role is Role.USER and not pleasantry
        statements = (
            with_procedure(
                settle_ours(extract_statements(resolution.parsed.doc, content), resolution),
                extract_procedures(content, resolution.parsed.doc),
            )
            if stating
            else []
        )
        said = (
            await asyncio.to_thread(_said, resolution, content, r.turn.role, pleasantry)
            if len(content) > LONG_TURN  # a long turn's reading would hold the event loop
            else _said(resolution, content, r.turn.role, pleasantry)
        )
        statements = asserted(beside_turn(statements, content), said)
        # Core memory the turn states (the business, the user, a project, a rule), read from
        # the same parse and statements (``ingest/learned``).
        learned = (
            learned_of(resolution.parsed.doc, said, statements)
            if stating and self.settings.ingest.learn_core
            else []
        )
        topics = await topic_entities(r.tenant, statements, r.at)
        for topic in topics.values():
            r.entities.setdefault(topic.id, topic)
        return Extraction(pleasantry, stating, said, statements, learned, topics)

    def _draft(self, r: Resolved, x: Extraction) -> Draft:
        """The draft phase: the turn's episodic record (the audit trail), its fact and task
        candidates, and the statements it takes turns on with other turns stating them."""
        turn = r.turn
        episode = self.writer.build(
            r.tenant_id,
            NewMemory(
                content=r.content,
                type=MemoryType.EPISODIC,
                user_id=turn.user_id,
                project_id=turn.project_id,
                session_id=r.session_id,
                importance=0.2 if x.pleasantry else 0.4,
                created_at=r.at,
                source=f"turn:{turn.role.value}",
                entity_ids=list(r.entities),
            ),
            memory_id=r.episode_id,
        ).model_copy(
            update={
                "turn_speaker": turn.speaker,
                "statements": tuple(s.dumps() for s in x.said if s.values or s.negated or s.named),
            }
        )
        ctx: dict[str, Any] = {
            "user_id": turn.user_id,
            "project_id": turn.project_id,
            "session_id": r.session_id,
            "episode_id": episode.id,
            "at": r.at,
        }
        found = candidates(x.statements, r.resolution, topics=x.topics, **ctx)
        task_found = scan(r.content, r.resolution) if x.stating else []
        keys = [*fact_keys(r.tenant_id, found), *(("task", r.tenant_id, c.key) for c in task_found)]
        if x.learned:  # turns that learn core items take turns: one current item per slot
            keys.append(("core", r.tenant_id))
        return Draft(episode, ctx, found, task_found, keys)

    async def _plan(self, r: Resolved, x: Extraction, d: Draft) -> Planned:
        """The plan phase (under the statements' locks): the facts' corrections against the
        current facts, the known tasks said again, the statements' replacements (slots) and
        the procedures' new versions, read at once."""
        window = r.session.window if r.session is not None else ()
        mine = x.said if x.stating and self.settings.ingest.slots else []
        facts, existing_tasks, slot_plan, procedures = await asyncio.gather(
            self.planner.plan(r.tenant, d.found, r.turn.user_id, r.at),
            r.tenant.tasks_by_keys([c.key for c in d.tasks_found]),
            self.slots.plan(r.tenant, d.episode, mine, window, r.at),
            self.procedures.plan(r.tenant, d.episode, mine),
        )
        tasks = plan_tasks(
            d.tasks_found, existing_tasks, r.resolution, self.settings.ingest, **d.ctx
        )
        return Planned(facts, tasks, slot_plan, procedures)

    async def _stage(self, r: Resolved, x: Extraction, d: Draft, p: Planned) -> Staged:
        """The stage phase: everything the transaction writes. The extracted memories in
        order (the rules' facts with their supersede links and conflicts, the procedures' new
        versions, the statement memories, the core lines, the tasks), then the turn's own
        part (``Staging.add_turn``)."""
        staging = Staging(self.writer, r.tenant_id, d.episode)
        preferences = staging.add_facts(self.planner, p.facts, x.said, r.at)
        # The turn's core lines; a rule is the preference the rules just made, pinned.
        core = (
            await self.learning.plan(
                r.tenant,
                d.episode,
                x.learned,
                r.mentions(),
                p.slots.replaced_ids(),
                preferences,
                r.at,
            )
            if x.learned
            else CoreWrite()
        )
        changes = await self.planner.parameter_changes(r.tenant, p.facts, r.at)
        changed = {old.id for old, _, _ in changes}
        changes += [c for c in p.procedures if c[0].id not in changed]
        staging.add_changes(changes)
        staging.add_statements(p.slots, p.facts, x.said)
        staging.add_core(core)
        staging.add_tasks(p.tasks, r.at)
        turn = r.turn
        session, index = next_session(
            r.session, d.episode.id, r.at, self.settings.ingest, turn.user_id, turn.project_id
        )
        jobs = self._jobs(turn, d.episode, list(r.entities), r.at)
        staging.add_turn(r, index, session, jobs, p.tasks.mentions)
        return Staged(staging.ws, staging.extracted, jobs, session)

    async def _commit(self, r: Resolved, s: Staged, held: Held) -> bool:
        """The commit phase: ONE graph transaction; then the next turn stating the same
        things may plan, while this one's vector side runs (after the one before it, before
        the next). Returns whether the vector side finished."""
        indexing = await commit(self.writer, r.tenant_id, s.ws, r.at)
        await held.handover()
        return await indexing.run()

    def _announce(self, r: Resolved, s: Staged) -> None:
        """The announce phase: the people the turn introduced are named for the next texts,
        and its jobs are scheduled."""
        self.resolver.introduced(r.tenant_id, r.resolution.created)
        if self.queue is not None and s.jobs:
            self.queue.schedule(r.tenant_id, s.jobs)

    async def _result(
        self, r: Resolved, d: Draft, p: Planned, s: Staged, indexed: bool
    ) -> TurnResult:
        """The result phase: what the turn made, as committed."""
        # Folded tasks are gone; an earlier turn's statement memory another turn made first
        # is that turn's.
        ws = s.ws
        extracted = [m for m in s.extracted if m.id not in ws.folded and m.id not in ws.elsewhere]
        new_tasks = await r.tenant.list_tasks_by_id(
            [m.id for m in extracted if m.type is MemoryType.TASK]
            + [t.id for t in p.tasks.repeated]
            + list(ws.folded.values())
        )
        return TurnResult(
            episode=d.episode.model_copy(update={"indexed": indexed}),
            extracted=tuple(m.model_copy(update={"indexed": indexed}) for m in extracted),
            entities=tuple(r.entities.values()),
            tasks=tuple(new_tasks),
            clarification=r.resolution.clarification,
            superseded=tuple(ws.superseded),
            conflicts=tuple(ws.conflicts),
            jobs=tuple(j.id for j in s.jobs),
            session=Session(id=r.session_id, **s.session),
        )

    # -- what the phases call ------------------------------------------------------------------

    async def _embed(self, text: str) -> list[float]:
        return (await self.writer.embedder.embed_documents([text]))[0]

    async def _resolve(
        self,
        tenant_id: str,
        text: str,
        session_id: str,
        at: float,
        tracker: asyncio.Future[TrackerState],
        episode_id: str,
    ) -> Resolution:
        try:
            return await self.resolver.resolve(
                tenant_id,
                text,
                session_id,
                at,
                create_missing=True,
                update_session=False,  # stored with the session's window, in one transaction
                tracker=tracker,
                # The turn queues a profile refresh of its entities (``_jobs``).
                profiles_later=self.queue is not None,
                source_memory_id=episode_id,
            )
        except (BackendError, InvalidInput):
            raise
        except Exception:  # a resolver bug must not lose the turn: store it unlinked
            log.exception("entity resolution failed; recording the turn without entities")
            return Resolution(parsed=ParsedText(text=text))
        finally:
            tracker.cancel()  # a no-op once the resolver has read it

    async def _speaker(self, tenant_id: str, name: str | None, at: float) -> Entity | None:
        if not name:
            return None
        try:
            return await self.resolver.speaker(tenant_id, name, at)
        except (BackendError, InvalidInput):
            raise
        except Exception:  # a resolver bug must not lose the turn: store it without the link
            log.exception("speaker resolution failed; recording the turn without it")
            return None

    def _jobs(
        self, turn: TurnInput, episode: Memory, entity_ids: list[str], at: float
    ) -> list[Job]:
        if self.queue is None:
            return []
        jobs = []
        if entity_ids:
            jobs.append(self.queue.build(PROFILE_JOB, {"entity_ids": entity_ids}, at))
        if self.llm_enabled and turn.role is Role.USER and not is_pleasantry(episode.content):
            jobs.append(self.queue.build(LLM_JOB, {"episode_id": episode.id}, at))
        return jobs

    # -- working memory ------------------------------------------------------------------------

    async def working_memory(
        self, tenant_id: str, session_id: str, at: float | None = None
    ) -> list[Turn]:
        """The session's first turn and its most recent turns, oldest first; empty when the
        session is unknown, closed or expired."""
        session = await self.graph.tenant(tenant_id).get_session(check_session_id(session_id))
        if session is None or not session.is_open(now() if at is None else at):
            return []
        return await self.graph.tenant(tenant_id).get_turns(list(session.window))

    async def close_session(self, tenant_id: str, session_id: str) -> Session:
        """Close a session explicitly; raises NotFound for an unknown session."""
        tenant = self.graph.tenant(tenant_id)
        if not await tenant.close_session(check_session_id(session_id), now()):
            raise NotFound("session", session_id)
        session = await tenant.get_session(session_id)
        assert session is not None
        return session


def _said(resolution: Resolution, content: str, role: Role, pleasantry: bool) -> list[Statement]:
    """The turn's sentences as statements (``ingest/slots``): what a later turn's statement
    is compared with, and what this one's may replace. A tool's output states nothing."""
    doc = resolution.parsed.doc
    if doc is None or pleasantry or role is Role.TOOL:
        return []
    try:
        return statements_of(doc, content)
    except Exception:  # a reading bug must not lose the turn: store it without statements
        log.exception("statement analysis failed; recording the turn without statements")
        return []
