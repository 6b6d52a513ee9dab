"""Stats (`/stats`): wins per player on each game night, each game's records, head to head.

The numbers are box/web/stats.py's, gathered from the games' summaries; the figures, their labels
and how they add up are the games' own declarations (`Rules.figures`). The charts are SVG drawn
here, so the page needs no script and no internet.
"""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from box.games import TITLES
from box.web.journal_view import JournalBusy
from box.web.pages.roster import roster_of
from box.web.people import seats_of
from box.web.site import BUSY, Site
from box.web.stats import gather


class StatsPage:
    def __init__(self, site: Site):
        self.site = site

    def routes(self) -> list[Route]:
        return [Route("/stats", self.show)]

    async def show(self, request: Request) -> Response:
        try:
            games, values = await run_in_threadpool(self.site.view.history)
        except JournalBusy:
            return self.site.message(request, BUSY, 503)
        stats = gather(games, roster_of(self.site), seats_of(values))
        order = sorted(stats.records, key=lambda game: (TITLES.get(game) or game).casefold())
        context = {"stats": stats, "record_order": order, "best_chug": values.get("best_chug")}
        return self.site.page(request, "stats.html", context)
