"""The browser pages `brain serve` serves: `/explore` (the memory explorer), GraphiQL on
`GET /graphql`, and their bundled assets under `/assets/`.

They are static files bundled from npm packages by `make install` (web/, `npm run build`),
so a browser fetches nothing from the internet: the GraphiQL page strawberry ships loads
its scripts from a CDN and is a blank page offline. The pages carry no key; the user pastes
one and it stays in the tab's sessionStorage.
"""

from __future__ import annotations

from pathlib import Path

from starlette.requests import Request
from starlette.responses import FileResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from core.settings import ApiSettings

WEB_DIST = Path(__file__).resolve().parent.parent / "web" / "dist"
NOT_BUILT = "the explorer is not built: run `make install` (it runs `npm run build` in web/)\n"
# The pages may only run their own bundled scripts and talk to this origin.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; worker-src 'self' blob:"
)


def web_dir(settings: ApiSettings) -> Path:
    return settings.web_dir or WEB_DIST


def wants_page(request: Request) -> bool:
    """A browser navigating to /graphql (not a client sending a GET query)."""
    return "text/html" in request.headers.get("accept", "") and "query" not in request.query_params


def page(directory: Path, name: str) -> Response:
    path = directory / name
    if not path.is_file():
        return PlainTextResponse(NOT_BUILT, status_code=503)
    return FileResponse(path, media_type="text/html", headers={"Content-Security-Policy": CSP})


def web_routes(settings: ApiSettings) -> list[BaseRoute]:
    """`/` (to the explorer), `/explore` and `/assets/*`; GraphiQL is routed by the app."""
    directory = web_dir(settings)

    async def explore(request: Request) -> Response:
        return page(directory, "explore.html")

    async def root(request: Request) -> Response:
        return RedirectResponse("/explore")

    return [
        Route("/", root, methods=["GET"]),
        Route("/explore", explore, methods=["GET"]),
        Mount("/assets", StaticFiles(directory=directory / "assets", check_dir=False)),
    ]
