"""Players are people, not strings: an id that stays through a rename, games kept by seat ids,
two players merged from the phone, and the figures counted per person."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from box.events import GameOver
from box.links.control import ControlCommand, check_command
from box.sim.world import SimulatedBox
from box.storage.history import HISTORY_FILE, History, journaled_seats
from box.storage.history import read as read_history
from box.storage.journal import Journal
from box.storage.player_ids import SEATS
from box.storage.roster import ROSTER_FILE, Roster, load_roster, save_roster
from box.web.people import player_stats, seats_of
from box.web.summaries import GameSummary
from tests import test_web
from tests.test_web import ORIGIN, Rig, text
from tests.test_web_control import JudgingRig, box, sent

played, state_dir, rig = test_web.played, test_web.state_dir, test_web.rig  # the fixtures: two games by Ann and Bob
_ = box  # the fixture: a paired phone's page before a box that judges each command

SCENARIOS = Path(__file__).parent / "scenarios"


# ----- the box: seats kept by id, a merge through its one door ------------------------------------------


@pytest.fixture
def world(tmp_path: Path):
    world = SimulatedBox(state_dir=tmp_path / "state", decks_dir=SCENARIOS / "dead-set" / "decks", seed=1)
    yield world
    world.close()


def judged(world: SimulatedBox, command: str, **args: object) -> str:
    """Hand the box a phone's command; what it answered ("" when done, else its refusal)."""
    verdicts: list[str] = []
    world.loop.enqueue(ControlCommand(command, dict(args), reply=verdicts.append))
    world.advance(0.05)
    assert len(verdicts) == 1
    return verdicts[0]


def with_roster(world: SimulatedBox, *names: str) -> Roster:
    roster = Roster.checked(list(names), {})
    save_roster(roster, world.state_dir / ROSTER_FILE)
    assert judged(world, "roster-changed") == ""
    return roster


def test_a_game_started_from_the_phone_keeps_who_sat_where_by_id(world: SimulatedBox) -> None:
    first = with_roster(world, "Ann", "Bob")
    ann = first.id_of("Ann")
    assert ann is not None
    roster = first.renamed(ann, "Annie")
    save_roster(roster, world.state_dir / ROSTER_FILE)
    judged(world, "roster-changed")
    assert judged(world, "start", game="dead-set", names=["Annie", "P2", "Zed"], options={}) == ""
    game = world.box.lobby.session.record.id
    seats = world.box.journal.get(f"{SEATS}{game}")
    assert seats[0] == ann, "Annie is the player who was Ann"
    assert seats[1] is None, "a seat left as P2 is nobody"
    assert len(seats[2]) == 12 and seats[2] not in (ann, roster.id_of("Bob")), "a new name: a new id"
    assert judged(world, "abandon") == ""
    assert judged(world, "start", game="dead-set", names=["Bob", "Zed"], options={}) == ""
    again = world.box.journal.get(f"{SEATS}{world.box.lobby.session.record.id}")
    assert again == [roster.id_of("Bob"), seats[2]], "off the roster, Zed keeps the id he sat under"


def test_merging_from_the_phone_saves_the_roster_and_says_so_on_the_oled(world: SimulatedBox) -> None:
    roster = with_roster(world, "Bo", "Bob", "Cid")
    bo, bob = roster.id_of("Bo"), roster.id_of("Bob")
    assert bo and bob
    assert judged(world, "merge", player=bo, into=bob) == ""
    saved = load_roster(world.state_dir / ROSTER_FILE)
    assert saved.names == ("Bob", "Cid") and saved.people[0].former == ("Bo",) and saved.people[0].merged == (bo,)
    assert world.box.settings.roster == saved
    assert world.dump()["notice"] == "Bo merged into Bob"
    assert world.box.journal.get("phone")[-1] == {"cmd": "merge", "player": bo, "into": bob}  # journaled first


def test_a_merge_of_an_unknown_player_or_of_one_into_themselves_is_refused_with_its_reason(world: SimulatedBox) -> None:
    roster = with_roster(world, "Ann", "Bob")
    ann = roster.id_of("Ann")
    assert ann
    assert judged(world, "merge", player="zz9zz9", into=ann) == "Not merged: no player 'zz9zz9' in the roster"
    assert judged(world, "merge", player=ann, into=ann) == "Not merged: Ann cannot be merged into themselves"
    assert load_roster(world.state_dir / ROSTER_FILE) == roster and world.box.settings.roster == roster


def test_the_merge_command_is_checked_field_by_field() -> None:
    assert check_command({"cmd": "merge", "player": "a1b2c3", "into": "d4e5f6"}).args == {
        "player": "a1b2c3", "into": "d4e5f6"
    }
    for bad, said in (
        ({"cmd": "merge", "player": "a1b2c3"}, "merge: into must be text"),
        ({"cmd": "merge", "player": 3, "into": "d4e5f6"}, "merge: player must be text"),
        ({"cmd": "merge", "player": "", "into": "d4e5f6"}, "merge: player must be 1 to 200 characters"),
        ({"cmd": "merge", "player": "a", "into": "b", "name": "x"}, "merge: unknown field 'name'"),
    ):
        with pytest.raises(ValueError, match=said):
            check_command(bad)


# ----- history.jsonl: ids in the new lines, the old lines still read ---------------------------------------


def test_history_lines_carry_the_seat_ids_and_older_lines_still_read(tmp_path: Path) -> None:
    path = tmp_path / HISTORY_FILE
    old = {"number": 1, "game": "dead-set", "title": "Dead Set", "players": ["Bo", "Cid"], "winners": ["Bo"],
           "figures": {}, "ended": "2026-11-30 20:00", "actions": 9, "declared": []}
    path.write_text(json.dumps(old) + "\n")
    journal = Journal(tmp_path / "journal.db")
    journal.put(f"{SEATS}2", ["a1b2c3", None])
    seats = journaled_seats(tmp_path / "journal.db")  # read on the subscriber's thread: a connection of its own
    History(path, clock=lambda: "2026-12-01 21:00", seats=seats)(
        GameOver("dead-set", "Dead Set", ("Bob", "P2"), ("Bob",), {}, 2, 12)
    )
    History(path, seats=seats)(GameOver("dead-set", "Dead Set", ("Ann", "Bob"), (), {}, 3, 5))
    journal.close()
    History(path, seats=journaled_seats(tmp_path / "none.db"))(GameOver("dead-set", "Dead Set", ("Cid",), (), {}, 4, 1))
    lines = read_history(path)
    assert [(line.players, line.ids) for line in lines] == [
        (("Bo", "Cid"), ()),  # before players had ids
        (("Bob", "P2"), ("a1b2c3", None)),
        (("Ann", "Bob"), ()),  # a game the journal kept no seats for
        (("Cid",), ()),  # a journal that cannot be read: the line goes without ids
    ]


# ----- the figures, per person -----------------------------------------------------------------------------


def won_by(game_id: int, players: tuple[str, ...], winner: str) -> GameSummary:
    return GameSummary(game_id, "dead-set", players, {}, True, None, 9, True, (winner,))


def test_a_renamed_player_is_one_player_with_the_games_of_both_names() -> None:
    roster = Roster.checked(["Bo", "Cid"], {})
    bo = roster.id_of("Bo")
    assert bo
    old = won_by(1, ("Bo", "Cid"), "Bo")  # a game from before ids: found by the name
    since = won_by(2, ("Bob", "Cid"), "Bob")  # after the rename, kept by id
    abandoned = GameSummary(3, "dead-set", ("Bob", "Cid"), {}, True, None, 2, False, ())
    renamed = roster.renamed(bo, "Bob")
    stats = player_stats([abandoned, since, old], renamed, {2: [bo, roster.id_of("Cid")]})
    assert list(stats) == ["Bob", "Cid"]
    assert (stats["Bob"].games, stats["Bob"].wins, stats["Bob"].id, stats["Bob"].former) == (2, 2, bo, ("Bo",))
    assert stats["Bob"].seat_names == {2: "Bob", 1: "Bo"}
    without_roster = player_stats([since, old])  # who knows nothing of the rename: two names
    assert sorted(without_roster) == ["Bo", "Bob", "Cid"]


def test_merged_players_count_as_one_and_a_seat_left_as_a_number_as_nobody() -> None:
    roster = Roster.checked(["Bo", "Bob"], {})
    bo, bob = roster.id_of("Bo"), roster.id_of("Bob")
    games = [won_by(2, ("Bob", "P2"), "Bob"), won_by(1, ("Bo", "P2"), "P2")]
    merged = roster.merged(bo or "", bob or "")
    stats = player_stats(games, merged, {2: [bob, None], 1: [bo, None]})
    assert list(stats) == ["Bob"] and (stats["Bob"].games, stats["Bob"].wins) == (2, 1)


def test_the_seats_the_journal_kept_are_read_from_its_values() -> None:
    assert seats_of({f"{SEATS}7": ["a1b2c3", None, 4], "started.7": "x", f"{SEATS}no": []}) == {
        7: ["a1b2c3", None, None]
    }


# ----- the phone page: rename in place, merge asked then sent, abandoned games apart --------------------------


def journal_forgets_seats(state: Path) -> None:
    """The journal of a box from before seat ids: no "seats.<game>" values."""
    with sqlite3.connect(state / "journal.db") as db:
        db.execute("DELETE FROM box WHERE key LIKE 'seats.%'")


@pytest.mark.parametrize("seat_ids", [True, False], ids=["games-with-ids", "games-before-ids"])
def test_renaming_ann_on_the_phone_keeps_her_games(rig: Rig, seat_ids: bool) -> None:
    if not seat_ids:
        journal_forgets_seats(rig.settings.state_dir)
    token = rig.pair()
    reply = rig.client.post("/roster", data={"csrf": token, "names": "Ann\nBob"}, headers=ORIGIN)
    assert reply.status_code == 200
    first = load_roster(rig.settings.state_dir / ROSTER_FILE)
    ann, bob = first.id_of("Ann"), first.id_of("Bob")
    if seat_ids:  # joining the roster, a name keeps the id it sat under
        sat = [ids for key, ids in rig.app.state.view.history()[1].items() if key.startswith(SEATS)]
        assert sat and all(ids[0] == ann and ids[1] == bob for ids in sat)
    assert f'name="name.{ann}" value="Ann"' in rig.client.get("/roster").text
    form = {"csrf": token, f"name.{ann}": "Annie", f"name.{bob}": "Bob", "new": "Cid\n"}
    reply = rig.client.post("/roster", data=form, headers=ORIGIN)
    assert reply.status_code == 200 and "Saved" in text(reply) and "played as Ann" in text(reply)
    saved = load_roster(rig.settings.state_dir / ROSTER_FILE)
    assert saved.names == ("Annie", "Bob", "Cid") and saved.id_of("Annie") == ann
    history = text(rig.client.get("/history"))
    players = history.split("<h1>Games</h1>")[0]
    assert "/players/Annie" in players and "/players/Ann\"" not in players
    for name in ("Annie", "Ann", ann):  # her page by her name now, the one she played under, her id
        page = text(rig.client.get(f"/players/{name}"))
        assert "<h1>Annie</h1>" in page and "2 games" in page and "Also played as Ann" in page, name


def test_a_roster_changed_meanwhile_is_not_saved_over(rig: Rig) -> None:
    save_roster(Roster.checked(["Ann"], {}), rig.settings.state_dir / ROSTER_FILE)
    token = rig.pair()
    reply = rig.client.post("/roster", data={"csrf": token, "name.zz9zz9": "Bob"}, headers=ORIGIN)
    assert reply.status_code == 400 and "the roster changed meanwhile" in text(reply)
    assert load_roster(rig.settings.state_dir / ROSTER_FILE).names == ("Ann",)


def test_merge_asks_on_the_phone_then_sends_the_box_the_two_ids(box: JudgingRig) -> None:
    token = box.pair()
    roster = load_roster(box.settings.state_dir / ROSTER_FILE)
    ann, bob = roster.id_of("Ann"), roster.id_of("Bob")
    assert 'id="merge"' in box.client.get("/roster").text
    ask = box.client.get(f"/roster/merge?player={ann}&into={bob}")
    assert ask.status_code == 200 and "Merge Ann into Bob?" in text(ask)
    assert sent(box) == []  # asking sends nothing
    reply = box.client.post("/roster/merge", data={"csrf": token, "player": ann, "into": bob}, headers=ORIGIN)
    assert reply.status_code == 200 and "Merged into" in text(reply)
    assert sent(box) == [ControlCommand("merge", {"player": ann, "into": bob})]
    box.verdict = "Not merged: roster not saved (No space left on device)"
    reply = box.client.post("/roster/merge", data={"csrf": token, "player": ann, "into": bob}, headers=ORIGIN)
    assert reply.status_code == 409 and "The box refused: Not merged: roster not saved" in text(reply)


def test_merging_a_player_into_themselves_or_an_unknown_one_is_refused_on_the_page(box: JudgingRig) -> None:
    token = box.pair()
    ann = load_roster(box.settings.state_dir / ROSTER_FILE).id_of("Ann")
    for player, into, said in ((ann, ann, "Ann cannot be merged into themselves"), ("zz9zz9", ann, "Choose two players")):
        assert said in text(box.client.get(f"/roster/merge?player={player}&into={into}"))
        reply = box.client.post("/roster/merge", data={"csrf": token, "player": player, "into": into}, headers=ORIGIN)
        assert reply.status_code == 400 and said in text(reply)
    assert sent(box) == []


def test_an_unpaired_phone_cannot_merge(box: JudgingRig) -> None:
    reply = box.client.post("/roster/merge", data={"csrf": "0" * 64, "player": "a", "into": "b"}, headers=ORIGIN)
    assert reply.status_code == 403 and sent(box) == []


def test_abandoned_games_are_listed_apart_and_count_for_nobody(rig: Rig) -> None:
    before = text(rig.client.get("/players/Ann"))
    journal = Journal(rig.settings.state_dir / "journal.db")
    journal.finish_game(journal.start_game("dead-set", ["Ann", "Bob"], {}, None))
    journal.close()
    history = text(rig.client.get("/history"))
    games, abandoned = history.split("<h2>Abandoned</h2>")
    assert games.count('class="game"') == 2 and "Ann, Bob" in abandoned
    assert text(rig.client.get("/players/Ann")).count("games") == before.count("games") and "2 games" in before
