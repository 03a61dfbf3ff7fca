"""The explorer's 3D layout: each memory's embedding projected to 3D by UMAP, stored on the
memory (``layout`` = [x, y, z]) so the view never computes it.

A tenant's first run (or one where the memories without a position outnumber those with one
``layout_refit_ratio`` times) fits UMAP on at most ``layout_fit_sample`` memories; every
other memory is then placed the way UMAP's ``transform`` starts a new point: at the
membership-weighted mean of its nearest fitted neighbours in embedding space. Later runs
only place the new memories, so old points never move in an incremental run. A refit is
aligned to the old positions (orthogonal Procrustes) and reports how far they moved.
Coordinates are scaled so the layout's 98th-percentile radius is ``RADIUS``.

The first fit in a process compiles UMAP's numba code (about 25-55 s on 2 cores, more when
they are busy); ``warm_up`` pays that on a handful of points, and later fits take seconds.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Mapping, Sequence

import numpy as np
from numpy.typing import NDArray

from graph.viz_ops import Point
from ingest.lifecycle.context import JobCall, JobContext, batches

Array = NDArray[np.float32]
RADIUS = 100.0
SMALL = 32  # fewer memories than this are laid out by PCA (UMAP needs a neighbourhood)
PLACE_NEIGHBORS = 8
SEED = 7


async def layout(ctx: JobContext, call: JobCall) -> dict[str, int]:
    tenant = call.tenant(ctx)
    clock = _Clock()
    state = await tenant.layout_state()
    placed = {i: p for i, p in state if p is not None}
    pending = [i for i, p in state if p is None]
    report = {"memories": len(state), "placed": 0, "fitted": 0, "moved_max_pct": 0}
    if not pending:
        return report
    settings = ctx.settings
    refit = len(pending) > settings.layout_refit_ratio * len(placed)
    known = await _vectors(ctx, call.tenant_id, [i for i, _ in state] if refit else pending)
    if not refit:  # new points are placed among a stable sample of the placed ones
        anchor_ids = sorted(placed)
        if len(anchor_ids) > settings.layout_fit_sample:
            anchor_ids = _stable_sample(anchor_ids, settings.layout_fit_sample)
        known |= await _vectors(ctx, call.tenant_id, anchor_ids)
    report["ms_read"] = clock.lap()
    if refit:
        positions, fitted, moved = await asyncio.to_thread(
            full_layout, known, placed, settings.layout_fit_sample, settings.layout_neighbors
        )
        report |= {"fitted": fitted, "moved_max_pct": round(moved * 100 / RADIUS)}
    else:
        anchors = {i: placed[i] for i in placed if i in known}
        todo = {i: known[i] for i in pending if i in known}
        positions = await asyncio.to_thread(place_new, todo, known, anchors)
    report["ms_compute"] = clock.lap()
    for chunk in batches(sorted(positions), settings.batch_size):
        report["placed"] += await tenant.save_layout({i: positions[i] for i in chunk})
    report["ms_save"] = clock.lap()
    ctx.say(f"{call.tenant_id}: layout placed {report['placed']} of {len(state)} memories")
    return report


class _Clock:
    """Milliseconds per phase, for the job's report."""

    def __init__(self) -> None:
        self._last = time.perf_counter()

    def lap(self) -> int:
        t = time.perf_counter()
        ms, self._last = round((t - self._last) * 1000), t
        return ms


async def _vectors(ctx: JobContext, tenant_id: str, ids: Sequence[str]) -> dict[str, Array]:
    """Embeddings from the vector index (a memory not indexed yet waits for the next run)."""
    found: dict[str, Array] = {}
    for chunk in batches(list(ids), 2_000):
        for i, v in (await ctx.index.vectors(tenant_id, chunk)).items():
            found[i] = np.asarray(v, dtype=np.float32)
    return found


def full_layout(
    vectors: Mapping[str, Array], old: Mapping[str, Point], sample: int, neighbors: int
) -> tuple[dict[str, Point], int, float]:
    """Fit on a stable sample (ids in order), place the rest; align to ``old``. Returns the
    positions, how many were fitted, and the largest move of an old point."""
    ids = sorted(vectors)
    fit_ids = ids if len(ids) <= sample else _stable_sample(ids, sample)
    fitted = project(np.stack([vectors[i] for i in fit_ids]), neighbors)
    positions = dict(zip(fit_ids, map(_point, fitted), strict=True))
    rest = {i: vectors[i] for i in ids if i not in positions}
    positions |= place_new(rest, {i: vectors[i] for i in fit_ids}, positions)
    aligned, moved = align(positions, old)
    return aligned, len(fit_ids), moved


def project(x: Array, neighbors: int) -> Array:
    """UMAP to 3D (cosine), scaled to ``RADIUS``; PCA for a handful of points."""
    if len(x) < SMALL:
        from sklearn.decomposition import PCA

        k = min(3, len(x))
        y = np.zeros((len(x), 3), dtype=np.float32)
        if len(x) > 1:
            y[:, :k] = PCA(n_components=k, random_state=SEED).fit_transform(x)[:, :k]
        return _scaled(y)
    import umap  # numba compiles on first import (tens of seconds cold): only when needed

    model = umap.UMAP(
        n_components=3,
        n_neighbors=min(neighbors, len(x) - 1),
        metric="cosine",
        n_epochs=200,  # UMAP's own choice above 10,000 points (500 below: slower, no clearer)
        n_jobs=1,
        random_state=SEED,  # reproducible; one thread (the unseeded parallel path compiled
        low_memory=True,  # for over a minute on 2 busy cores and was no faster after)
    )
    return _scaled(np.asarray(model.fit_transform(x), dtype=np.float32))


def warm_up() -> None:
    """Compile UMAP's code paths on random points (what the first real fit would pay)."""
    rng = np.random.default_rng(SEED)
    project(rng.normal(size=(SMALL * 2, 8)).astype(np.float32), 15)


def place_new(
    new: Mapping[str, Array], anchor_vectors: Mapping[str, Array], anchors: Mapping[str, Point]
) -> dict[str, Point]:
    """Each new memory at the weighted mean of its nearest anchors: UMAP's transform
    initialisation, with UMAP's membership weights over the cosine distances."""
    if not new:
        return {}
    if not anchors:
        return {i: (0.0, 0.0, 0.0) for i in new}
    a_ids = sorted(anchors)
    a = _unit(np.stack([anchor_vectors[i] for i in a_ids]))
    a_pos = np.asarray([anchors[i] for i in a_ids], dtype=np.float32)
    k = min(PLACE_NEIGHBORS, len(a_ids))
    out: dict[str, Point] = {}
    n_ids = sorted(new)
    for chunk in batches(n_ids, 1_000):
        q = _unit(np.stack([new[i] for i in chunk]))
        dist = 1.0 - q @ a.T
        idx = np.argpartition(dist, k - 1, axis=1)[:, :k]
        d = np.take_along_axis(dist, idx, axis=1)
        gap = d - d.min(axis=1, keepdims=True)
        w = np.exp(-gap / _sigmas(gap, k)[:, None])
        w /= w.sum(axis=1, keepdims=True)
        pos = np.einsum("nk,nkd->nd", w, a_pos[idx])
        out.update(zip(chunk, map(_point, pos), strict=True))
    return out


def _sigmas(gap: Array, k: int) -> Array:
    """UMAP's neighbourhood width (``smooth_knn_dist``): per row, the sigma for which the
    memberships exp(-gap / sigma) sum to log2(k), found by bisection."""
    target = math.log2(k) if k > 1 else 1.0
    lo = np.zeros(len(gap))
    hi = np.full(len(gap), np.inf)
    mid = np.ones(len(gap))
    for _ in range(48):
        total = np.exp(-gap / mid[:, None]).sum(axis=1)
        wide = total > target
        hi = np.where(wide, mid, hi)
        lo = np.where(wide, lo, mid)
        mid = np.where(np.isinf(hi), mid * 2, (lo + hi) / 2)
    sigmas: Array = np.maximum(mid, 1e-6).astype(np.float32)
    return sigmas


def align(new: dict[str, Point], old: Mapping[str, Point]) -> tuple[dict[str, Point], float]:
    """Rotate and shift ``new`` onto ``old`` where they share points; the largest move."""
    common = sorted(set(new) & set(old))
    if len(common) < 3:
        return new, 0.0
    from scipy.linalg import orthogonal_procrustes

    a = np.asarray([new[i] for i in common])
    b = np.asarray([old[i] for i in common])
    rotation, _ = orthogonal_procrustes(a - a.mean(0), b - b.mean(0))
    ids = sorted(new)
    moved = (np.asarray([new[i] for i in ids]) - a.mean(0)) @ rotation + b.mean(0)
    aligned = dict(zip(ids, map(_point, moved), strict=True))
    shift = np.linalg.norm(np.asarray([aligned[i] for i in common]) - b, axis=1)
    return aligned, float(shift.max())


def _stable_sample(ids: list[str], size: int) -> list[str]:
    step = len(ids) / size
    return [ids[int(j * step)] for j in range(size)]


def _scaled(y: Array) -> Array:
    y = y - y.mean(axis=0)
    r = float(np.percentile(np.linalg.norm(y, axis=1), 98)) if len(y) else 0.0
    return (y * (RADIUS / r) if r > 0 else y).astype(np.float32)


def _unit(x: Array) -> Array:
    norms = np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-9)
    unit: Array = (x / norms).astype(np.float32)
    return unit


def _point(p: Sequence[float] | Array) -> Point:
    return (round(float(p[0]), 3), round(float(p[1]), 3), round(float(p[2]), 3))
