"""Roster (`/roster`): the players' names in seating order and each game's default options.

The options, their labels and help come from the games' rules (`Rules.options`).
"""

from __future__ import annotations

from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from box.errors import FileProblem
from box.games import GAMES, rules_for
from box.roster import ROSTER_FILE, Roster, load_roster, save_roster
from box.web.site import NOT_RUNNING, Refused, Site


class RosterPage:
    def __init__(self, site: Site):
        self.site = site

    def routes(self) -> list[Route]:
        return [Route("/roster", self.show), Route("/roster", self.save, methods=["POST"])]

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
        names = str(form.get("names", "")).splitlines()
        defaults: dict[str, dict[str, str]] = {}
        for key, value in form.multi_items():
            parts = key.split(".")
            if len(parts) == 3 and parts[0] == "opt" and str(value).strip():
                defaults.setdefault(parts[1], {})[parts[2]] = str(value).strip()
        try:
            roster = Roster.checked(names, defaults)
        except ValueError as problem:
            return self.site.page(request, "roster.html", self.context(message=f"Not saved: {problem}", ok=False), 400)
        await run_in_threadpool(save_roster, roster, self.site.state_dir / ROSTER_FILE)
        unheard = await self.site.tell_box("roster-changed")
        later = " (the box reads it when it starts)" if unheard == NOT_RUNNING else f" ({unheard})" if unheard else ""
        message = f"Saved{later}"
        return self.site.page(request, "roster.html", self.context(roster, message))
