"""History (`/history`) and a player (`/players/NAME`): finished games and each player's figures.

The figures, their labels and how they add up across games are the games' own declarations
(`Rules.figures`), kept in each game's summary (box/web/journal_view.py).
"""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from box.web.journal_view import JournalBusy, player_stats
from box.web.site import BUSY, Site


class HistoryPage:
    def __init__(self, site: Site):
        self.site = site

    def routes(self) -> list[Route]:
        return [Route("/history", self.history), Route("/players/{name}", self.player)]

    async def history(self, request: Request) -> Response:
        try:
            games, values = await run_in_threadpool(self.site.view.history)
        except JournalBusy:
            return self.site.message(request, BUSY, 503)
        finished = [g for g in games if g.finished or g.over]
        context = {"played": finished, "players": player_stats(finished), "best_chug": values.get("best_chug")}
        return self.site.page(request, "history.html", context)

    async def player(self, request: Request) -> Response:
        name = request.path_params["name"]
        try:
            games, _ = await run_in_threadpool(self.site.view.history)
        except JournalBusy:
            return self.site.message(request, BUSY, 503)
        stats = player_stats(games).get(name)
        if stats is None:
            return self.site.message(request, f"No finished game with {name!r}", 404)
        return self.site.page(request, "player.html", {"stats": stats})
