"""A procedure's parameter changed in conversation: "the approval limit is £2,000 now, not
£1,500", "use 325g water from now on" make a new version of the user's current procedure
with that amount replaced (the old version superseded). Its candidates come from one keyword
query of the procedural memories per changing statement; the parameter is the amount the
statement says is no longer so, else the procedure's only amount of the new value's unit said
of the same thing."""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Sequence

from core.statements import EVENT, MODAL, SLOTTED, Statement, Value, amounts, unit_of
from core.types import Memory, MemoryType, NewMemory
from graph.tenant import TenantGraph
from ingest.write.slots import CANDIDATES, query_of
from retrieval.vector_index import VectorFilter, VectorIndex

log = logging.getLogger(__name__)


class ProcedureChanges:
    """Plans the new versions of procedures a user turn's statements change."""

    def __init__(self, index: VectorIndex) -> None:
        self.index = index

    async def plan(
        self, tenant: TenantGraph, episode: Memory, said: Sequence[Statement]
    ) -> list[tuple[Memory, NewMemory, str]]:
        """New versions of the user's current procedures whose parameter a statement
        changes ("the approval limit is £2,000 now, not £1,500"): (old, new, reason). The
        parameter is the one the statement says is no longer so; else the procedure's only
        amount of the new value's unit, when the statement and the procedure share a word
        ("approval", "approve")."""
        changing = [  # "the kickoff call should happen within 3 working days now": a rule;
            s for s in said  # "had two no-shows so we're asking for 30% going forward"
            if (s.mood in (*SLOTTED, MODAL) or s.mood == EVENT and s.change)
            and (s.change or s.correction) and amounts(s.text)
        ]  # fmt: skip
        if not changing:
            return []
        flt = VectorFilter(
            tenant_id=episode.tenant_id,
            user_scope=episode.user_id,
            types=[MemoryType.PROCEDURAL.value],
            live_at=episode.created_at,
        )
        queries = {f"{query_of(s)} {' '.join(v.text for v in s.values)}".strip() for s in changing}
        try:
            found = await asyncio.gather(
                *(self.index.keyword_search(q, flt, CANDIDATES, payload=False) for q in queries)
            )
        except Exception:
            log.exception("procedure candidates: keyword search failed")
            return []
        ids = list(dict.fromkeys(h.id for r in found for h in r))
        procedures = [
            m for m in (await tenant.get_memories(ids)).values()
            if m.is_current and m.type is MemoryType.PROCEDURAL
        ]  # fmt: skip
        out: list[tuple[Memory, NewMemory, str]] = []
        done: set[str] = set()
        for statement in changing:
            for procedure in procedures:
                if procedure.id in done:
                    continue
                change = _parameter(statement, procedure)
                if change is None:
                    continue
                old, new = change
                done.add(procedure.id)
                out.append((procedure, _new_version(procedure, episode, old, new), (
                    f"parameter changed: {old.text} to {new.text}"
                )))  # fmt: skip
        return out


def _parameter(statement: Statement, procedure: Memory) -> tuple[Value, Value] | None:
    """The procedure's amount the statement changes, and its new value."""
    said = amounts(statement.text)
    negated = [a for a in said for v in statement.negated if v.start - statement.start <= a.start
               < v.end - statement.start]  # fmt: skip
    fresh = [a for a in said if a not in negated]
    if not fresh:
        return None
    held = amounts(procedure.content)
    if negated:
        olds = [h for h in held for n in negated if h.norm == n.norm]
    else:
        olds = [h for h in held if h.kind == fresh[0].kind and unit_of(h) == unit_of(fresh[0])]
        if len(olds) > 1:  # "350g water" among 500g flour and 10g salt: the one said of water
            olds = _said_of(statement.text, fresh[0], procedure.content, olds)
        if len(olds) != 1 or not _shares_stem(statement.words, procedure.content):
            return None
    if not olds:
        return None
    old = olds[0]
    new = next((a for a in fresh if a.kind == old.kind and unit_of(a) == unit_of(old)), None)
    if new is None or new.norm == old.norm:
        return None
    return old, new


def _said_of(text: str, new: Value, procedure: str, olds: list[Value]) -> list[Value]:
    """The procedure's amounts said of what ``new`` is said of: the word right after it
    ("325g *water*"), else the two words on each side."""
    for width in (1, 2):
        near = _around(text, new, width)
        found = [h for h in olds if _around(procedure, h, width) & near]
        if len(found) == 1:
            return found
    return []


def _around(text: str, value: Value, width: int) -> set[str]:
    """The first five letters of the words next to an amount: the one after it (``width``
    1), or two on each side."""
    after = re.findall(r"[a-z]{3,}", text[value.end :].lower())[:width]
    before = re.findall(r"[a-z]{3,}", text[: value.start].lower())[-2:] if width > 1 else []
    return {w[:5] for w in [*before, *after]} - {"the", "and", "for", "with", "from", "now"}


def _shares_stem(words: frozenset[str], text: str) -> bool:
    """Whether a frame word and a word of ``text`` share their first five letters
    ("approval", "approve")."""
    stems = {w[:5] for w in words if len(w) >= 4}
    return any(w[:5] in stems for w in re.findall(r"[a-z]{4,}", text.lower()))


def _new_version(procedure: Memory, episode: Memory, old: Value, new: Value) -> NewMemory:
    content = procedure.content[: old.start] + new.text + procedure.content[old.end :]
    steps = [step.replace(old.text, new.text, 1) for step in procedure.steps]
    return NewMemory(
        content=content,
        type=MemoryType.PROCEDURAL,
        user_id=procedure.user_id,
        project_id=procedure.project_id,
        session_id=episode.session_id,
        importance=procedure.importance,
        created_at=episode.created_at,
        valid_from=episode.created_at,
        source=f"rule:procedure:{episode.id}",
        entity_ids=list(procedure.entity_ids),
        subject=procedure.subject,
        predicate=procedure.predicate,
        object=" | ".join(steps) if steps else procedure.object,
        confidence=procedure.confidence,
        trigger=procedure.trigger,
        steps=steps,
    )
