"""Pair (`/pair`): a phone asks the box for a code, types what its OLED shows, and is paired; or unpaired."""

from __future__ import annotations

import contextlib

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from box.web import security
from box.web.link import BoxOffline
from box.web.site import FOREIGN, Refused, Site, from_this_page
from box.words import digits_value

ATTEMPTS = {  # what a refused code says
    "wrong": (403, "Wrong code"),
    "none": (400, "No code is showing: ask the box for one"),
    "limited": (429, "Too many tries: wait a minute"),
}


ASK_THE_BOX = "First choose Pair a phone in the box's menu (or ask from a phone already paired)"


class PairPage:
    def __init__(self, site: Site):
        self.site = site

    def routes(self) -> list[Route]:
        return [
            Route("/pair", self.show),
            Route("/pair", self.pair, methods=["POST"]),
            Route("/pair/code", self.code, methods=["POST"]),
            Route("/unpair", self.unpair, methods=["POST"]),
        ]

    def answer(self, request: Request, message: str = "", ok: bool = True, status: int = 200) -> Response:
        return self.site.page(request, "pair.html", {"message": message, "ok": ok}, status)

    async def show(self, request: Request) -> Response:
        return self.answer(request)

    async def code(self, request: Request) -> Response:
        if not from_this_page(request):
            return self.site.refused(request, Refused(403, FOREIGN))
        asked = (self.site.link.state or {}).get("pairing") == "asked"  # someone at the box chose *Pair a phone*
        if not asked and self.site.session_of(request) is None:
            return self.answer(request, ASK_THE_BOX, False, 403)
        pairing = self.site.pairing
        if not pairing.requests.allow("*"):
            return self.answer(request, "Too many codes asked for: wait a minute", False, 429)
        code = pairing.new_code()
        try:
            await self.site.link.request("show-code", code=code, seconds=int(security.CODE_SECONDS))
        except BoxOffline:
            pairing.code = None
            return self.answer(request, "The box is not running: pairing needs its screen", False, 503)
        return self.answer(request, "The box shows a code now: type it here")

    async def pair(self, request: Request) -> Response:
        if not from_this_page(request):
            return self.site.refused(request, Refused(403, FOREIGN))
        length = digits_value(request.headers.get("content-length"))
        if length is None or length > 1024:
            return self.site.refused(request, Refused(413, "Refused: a code is six digits"))
        form = await request.form(max_files=0, max_fields=5)
        client = request.client.host if request.client else "?"
        result = self.site.pairing.attempt(str(form.get("code", "")), client)
        if result != "ok":
            status, message = ATTEMPTS[result]
            return self.answer(request, message, False, status)
        with contextlib.suppress(BoxOffline):
            await self.site.link.request("hide-code")
        response = RedirectResponse("/", status_code=303)
        response.set_cookie(
            security.COOKIE,
            self.site.sessions.create(),
            max_age=security.SESSION_DAYS * 86400,
            httponly=True,
            samesite="strict",
            path="/",
        )
        return response

    async def unpair(self, request: Request) -> Response:
        try:
            await self.site.guard(request)
        except Refused as problem:
            return self.site.refused(request, problem)
        self.site.sessions.drop(request.cookies.get(security.COOKIE))
        response = RedirectResponse("/pair", status_code=303)
        response.delete_cookie(security.COOKIE, path="/")
        return response
