"""BM25 encoding: stable hashes, query vs document weighting, robustness on any text."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vectors.bm25 import Bm25Encoder, SparseTerms

ENCODER = Bm25Encoder()

# Indices are stored in every index on disk: if these change, all sparse vectors must be
# re-encoded, so an upgrade of qdrant-edge-py that changes them has to fail loudly here.
PINNED = {"peter": 1511894492, "run": 243905464, "men": 632192512, "man": 58746890}


def test_term_indices_are_pinned_and_shared_by_fresh_encoders() -> None:
    for word, index in PINNED.items():
        assert ENCODER.encode_query(word) == SparseTerms([index], [1.0])
    text = "Peter ran the migration; the migration ran late."
    assert Bm25Encoder().encode_document(text) == ENCODER.encode_document(text)


def test_lowercasing_stemming_and_stopwords() -> None:
    assert ENCODER.encode_query("RUNNING runs") == ENCODER.encode_query("run")
    assert ENCODER.encode_query("the and of it") == SparseTerms([], [])
    assert ENCODER.encode_document("") == SparseTerms([], [])


def test_query_weighs_each_term_once_and_document_by_frequency() -> None:
    query = ENCODER.encode_query("deploy deploy cluster")
    assert sorted(query.values) == [1.0, 1.0]

    doc = dict(zip(*ENCODER.encode_document("deploy deploy cluster"), strict=True))
    deploy, cluster = (ENCODER.encode_query(w).indices[0] for w in ("deploy", "cluster"))
    assert doc[deploy] > doc[cluster] > 0


def test_weights_follow_bm25_with_memory_sized_average_length() -> None:
    """tf * (k + 1) / (tf + k * (1 - b + b * len / avg_len)), k=1.2, b=0.75, avg_len=40."""
    words = [f"x{chr(97 + i // 26)}{chr(97 + i % 26)}" for i in range(40)]
    average = ENCODER.encode_document(" ".join(words))
    assert len(average.values) == 40
    assert average.values == pytest.approx([1.0] * 40)
    short = ENCODER.encode_document(" ".join(words[:10]))
    assert short.values == pytest.approx([2.2 / (1 + 1.2 * (0.25 + 0.75 * 10 / 40))] * 10)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=400))
def test_any_text_encodes_to_a_valid_sparse_vector(text: str) -> None:
    doc = ENCODER.encode_document(text)
    query = ENCODER.encode_query(text)

    assert len(doc.indices) == len(doc.values) == len(set(doc.indices))
    assert all(0 <= i < 2**32 for i in doc.indices)
    assert all(v > 0 and math.isfinite(v) for v in doc.values)
    assert set(query.indices) == set(doc.indices)
    assert all(v == 1.0 for v in query.values)
