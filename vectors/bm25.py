"""BM25 sparse encoding of memory texts, shared by both vector backends.

The encoder is Qdrant Edge's own ``Bm25`` (lowercasing, English stopwords, Snowball stemming,
tokens hashed to 32-bit indices), so Edge and a Qdrant server index exactly the same terms.
Documents carry BM25 term-frequency weights; queries weigh each distinct term 1.0. IDF is not
in these vectors: the engine applies it at query time (sparse vector config with the IDF
modifier), so it always reflects the indexed corpus.

The indices are hashes stored on disk: a change of tokenizer, stemmer or hash means every
sparse vector must be re-encoded (``tests/unit/vectors/test_bm25.py`` pins a few of them).

Example::

    encoder = Bm25Encoder()
    indices, values = encoder.encode_document("Peter writes articles about Rust")
"""

from __future__ import annotations

from typing import NamedTuple

import qdrant_edge

# Memories are a sentence or a short paragraph, far shorter than the 256-token web documents
# the default assumes; a realistic average keeps length normalisation from favouring them all.
MEMORY_AVG_TOKENS = 40.0


class SparseTerms(NamedTuple):
    """A sparse vector as plain lists, ready for either backend's ``SparseVector``."""

    indices: list[int]
    values: list[float]


class Bm25Encoder:
    """Encode texts into BM25 sparse vectors (documents) and term sets (queries).

    Stateless and cheap to build; safe to share between threads.

    Args:
        avg_len: expected average document length in tokens, BM25's length-normalisation pivot.

    Raises:
        ValueError: for a non-positive ``avg_len``.
    """

    def __init__(self, avg_len: float = MEMORY_AVG_TOKENS) -> None:
        self._model = qdrant_edge.Bm25(qdrant_edge.Bm25Config(avg_len=avg_len))

    def encode_document(self, text: str) -> SparseTerms:
        """Term-frequency weights of ``text`` for indexing; empty when it has no terms."""
        return _terms(self._model.embed_document(text))

    def encode_query(self, text: str) -> SparseTerms:
        """Each distinct term of ``text`` weighted 1.0; empty when it has no terms."""
        return _terms(self._model.embed_query(text))


def _terms(vector: qdrant_edge.SparseVector) -> SparseTerms:
    return SparseTerms(list(vector.indices), list(vector.values))
