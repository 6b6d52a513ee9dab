"""The phone page: a Starlette app beside the box (docs/web.md).

Reading pages (Now, History, a player, Stats, Roster, Cards, Box) are open on the local network
unless the config closes them; every write needs a paired phone, a form token bound to its
session, and an Origin of this server (box/web/site.py). The game in play comes from the box
over the control socket (live, server-sent events) or, when the box is not running, from the
journal. Each page is a module of box/web/pages/ with its routes; they share one `Site`.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

from box.web import security
from box.web.pages.box import BoxPage
from box.web.pages.cards import CardsPage
from box.web.pages.control import ControlPage
from box.web.pages.history import HistoryPage
from box.web.pages.now import NowPage
from box.web.pages.pairing import PairPage
from box.web.pages.roster import RosterPage
from box.web.pages.stats import StatsPage
from box.web.site import HERE, Site, WebSettings, static_version

MANIFEST = {  # so a phone can keep the page on its home screen
    "id": "/",
    "name": "Gravebox",
    "short_name": "Gravebox",
    "description": "The game on the box, live; every game played; the cards and the roster",
    "start_url": "/",
    "scope": "/",
    "display": "standalone",
    "background_color": "#111111",
    "theme_color": "#111111",
    "icons": [
        {"src": f"/static/icon-{size}.png", "sizes": f"{size}x{size}", "type": "image/png", "purpose": "any"}
        for size in (192, 512)
    ]
    + [{"src": "/static/icon-maskable-512.png", "sizes": "512x512", "type": "image/png", "purpose": "maskable"}],
}

PAGES = (NowPage, ControlPage, HistoryPage, StatsPage, RosterPage, CardsPage, BoxPage, PairPage)


def create_app(settings: WebSettings, clock: Callable[[], float] | None = None) -> Starlette:
    """The page's app. `clock` (monotonic seconds) drives the pairing code's expiry and the rate limits."""
    site = Site(settings, clock or time.monotonic)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        task = asyncio.create_task(site.link.run())
        try:
            yield
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    routes: list[BaseRoute] = [route for page in PAGES for route in page(site).routes()]
    routes.append(Route("/manifest.webmanifest", manifest))
    routes.append(Mount("/static", Static(directory=str(HERE / "static")), name="static"))
    app = Starlette(routes=routes, lifespan=lifespan)
    app.add_middleware(GZipMiddleware, minimum_size=512)  # Starlette's leaves the event stream (/events) as it is
    app.add_middleware(OwnHosts, names=(*security.own_names(), *settings.hosts))
    app.state.link, app.state.pairing, app.state.view = site.link, site.pairing, site.view
    return app


async def manifest(request: Request) -> Response:
    """The web app manifest: a name, the icons, and a page that opens like an app."""
    return JSONResponse(MANIFEST, media_type="application/manifest+json")


class Static(StaticFiles):
    """The page's files: at its versioned address (`?v=<its hash>`, site.static_url) a file is kept a
    year; at any other (no version, an old one) it is asked again each time."""

    def file_response(self, full_path: Any, stat_result: Any, scope: Scope, status_code: int = 200) -> Response:
        response = super().file_response(full_path, stat_result, scope, status_code)
        name = Path(full_path).name
        current = scope.get("query_string", b"") == f"v={static_version(name)}".encode()
        response.headers["Cache-Control"] = "public, max-age=31536000, immutable" if current else "no-cache"
        return response


class OwnHosts:
    """Answers only requests sent to the box by one of its names or an address (no DNS rebinding)."""

    def __init__(self, app: ASGIApp, names: tuple[str, ...]):
        self.app, self.names = app, tuple(name.lower() for name in names)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            host = dict(scope["headers"]).get(b"host", b"").decode("latin-1")
            if not security.host_allowed(host, self.names):
                refusal = PlainTextResponse("Refused: this page answers only to the box's own name or address", 400)
                await refusal(scope, receive, send)
                return
        await self.app(scope, receive, send)


__all__ = ["WebSettings", "create_app"]
