"""History and people that cannot be fooled: a history line counts only for the actions it ended
with, player ids are random and never another player's, and two players of one game stay two."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

from box.storage.history import HISTORY_FILE, read
from box.storage.journal import Journal
from box.storage.player_ids import SEATS, Sat, person_id
from box.storage.roster import ROSTER_FILE, Roster, load_roster
from box.web.journal_view import JournalView
from box.web.people import player_stats, seats_of
from tests import test_web
from tests.test_web import ORIGIN, Rig, text

played, state_dir, rig = test_web.played, test_web.state_dir, test_web.rig  # the fixtures: two games by Ann and Bob


def test_a_game_undone_across_its_end_and_abandoned_is_no_win(state_dir: Path) -> None:
    """The line's count of actions matches again (one undone, one played), its newest action does not."""
    line = [entry for entry in read(state_dir / HISTORY_FILE) if entry.game == "dead-set"][-1]  # the newest end
    assert line.last and line.winners
    journal = Journal(state_dir / "journal.db")
    journal.undo(line.last)  # the winning action taken back...
    journal.append(line.number, {"t": "press", "b": "back", "l": False})  # ...another in its place: as many
    journal.close()
    view = JournalView(state_dir / "journal.db", played=state_dir / HISTORY_FILE)
    games, _ = view.history()
    [game] = [summary for summary in games if summary.id == line.number]
    assert game.actions == line.actions and not game.over and game.winners == ()  # replayed: abandoned


def test_a_new_players_id_is_random_and_none_the_journals_seats_hold(state_dir: Path) -> None:
    view = JournalView(state_dir / "journal.db")
    sat = view.sat()
    assert sat.ids and set(sat.names) == {"ann", "bob"}
    roster = Roster.checked(["Ann", "Zed agjcuf", "Cid"], {}, sat=sat)
    assert roster.id_of("Ann") == sat.names["ann"], "a name that sat keeps the id it sat under"
    for name in ("Zed agjcuf", "Cid"):
        made = roster.id_of(name)
        assert made is not None and re.fullmatch(r"[0-9a-f]{12}", made) and made not in sat.ids
    assert person_id("Zed agjcuf") == person_id("Ann")  # the old crc32 ids: found in seconds
    taken = {f"{n:012x}" for n in range(50)}
    assert all(Sat(frozenset(taken)).id_for("Zed", set()) not in taken for _ in range(20))


def test_zed_joining_the_roster_takes_none_of_anns_games(rig: Rig) -> None:
    token = rig.pair()
    reply = rig.client.post("/roster", data={"csrf": token, "names": "Zed agjcuf"}, headers=ORIGIN)
    assert reply.status_code == 200
    zed = load_roster(rig.settings.state_dir / ROSTER_FILE).id_of("Zed agjcuf")
    assert zed is not None and zed not in rig.app.state.view.sat().ids
    assert "2 games" in text(rig.client.get("/players/Ann"))
    assert rig.client.get("/players/Zed agjcuf").status_code == 404  # no game of his


def test_old_crc32_ids_are_still_read(state_dir: Path) -> None:
    roster = Roster(("Ann",))  # a roster of names, as before ids: each name's crc32 id
    assert roster.id_of("Ann") == person_id("Ann")
    with sqlite3.connect(state_dir / "journal.db") as db:  # games played under that id
        db.execute("UPDATE box SET value = ? WHERE key LIKE ?", (f'["{person_id("Ann")}", null]', f"{SEATS}%"))
    view = JournalView(state_dir / "journal.db")
    games, values = view.history()
    stats = player_stats(games, roster.renamed(person_id("Ann"), "Annie"), seats_of(values))
    assert stats["Annie"].games == 2


def test_two_players_of_one_game_are_not_merged_and_counted_once() -> None:
    """The roster refuses the merge; a roster merged before (by an older box) counts the game once."""
    roster = Roster.checked(["Bo", "Bob"], {})
    bo, bob = roster.id_of("Bo"), roster.id_of("Bob")
    assert bo is not None and bob is not None
    try:
        roster.merged(bo, bob, [[bob, bo]])
    except ValueError as problem:
        assert str(problem) == "Bo and Bob sat at the same game: two players"
    else:
        raise AssertionError("merged two players of one game")
    merged = roster.merged(bo, bob)  # as an older box did
    from box.web.summaries import GameSummary

    game = GameSummary(1, "dead-set", ("Bo", "Bob"), {}, True, None, 9, True, ("Bob",), {}, ())
    assert player_stats([game], merged, {1: [bo, bob]})["Bob"].games == 1


def test_the_box_refuses_to_merge_two_players_of_one_game(tmp_path: Path) -> None:
    from box.sim.world import SimulatedBox
    from tests.test_people import judged, with_roster

    world = SimulatedBox(state_dir=tmp_path / "state", decks_dir=test_web.SCENARIOS / "dead-set" / "decks", seed=1)
    try:
        roster = with_roster(world, "Bo", "Bob")
        assert judged(world, "start", game="dead-set", names=["Bo", "Bob"], options={}) == ""
        said = judged(world, "merge", player=roster.id_of("Bo"), into=roster.id_of("Bob"))
        assert said == "Not merged: Bo and Bob sat at the same game: two players"
        assert load_roster(world.state_dir / ROSTER_FILE).names == ("Bo", "Bob")
    finally:
        world.close()
