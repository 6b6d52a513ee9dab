"""Plays where players keep them: a finished game as BG Stats' link for other apps, and every play
as JSON or CSV.

BG Stats takes a play from another app as `https://app.bgstatsapp.com/createPlay.html?data=<JSON,
URL-encoded>`: the game (matched by name), the date, the location and each player (matched by
name), with the winners marked. The box's games keep figures rather than one score, so a play is
sent without points (`noPoints`), its figures in the comment.

>>> from box.web.summaries import GameSummary
>>> game = GameSummary(4, "g", ("Ann", "Bob"), {}, True, "2026-12-01 21:00:07", 9, True, ("Bob",))
>>> link = bgstats_link(game, "Tombola", "gravebox")
>>> link.startswith(BGSTATS)
True
>>> play = json.loads(urllib.parse.unquote(link.split("data=", 1)[1]))
>>> play["playDate"], [(p["name"], p["winner"], p["startPlayer"]) for p in play["players"]]
('2026-12-01 21:00:07', [('Ann', False, True), ('Bob', True, False)])
"""

from __future__ import annotations

import csv
import io
import json
import urllib.parse
from collections.abc import Mapping
from typing import Any

from box.web.drawings import per
from box.web.summaries import GameSummary

BGSTATS = "https://app.bgstatsapp.com/createPlay.html?data="
SOURCE = "Gravebox"


def figures_said(game: GameSummary) -> str:
    """Each player's figures in words: "Ann: 1 penalty; Bob: 0 penalties"."""
    rows = []
    for name in game.players:
        values = game.figures.get(name, {})
        said = ", ".join(f"{values[f.key]} {per(f.label, values[f.key])}" for f in game.declared if f.key in values)
        rows.append(f"{name}: {said}" if said else name)
    return "; ".join(rows)


def highest_wins(game: str) -> bool:
    """What the game declares: its first figure leads with the most (False: the fewest, as Deadlines' penalties).

    >>> highest_wins("deadlines"), highest_wins("dead-set")
    (False, True)
    """
    from box.games import rules_for

    try:
        figures = rules_for(game).figures
    except KeyError:  # a game this box no longer has
        return True
    return not (figures and figures[0].fewest_lead)


def minutes_between(started: str | None, ended: str | None) -> int | None:
    """Whole minutes from `started` to `ended` (local times as the box keeps them); None when unknown.

    >>> minutes_between("2026-12-01 21:00", "2026-12-01 21:42:30"), minutes_between("2026-12-01 21:00", None)
    (42, None)
    """
    from datetime import datetime

    times = []
    for said in (started, ended):
        try:
            times.append(datetime.fromisoformat(said or ""))
        except ValueError:
            return None
    minutes = int((times[1] - times[0]).total_seconds() // 60)
    return minutes if minutes >= 0 else None


def bgstats_play(game: GameSummary, title: str, location: str, ids: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The play as BG Stats' import reads it (its documented fields): its stable id (a second tap does
    not import it twice), each player by their roster id (`ids`: name -> id; a rename keeps BG Stats'
    match), which side wins as the game declares, its minutes where the box knows its end; no BGG id."""
    ids = ids or {}
    play: dict[str, Any] = {
        "sourceName": SOURCE,
        "sourcePlayId": f"{SOURCE.lower()}-{location}-{game.id}",
        "location": location,
        "comments": figures_said(game),
        "game": {"name": title, "noPoints": True, "highestWins": highest_wins(game.name), "sourceGameId": game.name},
        "players": [
            {"name": name, "winner": name in game.winners, "startPlayer": seat == 0,
             "sourcePlayerId": ids.get(name, name)}
            for seat, name in enumerate(game.players)
        ],
    }
    if game.started:  # BG Stats' "YYYY-MM-DD HH:MM:SS": a game journaled to the minute (before seconds) at :00
        play["playDate"] = game.started if len(game.started) > 16 else f"{game.started}:00"
    minutes = minutes_between(game.started, game.ended)
    if minutes is not None:
        play["durationMin"] = minutes
    return play


def bgstats_link(game: GameSummary, title: str, location: str, ids: Mapping[str, str] | None = None) -> str:
    """BG Stats' link for other apps, with the play in it."""
    data = json.dumps(bgstats_play(game, title, location, ids), separators=(",", ":"), ensure_ascii=False)
    return BGSTATS + urllib.parse.quote(data, safe="")


def play_row(game: GameSummary, title: str) -> dict[str, Any]:
    return {
        "number": game.id,
        "game": title,
        "started": game.started,
        "players": list(game.players),
        "winners": list(game.winners),
        "ended": "played to the end" if game.over else "abandoned",
        "actions": game.actions,
        "options": dict(game.options),
        "figures": {name: dict(game.figures.get(name, {})) for name in game.players},
        "figure_labels": {f.key: f.label for f in game.declared},
    }


def plays_json(games: list[GameSummary], titles: dict[str, str]) -> str:
    """Every play, oldest first, as one JSON document."""
    rows = [play_row(g, titles.get(g.name, g.name)) for g in sorted(games, key=lambda g: g.id)]
    return json.dumps({"source": SOURCE, "plays": rows}, indent=1, ensure_ascii=False)


def plays_csv(games: list[GameSummary], titles: dict[str, str]) -> str:
    """Every play, oldest first: a row a player in a game (number, game, date, player, seat, winner, figures)."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["number", "game", "started", "ended", "player", "seat", "winner", "figures"])
    for game in sorted(games, key=lambda g: g.id):
        for seat, name in enumerate(game.players, start=1):
            values = game.figures.get(name, {})
            said = ", ".join(f"{f.label} {values[f.key]}" for f in game.declared if f.key in values)
            ended = "played to the end" if game.over else "abandoned"
            row = [game.id, titles.get(game.name, game.name), game.started or "", ended, name, seat, name in game.winners, said]
            writer.writerow([safe_cell(cell) for cell in row])
    return out.getvalue()


def safe_cell(value: object) -> object:
    """A cell a spreadsheet will not run as a formula (a name may start with = + - @)."""
    return "'" + value if isinstance(value, str) and value[:1] in ("=", "+", "-", "@") else value
