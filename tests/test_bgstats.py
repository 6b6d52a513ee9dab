"""The BG Stats link of a finished play (box/web/exports.py), decoded back and compared field by
field with the format BG Stats documents for other apps (/work/shared/notes/integrations.md)."""

from __future__ import annotations

import json
import re
import urllib.parse

import pytest

from box.games import GAMES, rules_for
from box.web.exports import BGSTATS, bgstats_link
from box.web.journal_view import GameSummary

DOCUMENTED_PLAY = {"sourceName", "sourcePlayId", "playDate", "durationMin", "location", "comments", "board", "game",
                   "players"}
DOCUMENTED_GAME = {"name", "bggId", "highestWins", "noPoints", "sourceGameId"}
DOCUMENTED_PLAYER = {"name", "score", "winner", "rank", "startPlayer", "role", "sourcePlayerId"}


def decoded(link: str) -> dict:
    assert link.startswith(BGSTATS)
    return json.loads(urllib.parse.unquote(link.removeprefix(BGSTATS)))


@pytest.mark.parametrize("game", sorted(GAMES))
def test_each_games_link_decodes_to_the_documented_fields(game: str) -> None:
    summary = GameSummary(12, game, ("Ann", "Bob"), {}, True, "2026-12-01 21:00", 30, True, ("Bob",),
                          ended="2026-12-01 21:47")
    play = decoded(bgstats_link(summary, "Title", "parlour", {"Ann": "p-ann", "Bob": "p-bob"}))
    assert set(play) <= DOCUMENTED_PLAY and set(play["game"]) <= DOCUMENTED_GAME
    assert all(set(player) <= DOCUMENTED_PLAYER for player in play["players"])
    assert play["sourcePlayId"] == "gravebox-parlour-12"  # stable: the same play twice is one play
    assert [p["sourcePlayerId"] for p in play["players"]] == ["p-ann", "p-bob"]  # the roster's ids, not names
    assert "bggId" not in play["game"]  # unknown: left out, never 0
    assert play["durationMin"] == 47
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", play["playDate"]) and play["playDate"] == "2026-12-01 21:00:00"
    figures = rules_for(game).figures
    assert play["game"]["highestWins"] is not (bool(figures) and figures[0].fewest_lead)
    assert play["game"]["highestWins"] is (game != "deadlines")  # fewest penalties wins Deadlines


def test_a_play_without_its_end_or_ids_says_no_minutes_and_names_its_players() -> None:
    summary = GameSummary(3, "dead-set", ("Ann",), {}, True, "2026-12-01 21:00:15", 3, True, ("Ann",))
    play = decoded(bgstats_link(summary, "Dead Set", "parlour"))
    assert "durationMin" not in play and play["playDate"] == "2026-12-01 21:00:15"
    assert play["players"][0]["sourcePlayerId"] == "Ann"
