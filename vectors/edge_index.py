"""The embedded backend: a Qdrant Edge shard in a directory of the data dir.

Edge runs in-process and its calls block. A search (``query``, ``query_batch``) holds the GIL
for its whole run (py-spy ``--gil``: a thread running searches held it in 599 of 600 samples),
so a worker thread would buy no parallelism, only two thread hand-offs per call: searches run
on the caller's thread. Writes, scans, reads by id and counts run in a worker thread. Writes
are serialised by an asyncio lock (one writer at a time keeps the WAL order equal to the call
order); reads run concurrently with writes, which the engine allows.
Every update goes through the shard's write-ahead log, so it is durable when ``upsert``
returns; ``close`` flushes segments so the next ``open`` need not replay the log.

Edge never optimizes on its own: new points stay in appendable segments, searched by brute
force over the tenant's points. That is fast for small tenants (about 2 ms for a hybrid search
in a tenant of 2,500 points) but grows with the tenant (about 10 ms at 20,000, against 1.5 ms
once optimized). ``optimize()`` builds the HNSW graph, but see its caveat.

Deleting a point only marks it deleted: its payload stays in the segment's pages and the
upsert that wrote it stays in the write-ahead log (whose open file is reused, never truncated,
while the shard lives). ``compact()`` is the only way to make a deleted point's bytes leave
the disk: it writes the live points into a fresh shard beside this one and swaps directories.

Example::

    index = EdgeVectorIndex(settings.vector_dir, 384, settings.vector)
    await index.open()
    hits = await index.hybrid_search(vector, "deadline", VectorFilter(tenant_id="t1"), 10)
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import qdrant_edge as qe

from core.errors import BackendError, BrainError
from core.settings import VectorSettings
from vectors.bm25 import Bm25Encoder
from vectors.edge_conditions import (
    edge_filter,
    idf_params,
    ids_filter,
    payload_indexes,
    sparse_vector,
)
from vectors.payload_cache import PayloadCache
from vectors.vector_conditions import (
    RRF_K,
    TENANT,
    canonical_ids,
    check_dense,
    check_payload_update,
    filter_conditions,
    nearest,
    neighbor_queries,
    point_payload,
    tenant_conditions,
)
from vectors.vector_index import (
    DENSE,
    SPARSE,
    NeighborWindow,
    ScoredId,
    VectorFilter,
    VectorIndex,
    VectorPoint,
)

T = TypeVar("T")

_CONFIG_FILE = "edge_config.json"  # written by EdgeShard.create: its presence means "load"
_SCROLL_PAGE = 1_000
_FULL_SCAN_KB = 10_000  # Qdrant's default: below this many KB of vectors, search is exact
_NEW, _OLD = ".new", ".old"  # compact(): the shard being written, the shard being retired


class EdgeVectorIndex(VectorIndex):
    """``VectorIndex`` over a Qdrant Edge shard at ``path`` (created on first ``open``).

    Args:
        path: shard directory; only one process may open it at a time.
        dimension: size of the dense vectors (the embedder's dimension).
        settings: HNSW parameters.

    Raises:
        BackendError: from any call when the engine fails, including ``open`` on a shard
            built with another dimension, or any call before ``open``.
    """

    def __init__(self, path: Path, dimension: int, settings: VectorSettings) -> None:
        self.dimension = dimension
        self._path = path
        self._settings = settings
        self._bm25 = Bm25Encoder()
        self._shard: qe.EdgeShard | None = None
        self._write_lock = asyncio.Lock()
        self._readers = 0  # reads running in worker threads (compact waits for them)
        self._open_gate = asyncio.Event()  # cleared while compact swaps the shard
        self._open_gate.set()
        self.payloads = PayloadCache(settings.payload_cache)

    async def open(self) -> None:
        async with self._write_lock:
            if self._shard is None:
                self._shard = await self._run("open", self._open_shard)

    async def close(self) -> None:
        async with self._write_lock:
            shard, self._shard = self._shard, None
            self.payloads.drop(None)
            if shard is not None:
                await self._run("close", _flush_and_close, shard)

    async def optimize(self) -> bool:
        """Merge segments and build the HNSW / payload indexes; True if anything changed.

        Unlike every other Edge call, this one holds the GIL for its whole run (seconds per
        10,000 points): the process, event loop included, stalls until it ends. Call it only
        where that pause is acceptable, e.g. at start-up before serving.
        """
        return await self._write("optimize", lambda shard: shard.optimize())

    async def compact(self) -> bool:
        """Rewrite the shard from its live points, so nothing of a deleted point stays on
        disk (segments and write-ahead log alike); always True.

        Writes wait meanwhile (about 3 s per 20,000 points on 2 cores); reads go on against
        the old shard until the swap, which waits for running reads and holds new ones for
        the moment it takes to close one shard and open the other. The new shard is not
        optimized (searches are exact until the next start-up optimizes it). A crash before
        the swap leaves the old shard in place; one during it is finished by ``open``.
        """
        async with self._write_lock:
            shard = self._open_shard_or_fail()
            fresh = self._path.with_name(self._path.name + _NEW)
            await self._run("compact", self._copy_live, shard, fresh)
            self._open_gate.clear()
            try:
                while self._readers:
                    await asyncio.sleep(0.005)
                self._shard = None
                await self._run("compact", _swap, shard, self._path, fresh)
                self._shard = await self._run("open", self._open_shard)
            finally:
                self._open_gate.set()
        return True

    def _copy_live(self, shard: qe.EdgeShard, target: Path) -> None:
        """Every point of ``shard`` (vectors and payload) into a new shard at ``target``."""
        shutil.rmtree(target, ignore_errors=True)
        fresh = self._create_shard(target)
        try:
            offset: qe.PointId | None = None
            while True:
                request = qe.ScrollRequest(
                    offset=offset, limit=_SCROLL_PAGE, with_payload=True, with_vector=True
                )
                page, offset = shard.scroll(request)
                points = [qe.Point(r.id, r.vector or {}, r.payload or {}) for r in page]
                if points:
                    fresh.update(qe.UpdateOperation.upsert_points(points))
                if offset is None:
                    break
            fresh.flush()
        finally:
            fresh.close()

    async def upsert(self, points: Sequence[VectorPoint]) -> None:
        prepared = [(*point_payload(p, self.dimension), p.text) for p in points]
        if not prepared:
            return

        def upsert(shard: qe.EdgeShard) -> None:
            batch = [
                qe.Point(point_id, self._vectors(dense, text), payload)
                for point_id, dense, payload, text in prepared
            ]
            shard.update(qe.UpdateOperation.upsert_points(batch))

        try:
            await self._write("upsert", upsert)
        finally:
            self.payloads.drop(canonical_ids(p.id for p in points))

    async def set_payload(
        self, tenant_id: str, ids: Sequence[str], payload: Mapping[str, Any]
    ) -> None:
        update = check_payload_update(payload)
        where = ids_filter(tenant_id, ids)
        if where is not None:
            operation = qe.UpdateOperation.set_payload_by_filter(where, update)
            try:
                await self._write("set_payload", lambda shard: shard.update(operation))
            finally:
                self.payloads.drop(canonical_ids(ids))

    async def delete(self, tenant_id: str, ids: Sequence[str]) -> None:
        where = ids_filter(tenant_id, ids)
        if where is not None:
            try:
                await self._delete(where)
            finally:
                self.payloads.drop(canonical_ids(ids))

    async def delete_by_filter(self, flt: VectorFilter) -> None:
        try:
            await self._delete(edge_filter(filter_conditions(flt)))
        finally:
            self.payloads.drop(None)

    async def dense_search(
        self, vector: Sequence[float], flt: VectorFilter, limit: int, payload: bool = True
    ) -> list[ScoredId]:
        where = edge_filter(filter_conditions(flt))
        query = qe.Query.Nearest(check_dense(vector, self.dimension), using=DENSE)
        return await self._query(limit, where, query, payload=payload)

    async def keyword_search(
        self, text: str, flt: VectorFilter, limit: int, payload: bool = True
    ) -> list[ScoredId]:
        where = edge_filter(filter_conditions(flt))
        terms = self._bm25.encode_query(text)
        if not terms.indices:
            return []
        query = qe.Query.Nearest(sparse_vector(terms), using=SPARSE)
        idf = idf_params(flt.tenant_id)
        return await self._query(limit, where, query, params=idf, payload=payload)

    async def hybrid_search(
        self, vector: Sequence[float], text: str, flt: VectorFilter, limit: int, prefetch: int = 50
    ) -> list[ScoredId]:
        where = edge_filter(filter_conditions(flt))
        depth = max(prefetch, limit)
        dense = qe.Query.Nearest(check_dense(vector, self.dimension), using=DENSE)
        stages = [qe.Prefetch(depth, query=dense, filter=where)]
        terms = self._bm25.encode_query(text)
        if terms.indices:
            sparse = qe.Query.Nearest(sparse_vector(terms), using=SPARSE)
            idf = idf_params(flt.tenant_id)
            stages.append(qe.Prefetch(depth, query=sparse, filter=where, params=idf))
        # The stub types ``query`` as the Fusion class; Fusion.Rrf is its nested variant.
        fusion: Any = qe.Fusion.Rrf(k=RRF_K)
        return await self._query(limit, where, fusion, prefetches=stages)

    async def neighbors(
        self, tenant_id: str, windows: Sequence[NeighborWindow]
    ) -> dict[str, tuple[str, ...]]:
        requests = [
            qe.QueryRequest(
                1,
                query=qe.OrderBy("created_at", qe.Direction.Desc if desc else qe.Direction.Asc),
                filter=edge_filter(conditions),
                with_payload=False,
            )
            for conditions, desc in neighbor_queries(tenant_id, windows)
        ]
        if not requests:
            return {}
        batch = qe.QueryBatchRequest(requests)
        results = await self._search("neighbors", lambda shard: shard.query_batch(batch))
        return nearest(windows, [[str(p.id) for p in points] for points in results])

    async def retrieve(self, tenant_id: str, ids: Sequence[str]) -> dict[str, Mapping[str, Any]]:
        found: dict[str, Mapping[str, Any]] = {}
        for point_id in ids:
            cached = self.payloads.get(point_id)
            if cached is not None and cached.get(TENANT) == tenant_id:
                found[point_id] = cached
        where = ids_filter(tenant_id, [i for i in ids if i not in found])
        if where is None:
            return found
        generation = self.payloads.generation
        records = await self._read("retrieve", lambda shard: _scroll(shard, where, True))
        read = {str(record.id): record.payload or {} for record in records}
        found.update(self.payloads.store(generation, read))
        return found

    async def vectors(self, tenant_id: str, ids: Sequence[str]) -> dict[str, list[float]]:
        where = ids_filter(tenant_id, ids)
        if where is None:
            return {}
        records = await self._read(
            "vectors", lambda shard: _scroll(shard, where, False, with_vector=True)
        )
        return {str(r.id): list(_dense_of(r.vector)) for r in records if r.vector}

    async def all_ids(self, tenant_id: str | None = None) -> list[str]:
        where = edge_filter(tenant_conditions(tenant_id)) if tenant_id is not None else None
        records = await self._read("scroll", lambda shard: _scroll(shard, where, False))
        return [str(record.id) for record in records]

    async def count(self, tenant_id: str | None = None) -> int:
        where = edge_filter(tenant_conditions(tenant_id)) if tenant_id is not None else None
        request = qe.CountRequest(exact=True, filter=where)
        return await self._read("count", lambda shard: shard.count(request))

    def _open_shard(self) -> qe.EdgeShard:
        _finish_swap(self._path)
        if (self._path / _CONFIG_FILE).exists():
            return self._with_indexes(qe.EdgeShard.load(str(self._path), self._config()))
        return self._create_shard(self._path)

    def _create_shard(self, path: Path) -> qe.EdgeShard:
        path.mkdir(parents=True, exist_ok=True)
        return self._with_indexes(qe.EdgeShard.create(str(path), self._config()))

    def _config(self) -> qe.EdgeConfig:
        hnsw = qe.HnswIndexConfig(
            m=self._settings.hnsw_m,
            ef_construct=self._settings.hnsw_ef_construct,
            full_scan_threshold=_FULL_SCAN_KB,
        )
        return qe.EdgeConfig(
            vectors={DENSE: qe.EdgeVectorParams(size=self.dimension, distance=qe.Distance.Cosine)},
            sparse_vectors={SPARSE: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)},
            hnsw_config=hnsw,
        )

    @staticmethod
    def _with_indexes(shard: qe.EdgeShard) -> qe.EdgeShard:
        """``shard`` with the payload indexes created that it lacks."""
        try:
            indexed = shard.info().payload_schema
            for field, schema in payload_indexes().items():
                if field not in indexed:
                    shard.update(qe.UpdateOperation.create_field_index(field, schema))
        except BaseException:
            shard.close()
            raise
        return shard

    def _vectors(self, dense: list[float], text: str) -> dict[str, qe.NamedVector]:
        return {DENSE: dense, SPARSE: sparse_vector(self._bm25.encode_document(text))}

    async def _query(
        self,
        limit: int,
        where: qe.Filter,
        query: qe.ScoringQueryType,
        prefetches: list[qe.Prefetch] | None = None,
        params: qe.SearchParams | None = None,
        payload: bool = True,
    ) -> list[ScoredId]:
        if limit <= 0:
            return []
        # Ids and scores only when the cache has held most of what searches returned lately:
        # the payloads come from it, and those it lacks are read in the same call.
        cached = payload and self.payloads.use
        request = qe.QueryRequest(
            limit,
            query=query,
            prefetches=prefetches,
            filter=where,
            params=params,
            with_payload=payload and not cached,
        )
        if not payload:
            points = await self._search("query", lambda shard: shard.query(request))
            return [ScoredId(str(p.id), p.score, {}) for p in points]
        generation = self.payloads.generation
        rows, read = await self._search(
            "query", lambda shard: self._query_payloads(shard, request, cached)
        )
        stored = self.payloads.store(generation, read)
        out: list[ScoredId] = []
        for point_id, score, known in rows:
            data = known if known is not None else stored.get(point_id)
            if data is not None:  # None: deleted between the search and the payload read
                out.append(ScoredId(point_id, score, data))
        return out

    def _query_payloads(
        self, shard: qe.EdgeShard, request: qe.QueryRequest, cached: bool
    ) -> tuple[list[tuple[str, float, Mapping[str, Any] | None]], dict[str, Mapping[str, Any]]]:
        """Each point found with its cached payload (None if not taken from the cache), and
        the payloads read from the shard: those the cache lacked, or all when not ``cached``."""
        rows: list[tuple[str, float, Mapping[str, Any] | None]] = []
        read: dict[str, Mapping[str, Any]] = {}
        missing: list[qe.PointId] = []
        hits = 0
        for point in shard.query(request):
            point_id = str(point.id)
            known = self.payloads.get(point_id)
            hits += known is not None
            if not cached:
                rows.append((point_id, point.score, None))
                read[point_id] = point.payload or {}
                continue
            rows.append((point_id, point.score, known))
            if known is None:
                missing.append(point.id)
        self.payloads.seen(hits, len(rows))
        if missing:
            read.update({str(r.id): r.payload or {} for r in shard.retrieve(missing, True, False)})
        return rows, read

    async def _delete(self, where: qe.Filter) -> None:
        operation = qe.UpdateOperation.delete_points_by_filter(where)
        await self._write("delete", lambda shard: shard.update(operation))

    async def _read(self, op: str, call: Callable[[qe.EdgeShard], T]) -> T:
        if not self._open_gate.is_set():
            await self._open_gate.wait()
        self._readers += 1
        try:
            return await self._run(op, call, self._open_shard_or_fail())
        finally:
            self._readers -= 1

    async def _search(self, op: str, call: Callable[[qe.EdgeShard], T]) -> T:
        """A short read on the caller's thread (it holds the GIL throughout anyway)."""
        if not self._open_gate.is_set():
            await self._open_gate.wait()
        return _mapped(self._path, op, call, self._open_shard_or_fail())

    async def _write(self, op: str, call: Callable[[qe.EdgeShard], T]) -> T:
        async with self._write_lock:
            return await self._run(op, call, self._open_shard_or_fail())

    def _open_shard_or_fail(self) -> qe.EdgeShard:
        if self._shard is None:
            raise BackendError(f"edge vector index at {self._path} is not open")
        return self._shard

    async def _run(self, op: str, call: Callable[..., T], *args: Any) -> T:
        return await asyncio.to_thread(_mapped, self._path, op, call, *args)


def _mapped(path: Path, op: str, call: Callable[..., T], *args: Any) -> T:
    """``call(*args)``, its engine errors raised as BackendError."""
    try:
        return call(*args)
    except BrainError:
        raise
    except Exception as e:
        raise BackendError(f"qdrant edge {op} failed at {path}: {e}") from e


def _scroll(
    shard: qe.EdgeShard, where: qe.Filter | None, payload: bool, with_vector: bool = False
) -> list[qe.Record]:
    records: list[qe.Record] = []
    offset: qe.PointId | None = None
    while True:
        request = qe.ScrollRequest(
            offset=offset,
            limit=_SCROLL_PAGE,
            filter=where,
            with_payload=payload,
            with_vector=[DENSE] if with_vector else False,
        )
        page, offset = shard.scroll(request)
        records.extend(page)
        if offset is None:
            return records


def _dense_of(vector: Any) -> Sequence[float]:
    """The dense part of a record's vectors (a dict of named vectors)."""
    if isinstance(vector, dict):
        dense = vector.get(DENSE)
        return dense if isinstance(dense, list) else []
    return vector if isinstance(vector, list) else []


def _swap(shard: qe.EdgeShard, path: Path, fresh: Path) -> None:
    """Close ``shard`` (at ``path``; nothing to flush: it is retired) and put the shard at
    ``fresh`` in its place."""
    shard.close()
    retired = path.with_name(path.name + _OLD)
    shutil.rmtree(retired, ignore_errors=True)
    path.rename(retired)
    fresh.rename(path)
    shutil.rmtree(retired)


def _finish_swap(path: Path) -> None:
    """Complete or undo a ``compact`` a crash interrupted. A new shard is renamed into place
    only once complete, so one without the shard in place is complete; one beside the shard
    is not (it is dropped, as is a retired shard, which holds what the compaction removed)."""
    fresh = path.with_name(path.name + _NEW)
    if not path.exists() and (fresh / _CONFIG_FILE).exists():
        fresh.rename(path)
    shutil.rmtree(fresh, ignore_errors=True)
    shutil.rmtree(path.with_name(path.name + _OLD), ignore_errors=True)


def _flush_and_close(shard: qe.EdgeShard) -> None:
    try:
        shard.flush()
    finally:
        shard.close()
