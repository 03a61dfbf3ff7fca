"""Erased data off the disk: the embedded engines' files compacted after an erase, at a clean
shutdown, and on demand (``brain compact``), then read back to check.

What each engine allows (measured on this machine's versions; docs/OPERATIONS.md "Erase and
the disk"):

- Qdrant Edge keeps a deleted point's payload in its segment pages and the upsert in its
  write-ahead log; only rewriting the shard from the live points removes them
  (``EdgeVectorIndex.compact``), which an erase does at once.
- ArcadeDB keeps the old bytes of deleted and rewritten records in its pages until
  ``CHECK DATABASE COMPRESS`` (run at once, online), and a deleted key in its LSM index
  pages beside the tombstone until the index is rebuilt. ``REBUILD INDEX`` fails on indexes
  created through Cypher (their properties are not in the SQL schema) and leaves them
  dropped, so the indexes are dropped and created again through Cypher instead — which
  lifts uniqueness for a moment, so it runs only when nothing writes: at the next clean
  shutdown (or start-up, after a crash) and in ``brain compact``. The transaction log files
  go at a clean shutdown.

The erase report says what the scan found meanwhile (``DiskCheck``).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from pathlib import Path

from core.disk_scan import Needles, scan
from core.errors import BackendError
from core.settings import Settings
from core.types import DiskCheck
from graph.runtime import GraphRuntime, IndexRebuild
from vectors.vector_index import VectorIndex

log = logging.getLogger(__name__)

PENDING = "index-purge.pending"  # in the graph directory: an index rebuild is owed
WAITING = (
    "the graph engine's files keep erased bytes (index pages and transaction logs, and record "
    "pages when their compaction met concurrent writes) until the next clean shutdown (or "
    "`brain compact`) compacts them and rebuilds the indexes"
)


@dataclass(frozen=True)
class Compaction:
    """What ``brain compact`` did and checked. ``verified``: every step ran and no index file
    from before the rebuild is left (each kept deleted keys beside their tombstones; the
    rebuilt ones hold the live records' keys only); the erased values themselves are not
    known here, so no file is scanned for them (an erase's report does that). Disk space is
    the engines' directories' before and after (allocated bytes: the engines preallocate
    sparse files)."""

    vectors_compacted: bool
    graph_compacted: bool
    indexes_rebuilt: int
    index_files_replaced: int
    old_index_files_left: tuple[str, ...]
    purge_owed: bool  # ``index-purge.pending`` is still there: the next start or stop retries
    verified: bool
    error: str | None
    bytes_before: int
    bytes_after: int


class DiskPurge:
    """Compaction of the embedded engines for one ``Brain`` (a no-op on servers)."""

    def __init__(self, settings: Settings, index: VectorIndex, runtime: GraphRuntime | None):
        self.settings = settings
        self.index = index
        self.runtime = runtime
        self._lock = asyncio.Lock()  # one compaction at a time

    @property
    def roots(self) -> list[Path]:
        """The directories of the engines this process runs (their files are ours to read)."""
        roots = [self.settings.vector_dir] if self.settings.vector.embedded else []
        graph = self.runtime.data_dir if self.runtime is not None else None
        return [*roots, *([graph] if graph is not None else [])]

    async def after_erase(self, needles: Needles) -> DiskCheck:
        """Compact what can be compacted while serving, then look for ``needles``. A failed
        compaction is reported in ``pending``, never raised: the erase itself is done, and
        the graph's part is owed to the next clean shutdown either way."""
        if not self.settings.compact_on_erase:
            return DiskCheck(pending="compaction after erase is off: run `brain compact`")
        async with self._lock:
            vectors = graph = False
            failed: list[str] = []
            try:
                vectors = await self.index.compact()
            except BackendError as e:
                log.exception("vector compaction after an erase failed")
                failed.append(f"vector compaction failed ({e.message}): run `brain compact`")
            if self.runtime is not None and self.runtime.data_dir is not None:
                self._owe_index_rebuild()
                try:
                    graph = await self.runtime.compact()
                except BackendError as e:  # e.g. write conflicts under load: shutdown does it
                    log.warning("graph compaction after an erase failed: %s", e.message)
            found = await asyncio.to_thread(scan, self.roots, needles)
        traces = tuple(f"{t.path}: {', '.join(t.values)}" for t in found.traces)
        if any(t.path.startswith("graph/") for t in found.traces):
            failed.append(WAITING)
        return DiskCheck(
            scanned=bool(self.roots),
            files=found.files,
            vectors_compacted=vectors,
            graph_compacted=graph,
            traces=traces,
            pending="; ".join(failed) or _servers(self.settings),
        )

    async def settle(self) -> bool:
        """Compact the graph's record pages and rebuild its indexes if an erase left that
        owed; True if it did and no old index file is left. Call only while nothing writes
        (start-up before serving, shutdown after serving). A failure leaves it owed: the next
        start-up or shutdown tries again from where the files are."""
        if self.runtime is None or not self._owed().exists():
            return False
        async with self._lock:
            try:
                await self.runtime.compact()
                rebuild = await self.runtime.rebuild_indexes()
            except BackendError:
                log.exception("graph compaction owed by an erase failed; retried at next start")
                return False
            if rebuild.files_left:
                log.error(
                    "the index rebuild left old index files, retried at next start: %s",
                    ", ".join(rebuild.files_left),
                )
                return False
            self._owed().unlink(missing_ok=True)
        log.info(
            "graph compacted and %d indexes rebuilt (%d index files replaced): erased bytes "
            "purged from its files",
            rebuild.rebuilt,
            rebuild.files_before,
        )
        return True

    async def compact(self) -> Compaction:
        """Everything at once (``brain compact``: the data directory is this process's).
        A step that fails is reported in ``error`` (never raised) and leaves the purge owed."""
        before = _size(self.roots)
        vectors = graph = False
        rebuild = IndexRebuild(0, 0, ())
        error = None
        async with self._lock:
            try:
                vectors = await self.index.compact()
                if self.runtime is not None:
                    graph = await self.runtime.compact()
                    rebuild = await self.runtime.rebuild_indexes()
            except BackendError as e:
                log.exception("compaction failed")
                error = e.message
            verified = error is None and not rebuild.files_left
            if verified:
                self._owed().unlink(missing_ok=True)
        return Compaction(
            vectors_compacted=vectors,
            graph_compacted=graph,
            indexes_rebuilt=rebuild.rebuilt,
            index_files_replaced=rebuild.files_before - len(rebuild.files_left),
            old_index_files_left=rebuild.files_left,
            purge_owed=self._owed().exists(),
            verified=verified,
            error=error,
            bytes_before=before,
            bytes_after=_size(self.roots),
        )

    def _owed(self) -> Path:
        root = self.runtime.data_dir if self.runtime is not None else None
        return (root or self.settings.graph_dir) / PENDING

    def _owe_index_rebuild(self) -> None:
        self._owed().touch()


def _servers(settings: Settings) -> str | None:
    if settings.graph.embedded and settings.vector.embedded:
        return None
    return "a server engine's files are its operator's: see docs/OPERATIONS.md (erase on servers)"


def _size(roots: list[Path]) -> int:
    return sum(p.stat().st_blocks * 512 for root in roots for p in root.rglob("*") if p.is_file())
