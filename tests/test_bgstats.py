"""The BG Stats link of a finished play (box/web/exports.py), decoded back and compared field by
field with the format BG Stats documents for other apps (/work/shared/notes/integrations.md)."""

from __future__ import annotations

import json
import re
import tempfile
import time
import urllib.parse
from pathlib import Path

import pytest

from box.games import GAMES, rules_for
from box.sim.script import ScriptRunner, parse_script
from box.sim.world import SimulatedBox
from box.storage.history import HISTORY_FILE
from box.web.exports import BGSTATS, bgstats_link
from box.web.journal_view import GameSummary, JournalView

SCENARIOS = Path(__file__).parent / "scenarios"

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


def test_a_played_game_is_dated_to_the_second_it_started() -> None:
    """A game played on the simulated box: its start journaled to the second (`started.<id>`), its
    end in the history line to the second; the link's playDate is that start, as BG Stats writes
    dates ("YYYY-MM-DD HH:MM:SS", the box's local time), and its minutes run from start to end."""
    with tempfile.TemporaryDirectory() as folder:
        state = Path(folder) / "state"
        script = SCENARIOS / "deadlines" / "til-death-lose.script"
        world = SimulatedBox(state_dir=state, decks_dir=script.parent / "decks", seed=1)
        runner = ScriptRunner(world, script.stem)
        try:
            commands = parse_script(script.read_text(), script.stem)
            before = time.time()
            runner.run(commands[:1])  # the start
            after = time.time()
            runner.run(commands[1:])  # to its end
            runner.run(parse_script("start dead-set names=Ann,Bob", "next"))  # the next game: that one is done
            assert world.bus.flush()  # the history line written
        finally:
            world.close()
        (game,) = [g for g in JournalView(state / "journal.db", played=state / HISTORY_FILE).history()[0] if g.id == 1]
    play = decoded(bgstats_link(game, "Deadlines", "parlour"))
    started = time.mktime(time.strptime(play["playDate"], "%Y-%m-%d %H:%M:%S"))
    assert int(before) <= started <= after  # the second it started, not the minute
    assert game.ended is not None and re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", game.ended)
    assert play["durationMin"] == (time.mktime(time.strptime(game.ended, "%Y-%m-%d %H:%M:%S")) - started) // 60
