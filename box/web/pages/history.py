"""History (`/history`) and a player (`/players/NAME`): finished games and each player's figures.

Players are the roster's people (box/storage/roster.py): a renamed player's games stay theirs, and
`/players/NAME` finds a player by a name they played under before or by their id too.
Abandoned games are listed apart, and count in nobody's figures.

The figures, their labels and how they add up across games are the games' own declarations
(`Rules.figures`), kept in each game's summary (box/web/summaries.py).
"""

from __future__ import annotations

import socket

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from box.games import TITLES
from box.web.exports import bgstats_link, plays_csv, plays_json
from box.web.journal_view import JournalBusy
from box.web.pages.roster import roster_of
from box.web.people import PlayerStats, player_stats, seated, seats_of
from box.web.site import BUSY, Site
from box.web.summaries import GameSummary
from box.words import digits_value

PAGE_GAMES = 25  # games a History or a player's page lists, newest first; the figures count them all


class HistoryPage:
    def __init__(self, site: Site):
        self.site = site

    def routes(self) -> list[Route]:
        return [
            Route("/history", self.history),
            Route("/history.json", self.export_json),
            Route("/history.csv", self.export_csv),
            Route("/players/{name}", self.player),
        ]

    async def played(self) -> list[GameSummary]:
        games, _ = await run_in_threadpool(self.site.view.history)
        return [g for g in games if g.finished or g.over]

    async def export_json(self, request: Request) -> Response:
        if self.site.closed_to(request):
            return PlainTextResponse("pair this phone first", status_code=403)
        try:
            body = plays_json(await self.played(), TITLES)
        except JournalBusy:
            return PlainTextResponse(BUSY, status_code=503)
        disposition = 'attachment; filename="gravebox-plays.json"'
        return Response(body, media_type="application/json", headers={"Content-Disposition": disposition})

    async def export_csv(self, request: Request) -> Response:
        if self.site.closed_to(request):
            return PlainTextResponse("pair this phone first", status_code=403)
        try:
            body = plays_csv(await self.played(), TITLES)
        except JournalBusy:
            return PlainTextResponse(BUSY, status_code=503)
        disposition = 'attachment; filename="gravebox-plays.csv"'
        return Response(body, media_type="text/csv", headers={"Content-Disposition": disposition})

    async def history(self, request: Request) -> Response:
        try:
            games, values = await run_in_threadpool(self.site.view.history)
        except JournalBusy:
            return self.site.message(request, BUSY, 503)
        finished = [g for g in games if g.finished or g.over]
        played, abandoned = [g for g in finished if g.over], [g for g in finished if not g.over]
        pages = max(1, -(-max(len(played), len(abandoned)) // PAGE_GAMES))
        page = min(max(1, _number(request.query_params.get("page"))), pages)
        shown = slice((page - 1) * PAGE_GAMES, page * PAGE_GAMES)
        location = socket.gethostname()
        roster, seats = roster_of(self.site), seats_of(values)
        links = {g.id: bgstats_link(g, TITLES.get(g.name, g.name), location,
                                    {name: person for name, person, _ in seated(g, roster, seats)})
                 for g in played[shown]}
        players = player_stats(finished, roster, seats)
        context = {
            "played": played[shown], "abandoned": abandoned[shown], "page": page, "pages": pages,
            "games_played": len(played), "uncounted": self.site.view.uncounted,
            "players": players, "best_chug": values.get("best_chug"), "bgstats": links,
        }
        return self.site.page(request, "history.html", context)

    async def player(self, request: Request) -> Response:
        name = request.path_params["name"]
        try:
            games, values = await run_in_threadpool(self.site.view.history)
        except JournalBusy:
            return self.site.message(request, BUSY, 503)
        stats = find_player(player_stats(games, roster_of(self.site), seats_of(values)), name)
        if stats is None:
            return self.site.message(request, f"No finished game with {name!r}", 404)
        pages = max(1, -(-len(stats.played) // PAGE_GAMES))  # their games a page, newest first; the totals count all
        page = min(max(1, _number(request.query_params.get("page"))), pages)
        played = stats.played[(page - 1) * PAGE_GAMES : page * PAGE_GAMES]
        context = {"stats": stats, "played": played, "shown": {g.name for g in played}, "page": page, "pages": pages}
        return self.site.page(request, "player.html", context)


def _number(text: str | None) -> int:
    """A page number from the address, 1 when it is none.

    >>> _number("3"), _number("²"), _number("-3"), _number(None), _number("1234567")
    (3, 1, 1, 1, 1)
    """
    number = digits_value(text)
    return number if number is not None and number < 10**6 else 1


def find_player(players: dict[str, PlayerStats], name: str) -> PlayerStats | None:
    """The player called `name` now, else the one with that id, else the one who played under that name."""
    folded = name.casefold()
    return players.get(name) or next(
        (p for p in players.values() if p.id == name or folded in (n.casefold() for n in (p.name, *p.former))), None
    )
