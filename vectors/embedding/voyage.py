"""Voyage AI embeddings over HTTPS.

Voyage is called through its REST endpoint with ``httpx`` rather than the ``voyageai`` SDK:
the SDK keeps a process-wide aiohttp session that cannot be handed a transport, and its
retries cannot be bounded for a request path.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Sequence
from typing import Any, Literal

import httpx

from core.errors import BackendError, InvalidInput
from core.settings import EmbedderSettings
from vectors.embedding.embedder import Embedder
from vectors.embedding.query_cache import QueryCache

VOYAGE_EMBEDDINGS_URL = "https://api.voyageai.com/v1/embeddings"
_RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})


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
