"""Who sits where: the setup's names from the roster, a new name spelt with the buttons, kept for the next game."""

from pathlib import Path

from box.base.settings import Settings
from box.core.service import Box
from box.screens.tools import DiceCup
from box.storage.journal import Journal
from box.storage.roster import ROSTER_FILE, Roster, load_roster
from box.storage.tags import TagMap

DECKS = Path(__file__).parent / "scenarios" / "box" / "decks"


def make_box(state_dir: Path | None, names: tuple[str, ...] = ("Ann", "Bob", "Cid")) -> Box:
    settings = Settings(decks_dir=DECKS, state_dir=state_dir, roster=Roster(names))
    return Box(Journal(":memory:"), TagMap(), DiceCup(die=lambda: 2), settings)


def press(box: Box, *buttons: str, kind: str = "short") -> None:
    for button in buttons:
        box.button(button, kind, 1.0)


def dead_set_setup(box: Box) -> None:
    press(box, "down", "ok", "ok")  # Dead Set, 2 players, the setup page
    assert box.root.menu.entries()[:2] == ["START", "Names: Ann, Bob"]


def test_a_default_game_takes_the_rosters_first_names_in_two_presses():
    box = make_box(None)
    press(box, "down", "ok", "ok", "ok")  # Dead Set, 2 players, START
    assert box.dump(1.0)["players"] == ["Ann", "Bob"]


def test_a_seat_takes_a_roster_name_and_a_seated_name_swaps():
    box = make_box(None)
    dead_set_setup(box)
    press(box, "down", "ok")  # Names: the seats
    assert box.screen(1.0).lines[:3] == ("1 Ann", "2 Bob", "Done")
    press(box, "down", "ok")  # seat 2: who?
    view = box.screen(1.0)
    assert view.title == "Seat 2: who?" and view.lines[view.cursor] == "Bob"
    assert view.lines == ("Ann", "Bob", "Cid", "P2", "New name")
    press(box, "down", "ok")  # Cid; back at the seats, on the next line (Done)
    assert box.screen(1.0).lines[:2] == ("1 Ann", "2 Cid")
    press(box, "up", "up", "ok", "down", "down", "ok")  # seat 1: Cid, who was in seat 2: they swap
    assert box.screen(1.0).lines[:2] == ("1 Cid", "2 Ann")
    press(box, "down", "ok")  # Done: the setup page
    press(box, "up", "ok")  # START
    assert box.dump(1.0)["players"] == ["Cid", "Ann"]


def test_a_new_name_is_spelt_with_the_buttons_and_joins_the_roster_first(tmp_path: Path):
    box = make_box(tmp_path)
    dead_set_setup(box)
    press(box, "down", "ok", "ok")  # seat 1: who?
    press(box, "up", "ok")  # New name
    assert box.screen(1.0).title == "New name"
    press(box, "up", "ok")  # Z (A, then UP wraps round)
    press(box, "ok")  # the next letter starts at the one before: Zz
    press(box, "back")  # rubbed out: Z, and the letters start again at a
    press(box, "ok")  # Za
    assert box.screen(1.0).lines[0] == "Name: Za<a>"
    press(box, "ok", kind="long")  # done: back at the seats
    assert box.screen(1.0).lines[:2] == ("1 Za", "2 Bob")
    press(box, "down", "ok")  # Done
    press(box, "up", "ok")  # START
    assert box.dump(1.0)["players"] == ["Za", "Bob"]
    assert box.settings.roster.names == ("Za", "Bob", "Ann", "Cid")  # the last table first
    assert load_roster(tmp_path / ROSTER_FILE).names == ("Za", "Bob", "Ann", "Cid")


def test_a_name_spelt_at_one_seat_is_offered_at_the_next_and_swaps_seats():
    box = make_box(None)
    dead_set_setup(box)
    press(box, "down", "ok", "ok")  # seat 1: who?
    press(box, "up", "ok")  # New name
    press(box, "up", "ok")  # Z
    press(box, "ok", kind="long")  # done: seat 1 is Z, the cursor on seat 2
    assert box.screen(1.0).lines[:2] == ("1 Z", "2 Bob")
    press(box, "ok")  # seat 2: who?
    view = box.screen(1.0)
    assert view.lines == ("Ann", "Bob", "Cid", "Z", "P2")  # then "New name", below the window
    press(box, "down", "down", "ok")  # Z, who sat at seat 1: they swap
    assert box.root.menu.seated == ("Bob", "Z")


def test_a_name_spelt_like_a_roster_name_is_that_name():
    box = make_box(None)
    dead_set_setup(box)
    press(box, "down", "ok", "down", "ok")  # seat 2: who?
    press(box, "down", "down", "down", "ok")  # New name
    press(box, "ok")  # A
    for _ in range(13):
        press(box, "down")  # a -> n
    press(box, "ok", "ok")  # Ann
    press(box, "ok", kind="long")
    assert box.root.menu.seated == ("Bob", "Ann")  # the roster's Ann, who swapped seats


def test_a_roster_that_cannot_be_saved_is_said_and_the_game_goes_on(tmp_path: Path):
    box = make_box(tmp_path / "missing")
    dead_set_setup(box)
    press(box, "down", "ok", "ok", "down", "down", "ok")  # seat 1: Cid
    press(box, "down", "ok", "up", "ok")  # Done, START
    assert box.dump(1.0)["players"] == ["Cid", "Bob"]
    assert box.dump(1.0)["notice"].startswith("Names not saved")
    assert box.settings.roster.names == ("Cid", "Bob", "Ann")  # kept until the box restarts


def test_placeholders_fill_the_seats_the_roster_has_no_name_for():
    box = make_box(None, names=("Ann",))
    press(box, "down", "ok", "up", "up", "ok")  # Dead Set, 4 players
    assert box.root.menu.entries()[1] == "Names: Ann, P2, P3, P4"


def test_the_config_files_names_do_not_become_a_roster_by_being_played(tmp_path: Path):
    settings = Settings(names=("Ann", "Bob"), decks_dir=DECKS, state_dir=tmp_path)
    box = Box(Journal(":memory:"), TagMap(), DiceCup(die=lambda: 2), settings)
    press(box, "down", "ok", "ok", "ok")  # Dead Set with the config file's Ann and Bob
    assert box.dump(1.0)["players"] == ["Ann", "Bob"]
    assert not (tmp_path / ROSTER_FILE).exists() and box.settings.roster.names == ()


def test_the_table_is_remembered_across_a_restart_and_offered_first(tmp_path: Path) -> None:
    journal_path = tmp_path / "journal.db"
    settings = Settings(decks_dir=DECKS, state_dir=tmp_path, roster=Roster(("Ann", "Bob", "Cid", "Dee")))
    box = Box(Journal(journal_path), TagMap(), DiceCup(die=lambda: 2), settings)
    box.lobby.start_game("dead-set", 1.0, names=["Cid", "Ann", "Dee"], options={"target": "9"})
    box.lobby.leave_game(2.0)
    assert box.root.menu.entries()[box.root.menu.cursor] == "Dead Set", "the cursor stays on the last game"
    box.journal.close()

    box = Box(Journal(journal_path), TagMap(), DiceCup(die=lambda: 2), settings)  # a restart
    menu = box.root.menu
    assert menu.entries()[menu.cursor] == "Dead Set"
    press(box, "ok", "ok")  # Dead Set, then its players page
    menu = box.root.menu
    assert menu.players == 3 and menu.seated == ("Cid", "Ann", "Dee"), "the same table, in the same seats"
    assert dict(zip((o.key for o in menu.options), menu.values))["target"] == "9"
    press(box, "ok")  # START: the remembered game
    assert box.session is not None and box.session.players == ("Cid", "Ann", "Dee")
    assert box.session.record.options["target"] == "9"
