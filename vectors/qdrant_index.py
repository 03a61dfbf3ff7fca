"""The server backend: one collection on a Qdrant server through ``AsyncQdrantClient``.

Same layout as the Edge shard (named dense ``dense`` with cosine distance, sparse ``bm25``
with the IDF modifier, the payload indexes of ``vectors.vector_index``) and the same filter
semantics, both from ``vectors.vector_conditions``. Every write waits for the server to
apply it, so a search right after ``upsert`` sees the new points.

The client may be passed in: tests use ``AsyncQdrantClient(location=":memory:")``, the
client's local mode, which implements sparse IDF, prefetch and RRF but ignores payload
indexes (it warns once).

Example::

    index = QdrantVectorIndex(VectorSettings(url="http://qdrant:6333"), dimension=384)
    await index.open()
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any

from qdrant_client import AsyncQdrantClient, models

from core.errors import BackendError, BrainError
from core.settings import VectorSettings
from vectors.bm25 import Bm25Encoder, SparseTerms
from vectors.vector_conditions import (
    RRF_K,
    TENANT,
    Condition,
    HasIds,
    Match,
    MatchAnyOf,
    MatchOrMissing,
    Range,
    check_dense,
    check_payload_update,
    filter_conditions,
    ids_conditions,
    nearest,
    neighbor_queries,
    point_payload,
    tenant_conditions,
)
from vectors.vector_index import (
    DENSE,
    PAYLOAD_BOOLS,
    PAYLOAD_FLOATS,
    PAYLOAD_KEYWORDS,
    SPARSE,
    NeighborWindow,
    ScoredId,
    VectorFilter,
    VectorIndex,
    VectorPoint,
)

_SCROLL_PAGE = 1_000


class QdrantVectorIndex(VectorIndex):
    """``VectorIndex`` over the collection ``settings.collection`` of a Qdrant server.

    Args:
        settings: server URL, API key, collection name and HNSW parameters.
        dimension: size of the dense vectors (the embedder's dimension).
        client: an already-built client to use instead of connecting to ``settings.url``;
            it is closed by ``close`` all the same.

    Raises:
        BackendError: from any call when the server or driver fails, including ``open`` on
            a collection built with another dimension.
    """

    def __init__(
        self, settings: VectorSettings, dimension: int, client: AsyncQdrantClient | None = None
    ) -> None:
        self.dimension = dimension
        self._settings = settings
        self._name = settings.collection
        self._client = client
        self._bm25 = Bm25Encoder()

    async def open(self) -> None:
        async with self._errors("open"):
            client = self._connect()
            if not await client.collection_exists(self._name):
                await client.create_collection(
                    self._name,
                    vectors_config={
                        DENSE: models.VectorParams(
                            size=self.dimension, distance=models.Distance.COSINE
                        )
                    },
                    sparse_vectors_config={
                        SPARSE: models.SparseVectorParams(modifier=models.Modifier.IDF)
                    },
                    hnsw_config=models.HnswConfigDiff(
                        m=self._settings.hnsw_m, ef_construct=self._settings.hnsw_ef_construct
                    ),
                )
            info = await client.get_collection(self._name)
            self._check_layout(info)
            for field, schema in _payload_indexes().items():
                if field not in info.payload_schema:
                    await client.create_payload_index(self._name, field, schema, wait=True)

    async def close(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            async with self._errors("close"):
                await client.close()

    async def optimize(self) -> bool:
        return False  # the server runs its optimizers in the background

    async def compact(self) -> bool:
        return False  # the server's files are its operator's (docs/OPERATIONS.md: erase on servers)

    async def upsert(self, points: Sequence[VectorPoint]) -> None:
        batch = []
        for point in points:
            point_id, dense, payload = point_payload(point, self.dimension)
            sparse = _sparse(self._bm25.encode_document(point.text))
            vectors: dict[str, Any] = {DENSE: dense, SPARSE: sparse}
            batch.append(models.PointStruct(id=point_id, vector=vectors, payload=payload))
        if batch:
            async with self._errors("upsert"):
                await self._connect().upsert(self._name, batch, wait=True)

    async def set_payload(
        self, tenant_id: str, ids: Sequence[str], payload: Mapping[str, Any]
    ) -> None:
        update = check_payload_update(payload)
        where = _ids_filter(tenant_id, ids)
        if where is not None:
            async with self._errors("set_payload"):
                await self._connect().set_payload(self._name, update, points=where, wait=True)

    async def delete(self, tenant_id: str, ids: Sequence[str]) -> None:
        where = _ids_filter(tenant_id, ids)
        if where is not None:
            await self._delete(where)

    async def delete_by_filter(self, flt: VectorFilter) -> None:
        await self._delete(_filter(filter_conditions(flt)))

    async def dense_search(
        self, vector: Sequence[float], flt: VectorFilter, limit: int, payload: bool = True
    ) -> list[ScoredId]:
        where = _filter(filter_conditions(flt))
        dense = check_dense(vector, self.dimension)
        return await self._query(limit, where, dense, using=DENSE, payload=payload)

    async def keyword_search(
        self, text: str, flt: VectorFilter, limit: int, payload: bool = True
    ) -> list[ScoredId]:
        where = _filter(filter_conditions(flt))
        terms = self._bm25.encode_query(text)
        if not terms.indices:
            return []
        idf = _idf_params(flt.tenant_id)
        sparse = _sparse(terms)
        return await self._query(limit, where, sparse, using=SPARSE, params=idf, payload=payload)

    async def hybrid_search(
        self, vector: Sequence[float], text: str, flt: VectorFilter, limit: int, prefetch: int = 50
    ) -> list[ScoredId]:
        where = _filter(filter_conditions(flt))
        depth = max(prefetch, limit)
        dense = check_dense(vector, self.dimension)
        stages = [models.Prefetch(query=dense, using=DENSE, filter=where, limit=depth)]
        terms = self._bm25.encode_query(text)
        if terms.indices:
            idf = _idf_params(flt.tenant_id)
            stages.append(
                models.Prefetch(
                    query=_sparse(terms), using=SPARSE, filter=where, limit=depth, params=idf
                )
            )
        fusion = models.RrfQuery(rrf=models.Rrf(k=RRF_K))
        return await self._query(limit, where, fusion, prefetch=stages)

    async def neighbors(
        self, tenant_id: str, windows: Sequence[NeighborWindow]
    ) -> dict[str, tuple[str, ...]]:
        requests = [
            models.QueryRequest(
                query=models.OrderByQuery(
                    order_by=models.OrderBy(
                        key="created_at",
                        direction=models.Direction.DESC if desc else models.Direction.ASC,
                    )
                ),
                filter=_filter(conditions),
                limit=1,
                with_payload=False,
            )
            for conditions, desc in neighbor_queries(tenant_id, windows)
        ]
        if not requests:
            return {}
        async with self._errors("neighbors"):
            responses = await self._connect().query_batch_points(self._name, requests)
        return nearest(windows, [[str(p.id) for p in r.points] for r in responses])

    async def retrieve(self, tenant_id: str, ids: Sequence[str]) -> dict[str, Mapping[str, Any]]:
        where = _ids_filter(tenant_id, ids)
        if where is None:
            return {}
        records = await self._scroll(where, with_payload=True)
        return {str(record.id): record.payload or {} for record in records}

    async def vectors(self, tenant_id: str, ids: Sequence[str]) -> dict[str, list[float]]:
        where = _ids_filter(tenant_id, ids)
        if where is None:
            return {}
        out: dict[str, list[float]] = {}
        for record in await self._scroll(where, with_payload=False, with_vectors=[DENSE]):
            vector = record.vector
            dense = vector.get(DENSE) if isinstance(vector, dict) else vector
            if isinstance(dense, list) and dense and isinstance(dense[0], float):
                out[str(record.id)] = [float(x) for x in dense]
        return out

    async def all_ids(self, tenant_id: str | None = None) -> list[str]:
        where = _filter(tenant_conditions(tenant_id)) if tenant_id is not None else None
        return [str(record.id) for record in await self._scroll(where, with_payload=False)]

    async def count(self, tenant_id: str | None = None) -> int:
        where = _filter(tenant_conditions(tenant_id)) if tenant_id is not None else None
        async with self._errors("count"):
            result = await self._connect().count(self._name, count_filter=where, exact=True)
        return result.count

    def _connect(self) -> AsyncQdrantClient:
        if self._client is None:
            api_key = self._settings.api_key
            self._client = AsyncQdrantClient(
                url=self._settings.url,
                api_key=api_key.get_secret_value() if api_key is not None else None,
            )
        return self._client

    def _check_layout(self, info: models.CollectionInfo) -> None:
        vectors = info.config.params.vectors
        dense = vectors.get(DENSE) if isinstance(vectors, dict) else None
        sparse = (info.config.params.sparse_vectors or {}).get(SPARSE)
        if dense is None or sparse is None:
            raise BackendError(
                f"collection {self._name!r} lacks the {DENSE!r} or {SPARSE!r} vector: "
                "it was not created by this service"
            )
        if dense.size != self.dimension:
            raise BackendError(
                f"collection {self._name!r} holds {dense.size}-d vectors but the embedder "
                f"makes {self.dimension}-d ones: rebuild the index or use another collection"
            )

    async def _query(
        self,
        limit: int,
        where: models.Filter,
        query: Any,
        using: str | None = None,
        prefetch: list[models.Prefetch] | None = None,
        params: models.SearchParams | None = None,
        payload: bool = True,
    ) -> list[ScoredId]:
        if limit <= 0:
            return []
        async with self._errors("query"):
            response = await self._connect().query_points(
                self._name,
                query=query,
                using=using,
                prefetch=prefetch,
                query_filter=where,
                search_params=params,
                limit=limit,
                with_payload=payload,
            )
        return [ScoredId(str(p.id), p.score, p.payload or {}) for p in response.points]

    async def _scroll(
        self,
        where: models.Filter | None,
        with_payload: bool,
        with_vectors: bool | list[str] = False,
    ) -> list[models.Record]:
        records: list[models.Record] = []
        offset: models.ExtendedPointId | None = None
        async with self._errors("scroll"):
            while True:
                page, offset = await self._connect().scroll(
                    self._name,
                    scroll_filter=where,
                    limit=_SCROLL_PAGE,
                    offset=offset,
                    with_payload=with_payload,
                    with_vectors=with_vectors,
                )
                records.extend(page)
                if offset is None:
                    return records

    async def _delete(self, where: models.Filter) -> None:
        async with self._errors("delete"):
            await self._connect().delete(self._name, models.FilterSelector(filter=where), wait=True)

    @asynccontextmanager
    async def _errors(self, op: str) -> AsyncIterator[None]:
        try:
            yield
        except BrainError:
            raise
        except Exception as e:
            raise BackendError(f"qdrant {op} on {self._name!r} failed: {e}") from e


def _payload_indexes() -> dict[str, models.PayloadSchemaType | models.KeywordIndexParams]:
    schema: dict[str, models.PayloadSchemaType | models.KeywordIndexParams] = {
        TENANT: models.KeywordIndexParams(type=models.KeywordIndexType.KEYWORD, is_tenant=True)
    }
    schema.update({f: models.PayloadSchemaType.KEYWORD for f in PAYLOAD_KEYWORDS if f != TENANT})
    schema.update({f: models.PayloadSchemaType.FLOAT for f in PAYLOAD_FLOATS})
    schema.update({f: models.PayloadSchemaType.BOOL for f in PAYLOAD_BOOLS})
    return schema


def _filter(conditions: Sequence[Condition]) -> models.Filter:
    return models.Filter(must=[_condition(c) for c in conditions])


def _condition(condition: Condition) -> models.Condition:
    match condition:
        case Match(key, value):
            return models.FieldCondition(key=key, match=models.MatchValue(value=value))
        case MatchAnyOf(key, values):
            return models.FieldCondition(key=key, match=models.MatchAny(any=list(values)))
        case MatchOrMissing(key, value):
            either: list[models.Condition] = [
                models.FieldCondition(key=key, match=models.MatchValue(value=value)),
                models.IsEmptyCondition(is_empty=models.PayloadField(key=key)),
            ]
            return models.Filter(should=either)
        case Range(key, gte, gt, lte, lt):
            between = models.Range(gte=gte, gt=gt, lte=lte, lt=lt)
            return models.FieldCondition(key=key, range=between)
        case HasIds(ids):
            point_ids: list[models.ExtendedPointId] = list(ids)
            return models.HasIdCondition(has_id=point_ids)


def _ids_filter(tenant_id: str, ids: Sequence[str]) -> models.Filter | None:
    conditions = ids_conditions(tenant_id, ids)
    return _filter(conditions) if conditions is not None else None


def _idf_params(tenant_id: str) -> models.SearchParams:
    """IDF over this tenant's points only: other tenants never shape a tenant's scores."""
    corpus = _filter(tenant_conditions(tenant_id))
    return models.SearchParams(idf=models.IdfCorpusParams(corpus=corpus))


def _sparse(terms: SparseTerms) -> models.SparseVector:
    return models.SparseVector(indices=terms.indices, values=terms.values)
