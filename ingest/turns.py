"""recordTurn: the synchronous write path of a conversation turn.

One call, in order: validate; read the session and resolve the turn's entities (creating new
ones) concurrently; run the inline rules (preferences, facts, decisions, episodes, tasks);
plan corrections against the current facts; then write everything in ONE graph transaction —
the turn's episodic record (the audit trail), the extracted memories with their entity links,
supersede links, conflicts, task mentions, the session's working-memory window and the
deferred jobs — embed and index the new memories, and mark them indexed. The memories are
retrievable on the next call. Heavier work (profile refresh, LLM extraction) is persisted as
jobs in that same transaction and run by the ``JobQueue``: it never blocks or loses the turn.
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
from graph.core_ops import unpin
from graph.store import GraphStore
from graph.write_ops import (
    SupersedeLink,
    create_identities,
    dedupe_tasks,
    mention_tasks,
    save_turn_session,
)
from ingest.extract.corrections import Action
from ingest.extract.extraction import beside_turn, candidates, settle_ours
from ingest.extract.procedures import extract as extract_procedures
from ingest.extract.procedures import with_procedure
from ingest.extract.sentences import is_pleasantry
from ingest.extract.statements import extract as extract_statements
from ingest.jobs.queue import JobQueue
from ingest.learned.planning import CorePlanner, CoreWrite, pinned_rule
from ingest.learned.recognise import recognise as learned_of
from ingest.sessions import check_session_id, next_session
from ingest.slots.analysis import statements as statements_of
from ingest.tasks import plan_tasks, scan
from ingest.write.persist import WriteSet, commit
from ingest.write.planning import FactPlanner, fact_keys
from ingest.write.procedure_changes import ProcedureChanges
from ingest.write.slots import SlotPlanner, asserted, sentence_of
from ingest.write.topics import topic_entities
from ingest.write.writer import MemoryWriter
from resolution.tracker import dump_state, load_state
from resolution.types import (
    EntityResolver,
    ParsedText,
    Resolution,
    TrackerState,
)

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

    async def _embed(self, text: str) -> list[float]:
        return (await self.writer.embedder.embed_documents([text]))[0]

    async def _record_with(
        self,
        tenant_id: str,
        turn: TurnInput,
        content: str,
        session_id: str,
        at: float,
        started: list[asyncio.Future[list[float]]],
    ) -> TurnResult:
        tenant = self.graph.tenant(tenant_id)
        # One read gives the session's window and its entity tracker; the resolver parses
        # the text meanwhile, and its new tracker state is stored with the window below.
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
        pleasantry = is_pleasantry(content)
        stating = turn.role is Role.USER and not pleasantry
        statements = (
            with_procedure(
                settle_ours(extract_statements(resolution.parsed.doc, content), resolution),
                extract_procedures(content, resolution.parsed.doc),
            )
            if stating
            else []
        )
        said = (
            await asyncio.to_thread(_said, resolution, content, turn.role, pleasantry)
            if len(content) > LONG_TURN  # a long turn's reading would hold the event loop
            else _said(resolution, content, turn.role, pleasantry)
        )
        statements = asserted(beside_turn(statements, content), said)
        # Core memory the turn states (the business, the user, a project, a rule), read from
        # the same parse and statements (``ingest/learned``).
        learned = (
            learned_of(resolution.parsed.doc, said, statements)
            if stating and self.settings.ingest.learn_core
            else []
        )
        topics = await topic_entities(tenant, statements, at)
        for topic in topics.values():
            entities.setdefault(topic.id, topic)
        episode = self.writer.build(
            tenant_id,
            NewMemory(
                content=content,
                type=MemoryType.EPISODIC,
                user_id=turn.user_id,
                project_id=turn.project_id,
                session_id=session_id,
                importance=0.2 if pleasantry else 0.4,
                created_at=at,
                source=f"turn:{turn.role.value}",
                entity_ids=list(entities),
            ),
            memory_id=episode_id,
        ).model_copy(
            update={
                "turn_speaker": turn.speaker,
                "statements": tuple(s.dumps() for s in said if s.values or s.negated or s.named),
            }
        )
        ctx: dict[str, Any] = {
            "user_id": turn.user_id,
            "project_id": turn.project_id,
            "session_id": session_id,
            "episode_id": episode.id,
            "at": at,
        }
        found = candidates(statements, resolution, topics=topics, **ctx)
        task_found = scan(content, resolution) if stating else []
        # Turns stating the same fact or task in several sessions at once take turns from
        # the read of the current facts and tasks to the write: a correction is planned
        # against the one before it (one current value, one chain), an identical task is
        # one task. Turns stating other things do not wait for each other.
        stated = [*fact_keys(tenant_id, found), *(("task", tenant_id, c.key) for c in task_found)]
        if learned:  # turns that learn core items take turns: one current item per slot
            stated.append(("core", tenant_id))
        async with self.writer.statements.holding(stated) as held:
            window = session.window if session is not None else ()
            mine = said if stating and self.settings.ingest.slots else []
            sentence_ids: dict[int, str] = {}  # sentence start -> its memory's id (rule facts)
            facts, existing_tasks, slot_plan, procedures = await asyncio.gather(
                self.planner.plan(tenant, found, turn.user_id, at),
                tenant.tasks_by_keys([c.key for c in task_found]),
                self.slots.plan(tenant, episode, mine, window, at),
                self.procedures.plan(tenant, episode, mine),
            )
            tasks = plan_tasks(task_found, existing_tasks, resolution, self.settings.ingest, **ctx)
            ws = WriteSet()
            preferences: dict[int, str] = {}  # sentence start -> the rules' preference id
            extracted: list[Memory] = []
            for planned in facts:
                if planned.plan.action is Action.SKIP:
                    continue
                item, memory_id = sentence_of(planned.candidate, said, episode.id, sentence_ids)
                memory = self.writer.build(tenant_id, item, memory_id=memory_id)
                extracted.append(memory)
                self.planner.link(ws, memory, planned.plan, at)
                if memory.type is MemoryType.PREFERENCE:
                    preferences[planned.candidate.extracted.start] = memory.id
            # The turn's core lines; a rule is the preference the rules just made, pinned.
            core = (
                await self.learning.plan(
                    tenant,
                    episode,
                    learned,
                    _mentions(resolution),
                    slot_plan.replaced_ids(),
                    preferences,
                    at,
                )
                if learned
                else CoreWrite()
            )
            changes = await self.planner.parameter_changes(tenant, facts, at)
            changed = {old.id for old, _, _ in changes}
            changes += [c for c in procedures if c[0].id not in changed]
            for old, item, reason in changes:
                memory = self.writer.build(tenant_id, item)
                extracted.append(memory)
                ws.pairs.append(SupersedeLink(old.id, memory.id, reason))
            # A sentence whose rules' fact superseded facts of earlier turns: those turns'
            # statements are replaced already.
            covered: dict[int, set[str]] = {}
            for planned in facts:
                if planned.plan.action is Action.SUPERSEDE:
                    start = planned.candidate.extracted.start
                    sentence = next((x.start for x in said if x.start <= start < x.end), start)
                    covered.setdefault(sentence, set()).update(
                        (m.source or "").rsplit(":", 1)[-1] for m in planned.plan.existing
                    )
            slotted = slot_plan.write(covered)
            for item, memory_id, voice in zip(
                slotted.memories, slotted.ids, slotted.speakers, strict=True
            ):
                if memory_id in sentence_ids.values():
                    continue  # the rules' fact of that sentence is its statement memory
                built = self.writer.build(tenant_id, item, memory_id=memory_id)
                extracted.append(built.model_copy(update={"turn_speaker": voice}))
            known = {(p.old_id, p.new_id) for p in ws.pairs}
            ws.pairs.extend(p for p in slotted.pairs if (p.old_id, p.new_id) not in known)
            placed = {m.id: i for i, m in enumerate(extracted)}
            for memory_id, item, props in core.memories:
                if memory_id in placed:  # the rules' preference of the sentence, now core
                    k = placed[memory_id]
                    extracted[k] = extracted[k].model_copy(update=pinned_rule(episode))
                else:
                    extracted.append(self.writer.build(tenant_id, item, memory_id=memory_id))
                ws.extras[memory_id] = props
            known = {(p.old_id, p.new_id) for p in ws.pairs}
            ws.pairs.extend(p for p in core.pairs if (p.old_id, p.new_id) not in known)
            if core.unpinned:  # past a kind's cap: the oldest leave core
                ws.after.append(unpin(core.unpinned))
                ws.changes.update({i: {"pinned": False} for i in core.unpinned})
            for item, extra in tasks.new:
                memory = self.writer.build(tenant_id, item)
                extracted.append(memory)
                ws.extras[memory.id] = extra
            if tasks.new:
                made = [m for m in extracted if m.type is MemoryType.TASK]
                ws.after.append(dedupe_tasks(made, ws.extras, at))

            props, index = next_session(
                session, episode.id, at, self.settings.ingest, turn.user_id, turn.project_id
            )
            ws.extras[episode.id] = {
                "turn_role": turn.role.value,
                "turn_speaker": turn.speaker,
                "turn_index": index,
            }
            ws.vectors[episode.id] = vector
            jobs = self._jobs(turn, episode, list(entities), at)
            ws.memories = [episode, *extracted]
            if tasks.mentions:
                ws.after.append(mention_tasks(tasks.mentions))
            if resolution.created:  # people the turn introduced: before the memories link them
                ws.before.extend(create_identities(tenant_id, resolution.created, episode.id))
            saved = dict(props)
            if resolution.state is not None:
                saved |= {
                    "entity_tracker": dump_state(resolution.state),
                    "entity_tracker_turn": resolution.state.turn,
                    "entity_tracker_at": now(),
                }
            # Who the turn's names were taken to be is stored with the turn's session.
            ws.after.append(save_turn_session(session_id, saved, jobs, resolution.decisions))
            indexing = await commit(self.writer, tenant_id, ws, at)
            # The graph has the turn: the next turn stating the same things may plan now,
            # while this one's vector side runs (after the one before it, before the next).
            await held.handover()
            indexed = await indexing.run()
        self.resolver.introduced(tenant_id, resolution.created)
        if self.queue is not None and jobs:
            self.queue.schedule(tenant_id, jobs)

        # Folded tasks are gone; an earlier turn's statement memory another turn made first
        # is that turn's.
        extracted = [m for m in extracted if m.id not in ws.folded and m.id not in ws.elsewhere]
        new_tasks = await tenant.list_tasks_by_id(
            [m.id for m in extracted if m.type is MemoryType.TASK]
            + [t.id for t in tasks.repeated]
            + list(ws.folded.values())
        )
        return TurnResult(
            episode=episode.model_copy(update={"indexed": indexed}),
            extracted=tuple(m.model_copy(update={"indexed": indexed}) for m in extracted),
            entities=tuple(entities.values()),
            tasks=tuple(new_tasks),
            clarification=resolution.clarification,
            superseded=tuple(ws.superseded),
            conflicts=tuple(ws.conflicts),
            jobs=tuple(j.id for j in jobs),
            session=Session(id=session_id, **props),
        )

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


def _mentions(resolution: Resolution) -> list[tuple[int, int, str]]:
    """The turn's resolved names: (start, end, entity id)."""
    return [
        (r.mention.start, r.mention.end, r.entity.id)
        for r in resolution.resolved
        if r.entity is not None
    ]


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
