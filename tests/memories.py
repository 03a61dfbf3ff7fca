"""A memory as the graph would hold it, for tests of code that reads memories (one place to
build them: the fields every memory needs, and the ones a test cares about)."""

from __future__ import annotations

from typing import Any

from core.clock import now
from core.ids import new_id
from core.text import content_hash
from core.types import Hit, Memory, MemoryType
from ingest.slots.analysis import statements


def a_memory(
    text: str,
    type: MemoryType = MemoryType.EPISODIC,
    at: float | None = None,
    **fields: Any,
) -> Memory:
    """A memory saying ``text``, created and valid from ``at`` (now by default), said by the
    user unless ``fields`` say otherwise."""
    when = now() if at is None else at
    return Memory(
        **{
            "id": new_id(),
            "tenant_id": "t",
            "source": "turn:user",
            **fields,
            "type": type,
            "content": text,
            "created_at": when,
            "valid_from": when,
            "content_hash": content_hash(text),
        }
    )


def said(nlp: Any, text: str, at: float, **fields: Any) -> Memory:
    """A turn saying ``text`` at ``at``, with the statements the write path stores for it:
    those that say a value (``ingest/turns.py``; ``nlp``: the spaCy pipeline)."""
    lines = tuple(s.dumps() for s in statements(nlp(text)) if s.values or s.negated or s.named)
    return a_memory(text, MemoryType.EPISODIC, at, statements=lines, **fields)


def ranked(*memories: Memory) -> list[Hit]:
    """Search hits for ``memories`` in this order, each scored a tenth below the one before."""
    return [Hit(memory=m, score=1.0 - k / 10) for k, m in enumerate(memories)]
