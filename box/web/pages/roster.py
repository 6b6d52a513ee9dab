"""Roster (`/roster`): the players in seating order, each game's default options, and merging two players.

A player is one of the roster's people (box/storage/roster.py): changing a name here renames that player,
whose games stay theirs; the new names below the list join as new players. Two players found to be
one person (two names for Bo) are merged from here (`/roster/merge`): the page asks first, then the
box carries it out through its one door (the control command `merge`) and says so on its screen.
The options, their labels and help come from the games' rules (`Rules.options`).
"""

from __future__ import annotations

import logging
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from box.errors import FileProblem
from box.games import GAMES, rules_for
from box.storage.roster import ROSTER_FILE, Roster, load_roster, save_roster
from box.web.journal_view import JournalBusy
from box.web.site import BUSY, NOT_RUNNING, Refused, Site

log = logging.getLogger(__name__)

NAME_FIELD = "name."  # the form's "name.<player id>": that player's name


def roster_of(site: Site) -> Roster:
    """The roster saved in the state directory; an empty one when it cannot be read (logged)."""
    try:
        return load_roster(site.state_dir / ROSTER_FILE)
    except FileProblem as problem:
        log.warning("roster not read: %s", problem)
        return Roster()


class RosterPage:
    def __init__(self, site: Site):
        self.site = site

    def routes(self) -> list[Route]:
        return [
            Route("/roster", self.show),
            Route("/roster", self.save, methods=["POST"]),
            Route("/roster/merge", self.ask_merge),
            Route("/roster/merge", self.merge, methods=["POST"]),
        ]

    def context(self, roster: Roster | None = None, message: str = "", ok: bool = True) -> dict[str, Any]:
        problem = ""
        if roster is None:
            try:
                roster = load_roster(self.site.state_dir / ROSTER_FILE)
            except FileProblem as bad:
                roster, problem = Roster(), str(bad)
        options = {game: rules_for(game).options for game in GAMES}
        return {"roster": roster, "options": options, "message": message or problem, "ok": ok and not problem}

    async def show(self, request: Request) -> Response:
        return self.site.page(request, "roster.html", self.context())

    async def save(self, request: Request) -> Response:
        try:
            form = await self.site.guard(request)
        except Refused as problem:
            return self.site.refused(request, problem)
        defaults: dict[str, dict[str, str]] = {}
        kept: list[tuple[str, str]] = []  # (player id, name) in the form's order
        for key, value in form.multi_items():
            parts = key.split(".")
            if len(parts) == 3 and parts[0] == "opt" and str(value).strip():
                defaults.setdefault(parts[1], {})[parts[2]] = str(value).strip()
            elif key.startswith(NAME_FIELD):
                kept.append((key[len(NAME_FIELD) :], str(value)))
        saved = await run_in_threadpool(roster_of, self.site)  # an unreadable one is replaced by what is saved now
        try:
            sat = await run_in_threadpool(self.site.view.sat)  # who sat at the games: new players' ids
        except JournalBusy:
            return self.site.page(request, "roster.html", self.context(message=f"Not saved: {BUSY}", ok=False), 409)
        try:
            if "names" in form:  # every name, one a line (a known name keeps its player)
                roster = Roster.checked(str(form["names"]).splitlines(), defaults, known=saved.people, sat=sat)
            else:
                roster = saved.edited(kept, str(form.get("new", "")).splitlines(), defaults, sat)
        except ValueError as problem:
            return self.site.page(request, "roster.html", self.context(message=f"Not saved: {problem}", ok=False), 400)
        if failed := await self.site.write(save_roster, roster, self.site.state_dir / ROSTER_FILE):
            return self.site.page(request, "roster.html", self.context(message=f"Not saved: {failed}", ok=False), 409)
        unheard = await self.site.tell_box("roster-changed")
        later = " (the box reads it when it starts)" if unheard == NOT_RUNNING else f" ({unheard})" if unheard else ""
        message = f"Saved{later}"
        return self.site.page(request, "roster.html", self.context(roster, message))

    def chosen(self, player_id: str, into_id: str) -> tuple[dict[str, Any], str]:
        """The page's context, and why the two players chosen cannot be merged ("" when they can)."""
        context = self.context()
        roster: Roster = context["roster"]
        player, into = roster.person(player_id), roster.person(into_id)
        if player is None or into is None:
            return context, "Choose two players of the roster"
        if player is into:
            return context, f"Choose two players: {player.name} cannot be merged into themselves"
        return {**context, "merging": (player, into)}, ""

    async def ask_merge(self, request: Request) -> Response:
        """Merge `player` into `into`? Asked before anything is sent."""
        context, problem = self.chosen(request.query_params.get("player", ""), request.query_params.get("into", ""))
        if problem:
            return self.site.page(request, "roster.html", {**context, "message": problem, "ok": False}, 400)
        return self.site.page(request, "roster.html", context)

    async def merge(self, request: Request) -> Response:
        """Send the box the merge the phone confirmed; its verdict (or that it is not running) is the answer."""
        try:
            form = await self.site.guard(request)
        except Refused as refusal:
            return self.site.refused(request, refusal)
        player, into = str(form.get("player", ""))[:40], str(form.get("into", ""))[:40]
        context, problem = self.chosen(player, into)
        if problem:
            return self.site.page(request, "roster.html", {**context, "message": problem, "ok": False}, 400)
        unheard = await self.site.tell_box("merge", player=player, into=into)
        if unheard:
            message = f"{unheard}: nothing merged" if unheard == NOT_RUNNING else unheard
            return self.site.page(request, "roster.html", self.context(message=message, ok=False), 409)
        context = self.context()
        merged = context["roster"].person(into)
        message = f"Merged into {merged.name}" if merged is not None else "Merged"
        return self.site.page(request, "roster.html", {**context, "message": message})
