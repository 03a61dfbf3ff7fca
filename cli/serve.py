"""`brain serve`: claim the port, open the engines, optionally seed the demo tenant, run uvicorn.

Streams: log lines (JSON by default, uvicorn's own included) go to stdout, one object per line
for a collector; the start-up banner (URL, demo key, a curl line) goes to stderr, for the
person at the terminal.
"""

from __future__ import annotations

import asyncio
import errno
import json
import logging
import os
import socket
import sys
from pathlib import Path

import uvicorn

from api.app import create_app
from api.brain import Brain
from cli.demo import DEMO_TENANT, seed_demo
from cli.service_client import CLI_KEY_FILE, SERVICE_FILE
from core.clock import set_now, to_epoch
from core.errors import BrainError, Forbidden
from core.heap import freeze_startup_heap
from core.settings import Settings

log = logging.getLogger(__name__)

DEMO_KEY_NAME = "make run"
# The admin key `brain` commands use against this service (cli/service_client.py), and the
# tenant it belongs to (it acts for others with X-Brain-Tenant).
CLI_KEY_NAME = "brain cli"
CLI_KEY_TENANT = "cli"


class PortInUse(BrainError):
    """The API's port is taken; reported before the engines start (exit 1)."""

    code = "PORT_IN_USE"


def claim_port(host: str, port: int) -> socket.socket:
    """Bind the API's listening socket now, so a taken port fails in milliseconds instead of
    after the engines and models have loaded; uvicorn serves on this very socket."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP named, not 0: asyncio sets TCP_NODELAY only on connections whose socket
    # says so, and without it a keep-alive response's second write waited for the client's
    # delayed ACK (40 ms a request).
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as e:
        sock.close()
        if e.errno == errno.EADDRINUSE:
            raise PortInUse(
                f"port {port} on {host} is already in use (another `brain serve`?); "
                "stop it or choose another with --port / BRAIN_PORT"
            ) from e
        raise PortInUse(f"cannot listen on {host}:{port}: {e.strerror}") from e
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


async def serve(settings: Settings, demo: bool = False) -> int:
    sock = claim_port(settings.host, settings.port)
    if settings.clock_start is not None:  # a simulation: every "now" reads the moved clock
        set_now(to_epoch(settings.clock_start))
        log.warning("clock moved: the service's time starts at %s", settings.clock_start)
    try:
        brain = await Brain.open(settings)
    except BaseException:
        sock.close()
        raise
    try:
        await _cli_key(brain, settings)
        key = None
        if demo:
            await seed_demo(brain)
            key = await _demo_key(brain)
    except BaseException:
        sock.close()
        await brain.close()
        raise
    if settings.lifecycle.scheduler:
        brain.lifecycle.scheduler.start()  # stopped by brain.close() at shutdown
    log.info("start-up heap frozen (%d objects)", freeze_startup_heap())
    # From here uvicorn's lifespan owns the engines: on SIGINT/SIGTERM it stops accepting,
    # finishes in-flight requests, then closes the index, the model and the graph engine.
    app = create_app(settings, brain, owns_brain=True)
    config = uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        log_level=settings.log_level,
        log_config=None,  # uvicorn's loggers go through ours (JSON lines on stdout)
        lifespan="on",
    )
    server = uvicorn.Server(config)
    announce = asyncio.create_task(_announce(server, settings, key))
    try:
        await server.serve(sockets=[sock])
    finally:
        announce.cancel()
        _service_file(settings).unlink(missing_ok=True)
        sock.close()
    return 0


async def _demo_key(brain: Brain) -> str:
    """A fresh demo key; the ones earlier `--demo` runs made are revoked, not piled up."""
    for row in await brain.admin.api_keys():
        made_here = row["tenant_id"] == DEMO_TENANT and row.get("name") == DEMO_KEY_NAME
        if made_here and row.get("revoked_at") is None:
            await brain.admin.revoke_api_key(row["id"])
    _, key = await brain.admin.create_api_key(DEMO_TENANT, name=DEMO_KEY_NAME)
    return key


async def _cli_key(brain: Brain, settings: Settings) -> None:
    """Make sure the data directory holds a working admin key for `brain` commands (0600,
    readable by whoever may read the data itself); kept across restarts while it works."""
    path = settings.data_dir.resolve() / CLI_KEY_FILE
    if path.exists():
        try:
            await brain.admin.authenticate(f"Bearer {path.read_text().strip()}")
            return
        except Forbidden:
            pass  # revoked, or another database: make a new one
    _, key = await brain.admin.create_api_key(CLI_KEY_TENANT, name=CLI_KEY_NAME, admin=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(key + "\n")
    path.chmod(0o600)


def _service_file(settings: Settings) -> Path:
    return settings.data_dir.resolve() / SERVICE_FILE


async def _announce(server: uvicorn.Server, settings: Settings, key: str | None) -> None:
    while not server.started:
        await asyncio.sleep(0.05)
    url = f"http://{settings.host}:{settings.port}/graphql"
    _service_file(settings).write_text(json.dumps({"url": url, "pid": os.getpid()}))
    base = f"http://{settings.host}:{settings.port}"
    lines = [
        f"AI Brain is ready at {url} (GraphiQL: open it in a browser)",
        f"memory explorer: {base}/explore (open it in a browser; sign in with a key)",
    ]
    if key:
        query = (
            '{"query":"{ search(input: {query: \\"who writes for WOBS?\\"}) '
            '{ ... on SearchResults { hits { score memory { type content } } } } }"}'
        )
        lines += [
            f"demo tenant {DEMO_TENANT!r} API key: {key}",
            "try:",
            f"  curl -s {url} -H 'Authorization: Bearer {key}' \\",
            "    -H 'Content-Type: application/json' \\",
            f"    -d '{query}'",
        ]
    print("\n".join(lines), file=sys.stderr, flush=True)
