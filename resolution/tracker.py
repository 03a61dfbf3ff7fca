"""Per-session entity tracker: who and what the conversation is about, turn by turn.

Each tracked entity has a salience and a scope:

- ``scene``: the setting (the user's company); sticky, decays slowly (``scene_decay``).
- ``topic``: what the current exchange is about; decays at ``topic_decay`` while unmentioned
  and is demoted to ``mention`` as soon as another entity becomes the topic.
- ``mention``: named in passing or a past topic; fades fast (``mention_decay``).

A mention sets salience to ``min(CAP, previous + 1)``. Pronouns resolve to the most salient
entity whose type fits the pronoun. The state is plain data (``TrackerState``) persisted as
JSON with the session, so a restart keeps the conversation's focus.

Seed example: "The company is Wolf of Blog Street … Peter is one of our writers" makes WOBS
the scene and Peter the topic; "What about his last batch?" resolves "his" to Peter; when
the talk moves to "the Anderson order", Peter is demoted and fades while WOBS stays.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping

from core.settings import ResolutionSettings
from core.types import EntityType
from resolution.types import TrackerState

CAP = 2.0
SCENE_PRONOUN_WEIGHT = 0.6
SCENE, TOPIC, MENTION = "scene", "topic", "mention"
FOCUSED = 0.5  # tracker salience at which an entity counts as "in the conversation's focus"


class EntityTracker:
    """Pure salience arithmetic over ``TrackerState``; persistence is the resolver's job."""

    def __init__(self, settings: ResolutionSettings) -> None:
        self._s = settings

    def _decay(self, scope: str) -> float:
        if scope == SCENE:
            return self._s.scene_decay
        return self._s.topic_decay if scope == TOPIC else self._s.mention_decay

    def step(
        self,
        state: TrackerState,
        mentioned: Iterable[str],
        scene_hints: Iterable[str] = (),
        types: Mapping[str, EntityType] | None = None,
    ) -> TrackerState:
        """Advance one turn: decay the unmentioned, raise the mentioned.

        ``scene_hints`` are entities the text sets as the scene ("The company is X"); an
        organisation mentioned while the session has no scene becomes the scene as well.
        """
        named = list(dict.fromkeys(mentioned))
        hints = set(scene_hints)
        types = types or {}
        salience = dict(state.salience)
        scope = dict(state.scope)
        has_scene = any(v == SCENE for v in scope.values())
        for ident in named:
            if ident in hints or (not has_scene and types.get(ident) is EntityType.ORG):
                scope[ident] = SCENE
                has_scene = True
        new_topic = any(scope.get(i) not in (SCENE, TOPIC) for i in named)
        for ident in list(salience):
            if ident in named:
                continue
            if new_topic and scope.get(ident) == TOPIC:
                scope[ident] = MENTION
            salience[ident] *= self._decay(scope.get(ident, MENTION))
        for ident in named:
            salience[ident] = min(CAP, state.salience.get(ident, 0.0) + 1.0)
            if scope.get(ident) != SCENE:
                scope[ident] = TOPIC
        return self._trim(TrackerState(salience=salience, scope=scope, turn=state.turn + 1))

    def touch(self, state: TrackerState, ident: str) -> None:
        """An entity was referred to by a pronoun this turn: it stays in focus."""
        state.salience[ident] = min(CAP, state.salience.get(ident, 0.0) + 1.0)
        if state.scope.get(ident) != SCENE:
            state.scope[ident] = TOPIC

    def pick(
        self,
        state: TrackerState,
        allowed: frozenset[EntityType] | None,
        types: Mapping[str, EntityType],
        exclude: Iterable[str] = (),
    ) -> str | None:
        """The most salient tracked entity whose type is in ``allowed`` (None: any).

        The scene is the backdrop, not what "it" or "he" usually points at: its salience
        counts at ``SCENE_PRONOUN_WEIGHT`` when ranking pronoun antecedents.
        """
        skip = set(exclude)

        def weight(item: tuple[str, float]) -> tuple[float, str]:
            factor = SCENE_PRONOUN_WEIGHT if state.scope.get(item[0]) == SCENE else 1.0
            return (-item[1] * factor, item[0])

        ranked = sorted(state.salience.items(), key=weight)
        for ident, value in ranked:
            etype = types.get(ident)
            if ident in skip or etype is None or value < self._s.salience_floor:
                continue
            if allowed is None or etype in allowed:
                return ident
        return None

    def _trim(self, state: TrackerState) -> TrackerState:
        keep = sorted(state.salience.items(), key=lambda kv: -kv[1])[: self._s.max_tracked]
        state.salience = {k: v for k, v in keep if v >= self._s.salience_floor}
        state.scope = {k: v for k, v in state.scope.items() if k in state.salience}
        return state


def dump_state(state: TrackerState) -> str:
    return json.dumps({"salience": state.salience, "scope": state.scope, "turn": state.turn})


def load_state(text: str | None) -> TrackerState:
    """Parse a stored state; a missing or unreadable one starts the session afresh."""
    if not text:
        return TrackerState()
    try:
        data = json.loads(text)
        return TrackerState(
            salience={str(k): float(v) for k, v in data.get("salience", {}).items()},
            scope={str(k): str(v) for k, v in data.get("scope", {}).items()},
            turn=int(data.get("turn", 0)),
        )
    except (ValueError, TypeError, AttributeError):
        return TrackerState()
