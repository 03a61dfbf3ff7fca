"""Supervision of the embedded graph engine: notice its exit at once, restart it with backoff.

The engine is a child process (``graph/launcher.py``). If it dies (killed, out of memory, a
crash), nothing else tells the service: the driver retries each transaction for 30 s and the
dead child stays a zombie. The supervisor watches the child's exit itself (a pidfd the event
loop polls, so the exit is seen the moment it happens, not after a timeout), then:

1. marks the store unavailable: every graph call fails at once with ``EngineUnavailable``
   (``/healthz`` answers 503) and the calls waiting on the dead engine are cut short;
2. restarts the engine after a backoff (``graph.restart_backoff`` seconds, doubled for each
   exit within ``graph.restart_reset`` seconds of the last restart, at most
   ``graph.restart_backoff_max``), waits for it without blocking the loop, reconnects the
   store and marks it available;
3. calls ``on_restart`` (the service reconciles graph and vectors there: writes cut short by
   the exit are finished by the reconciler, as after any crash).

Each exit and restart is logged and counted (``exits``, ``restarts``; the API exports them).
Nothing acknowledged is lost: a write is acknowledged after the engine committed it, and the
engine's write-ahead log keeps a commit across a kill.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
import time
from collections.abc import Awaitable, Callable

from core.settings import GraphSettings
from graph.launcher import ROOT_USER, EmbeddedGraphEngine
from graph.store import GraphStore

log = logging.getLogger(__name__)

# Told about each event: "exit" (the engine died), "restart" (it is back), "failed" (a
# restart attempt failed; another follows).
Listener = Callable[[str], None]


class EngineSupervisor:
    """Watches one embedded engine for ``store``; ``start`` on the event loop's thread."""

    def __init__(
        self,
        engine: EmbeddedGraphEngine,
        store: GraphStore,
        settings: GraphSettings,
        on_restart: Callable[[], Awaitable[object]] | None = None,
    ) -> None:
        self.engine = engine
        self.store = store
        self.settings = settings
        self.on_restart = on_restart
        self.listeners: list[Listener] = []
        self.exits = 0
        self.restarts = 0
        self.last_exit: str | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pidfd: int | None = None
        self._restarting: asyncio.Task[None] | None = None
        self._last_restart = 0.0
        self._backoff = settings.restart_backoff
        self._stopped = False

    @property
    def restarting(self) -> bool:
        return self._restarting is not None and not self._restarting.done()

    def start(self) -> None:
        """Watch the running engine's process."""
        self._loop = asyncio.get_running_loop()
        self._stopped = False
        self._watch()

    async def stop(self) -> None:
        """Stop watching (before a deliberate shutdown of the engine) and cancel a restart."""
        self._stopped = True
        self._unwatch()
        task, self._restarting = self._restarting, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    # -- watching ------------------------------------------------------------------------------

    def _watch(self) -> None:
        proc = self.engine.process
        assert proc is not None and self._loop is not None
        try:
            self._pidfd = os.pidfd_open(proc.pid)
        except (AttributeError, OSError):  # no pidfd (old kernel): a thread waits instead
            thread = threading.Thread(target=self._wait_in_thread, args=(proc.pid,), daemon=True)
            thread.start()
            return
        self._loop.add_reader(self._pidfd, self._exited, proc.pid)

    def _unwatch(self) -> None:
        if self._pidfd is not None and self._loop is not None:
            self._loop.remove_reader(self._pidfd)
            os.close(self._pidfd)
            self._pidfd = None

    def _wait_in_thread(self, pid: int) -> None:
        proc = self.engine.process
        if proc is None or proc.pid != pid:
            return
        proc.wait()
        if self._loop is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._exited, pid)

    def _exited(self, pid: int) -> None:
        """The engine's process ended (runs on the loop's thread)."""
        self._unwatch()
        proc = self.engine.process
        if self._stopped or proc is None or proc.pid != pid:
            return  # a deliberate stop, or an older process
        code = proc.poll()  # reaps it: no zombie
        self.exits += 1
        self.last_exit = f"engine process {pid} exited with code {code}"
        self.store.mark_unavailable(f"{self.last_exit}; restarting")
        log.error(
            "graph engine exited (code %s); requests fail fast until it is restarted\n%s",
            code,
            self.engine.log_tail(10),
        )
        self._tell("exit")
        self._restarting = asyncio.get_running_loop().create_task(
            self._restart(), name="graph-engine-restart"
        )

    # -- restarting ----------------------------------------------------------------------------

    async def _restart(self) -> None:
        if time.monotonic() - self._last_restart > self.settings.restart_reset:
            self._backoff = self.settings.restart_backoff  # it ran long enough: start over
        while not self._stopped:
            await asyncio.sleep(self._backoff)
            self._backoff = min(self._backoff * 2, self.settings.restart_backoff_max)
            started = time.monotonic()
            try:
                info = await self.engine.restart()
                await self.store.reconnect(
                    info.uri, ROOT_USER, info.password, self.settings.pool_size
                )
            except Exception as e:  # the engine did not come up: try again after a longer wait
                log.error("graph engine restart failed; next try in %.1f s: %s", self._backoff, e)
                self.store.mark_unavailable(f"{self.last_exit}; restart failed, retrying")
                self._tell("failed")
                continue
            self.restarts += 1
            self._last_restart = time.monotonic()
            self.store.mark_available()
            self._watch()
            log.warning(
                "graph engine restarted (restart %d, pid %d, %.1f s)",
                self.restarts,
                info.pid,
                time.monotonic() - started,
            )
            self._tell("restart")
            if self.on_restart is not None:
                try:
                    await self.on_restart()
                except Exception:  # the scheduled reconcile catches up later
                    log.exception("after the graph engine restart: the follow-up failed")
            return

    def _tell(self, event: str) -> None:
        for listener in self.listeners:
            listener(event)
