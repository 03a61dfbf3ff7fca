"""Micro-batching for an in-process model: texts asked for while the model is busy are
encoded together in the next batch (one forward pass costs little more for a few short texts
than for one), in a worker thread, never on the event loop."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from concurrent.futures import Executor


class Batcher:
    """Runs ``encode`` in a worker thread over every text asked for meanwhile.

    The first caller starts a batch at once; texts that arrive while it runs wait and go
    together in the next one, so a lone request pays nothing and concurrent ones share
    forward passes.
    """

    def __init__(
        self,
        encode: Callable[[list[str]], list[list[float]]],
        executor: Executor | None = None,
    ) -> None:
        """``executor``: where ``encode`` runs (default: the event loop's)."""
        self._encode = encode
        self._executor = executor
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
        loop = asyncio.get_running_loop()
        while self._pending:
            batch, self._pending = self._pending, []
            try:
                texts = [t for t, _ in batch]
                vectors = await loop.run_in_executor(self._executor, self._encode, texts)
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
