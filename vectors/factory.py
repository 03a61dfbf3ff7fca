"""Choose the vector backend and the embedder from the settings: the only place that knows
which implementations exist."""

from __future__ import annotations

from core.settings import EmbedderSettings, Settings
from vectors.edge_index import EdgeVectorIndex
from vectors.embedding.embedder import Embedder
from vectors.embedding.local import LocalEmbedder
from vectors.embedding.voyage import VoyageEmbedder
from vectors.qdrant_index import QdrantVectorIndex
from vectors.vector_index import VectorIndex


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


def build_embedder(settings: EmbedderSettings) -> Embedder:
    """The embedder ``settings.provider`` names; no model is loaded yet."""
    if settings.provider == "voyage":
        return VoyageEmbedder(settings)
    return LocalEmbedder(settings)
