"""Choose the vector backend from the settings: the only place that knows both exist."""

from __future__ import annotations

from core.settings import Settings
from retrieval.edge_index import EdgeVectorIndex
from retrieval.qdrant_index import QdrantVectorIndex
from retrieval.vector_index import VectorIndex


def build_vector_index(settings: Settings, dimension: int) -> VectorIndex:
    """Qdrant Edge under ``settings.vector_dir`` when ``vector.url`` is "embedded", else a
    Qdrant server at ``vector.url``. Nothing is opened yet: call ``open()``.

    Args:
        settings: the service settings.
        dimension: the embedder's dimension, which the index is built for.
    """
    if settings.vector.embedded:
        return EdgeVectorIndex(settings.vector_dir, dimension, settings.vector)
    return QdrantVectorIndex(settings.vector, dimension)
