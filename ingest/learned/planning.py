"""What a turn's learned core items (``recognise``) do to core memory, planned against the
tenant's learned items in core now (``graph/core_ops.py``):

- an item someone removed from core (``unpinCore``) and says again is not pinned again;
- an item already in core, said again, adds nothing;
- a new item is a pinned memory, one line (the sentence as said, after its speaker's name when
  the turn has one), sourced (``learned:<kind>:<turn id>``), scoped to the user when it is
  about them (their name, role, rules) and to the turn's project when it is the business's;
- it supersedes the items it replaces, in its scope: one with the same single slot (the
  business's name, the user's name or role), a project naming one of the same nouns, a rule
  of the same topic or words, a line of what the business does when said as a change, and
  any item whose sentence the slot planner found replaced (``ingest/write/slots.py``);
- past a kind's cap (``CAPS``) in a scope, its oldest items leave core (they stay memories):
  core is small by construction, whatever a conversation says.
"""

from __future__ import annotations

import asyncio
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from core.ids import new_id
from core.statements import statement_id
from core.types import LEARNED, DecayClass, Memory, MemoryType, NewMemory
from graph.core_ops import LearnedCore, user_pinned_key
from graph.tenant import TenantGraph
from graph.write_ops import SupersedeLink
from ingest.learned.common import BUSINESS, PROJECT, RULE, SELF, Learned
from ingest.learned.standing import TOPIC_RULE

# Lines of one kind in core at most, per scope (business: its name and three lines of what it
# does; self: a name and a role). About 25 tokens a line: the whole is within the core
# layer's 600 tokens.
CAPS = {BUSINESS: 4, SELF: 2, PROJECT: 5, RULE: 10}
IMPORTANCE = {BUSINESS: 0.9, SELF: 0.9, PROJECT: 0.8, RULE: 0.85}


@dataclass
class CoreWrite:
    """What a turn adds to its write: new pinned memories (with their ids and graph
    properties; a rule's id is the id of the preference the turn makes, which is pinned
    instead: ``pinned_rule``), supersede links, and ids that leave core past a cap."""

    memories: list[tuple[str, NewMemory, dict[str, Any]]] = field(default_factory=list)
    pairs: list[SupersedeLink] = field(default_factory=list)
    unpinned: list[str] = field(default_factory=list)


def pinned_rule(episode: Memory) -> dict[str, Any]:
    """What a preference the rules made of a turn becomes as a core rule."""
    return {
        "pinned": True,
        "decay_class": DecayClass.NONE,
        "importance": IMPORTANCE[RULE],
        "source": f"{LEARNED}:{RULE}:{episode.id}",
    }


class CorePlanner:
    """Plans a turn's learned core items (see the module docstring)."""

    async def plan(
        self,
        tenant: TenantGraph,
        episode: Memory,
        items: Sequence[Learned],
        mentions: Sequence[tuple[int, int, str]],
        replaced: Collection[str],
        preferences: Mapping[int, str],
        at: float,
    ) -> CoreWrite:
        """``episode`` is the user's turn; ``mentions`` its resolved names (start, end,
        entity id); ``replaced`` the statement ids the slot planner found replaced;
        ``preferences`` the preferences the rules make of the turn (sentence start → memory
        id): a rule is that memory, pinned (``pinned_rule``), not a copy of it."""
        out = CoreWrite()
        if not items:
            return out
        scopes = [_scope(item, episode) for item in items]
        keys = [f"{scope}|{item.key}" for item, scope in zip(items, scopes, strict=True)]
        current, dismissed = await asyncio.gather(
            tenant.learned_core(at, episode.user_id), tenant.dismissed_core(keys)
        )
        live = list(current)
        fresh: set[str] = set()
        for item, scope, key in zip(items, scopes, keys, strict=True):
            if key in dismissed or any(c.key == key for c in live):
                continue
            memory_id = new_id()
            if item.kind == RULE:
                memory_id = next(
                    (m for a, m in preferences.items() if item.start <= a < item.end), memory_id
                )
            old = [c for c in live if c.scope == scope and _replaces(item, c, replaced)]
            source_statement = statement_id(episode.id, item.start)
            out.memories.append(
                (
                    memory_id,
                    _memory(item, episode, mentions, at),
                    {
                        "core_slot": item.slot,
                        "core_key": key,
                        "core_scope": scope,
                        "core_from": source_statement,
                        # a user's own line is found by their key (``pinned_keys``)
                        "pinned_key": (
                            user_pinned_key(episode.tenant_id, episode.user_id)
                            if item.personal and episode.user_id
                            else None
                        ),
                    },
                )
            )
            out.pairs += [SupersedeLink(c.id, memory_id, f"core: {item.slot}") for c in old]
            live = [c for c in live if c not in old]
            live.append(LearnedCore(memory_id, item.slot, key, scope, source_statement, at))
            fresh.add(memory_id)
        out.unpinned = _over_cap(live, fresh)
        return out


def _scope(item: Learned, episode: Memory) -> str:
    """Whose an item is: the user (and speaker) for their name, role and rules; the tenant's
    project for the business and its projects."""
    if item.personal:
        return f"user:{episode.user_id or ''}:{episode.turn_speaker or ''}"
    return f"project:{episode.project_id or ''}"


def _kind(slot: str) -> str:
    return slot.split(":", 1)[0]


def _replaces(item: Learned, old: LearnedCore, replaced: Collection[str]) -> bool:
    if _kind(old.slot) != item.kind:
        return False
    if old.source_statement is not None and old.source_statement in replaced:
        return True  # the slot planner found the sentence it came from replaced
    if item.single or item.slot.startswith(TOPIC_RULE):
        return old.slot == item.slot
    if item.kind == PROJECT:
        return bool(_stems(item.slot) & _stems(old.slot))
    # "answer in American English from now on", "we now do ...": said as a change of what
    # the rule, or what we do, was; said without one, it is one more rule or trade
    return item.change and old.slot == item.slot


def _stems(slot: str) -> set[str]:
    return set(slot.split(":", 1)[1].split())


def _memory(
    item: Learned, episode: Memory, mentions: Sequence[tuple[int, int, str]], at: float
) -> NewMemory:
    said = f"{episode.turn_speaker}: {item.text}" if episode.turn_speaker else item.text
    about = [e for a, b, e in mentions if item.start <= a and b <= item.end]
    return NewMemory(
        content=said,
        type=MemoryType.PREFERENCE if item.kind == RULE else MemoryType.SEMANTIC,
        user_id=episode.user_id if item.personal else None,
        project_id=episode.project_id,
        session_id=episode.session_id,
        importance=IMPORTANCE[item.kind],
        decay_class=DecayClass.NONE,
        pinned=True,
        created_at=at,
        valid_from=at,
        source=f"{LEARNED}:{item.kind}:{episode.id}",
        entity_ids=list(dict.fromkeys(about)),
    )


def _over_cap(live: Sequence[LearnedCore], fresh: Collection[str]) -> list[str]:
    """The oldest items of each kind and scope past the kind's cap (never this turn's)."""
    groups: dict[tuple[str, str], list[LearnedCore]] = {}
    for c in live:
        groups.setdefault((_kind(c.slot), c.scope), []).append(c)
    out: list[str] = []
    for (kind, _), group in groups.items():
        over = len(group) - CAPS.get(kind, 0)
        if over > 0:
            older = sorted((c for c in group if c.id not in fresh), key=lambda c: c.created_at)
            out += [c.id for c in older[:over]]
    return out
