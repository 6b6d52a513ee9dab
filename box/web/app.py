"""The phone page: a Starlette app beside the box (docs/web.md).

Reading pages (Now, History, a player, Cards, Box) are open on the local network
unless the config closes them; every write needs a paired phone, a form token
bound to its session, and an Origin of this server. The game in play comes from
the box over the control socket (live, server-sent events) or, when the box is
not running, from the journal.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import shutil
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from box.control import MAX_LINE, socket_path
from box.errors import FileProblem
from box.games import GAMES, rules_for
from box.roster import ROSTER_FILE, UPLOADED_DECKS, Roster, load_roster, save_roster
from box.tags import TAGS_FILE, TagMap
from box.web import security
from box.web.cards import check_deck_upload, check_tags_upload, deck_rows
from box.web.journal_view import HISTORY_FILE, JOURNAL_FILE, JournalBusy, JournalView, player_stats

log = logging.getLogger(__name__)

HERE = Path(__file__).parent
TITLES = {
    "deadlines": "Deadlines",
    "dead-set": "Dead Set",
    "dead-fellas": "Dead Fellas",
    "deck-of-death": "Deck of Death",
}
MAX_UPLOAD = 256 * 1024  # a deck or a tag map is a few kilobytes
HEARTBEAT = 15.0  # seconds between keep-alive comments on the live stream
RETRY = 1.0  # seconds between tries to reach the box
BUSY = "The box holds its journal locked just now: history shows again in a moment"


@dataclass
class WebSettings:
    """Where the page finds the box's files and socket, and whether reading needs pairing."""

    state_dir: Path
    control: Path = field(default_factory=socket_path)
    open_reading: bool = True
    decks_dir: Path | None = None  # the config's decks folder (uploaded decks come first)
    max_upload: int = MAX_UPLOAD


class BoxOffline(Exception):
    """The box's control socket does not answer."""


class BoxLink:
    """A subscription to the box's state, kept up while the page runs; and one-off commands."""

    def __init__(self, path: Path, retry: float = RETRY):
        self.path = path
        self.retry = retry
        self.state: dict[str, Any] | None = None
        self.online = False
        self.version = 0
        self.changed = asyncio.Event()

    def bump(self) -> None:
        self.version += 1
        event, self.changed = self.changed, asyncio.Event()
        event.set()

    async def wait(self, seen: int, timeout: float) -> None:
        """Return when the version moved past `seen`, or after `timeout`."""
        if self.version != seen:
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.changed.wait(), timeout)

    async def run(self) -> None:
        while True:
            writer = None
            try:
                reader, writer = await asyncio.open_unix_connection(str(self.path), limit=MAX_LINE * 64)
                writer.write(b'{"cmd": "subscribe"}\n')
                await writer.drain()
                if not json.loads(await reader.readline() or b"{}").get("ok"):
                    raise ConnectionError("the box refused the subscription")
                while line := await reader.readline():
                    self.state, self.online = json.loads(line)["state"], True
                    self.bump()
            except (OSError, ValueError, KeyError, asyncio.LimitOverrunError) as problem:
                log.debug("box link: %s", problem)
            finally:
                if writer is not None:
                    writer.close()
                if self.online:
                    self.online = False
                    self.bump()
            await asyncio.sleep(self.retry)

    async def request(self, cmd: str, **args: Any) -> dict[str, Any]:
        try:
            reader, writer = await asyncio.wait_for(asyncio.open_unix_connection(str(self.path)), 2.0)
        except (OSError, TimeoutError) as problem:
            raise BoxOffline(str(problem)) from None
        try:
            writer.write(json.dumps({"cmd": cmd, **args}).encode() + b"\n")
            await writer.drain()
            reply = json.loads(await asyncio.wait_for(reader.readline(), 2.0) or b"{}")
        except (OSError, TimeoutError, ValueError) as problem:
            raise BoxOffline(str(problem)) from None
        finally:
            writer.close()
        if not reply.get("ok"):
            raise BoxOffline(reply.get("error", "the box did not answer"))
        return reply


class Refused(Exception):
    """A request the page will not carry out: status and the one line to show."""

    def __init__(self, status: int, message: str):
        self.status = status
        super().__init__(message)


FOREIGN = "Refused: this request did not come from this box's page"


def from_this_page(request: Request) -> bool:
    """The request's Origin (or Referer) is this box's own page: no other site writes through a phone."""
    headers = request.headers
    return security.same_origin(headers.get("origin"), headers.get("referer"), request.url.scheme, headers.get("host"))


def create_app(settings: WebSettings, clock: Callable[[], float] | None = None) -> Starlette:
    """The page's app. `clock` (monotonic seconds) drives the pairing code's expiry and the rate limits."""
    import time

    monotonic = clock or time.monotonic
    templates = Jinja2Templates(directory=str(HERE / "templates"))
    templates.env.globals.update(titles=TITLES, games=list(GAMES))
    templates.env.filters["card"] = lambda card_id, game: card_name(game, card_id)
    state_dir = settings.state_dir
    decks_dirs = tuple(d for d in (state_dir / UPLOADED_DECKS, settings.decks_dir) if d is not None)
    view = JournalView(state_dir / JOURNAL_FILE, decks_dirs, cache=state_dir / HISTORY_FILE)
    link = BoxLink(settings.control)
    pairing = security.Pairing(clock=monotonic)
    sessions = security.Sessions(state_dir / security.SESSIONS_FILE)
    fragment: dict[str, Any] = {"version": -1, "html": "", "state": None}

    def card_name(game: str | None, card_id: str) -> str:
        try:
            return view.card_list(game).name_of(card_id) if game else card_id
        except (KeyError, FileProblem):
            return card_id

    def session_of(request: Request) -> str | None:
        token = request.cookies.get(security.COOKIE)
        return token if sessions.valid(token) else None

    def page(request: Request, name: str, context: dict[str, Any], status: int = 200) -> Response:
        session = session_of(request)
        if not settings.open_reading and session is None and name != "pair.html":
            return RedirectResponse("/pair", status_code=303)
        context = {
            "paired": session is not None,
            "csrf": security.csrf_token(session) if session else "",
            "online": link.online,
            "section": name.removesuffix(".html"),
            **context,
        }
        response = templates.TemplateResponse(request, name, context, status_code=status)
        response.headers["Cache-Control"] = "no-store"
        return response

    async def current() -> tuple[dict[str, Any], bool]:
        if link.online and link.state is not None:
            return link.state, True
        try:
            return await run_in_threadpool(view.current), False
        except JournalBusy:
            return {"game": None, "players": [], "timer": {}, "dice": {}, "notice": BUSY}, False

    async def now_fragment() -> tuple[str, dict[str, Any]]:
        """The Now page's live part, rendered once per change and shared by every open page."""
        version = link.version
        if fragment["version"] != version:
            state, online = await current()
            template = templates.env.get_template("_now.html")
            html = template.render(state=state, online=online, card=card_name)
            fragment.update(version=version, html=html, state=state)
        return fragment["html"], fragment["state"]

    async def guard(request: Request, upload: bool = False) -> Any:
        """Check a write (Origin, size, session, form token) and return its form; raises Refused."""
        if not from_this_page(request):
            raise Refused(403, FOREIGN)
        length = request.headers.get("content-length")
        if length is None or not length.isdigit():
            raise Refused(411, "Refused: the request must say its length")
        if int(length) > settings.max_upload:
            raise Refused(413, f"Refused: larger than {settings.max_upload // 1024} KB")
        session = session_of(request)
        if session is None:
            raise Refused(403, "Pair this phone first (Pair, then the code on the box's screen)")
        form = await request.form(max_files=1 if upload else 0, max_fields=200, max_part_size=settings.max_upload)
        if not security.csrf_ok(session, str(form.get("csrf", "")) or request.headers.get("x-csrf-token")):
            raise Refused(403, "Refused: the form is stale; reload the page")
        return form

    def refused(request: Request, problem: Refused) -> Response:
        return page(request, "message.html", {"message": str(problem), "ok": False}, status=problem.status)

    # ----- reading --------------------------------------------------------------------------

    async def now(request: Request) -> Response:
        html, state = await now_fragment()
        return page(request, "now.html", {"fragment": html, "state": state})

    async def events(request: Request) -> Response:
        if not settings.open_reading and session_of(request) is None:
            return PlainTextResponse("pair this phone first", status_code=403)

        async def stream() -> AsyncIterator[str]:
            seen = None
            while True:
                html, state = await now_fragment()
                if fragment["version"] != seen:
                    seen = fragment["version"]
                    data = {"html": html, "online": link.online, "version": seen, "cards": cards_signature(state)}
                    yield f"data: {json.dumps(data)}\n\n"
                else:
                    yield ": still here\n\n"
                await link.wait(seen, HEARTBEAT)

        headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
        return StreamingResponse(stream(), media_type="text/event-stream", headers=headers)

    async def api_state(request: Request) -> Response:
        if not settings.open_reading and session_of(request) is None:
            return JSONResponse({"error": "pair this phone first"}, status_code=403)
        state, online = await current()
        return JSONResponse(state, headers={"X-Gravebox-Source": "box" if online else "journal"})

    async def history(request: Request) -> Response:
        try:
            games, values = await run_in_threadpool(view.history)
        except JournalBusy:
            return page(request, "message.html", {"message": BUSY, "ok": False}, 503)
        finished = [g for g in games if g.finished or g.over]
        return page(
            request,
            "history.html",
            {"played": finished, "players": player_stats(finished), "best_chug": values.get("best_chug")},
        )

    async def player(request: Request) -> Response:
        name = request.path_params["name"]
        try:
            games, _ = await run_in_threadpool(view.history)
        except JournalBusy:
            return page(request, "message.html", {"message": BUSY, "ok": False}, 503)
        stats = player_stats(games).get(name)
        if stats is None:
            return page(request, "message.html", {"message": f"No finished game with {name!r}", "ok": False}, 404)
        return page(request, "player.html", {"stats": stats})

    def roster_context(roster: Roster | None = None, message: str = "", ok: bool = True) -> dict[str, Any]:
        problem = ""
        if roster is None:
            try:
                roster = load_roster(state_dir / ROSTER_FILE)
            except FileProblem as bad:
                roster, problem = Roster(), str(bad)
        options = {game: rules_for(game).options for game in GAMES}
        return {"roster": roster, "options": options, "message": message or problem, "ok": ok and not problem}

    async def roster_page(request: Request) -> Response:
        return page(request, "roster.html", roster_context())

    async def cards_context(message: str = "", ok: bool = True) -> dict[str, Any]:
        state, online = await current()
        try:
            tags = TagMap.load(state_dir / TAGS_FILE)
            problem = ""
        except FileProblem as bad:
            tags, problem = TagMap(), str(bad)
        decks = {}
        for game in GAMES:
            try:
                decks[game] = deck_rows(view.card_list(game), tags)
            except FileProblem as bad:
                decks[game] = None
                problem = problem or str(bad)
        try:
            names = load_roster(state_dir / ROSTER_FILE).names
        except FileProblem:
            names = ()
        tokens = {card: uid.hex() for uid, (game, card) in tags.cards.items() if game == "player"}
        return {
            "decks": decks,
            "signature": cards_signature(state),
            "state": state if online else None,
            "names": names,
            "tokens": tokens,
            "message": message or problem,
            "ok": ok and not problem,
        }

    async def cards(request: Request) -> Response:
        return page(request, "cards.html", await cards_context())

    async def tags_csv(request: Request) -> Response:
        if not settings.open_reading and session_of(request) is None:
            return PlainTextResponse("pair this phone first", status_code=403)
        path = state_dir / TAGS_FILE
        body = path.read_bytes() if path.exists() else b"uid,game,card\n"
        disposition = 'attachment; filename="gravebox-tags.csv"'
        return Response(body, media_type="text/csv", headers={"Content-Disposition": disposition})

    async def box_page(request: Request) -> Response:
        state, online = await current()
        return page(request, "box.html", {"state": state if online else None, **storage(state_dir)})

    # ----- pairing --------------------------------------------------------------------------

    async def pair_page(request: Request) -> Response:
        return page(request, "pair.html", {"message": "", "ok": True})

    async def pair_code(request: Request) -> Response:
        if not from_this_page(request):
            return refused(request, Refused(403, FOREIGN))
        if not pairing.requests.allow("*"):
            return page(request, "pair.html", {"message": "Too many codes asked for: wait a minute", "ok": False}, 429)
        code = pairing.new_code()
        try:
            await link.request("show-code", code=code, seconds=int(security.CODE_SECONDS))
        except BoxOffline:
            pairing.code = None
            message = "The box is not running: pairing needs its screen"
            return page(request, "pair.html", {"message": message, "ok": False}, 503)
        return page(request, "pair.html", {"message": "The box shows a code now: type it here", "ok": True})

    async def pair(request: Request) -> Response:
        if not from_this_page(request):
            return refused(request, Refused(403, FOREIGN))
        length = request.headers.get("content-length", "")
        if not length.isdigit() or int(length) > 1024:
            return refused(request, Refused(413, "Refused: a code is six digits"))
        form = await request.form(max_files=0, max_fields=5)
        client = request.client.host if request.client else "?"
        result = pairing.attempt(str(form.get("code", "")), client)
        if result != "ok":
            status, message = {
                "wrong": (403, "Wrong code"),
                "none": (400, "No code is showing: ask the box for one"),
                "limited": (429, "Too many tries: wait a minute"),
            }[result]
            return page(request, "pair.html", {"message": message, "ok": False}, status)
        with contextlib.suppress(BoxOffline):
            await link.request("hide-code")
        response = RedirectResponse("/", status_code=303)
        response.set_cookie(
            security.COOKIE,
            sessions.create(),
            max_age=security.SESSION_DAYS * 86400,
            httponly=True,
            samesite="strict",
            path="/",
        )
        return response

    async def unpair(request: Request) -> Response:
        try:
            await guard(request)
        except Refused as problem:
            return refused(request, problem)
        sessions.drop(request.cookies.get(security.COOKIE))
        response = RedirectResponse("/pair", status_code=303)
        response.delete_cookie(security.COOKIE, path="/")
        return response

    # ----- writes ---------------------------------------------------------------------------

    async def tell_box(cmd: str, **args: Any) -> bool:
        try:
            await link.request(cmd, **args)
            return True
        except BoxOffline:
            return False

    async def roster_save(request: Request) -> Response:
        try:
            form = await guard(request)
        except Refused as problem:
            return refused(request, problem)
        names = str(form.get("names", "")).splitlines()
        defaults: dict[str, dict[str, str]] = {}
        for key, value in form.multi_items():
            parts = key.split(".")
            if len(parts) == 3 and parts[0] == "opt" and str(value).strip():
                defaults.setdefault(parts[1], {})[parts[2]] = str(value).strip()
        try:
            roster = Roster.checked(names, defaults)
        except ValueError as problem:
            return page(request, "roster.html", roster_context(message=f"Not saved: {problem}", ok=False), 400)
        await run_in_threadpool(save_roster, roster, state_dir / ROSTER_FILE)
        told = await tell_box("roster-changed")
        message = "Saved" + ("" if told else " (the box reads it when it starts)")
        return page(request, "roster.html", roster_context(roster, message))

    async def enrol(request: Request) -> Response:
        try:
            form = await guard(request)
        except Refused as problem:
            return refused(request, problem)
        game, card = str(form.get("game", "")), str(form.get("card", ""))
        if game == "player":
            try:
                names = load_roster(state_dir / ROSTER_FILE).names
            except FileProblem as problem:
                return page(request, "cards.html", await cards_context(str(problem), ok=False), 400)
            if card not in names:
                return page(request, "cards.html", await cards_context(f"{card!r} is not in the roster", False), 400)
            command, args, label = "enrol-player", {"name": card}, f"player {card}"
        else:
            if game not in GAMES or card not in view.card_list(game):
                return page(request, "cards.html", await cards_context(f"No card {card!r} in {game!r}", False), 400)
            command, args, label = "enrol", {"game": game, "card": card}, card_name(game, card)
        if not await tell_box(command, **args):
            return page(request, "cards.html", await cards_context("The box is not running", ok=False), 503)
        return page(request, "cards.html", await cards_context(f"Tap the tag for {label} on any reader"))

    async def enrol_stop(request: Request) -> Response:
        try:
            await guard(request)
        except Refused as problem:
            return refused(request, problem)
        await tell_box("enrol-stop")
        return page(request, "cards.html", await cards_context("Enrolment stopped"))

    async def restore(request: Request) -> Response:
        try:
            form = await guard(request, upload=True)
        except Refused as problem:
            return refused(request, problem)
        upload = form.get("file")
        if upload is None or isinstance(upload, str):
            return page(request, "cards.html", await cards_context("Choose a tag map file", ok=False), 400)
        data = await upload.read(settings.max_upload + 1)
        try:
            tags = check_tags_upload(data, upload.filename or "upload.csv", view.card_list)
        except FileProblem as problem:
            return page(request, "cards.html", await cards_context(f"Not restored: {problem}", ok=False), 400)
        await run_in_threadpool(tags.save, state_dir / TAGS_FILE)
        told = await tell_box("tags-changed")
        message = f"Restored {len(tags.cards)} tags" + ("" if told else " (the box reads them when it starts)")
        return page(request, "cards.html", await cards_context(message))

    async def deck_upload(request: Request) -> Response:
        try:
            form = await guard(request, upload=True)
        except Refused as problem:
            return refused(request, problem)
        game, upload = str(form.get("game", "")), form.get("file")
        if game not in GAMES or upload is None or isinstance(upload, str):
            return page(request, "cards.html", await cards_context("Choose a game and a deck file", ok=False), 400)
        data = await upload.read(settings.max_upload + 1)
        try:
            deck = await run_in_threadpool(check_deck_upload, game, data, upload.filename or f"{game}.csv", state_dir)
        except FileProblem as problem:
            return page(request, "cards.html", await cards_context(f"Not used: {problem}", ok=False), 400)
        view.forget_decks()
        told = await tell_box("decks-changed")
        message = f"{TITLES[game]}: {len(deck)} cards" + (", used from the next game" if told else "")
        return page(request, "cards.html", await cards_context(message))

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        task = asyncio.create_task(link.run())
        try:
            yield
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    routes = [
        Route("/", now),
        Route("/events", events),
        Route("/api/state", api_state),
        Route("/history", history),
        Route("/players/{name}", player),
        Route("/roster", roster_page),
        Route("/roster", roster_save, methods=["POST"]),
        Route("/cards", cards),
        Route("/cards/tags.csv", tags_csv),
        Route("/cards/enrol", enrol, methods=["POST"]),
        Route("/cards/enrol-stop", enrol_stop, methods=["POST"]),
        Route("/cards/restore", restore, methods=["POST"]),
        Route("/cards/deck", deck_upload, methods=["POST"]),
        Route("/box", box_page),
        Route("/pair", pair_page),
        Route("/pair", pair, methods=["POST"]),
        Route("/pair/code", pair_code, methods=["POST"]),
        Route("/unpair", unpair, methods=["POST"]),
        Mount("/static", StaticFiles(directory=str(HERE / "static")), name="static"),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.link, app.state.pairing, app.state.view = link, pairing, view
    return app


def cards_signature(state: dict[str, Any] | None) -> str:
    """What the Cards page shows of the live state; the page reloads when it changes."""
    return json.dumps({key: (state or {}).get(key) for key in ("enrolment", "last_tags", "readers_offline")})


def storage(state_dir: Path) -> dict[str, Any]:
    """The Box page's storage figures and version."""
    from box import __version__

    files = {name: state_dir / name for name in (JOURNAL_FILE, f"{JOURNAL_FILE}-wal", TAGS_FILE, ROSTER_FILE)}
    sizes = {name: path.stat().st_size for name, path in files.items() if path.exists()}
    try:
        usage = shutil.disk_usage(state_dir)
        free, total = usage.free, usage.total
    except OSError:
        free = total = None
    selftest = state_dir / "selftest.json"
    try:
        report = json.loads(selftest.read_text(encoding="utf-8")) if selftest.exists() else None
    except (OSError, ValueError):
        report = None
    return {"sizes": sizes, "free": free, "total": total, "version": __version__, "selftest": report}
