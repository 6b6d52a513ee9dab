"""What every page shares: the settings, the templates, the journal's reader, the link to the box,
pairing and sessions; drawing a page, checking a write, the game in play.

Reading pages are open on the local network unless the config closes them; every write needs a
paired phone, a form token bound to its session, and an Origin of this server (`Site.guard`).
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.templating import Jinja2Templates

from box.errors import FileProblem
from box.games import GAMES, TITLES, rules_for
from box.links.control import socket_path
from box.storage.history import HISTORY_FILE as PLAYED
from box.storage.journal.errors import storage_reason
from box.storage.roster import UPLOADED_DECKS
from box.web import drawings, security
from box.web.journal_view import JOURNAL_FILE, JournalBusy, JournalView
from box.web.link import BoxLink, BoxOffline, BoxRefused
from box.web.summaries import HISTORY_FILE
from box.words import digits_value

log = logging.getLogger(__name__)

HERE = Path(__file__).parent
MAX_UPLOAD = 256 * 1024  # a deck or a tag map is a few kilobytes
BUSY = "The box holds its journal locked just now: history shows again in a moment"
FOREIGN = "Refused: this request did not come from this box's page"


NOT_RUNNING = "The box is not running"  # what the page says when the box does not answer
PENDING = "Sent, but the box has not answered yet (busy): its screen says what became of it"


@dataclass
class WebSettings:
    """Where the page finds the box's files and socket, and whether reading needs pairing."""

    state_dir: Path
    control: Path = field(default_factory=socket_path)
    open_reading: bool = True
    decks_dir: Path | None = None  # the config's decks folder (uploaded decks come first)
    max_upload: int = MAX_UPLOAD
    hosts: tuple[str, ...] = ()  # names the page answers to besides the machine's own (the config's [web] hosts)
    settings_file: Path | None = None  # the owner's settings file, for a backup (none: the backup goes without)


class Refused(Exception):
    """A request the page will not carry out: status and the one line to show."""

    def __init__(self, status: int, message: str):
        self.status = status
        super().__init__(message)


def from_this_page(request: Request) -> bool:
    """The request's Origin (or Referer) is this box's own page: no other site writes through a phone."""
    headers = request.headers
    return security.same_origin(headers.get("origin"), headers.get("referer"), request.url.scheme, headers.get("host"))


def cards_signature(state: dict[str, Any] | None) -> str:
    """What the Cards page shows of the live state; the page reloads when it changes."""
    return json.dumps({key: (state or {}).get(key) for key in ("enrolment", "last_tags", "readers_offline")})


def option_label(game: str, key: str) -> str:
    """An option as its game declares it ("Celebrities to win"), else its key."""
    if game not in GAMES:
        return key
    return next((option.label for option in rules_for(game).options if option.key == key), key)


DESCRIPTIONS = {  # each page's meta description, as a search result or a shared link says it
    "now": "The game on the Gravebox, live: whose turn it is, the scores, what just happened",
    "history": "Every game played on this Gravebox: winners, each player's figures, exports",
    "player": "One player's games and wins on this Gravebox",
    "stats": "Wins, records and head-to-heads of the players on this Gravebox",
    "roster": "The players of this Gravebox in seating order, and each game's defaults",
    "cards": "Each deck of this Gravebox and its tags: enrolment, the tag map's backup, deck uploads",
    "box": "This Gravebox's readers, self-test, storage and followers",
    "pair": "Pair this phone with the Gravebox to start games, enrol cards and change the roster",
}
DESCRIPTION = "The Gravebox's phone page: the game in play, every game played, the cards and the roster"


@functools.cache
def static_version(name: str) -> str:
    """The first 12 hex digits of a static file's SHA-256 (the files ship with the page: read once)."""
    return hashlib.sha256((HERE / "static" / name).read_bytes()).hexdigest()[:12]


def static_url(name: str) -> str:
    """A static file's address with its content's hash: a phone keeps it until the file changes."""
    return f"/static/{name}?v={static_version(name)}"


class Site:
    """The page's parts, made once by `create_app` and handed to every page's routes."""

    def __init__(self, settings: WebSettings, clock: Callable[[], float]):
        self.settings = settings
        self.state_dir = settings.state_dir
        self.templates = Jinja2Templates(directory=str(HERE / "templates"))
        self.templates.env.globals.update(
            titles=TITLES, games=list(GAMES), card=self.card_name, record=self.card_record, board_of=self.board_of,
            ring=drawings.ring, toward=drawings.toward, around=drawings.around, colour_of=drawings.colour_of,
            card_colour=drawings.card_colour, recent=drawings.recent, last_dice=drawings.last_dice,
        )
        decks_dirs = tuple(d for d in (self.state_dir / UPLOADED_DECKS, settings.decks_dir) if d is not None)
        self.templates.env.filters["per"] = drawings.per
        self.templates.env.globals["static"] = static_url
        self.templates.env.globals["option_label"] = option_label
        self.view = JournalView(
            self.state_dir / JOURNAL_FILE, decks_dirs, cache=self.state_dir / HISTORY_FILE, played=self.state_dir / PLAYED
        )
        self.link = BoxLink(settings.control)
        self.pairing = security.Pairing(clock=clock)
        self.sessions = security.Sessions(self.state_dir / security.SESSIONS_FILE)

    def card_name(self, game: str | None, card_id: str) -> str:
        """A card's name in its deck, else its id."""
        try:
            return self.view.card_list(game).name_of(card_id) if game else card_id
        except (KeyError, FileProblem):
            return card_id

    def card_record(self, game: str | None, card_id: str) -> Any:
        """A card as its game's deck reads it (its dates, its colour...), else None."""
        try:
            return self.view.deck(game)[card_id] if game in GAMES else None
        except (KeyError, FileProblem):
            return None

    def board_of(self, game: str | None) -> Any:
        """The board a game's deck is played on, where its deck has one, else None."""
        try:
            return getattr(self.view.deck(game), "board", None) if game in GAMES else None
        except FileProblem:
            return None

    def session_of(self, request: Request) -> str | None:
        token = request.cookies.get(security.COOKIE)
        return token if self.sessions.valid(token) else None

    def closed_to(self, request: Request) -> bool:
        """Reading needs pairing (the config closed it) and this phone is not paired."""
        return not self.settings.open_reading and self.session_of(request) is None

    def page(self, request: Request, name: str, context: dict[str, Any], status: int = 200) -> Response:
        """A whole page from template `name`; a closed page sends an unpaired phone to pairing."""
        session = self.session_of(request)
        if not self.settings.open_reading and session is None and name != "pair.html":
            return RedirectResponse("/pair", status_code=303)
        context = {
            "paired": session is not None,
            "csrf": security.csrf_token(session) if session else "",
            "online": self.link.online,
            "box_clock": (self.link.state or {}).get("clock") if self.link.online else None,  # unsynchronised: the phone's time
            "section": name.removesuffix(".html"),
            "description": DESCRIPTIONS.get(name.removesuffix(".html"), DESCRIPTION),
            **context,
        }
        response = self.templates.TemplateResponse(request, name, context, status_code=status)
        # a paired phone's page holds its form token: never stored; any other may be kept for back/forward
        response.headers["Cache-Control"] = "no-store" if session else "no-cache"
        return response

    def message(self, request: Request, text: str, status: int) -> Response:
        """A page saying why a request was not carried out."""
        return self.page(request, "message.html", {"message": text, "ok": False}, status)

    def refused(self, request: Request, problem: Refused) -> Response:
        return self.message(request, str(problem), problem.status)

    async def write(self, save: Callable[..., Any], *args: Any) -> str:
        """Carry out one of the page's own writes (a roster, a tag map, a deck) off the event loop: ""
        when written, else the storage's reason ("Storage full"), the words the box's writes use."""
        try:
            await run_in_threadpool(save, *args)
        except OSError as problem:
            log.error("a write of the page failed: %s", problem)
            return storage_reason(problem) or "Storage failing"
        return ""

    async def current(self) -> tuple[dict[str, Any], bool]:
        """The game in play's state dump, and whether it came from the box (else from the journal)."""
        if self.link.online and self.link.state is not None:
            return self.link.state, True
        try:
            return await run_in_threadpool(self.view.current), False
        except JournalBusy:
            return {"game": None, "players": [], "timer": {}, "dice": {}, "notice": BUSY}, False

    async def guard(self, request: Request, upload: bool = False) -> Any:
        """Check a write (Origin, size, session, form token) and return its form; raises Refused."""
        if not from_this_page(request):
            raise Refused(403, FOREIGN)
        length = digits_value(request.headers.get("content-length"))
        if length is None:
            raise Refused(411, "Refused: the request must say its length")
        limit = self.settings.max_upload
        if length > limit:
            raise Refused(413, f"Refused: larger than {limit // 1024} KB")
        session = self.session_of(request)
        if session is None:
            raise Refused(403, "Pair this phone first (Pair, then the code on the box's screen)")
        form = await request.form(max_files=1 if upload else 0, max_fields=200, max_part_size=limit)
        if not security.csrf_ok(session, str(form.get("csrf", "")) or request.headers.get("x-csrf-token")):
            raise Refused(403, "Refused: the form is stale; reload the page")
        return form

    async def tell_box(self, cmd: str, **args: Any) -> str:
        """Send the box a command: "" when it took it, else why not, in words for the page
        (its refusal as its screen says it, that it is not running, or that it has not answered: a
        pending command is never shown as done)."""
        try:
            reply = await self.link.request(cmd, **args)
        except BoxRefused as refusal:
            return f"The box refused: {refusal}"
        except BoxOffline:
            return NOT_RUNNING
        return PENDING if reply.get("pending") else ""
