"""A paired phone's hands on the box: start a game (`/start`), undo (`/undo`), abandon (`/abandon`),
end a session the table ends (`/end`), the sound (`/sound`).

Each is one command of the control socket (box/links/control.py), which the box carries out through its
one door as if pressed there, journaled. Undo, abandon and end ask first on the phone; the undo sends
the label the phone showed, and the end the game it showed, so the box refuses either when another
input changed the game meanwhile. Only a game that declares how a session ends (`Phone.ends_with`)
is offered the end. A refusal comes back as the box's own words, shown on one line.
"""

from __future__ import annotations

from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from box.errors import FileProblem
from box.games import GAMES, rules_for
from box.games.base import Option
from box.links.control import MOST_SEATS
from box.storage.player_ids import player_name
from box.storage.roster import ROSTER_FILE, load_roster
from box.web.site import NOT_RUNNING, PENDING, Refused, Site
from box.words import VOLUME_LEVELS

MAX_LABEL = 120  # an undo label is a short line ("Ann places Marie Curie in Birth")


def seat_names(seats: list[str], least: int, most: int) -> list[str]:
    """The names chosen for the seats, in order (empty seats skipped); ValueError says what is wrong.

    >>> seat_names(["Ann", "", "bob"], 2, 4)
    ['Ann', 'bob']
    >>> seat_names(["Ann", "ann"], 2, 4)
    Traceback (most recent call last):
    ValueError: ann sits twice
    >>> seat_names(["Ann"], 2, 4)
    Traceback (most recent call last):
    ValueError: 2 to 4 players: 1 chosen
    """
    names: list[str] = []
    for seat in seats[:MOST_SEATS]:
        if not seat.strip():
            continue
        name = player_name(seat)
        if name.casefold() in (known.casefold() for known in names):
            raise ValueError(f"{name} sits twice")
        names.append(name)
    if not least <= len(names) <= most:
        raise ValueError(f"{least} to {most} players: {len(names)} chosen")
    return names


def chosen_options(options: tuple[Option, ...], form: Any) -> dict[str, str]:
    """Each declared option's value from the form (`opt.<key>`), judged by the option itself;
    a missing one keeps its default. ValueError names the option by its label."""
    chosen = {}
    for option in options:
        text = str(form.get(f"opt.{option.key}", option.default)).strip()[:40]
        try:
            chosen[option.key] = option.parse(text)
        except ValueError:
            allowed = ", ".join(option.choices) if option.choices else f"{option.low} to {option.high}"
            raise ValueError(f"{option.label}: {text!r} is not one of {allowed}") from None
    return chosen


class ControlPage:
    def __init__(self, site: Site):
        self.site = site

    def routes(self) -> list[Route]:
        return [
            Route("/start", self.games),
            Route("/start/{game}", self.setup),
            Route("/start/{game}", self.start, methods=["POST"]),
            Route("/undo", self.ask_undo),
            Route("/undo", self.undo, methods=["POST"]),
            Route("/abandon", self.ask_abandon),
            Route("/abandon", self.abandon, methods=["POST"]),
            Route("/end", self.ask_end),
            Route("/end", self.end, methods=["POST"]),
            Route("/sound", self.sound, methods=["POST"]),
        ]

    # ----- what the phone shows before it acts ----------------------------------------------

    async def games(self, request: Request) -> Response:
        state, online = await self.site.current()
        return self.site.page(request, "start.html", {"game": None, "in_play": online and state.get("game")})

    async def setup(self, request: Request, message: str = "", status: int = 200, form: Any = None) -> Response:
        game = request.path_params["game"]
        if game not in GAMES:
            return self.site.message(request, "No such game on this box", 404)
        rules = await run_in_threadpool(rules_for, game)
        names = self.roster_names()
        count = max(rules.min_players, min(len(names), rules.max_players))
        seats = [str(form.get(f"seat{i}", "")) for i in range(rules.max_players)] if form is not None else [
            names[i] if i < len(names) and i < count else "" for i in range(rules.max_players)
        ]
        values = {o.key: str(form.get(f"opt.{o.key}", o.default)) if form is not None else o.default for o in rules.options}
        if form is None:
            values.update(self.roster_defaults(game))
        context = {
            "game": game,
            "rules": rules,
            "names": names,
            "seats": seats,
            "values": values,
            "message": message,
            "ok": not message,
        }
        return self.site.page(request, "start.html", context, status)

    async def ask_undo(self, request: Request) -> Response:
        state, online = await self.site.current()
        label = state.get("undo") if online else None
        return self.site.page(request, "confirm.html", {"what": "undo", "label": label, "state": state})

    async def ask_abandon(self, request: Request) -> Response:
        state, online = await self.site.current()
        return self.site.page(request, "confirm.html", {"what": "abandon", "state": state if online else {}})

    async def ask_end(self, request: Request) -> Response:
        state, online = await self.site.current()
        game = state.get("game") if online else None
        ends = game in GAMES and bool((await run_in_threadpool(rules_for, game)).phone.ends_with)
        context = {"game": game, "ends": ends, "over": bool(state.get("over"))}
        return self.site.page(request, "end.html", context)

    # ----- the commands ------------------------------------------------------------------------

    async def start(self, request: Request) -> Response:
        game = request.path_params["game"]
        try:
            form = await self.site.guard(request)
        except Refused as problem:
            return self.site.refused(request, problem)
        if game not in GAMES:
            return self.site.message(request, "No such game on this box", 404)
        rules = await run_in_threadpool(rules_for, game)
        try:
            names = seat_names([str(form.get(f"seat{i}", "")) for i in range(rules.max_players)],
                               rules.min_players, rules.max_players)
            options = chosen_options(rules.options, form)
        except ValueError as problem:
            return await self.setup(request, f"Not started: {problem}", 400, form)
        if refused := await self.site.tell_box("start", game=game, names=names, options=options):
            said = refused if refused == PENDING else f"Not started: {refused}"
            return await self.setup(request, said, self.status(refused), form)
        return RedirectResponse("/", status_code=303)

    async def undo(self, request: Request) -> Response:
        try:
            form = await self.site.guard(request)
        except Refused as problem:
            return self.site.refused(request, problem)
        label = str(form.get("label", ""))
        if not label or len(label) > MAX_LABEL:
            return self.site.message(request, "Not undone: the page did not say what to undo", 400)
        if refused := await self.site.tell_box("undo", label=label):
            return self.site.message(request, refused, self.status(refused))
        return RedirectResponse("/", status_code=303)

    async def abandon(self, request: Request) -> Response:
        try:
            await self.site.guard(request)
        except Refused as problem:
            return self.site.refused(request, problem)
        if refused := await self.site.tell_box("abandon"):
            return self.site.message(request, refused, self.status(refused))
        return RedirectResponse("/", status_code=303)

    async def end(self, request: Request) -> Response:
        try:
            form = await self.site.guard(request)
        except Refused as problem:
            return self.site.refused(request, problem)
        game = str(form.get("game", ""))
        if game not in GAMES:
            return self.site.message(request, "Not ended: the page did not say which game to end", 400)
        if refused := await self.site.tell_box("end-session", game=game):
            return self.site.message(request, refused, self.status(refused))
        return RedirectResponse("/", status_code=303)

    async def sound(self, request: Request) -> Response:
        try:
            form = await self.site.guard(request)
        except Refused as problem:
            return self.site.refused(request, problem)
        volume, muted = str(form.get("volume", "")), form.get("muted") == "on"
        if volume not in VOLUME_LEVELS:
            return self.site.message(request, f"Not changed: the volume is one of {', '.join(VOLUME_LEVELS)}", 400)
        if refused := await self.site.tell_box("sound", volume=volume, muted=muted):
            return self.site.message(request, refused, self.status(refused))
        return RedirectResponse("/", status_code=303)

    # ----- helpers -------------------------------------------------------------------------------

    @staticmethod
    def status(refused: str) -> int:
        return 503 if refused == NOT_RUNNING else 202 if refused == PENDING else 409

    def roster_names(self) -> tuple[str, ...]:
        try:
            return load_roster(self.site.state_dir / ROSTER_FILE).names
        except FileProblem:
            return ()

    def roster_defaults(self, game: str) -> dict[str, str]:
        try:
            return dict(load_roster(self.site.state_dir / ROSTER_FILE).defaults.get(game, {}))
        except FileProblem:
            return {}

