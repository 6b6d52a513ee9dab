"""The Box around the games: menus, taps it refuses, undo, resume, the tools, power off."""

from pathlib import Path

import pytest

from box.base.settings import Settings
from box.core.service import Box, GameStartError
from box.screens.menu import FIRST_OPTION
from box.screens.tools import DiceCup
from box.storage.journal import Journal
from box.storage.tags import TagMap, simulated_uid

DECKS = Path(__file__).parent / "scenarios" / "box" / "decks"


def make_box(journal: Journal | None = None) -> Box:
    journal = journal or Journal(":memory:")
    tags = TagMap()
    box = Box(journal, tags, DiceCup(die=lambda: 2), Settings(names=("Ann", "Bob", "Cid"), decks_dir=DECKS))
    tags.merge(TagMap.simulated([box.lobby.deck("deck-of-death"), box.lobby.deck("dead-set")]))
    return box


def press(box: Box, button: str, now: float = 1.0, kind: str = "short") -> None:
    box.button(button, kind, now)


def test_the_menu_starts_a_game_with_default_options():
    box = make_box()
    titles = box.root.menu.entries()
    for _ in range(titles.index("Deck of Death")):
        press(box, "down")
    press(box, "ok")  # the game
    assert box.root.menu.page == "players"
    press(box, "up")  # 3 players
    press(box, "ok")  # to the options
    assert box.root.menu.entries() == ["START", "Names: Ann, Bob, Cid", "Forfeits: drinks", "Fail costs: none", "Blue card: rule"]
    press(box, "down")
    press(box, "down")
    press(box, "ok")  # forfeits -> points
    press(box, "up")
    press(box, "up")
    press(box, "ok")  # START
    dump = box.dump(1.0)
    assert dump["game"] == "deck-of-death"
    assert dump["players"] == ["Ann", "Bob", "Cid"]
    chosen = {"forfeits": "points", "fail_forfeit": "none", "blue_landing": "rule"}
    assert dump["options"] == chosen
    assert box.journal.unfinished_game().options == chosen


def test_a_number_option_is_set_both_ways_in_a_few_presses():
    box = make_box()
    press(box, "down")
    press(box, "ok")  # Dead Set
    press(box, "ok")  # 2 players, to the options
    numbers = [i for i, option in enumerate(box.root.menu.options, start=FIRST_OPTION) if not option.choices]
    assert box.root.menu.entries()[numbers[0]] == "To win: 13"  # the long label does not fit with "< 108 >"
    for _ in range(numbers[0]):
        press(box, "down")
    before = int(box.root.menu.values[numbers[0] - FIRST_OPTION])
    press(box, "ok")  # edit the number
    press(box, "up")
    press(box, "up")
    press(box, "down")
    press(box, "ok")  # done
    assert int(box.root.menu.values[numbers[0] - FIRST_OPTION]) == before + 1
    assert not box.root.menu.editing


@pytest.mark.parametrize(
    ("kwargs", "reason"),
    [
        ({"game": "chess"}, "unknown game"),
        ({"game": "deck-of-death", "options": {"forfeits": "beer"}}, "forfeits must be one of"),
        ({"game": "deck-of-death", "options": {"colour": "red"}}, "unknown option 'colour'"),
        ({"game": "deck-of-death", "players": 11}, "takes 2 to 10 players"),
        ({"game": "deck-of-death", "names": ["Al", "Al"]}, "must differ"),
    ],
)
def test_a_game_that_cannot_start_says_why_and_journals_nothing(kwargs, reason):
    box = make_box()
    with pytest.raises(GameStartError, match=reason):
        box.lobby.start_game(now=0.0, **kwargs)
    assert box.session is None
    assert box.journal.unfinished_game() is None


def test_refused_taps_say_why_and_change_nothing():
    box = make_box()
    box.card_placed("left", simulated_uid("deck-of-death", "dd7"), now=0.5)
    assert box.notices.text.startswith("No game running")
    box.lobby.start_game("deck-of-death", now=1.0)
    before = box.dump(1.0)
    box.take_sounds()
    box.card_placed("left", bytes.fromhex("04010203040506"), now=2.0)
    assert box.notices.text == "Unknown card 04010203040506"
    box.card_placed("left", simulated_uid("dead-set", next(iter(box.lobby.deck("dead-set").cards))), now=2.5)
    assert box.notices.text == "That card is from Dead Set"
    assert box.take_sounds() == ["error", "error"]
    after = box.dump(2.5)
    assert {k: v for k, v in after.items() if k != "notice"} == {k: v for k, v in before.items() if k != "notice"}


def test_undo_needs_a_confirmation_and_takes_back_one_action():
    box = make_box()
    box.lobby.start_game("deck-of-death", now=0.0)
    press(box, "ok")  # draw phase done
    box.dice.queue(4, 5)
    press(box, "roll")
    box.advance(3.0)  # the tumble, then its real faces for a second
    assert box.dump(3.0)["actions"] == 2
    press(box, "back", kind="long")
    assert box.screen(3.0).lines[0].startswith("Undo: roll 4+5")
    press(box, "back")  # cancel
    assert box.dump(2.0)["actions"] == 2
    press(box, "back", kind="long")
    press(box, "ok")
    assert box.screen(2.0).lines[0].startswith("Undo: roll 4+5") and box.dump(2.0)["screen"] == "confirm"
    assert box.dump(2.0)["actions"] == 2, "asked first"
    press(box, "ok")
    assert box.dump(2.0)["actions"] == 1
    assert box.dump(2.0)["positions"]["Ann"]["space"] == 0


def test_the_undo_label_says_what_it_undoes():
    box = make_box()
    box.lobby.start_game("dead-set", now=0.0)
    press(box, "ok")  # Ann sticks
    press(box, "back", kind="long")
    assert box.screen(1.0).lines[0] == "Undo: Ann sticks"


def test_nothing_to_undo_is_said():
    box = make_box()
    box.lobby.start_game("deck-of-death", now=0.0)
    press(box, "back", kind="long")
    assert box.screen(0.0).lines[0] == "Nothing to undo"
    press(box, "ok")
    assert box.notices.text == "Nothing to undo"


def test_a_new_box_on_the_same_journal_resumes_the_game(tmp_path):
    journal = Journal(tmp_path / "journal.db")
    box = make_box(journal)
    box.lobby.start_game("deck-of-death", now=0.0)
    press(box, "ok")
    box.dice.queue(3, 3)
    press(box, "roll")
    before = box.dump(5.0)
    journal.close()
    again = make_box(Journal(tmp_path / "journal.db"))
    after = again.dump(5.0)
    for key in ("game", "players", "positions", "laps", "current_player", "dice", "actions"):
        assert after[key] == before[key]


def test_a_game_roll_shows_its_real_faces_after_the_tumble_until_a_second_or_an_input():
    box = make_box()
    box.lobby.start_game("deck-of-death", now=0.0)
    press(box, "ok", now=0.5)  # drawn
    box.dice.queue(6, 6)
    press(box, "roll", now=1.0)
    box.advance(1.3)
    assert box.screen(1.3).dice != (6, 6)  # still tumbling
    box.advance(1.6)
    assert box.screen(1.6).dice == (6, 6)  # the faces rolled, held
    box.advance(2.4)
    assert box.screen(2.4).dice == (6, 6)
    box.advance(2.6)
    assert box.screen(2.6).dice is None  # the game's screen again
    box.dice.queue(1, 2)
    press(box, "roll", now=5.0)
    box.advance(5.6)
    assert box.screen(5.6).dice == (1, 2)
    press(box, "up", now=5.7)  # an input gives the screen back at once
    assert box.screen(5.7).dice is None


def test_a_free_roll_is_not_a_game_action():
    box = make_box()
    box.lobby.start_game("dead-set", now=0.0)
    box.dice.queue(6, 5)
    press(box, "roll")  # Dead Set wants no dice: the free dice tool
    assert box.dump(1.0)["dice"]["last"] == [6, 5]
    assert box.dump(1.0)["actions"] == 0
    assert box.screen(1.0).dice is not None
    press(box, "up")  # any press puts the dice away
    assert box.screen(1.0).dice is None
    assert box.dump(1.0)["actions"] == 0


def test_power_off_needs_the_chord_and_a_confirmation():
    box = make_box()
    box.button("back+ok", "combo", 1.0)
    assert box.screen(1.0).title == "Are you sure?"
    press(box, "back")
    assert not box.lobby.power_off_requested
    box.button("back+ok", "combo", 2.0)
    press(box, "ok")
    assert box.lobby.power_off_requested


def test_after_the_end_a_long_ok_goes_back_to_the_menu():
    box = make_box()
    box.lobby.start_game("deck-of-death", now=0.0)
    press(box, "ok", kind="long")  # Deck of Death: "enough chaos?"
    press(box, "ok")
    assert box.dump(1.0)["over"] is True
    assert box.screen(9.0).notice == "hold OK: menu"  # the game-over screen says how to leave it
    press(box, "ok", kind="long")
    assert box.session is None
    assert box.journal.unfinished_game() is None
    assert box.screen(1.0).title == "GRAVEBOX"


def test_the_shot_timer_opens_from_a_game_and_comes_back_to_it():
    box = make_box()
    box.lobby.start_game("deck-of-death", now=0.0)
    press(box, "roll", kind="long")
    assert box.screen(0.0).title == "Shot timer"
    press(box, "ok")  # countdown: set
    press(box, "ok")  # start 30 s
    sounds = []
    for tenth in range(0, 311):
        box.advance(tenth / 10)
        sounds += box.take_sounds()
    assert sounds == ["tick"] * 5 + ["end"]
    press(box, "back", now=31.0)
    assert box.dump(31.0)["screen"] == "game"


def test_an_unknown_tag_gets_its_own_screen_until_a_press_or_a_moment():
    box = make_box()
    box.lobby.start_game("deck-of-death", now=0.0)
    box.card_placed("middle", bytes.fromhex("04aabbccdd"), now=1.0)
    screen = box.screen(1.5)
    assert screen.title == "Unknown card"
    assert "04aabbccdd" in screen.lines
    press(box, "ok", now=2.0)  # dismisses the screen, does not reach the game
    assert box.screen(2.0).title != "Unknown card"
    assert box.dump(2.0)["actions"] == 0
    box.card_placed("middle", bytes.fromhex("04aabbccdd"), now=3.0)
    box.advance(10.0)
    assert box.screen(10.0).title != "Unknown card"


def test_a_games_roll_keeps_its_faces_on_the_bottom_line_until_the_next_input():
    box = make_box()
    box.lobby.start_game("deck-of-death", now=0.0)
    press(box, "ok")  # draw phase done
    box.dice.queue(6, 6)
    press(box, "roll")
    assert box.screen(0.1).dice is not None and "6+6" not in box.screen(0.1).notice  # tumbling: not told yet
    box.advance(3.0)  # the tumble, then its real faces for a second: the game's screen again
    notice = box.screen(3.0).notice
    assert notice.startswith("6+6: ") and box.screen(30.0).notice == notice, "until the next input"
    press(box, "up")
    assert not box.screen(31.0).notice.startswith("6+6")


def test_a_card_laid_while_the_free_dice_show_puts_them_away_and_counts():
    box = make_box()
    box.lobby.start_game("dead-set", now=0.0)
    press(box, "roll")  # Dead Set wants no dice: the free dice
    assert box.dump(1.0)["screen"] == "dice"
    box.card_placed("left", simulated_uid("dead-set", next(iter(box.lobby.deck("dead-set").cards))), now=2.0)
    assert box.dump(2.0)["screen"] == "game" and box.dump(2.0)["actions"] == 1
