"""What resolution hands the rest of the service: a session's tracked entities and the
question asked instead of a guess.

Plain typed data. ``resolution/`` produces them; ``ingest/`` (a turn's result), ``retrieval/``
(a context's tracked entities and clarification) and the API pass them on. The resolver's
own working types (mentions, parses, tracker state) stay in ``resolution/types.py``.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.types import Entity


@dataclass(frozen=True)
class Clarification:
    """Returned instead of a guess when context cannot separate the candidates."""

    question: str  # "Which Peter?"
    mention: str
    candidates: tuple[Entity, ...]
    # One per candidate: what tells them apart ("Sarah, designer at Brightpath Media").
    descriptions: tuple[str, ...] = ()


@dataclass(frozen=True)
class TrackedEntity:
    """An entity's salience in a session after the latest turn."""

    entity: Entity
    salience: float
    scope: str = "mention"  # scene | topic | mention
