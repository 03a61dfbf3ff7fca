"""The embedding interface: memory texts (documents) and search texts (queries) into dense
vectors of a fixed ``dimension``.

The vector index is built for that dimension, so changing provider means rebuilding the
index. Implementations: ``vectors/embedding/local.py`` (the packaged model) and
``vectors/embedding/voyage.py``; ``vectors/factory.py`` picks one from the settings.

Example::

    embedder = build_embedder(settings.embedder)
    vectors = await embedder.embed_documents(["Peter writes articles"])
"""

from __future__ import annotations

from collections.abc import Sequence
from contextvars import ContextVar
from typing import Protocol

# Set in work nobody waits for (the job queue's workers, the lifecycle scheduler, background
# document jobs): an in-process model embeds their texts in a lane of its own, below requests,
# so a turn's or a search's text never waits behind a refresh of 64 entity profiles.
BACKGROUND: ContextVar[bool] = ContextVar("embedding_in_background", default=False)


def in_background() -> None:
    """Mark the current task's work as background (its embeddings yield to requests); a task
    created from it inherits the mark."""
    BACKGROUND.set(True)


class Embedder(Protocol):
    """Dense text embeddings of a fixed ``dimension``."""

    dimension: int

    async def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector per text, in order, for texts to be indexed."""

    async def embed_query(self, text: str) -> list[float]:
        """The vector of a search text (asymmetric models embed queries differently)."""

    async def close(self) -> None: ...
