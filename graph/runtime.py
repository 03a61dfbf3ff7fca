"""Open the graph configured in settings: the embedded ArcadeDB child process or a server."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from core.settings import Settings
from graph.launcher import ROOT_USER, EmbeddedGraphEngine, attach_info
from graph.store import GraphStore
from graph.supervisor import EngineSupervisor


@dataclass
class GraphRuntime:
    store: GraphStore
    engine: EmbeddedGraphEngine | None = None
    supervisor: EngineSupervisor | None = None  # when this process runs the engine

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
