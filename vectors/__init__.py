"""The vector store: the ``VectorIndex`` interface and its two backends (Qdrant Edge embedded, a
Qdrant server), their filters and payloads, BM25 sparse terms, and text embedding (``embedding/``).

Beside ``graph/``, the other store; ``retrieval/`` (the read path) and the write path use it.
Nothing here imports ``retrieval/``, ``ingest/`` or ``resolution/``.
"""
