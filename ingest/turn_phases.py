"""What each phase of a turn hands the next (``TurnRecorder._record_with`` reads as these phases).

    resolve   session read, names and speaker resolved, the turn's vector started -> ``Resolved``
    extract   the rules' statements, sentences as statements, core lines, topics -> ``Extraction``
    draft     the episode, its fact and task candidates, the statements it locks  -> ``Draft``
    plan      (under those locks) corrections, known tasks, slots, procedures     -> ``Planned``
    stage     the write set, assembled in a ``Staging``                           -> ``Staged``
    commit    the graph transaction, the handover, the vector side         -> whether indexed
    announce  the people it introduced named, its jobs scheduled
    result    the ``TurnResult``

The handoffs are plain data; the extract phase adds the topics to ``Resolved.entities`` in
place, so a ``Resolved`` is frozen in its fields, not in its map's contents. ``Staging`` is the
stage phase's working data: each part of the write joins it in the order the transaction
writes it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from core.clock import now
from core.ingest_types import Job, Session, TurnInput
from core.statements import Statement
from core.types import Entity, Memory, MemoryType, NewMemory
from graph.core_ops import unpin
from graph.tenant import TenantGraph
from graph.write_ops import (
    SupersedeLink,
    TaskMention,
    create_identities,
    dedupe_tasks,
    mention_tasks,
    save_turn_session,
)
from ingest.extract.corrections import Action
from ingest.extract.extraction import Candidate
from ingest.extract.rules import Extracted
from ingest.extract.task_rules import TaskCandidate
from ingest.learned.common import Learned
from ingest.learned.planning import CoreWrite, pinned_rule
from ingest.tasks import TaskPlan
from ingest.write.persist import WriteSet
from ingest.write.planning import FactPlanner, PlannedFact
from ingest.write.slots import SlotPlan, sentence_of
from ingest.write.writer import MemoryWriter
from resolution.tracker import dump_state
from resolution.types import Resolution


@dataclass(frozen=True)
class Resolved:
    """The checked turn with its session as stored and who and what it names."""

    tenant_id: str
    tenant: TenantGraph
    turn: TurnInput
    content: str  # checked
    session_id: str
    at: float  # the turn's time
    episode_id: str  # chosen before resolution: the relations the turn states cite it
    session: Session | None  # before this turn
    resolution: Resolution
    entities: dict[str, Entity]  # resolved, the speaker's person, then the topics
    vector: asyncio.Future[list[float]]  # the turn's own vector, being computed

    def mentions(self) -> list[tuple[int, int, str]]:
        """The turn's resolved names: (start, end, entity id)."""
        return [
            (m.mention.start, m.mention.end, m.entity.id)
            for m in self.resolution.resolved
            if m.entity is not None
        ]


@dataclass(frozen=True)
class Extraction:
    """What the turn states, read from the resolver's parse."""

    pleasantry: bool
    stating: bool  # a user's turn, not a pleasantry: its statements become memories
    said: list[Statement]  # its sentences as statements (``ingest/slots``)
    statements: list[Extracted]  # the rules' statements worth a memory beside the episode
    learned: list[Learned]  # core lines it states (``ingest/learned``)
    topics: dict[str, Entity]  # the concept entity of each statement's topic


@dataclass(frozen=True)
class Draft:
    """The turn's episodic record and what it states, before anything is read under a lock."""

    episode: Memory
    ctx: dict[str, Any]  # user, project, session, episode id and time of what it extracts
    found: list[Candidate]  # fact candidates
    tasks_found: list[TaskCandidate]
    # The statements (``MemoryWriter.statements``) the turn takes turns on with other turns
    # stating them: its facts' subjects and predicates, its tasks, core when it learns.
    keys: list[tuple[str, ...]]


@dataclass(frozen=True)
class Planned:
    """What the turn's statements do to what is stored, read under the statements' locks."""

    facts: list[PlannedFact]  # create / skip / supersede / conflict, per candidate
    tasks: TaskPlan
    slots: SlotPlan
    procedures: list[tuple[Memory, NewMemory, str]]  # (old, new version, reason)


@dataclass(frozen=True)
class Staged:
    """Everything the turn's transaction writes, and what the result reports of it."""

    ws: WriteSet
    extracted: list[Memory]  # the memories extracted from the turn, in write order
    jobs: list[Job]
    session: dict[str, Any]  # the session's properties after the turn


@dataclass
class Staging:
    """The stage phase's working data: the write set, the memories extracted so far (in the
    order they join it) and the statement memory ids the rules' facts took."""

    writer: MemoryWriter
    tenant_id: str
    episode: Memory
    ws: WriteSet = field(default_factory=WriteSet)
    extracted: list[Memory] = field(default_factory=list)
    sentence_ids: dict[int, str] = field(default_factory=dict)  # sentence start -> memory id

    def add_facts(
        self,
        planner: FactPlanner,
        facts: Sequence[PlannedFact],
        said: Sequence[Statement],
        at: float,
    ) -> dict[int, str]:
        """The rules' facts the plan keeps, with their supersede links or conflicts; a fact
        that is its sentence as said is that sentence's statement memory. Returns the rules'
        preference ids by sentence start."""
        preferences: dict[int, str] = {}
        for planned in facts:
            if planned.plan.action is Action.SKIP:
                continue
            item, memory_id = sentence_of(
                planned.candidate, said, self.episode.id, self.sentence_ids
            )
            memory = self.writer.build(self.tenant_id, item, memory_id=memory_id)
            self.extracted.append(memory)
            planner.link(self.ws, memory, planned.plan, at)
            if memory.type is MemoryType.PREFERENCE:
                preferences[planned.candidate.extracted.start] = memory.id
        return preferences

    def add_changes(self, changes: Iterable[tuple[Memory, NewMemory, str]]) -> None:
        """New versions of procedures, each superseding the old one."""
        for old, item, reason in changes:
            memory = self.writer.build(self.tenant_id, item)
            self.extracted.append(memory)
            self.ws.pairs.append(SupersedeLink(old.id, memory.id, reason))

    def add_statements(
        self, slots: SlotPlan, facts: Sequence[PlannedFact], said: Sequence[Statement]
    ) -> None:
        """The sentences' statement memories and what they replace, but those the rules'
        facts already are, and the replacements those facts already superseded."""
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
        slotted = slots.write(covered)
        for item, memory_id, voice in zip(
            slotted.memories, slotted.ids, slotted.speakers, strict=True
        ):
            if memory_id in self.sentence_ids.values():
                continue  # the rules' fact of that sentence is its statement memory
            built = self.writer.build(self.tenant_id, item, memory_id=memory_id)
            self.extracted.append(built.model_copy(update={"turn_speaker": voice}))
        self._add_pairs(slotted.pairs)

    def add_core(self, core: CoreWrite) -> None:
        """The turn's core lines; a rule is the preference the rules just made, pinned."""
        placed = {m.id: i for i, m in enumerate(self.extracted)}
        for memory_id, item, props in core.memories:
            if memory_id in placed:  # the rules' preference of the sentence, now core
                k = placed[memory_id]
                self.extracted[k] = self.extracted[k].model_copy(update=pinned_rule(self.episode))
            else:
                self.extracted.append(self.writer.build(self.tenant_id, item, memory_id=memory_id))
            self.ws.extras[memory_id] = props
        self._add_pairs(core.pairs)
        if core.unpinned:  # past a kind's cap: the oldest leave core
            self.ws.after.append(unpin(core.unpinned))
            self.ws.changes.update({i: {"pinned": False} for i in core.unpinned})

    def add_tasks(self, tasks: TaskPlan, at: float) -> None:
        """The new tasks, folded into any another writer made at the same time."""
        for item, extra in tasks.new:
            memory = self.writer.build(self.tenant_id, item)
            self.extracted.append(memory)
            self.ws.extras[memory.id] = extra
        if tasks.new:
            made = [m for m in self.extracted if m.type is MemoryType.TASK]
            self.ws.after.append(dedupe_tasks(made, self.ws.extras, at))

    def add_turn(
        self,
        r: Resolved,
        index: int,
        session: dict[str, Any],
        jobs: list[Job],
        mentions: list[TaskMention],
    ) -> None:
        """The turn's own part of the write: its episode (role, speaker, its ``index`` in the
        session, the vector being computed) before the extracted memories, the task
        ``mentions``, the people it introduced, and the ``session``'s properties with its
        entity tracker, the ``jobs`` and the identity decisions."""
        turn, ws, resolution = r.turn, self.ws, r.resolution
        ws.extras[self.episode.id] = {
            "turn_role": turn.role.value,
            "turn_speaker": turn.speaker,
            "turn_index": index,
        }
        ws.vectors[self.episode.id] = r.vector
        ws.memories = [self.episode, *self.extracted]
        if mentions:
            ws.after.append(mention_tasks(mentions))
        if resolution.created:  # people the turn introduced: before the memories link them
            ws.before.extend(create_identities(r.tenant_id, resolution.created, self.episode.id))
        saved = dict(session)
        if resolution.state is not None:
            saved |= {
                "entity_tracker": dump_state(resolution.state),
                "entity_tracker_turn": resolution.state.turn,
                "entity_tracker_at": now(),
            }
        # Who the turn's names were taken to be is stored with the turn's session.
        ws.after.append(save_turn_session(r.session_id, saved, jobs, resolution.decisions))

    def _add_pairs(self, pairs: Iterable[SupersedeLink]) -> None:
        """Supersede links the write does not have yet."""
        known = {(p.old_id, p.new_id) for p in self.ws.pairs}
        self.ws.pairs.extend(p for p in pairs if (p.old_id, p.new_id) not in known)
