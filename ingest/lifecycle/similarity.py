"""Pairwise cosine similarity over stored vectors, in blocks (no n x n matrix in memory)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import numpy.typing as npt

from ingest.lifecycle.context import JobContext, batches

Matrix = npt.NDArray[np.float32]
_BLOCK = 1024
_FETCH = 2000  # ids per vector fetch


async def fetch_vectors(ctx: JobContext, tenant_id: str, ids: Sequence[str]) -> dict[str, Matrix]:
    """Unit-length dense vectors of the memories that have a point."""
    out: dict[str, Matrix] = {}
    for chunk in batches(list(ids), _FETCH):
        for memory_id, vector in (await ctx.index.vectors(tenant_id, chunk)).items():
            v = np.asarray(vector, dtype=np.float32)
            norm = float(np.linalg.norm(v))
            if norm > 0:
                out[memory_id] = v / norm
    return out


def matrix(ids: Sequence[str], vectors: Mapping[str, Matrix]) -> Matrix:
    return np.stack([vectors[i] for i in ids]).astype(np.float32)


def similar_pairs(m: Matrix, threshold: float) -> list[tuple[int, int, float]]:
    """Index pairs (i < j) whose cosine is at least ``threshold``, most similar first."""
    pairs: list[tuple[int, int, float]] = []
    n = m.shape[0]
    for start in range(0, n, _BLOCK):
        block = m[start : start + _BLOCK] @ m.T
        rows, cols = np.nonzero(block >= threshold)
        for r, c in zip(rows.tolist(), cols.tolist(), strict=True):
            i = start + r
            if c > i:
                pairs.append((i, c, float(block[r, c])))
    pairs.sort(key=lambda p: -p[2])
    return pairs
