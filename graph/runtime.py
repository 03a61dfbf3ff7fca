"""Open the graph configured in settings: the embedded ArcadeDB child process or a server."""

from __future__ import annotations

import asyncio
import urllib.error
from dataclasses import dataclass
from pathlib import Path

from core.errors import BackendError
from core.settings import Settings
from graph.launcher import ROOT_USER, EmbeddedGraphEngine, attach_info
from graph.store import GraphStore
from graph.supervisor import EngineSupervisor


@dataclass(frozen=True)
class IndexRebuild:
    """What ``GraphRuntime.rebuild_indexes`` did: indexes dropped and built again, index files
    on disk before, and those of them still there afterwards (none when it worked)."""

    rebuilt: int
    files_before: int
    files_left: tuple[str, ...]


# ArcadeDB's index files: LSM-tree pages (``.umtidx`` unique, ``.numtidx`` not; ``c`` for the
# compacted forms), the only files that keep a deleted record's key after compaction.
_INDEX_SUFFIXES = (".umtidx", ".numtidx", ".uctidx", ".nctidx")


def _index_files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.name.endswith(_INDEX_SUFFIXES)}


@dataclass
class GraphRuntime:
    store: GraphStore
    engine: EmbeddedGraphEngine | None = None
    supervisor: EngineSupervisor | None = None  # when this process runs the engine

    @property
    def data_dir(self) -> Path | None:
        """The embedded engine's directory (None for a server, whose files are not ours)."""
        return self.engine.root if self.engine is not None else None

    async def compact(self) -> bool:
        """Compact the embedded engine's record pages (its ``CHECK DATABASE COMPRESS``);
        False on a server. Index pages are left to ``rebuild_indexes``.

        Raises BackendError when the engine refuses or cannot be reached.
        """
        if self.engine is None:
            return False
        for wait in (0.2, 0.5, None):
            try:
                await asyncio.to_thread(self.engine.compress)
                break
            except urllib.error.HTTPError as e:
                # 503: a write conflict (ConcurrentModificationException) with a concurrent
                # transaction; under a steady write load it may keep losing (then the
                # caller leaves it to a moment without writers).
                if e.code != 503 or wait is None:
                    raise BackendError(f"graph compaction failed: {e}") from e
                await asyncio.sleep(wait)
            except (urllib.error.URLError, OSError, ValueError) as e:
                raise BackendError(f"graph compaction failed: {e}") from e
        return True

    async def rebuild_indexes(self) -> IndexRebuild:
        """Rebuild every index of the embedded engine from the live records
        (``GraphStore.rebuild_indexes``: only while nothing else writes), and check that no
        index file from before is left: each one holds the keys of deleted records beside
        their tombstones. Nothing to do on a server (its files are not ours).

        Raises BackendError when the engine refuses a step (the schema is whole again).
        """
        if self.engine is None:
            return IndexRebuild(0, 0, ())
        before = _index_files(self.engine.root)
        dropped = await self.store.rebuild_indexes()
        left = tuple(sorted(before & _index_files(self.engine.root)))
        return IndexRebuild(dropped, len(before), left)

    async def close(self) -> None:
        if self.supervisor is not None:
            await self.supervisor.stop()  # a deliberate stop is not an exit to restart from
        await self.store.close()
        if self.engine is not None:
            await asyncio.to_thread(self.engine.stop)


async def open_graph(settings: Settings, *, attach: bool = False) -> GraphRuntime:
    """Connect to the configured graph and install the schema.

    With the embedded engine, ``attach=True`` reuses an engine another process already runs on
    the same data directory (so ``brain keys create`` works while ``brain serve`` runs).
    """
    cfg = settings.graph
    if not cfg.embedded:
        store = await GraphStore.connect(
            cfg.uri, cfg.user, cfg.password.get_secret_value(), cfg.database, cfg.pool_size
        )
        await store.install_schema()
        return GraphRuntime(store)
    root = settings.graph_dir.resolve()
    info = attach_info(root) if attach else None
    engine = None
    if info is None:
        engine = EmbeddedGraphEngine(root, cfg)
        # Started from this thread on purpose: the engine is tied to the thread that forks it
        # (PR_SET_PDEATHSIG), and a worker thread may exit before we do.
        info = engine.start()
    try:
        store = await GraphStore.connect(
            info.uri, ROOT_USER, info.password, cfg.database, cfg.pool_size
        )
        await store.install_schema()
    except BaseException:
        if engine is not None:
            await asyncio.to_thread(engine.stop)
        raise
    if engine is None:
        return GraphRuntime(store)
    supervisor = EngineSupervisor(engine, store, cfg)
    supervisor.start()
    return GraphRuntime(store, engine, supervisor)
