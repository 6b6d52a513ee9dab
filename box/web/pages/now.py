"""Now (`/`): the game in play, live over server-sent events (`/events`), and its dump (`/api/state`).

What is drawn of a game comes from its rules' declaration (`Rules.phone`): the numbers and marks
beside each player and the picture below them (`templates/_picture_<picture>.html`).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route

from box.games import GAMES, rules_for
from box.games.base import Phone
from box.web.site import Site, cards_signature
from box.words import VOLUME_LEVELS

HEARTBEAT = 15.0  # seconds between keep-alive comments on the live stream


def phone_of(game: str | None) -> Phone | None:
    """What the page draws of `game` (its rules' declaration); None for no game or one the page does not know."""
    return rules_for(game).phone if game in GAMES else None


class NowPage:
    """The live part is rendered once per change of the box and shared by every open page."""

    def __init__(self, site: Site):
        self.site = site
        self.version = -1
        self.html = ""
        self.controls = ""
        self.state: dict[str, Any] | None = None

    def routes(self) -> list[Route]:
        return [Route("/", self.show), Route("/events", self.events), Route("/api/state", self.api_state)]

    async def live(self) -> tuple[str, dict[str, Any] | None]:
        """The live part's HTML and the state it shows, rendered again when the box's state moved on."""
        version = self.site.link.version
        if self.version != version:
            state, online = await self.site.current()
            phone = await run_in_threadpool(phone_of, state.get("game"))  # the first time imports the rules
            template = self.site.templates.env.get_template("_now.html")
            self.html = template.render(state=state, online=online, phone=phone)
            self.controls = self.site.templates.env.get_template("_controls.html").render(state=state, online=online, phone=phone)
            self.version, self.state = version, state
        return self.html, self.state

    async def show(self, request: Request) -> Response:
        html, state = await self.live()
        context = {"fragment": html, "controls": self.controls, "state": state, "levels": VOLUME_LEVELS}
        return self.site.page(request, "now.html", context)

    async def events(self, request: Request) -> Response:
        if self.site.closed_to(request):
            return PlainTextResponse("pair this phone first", status_code=403)
        link = self.site.link

        async def stream() -> AsyncIterator[str]:
            seen = None
            while True:
                html, state = await self.live()
                if self.version != seen:
                    seen = self.version
                    data = {"html": html, "controls": self.controls, "online": link.online, "version": seen, "cards": cards_signature(state)}
                    yield f"data: {json.dumps(data)}\n\n"
                else:
                    yield ": still here\n\n"
                await link.wait(seen, HEARTBEAT)

        headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
        return StreamingResponse(stream(), media_type="text/event-stream", headers=headers)

    async def api_state(self, request: Request) -> Response:
        if self.site.closed_to(request):
            return JSONResponse({"error": "pair this phone first"}, status_code=403)
        state, online = await self.site.current()
        return JSONResponse(state, headers={"X-Gravebox-Source": "box" if online else "journal"})
