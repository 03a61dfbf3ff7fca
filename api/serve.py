"""`brain serve`: open the engines, optionally seed the demo tenant, run uvicorn."""

from __future__ import annotations

import asyncio
import logging

import uvicorn

from api.app import create_app
from api.auth import create_key
from api.brain import Brain
from api.demo import DEMO_TENANT, seed_demo
from core.clock import set_now, to_epoch
from core.heap import freeze_startup_heap
from core.settings import Settings

log = logging.getLogger(__name__)


async def serve(settings: Settings, demo: bool = False) -> int:
    if settings.clock_start is not None:  # a simulation: every "now" reads the moved clock
        set_now(to_epoch(settings.clock_start))
        log.warning("clock moved: the service's time starts at %s", settings.clock_start)
    brain = await Brain.open(settings)
    try:
        key = None
        if demo:
            await seed_demo(brain)
            _, key = await create_key(brain.graph, DEMO_TENANT, name="make run")
    except BaseException:
        await brain.close()
        raise
    if settings.lifecycle.scheduler:
        brain.lifecycle.scheduler.start()  # stopped by brain.close() at shutdown
    log.info("start-up heap frozen (%d objects)", freeze_startup_heap())
    # From here uvicorn's lifespan owns the engines: on SIGINT/SIGTERM it stops accepting,
    # finishes in-flight requests, then closes the index, the model and the graph engine.
    app = create_app(settings, brain, owns_brain=True)
    config = uvicorn.Config(
        app, host=settings.host, port=settings.port, log_level=settings.log_level, lifespan="on"
    )
    server = uvicorn.Server(config)
    announce = asyncio.create_task(_announce(server, settings, key))
    try:
        await server.serve()
    finally:
        announce.cancel()
    return 0


async def _announce(server: uvicorn.Server, settings: Settings, key: str | None) -> None:
    while not server.started:
        await asyncio.sleep(0.05)
    url = f"http://{settings.host}:{settings.port}/graphql"
    lines = [f"AI Brain is ready at {url} (GraphiQL: open it in a browser)"]
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
    print("\n".join(lines), flush=True)
