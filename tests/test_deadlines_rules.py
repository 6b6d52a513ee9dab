"""Deadlines rules through RULES.apply, one rule, variant, house rule or rejection at a time.

The scenario deck orders its plain cards by number in every column: Card k is
born 1800+k, dies 1830+2k and lives 30+k years.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from box.games.base import Press, Rejected, Roll, Setup, Sound, Step, Tap
from box.games.deadlines import RULES
from box.games.deadlines.screens import INSERT_MARK
from box.games.deadlines.state import Game

DECK = RULES.load_deck(Path(__file__).parent / "scenarios" / "deadlines" / "decks")
LEFT, MIDDLE, RIGHT = "left", "middle", "right"
OK, UP, DOWN, BACK = Press("ok"), Press("up"), Press("down"), Press("back")


def card(k: int) -> str:
    return f"dl{k:02d}"


SPECIAL_A, SPECIAL_B, TIE_YEAR, OLD_TIMER = "dl41", "dl42", "dl43", "dl44"


def step(game: Game, *actions) -> tuple[Game, tuple[str, ...]]:
    """Apply accepted actions in turn; the sounds of the last one."""
    sounds: tuple[str, ...] = ()
    for action in actions:
        result = RULES.apply(game, action)
        assert isinstance(result, Step), f"{action} was rejected: {getattr(result, 'reason', '')}"
        game, sounds = result.state, result.sounds
    return game, sounds


def rejected(game: Game, action) -> str:
    result = RULES.apply(game, action)
    assert isinstance(result, Rejected), f"{action} was accepted"
    return result.reason


def started(players: int = 2, starters: tuple[int, int, int] = (10, 11, 12), **options: str) -> Game:
    """A game past setup: Card b, s and d as the birth, life span and death starters."""
    names = tuple(f"P{n}" for n in range(1, players + 1))
    game = RULES.new(Setup(names, options), DECK)
    game, _ = step(game, *(Tap(reader, card(k)) for reader, k in zip((LEFT, MIDDLE, RIGHT), starters)))
    return game


def place(game: Game, reader: str, card_id: str, position: int, attempt: bool | None = None):
    """Tap `card_id` and confirm it at `position` (0 = top); answer the special question if asked."""
    game, _ = step(game, Tap(reader, card_id))
    if attempt is not None:
        game, _ = step(game, *([] if attempt else [DOWN]), OK)
    here = game.phase.position
    moves = [DOWN] * (position - here) if position > here else [UP] * (here - position)
    return step(game, *moves, OK)


def column(game: Game, name: str) -> list[str]:
    return RULES.dump(game)["columns"][name]


# --- setup ---------------------------------------------------------------------


def test_setup_asks_for_a_starting_card_on_each_reader_then_player_one_plays():
    game = RULES.new(Setup(("Ann", "Bob")), DECK)
    assert RULES.dump(game)["current_player"] is None
    assert rejected(game, OK) == "Tap a starting card on each reader"
    game, _ = step(game, Tap(MIDDLE, card(5)))
    assert rejected(game, Tap(MIDDLE, card(6))) == "Life span has its starting card"
    assert rejected(game, Tap(LEFT, card(5))) == "Card 05 is already in play"
    assert "Card 05" in RULES.view(game).lines[1]
    game, _ = step(game, Tap(RIGHT, card(7)), Tap(LEFT, card(3)))
    dump = RULES.dump(game)
    assert dump["columns"] == {"birth": ["dl03"], "lifespan": ["dl05"], "death": ["dl07"]}
    assert dump["current_player"] == "Ann"
    assert dump["phase"] == "drawing"


def test_options_default_to_the_rulings():
    defaults = {option.key: option.default for option in RULES.options}
    assert defaults == {
        "variant": "classic",
        "streak": "off",
        "ties": "either",
        "starter_counts": "yes",
        "reward": "one",
    }
    assert RULES.options[0].choices == ("classic", "short-life", "dead-end", "death-match", "til-death")


# --- a turn --------------------------------------------------------------------


def test_a_right_card_stays_in_its_column_and_the_turn_passes():
    game = started()
    game, sounds = place(game, LEFT, card(20), position=1)
    assert column(game, "birth") == [card(10), card(20)]
    assert sounds == (Sound.RIGHT,)
    assert RULES.dump(game)["current_player"] == "P2"
    assert RULES.dump(game)["penalties"] == {"P1": 0, "P2": 0}
    assert "1820-06-15" in game.notice


def test_a_wrong_card_is_a_penalty_and_leaves_the_column_alone():
    game = started()
    game, sounds = place(game, RIGHT, card(2), position=1)
    assert sounds == (Sound.WRONG,)
    assert column(game, "death") == [card(12)]
    assert RULES.dump(game)["penalties"] == {"P1": 1, "P2": 0}
    assert RULES.dump(game)["current_player"] == "P2"
    assert rejected(game, Tap(LEFT, card(2))) == "Card 02 is already in play"


def test_each_column_judges_by_its_own_value():
    # Old Timer was born in 100 BC (before everyone) but lived 55 years (after Card 10's 40).
    game = started()
    assert rejected(game, Tap(MIDDLE, card(10))) == "Card 10 is already in play"
    right, _ = place(game, MIDDLE, OLD_TIMER, position=1)
    assert column(right, "lifespan") == [card(11), OLD_TIMER]
    wrong, sounds = place(game, LEFT, OLD_TIMER, position=1)
    assert sounds == (Sound.WRONG,)
    assert column(wrong, "birth") == [card(10)]
    right, _ = place(game, LEFT, OLD_TIMER, position=0)
    assert column(right, "birth") == [OLD_TIMER, card(10)]


def test_the_cursor_starts_in_the_middle_and_wraps_round_at_the_ends():
    game = started(streak="must")
    for k in (20, 30, 40):
        game, _ = place(game, LEFT, card(k), position=len(column(game, "birth")))
    game, _ = step(game, Tap(LEFT, card(25)))
    assert game.phase.position == 2  # four cards: between the second and the third
    view = RULES.view(game)
    assert view.lines[view.cursor] == INSERT_MARK
    game, _ = step(game, UP, UP)
    assert game.phase.position == 0  # above the first card
    game, _ = step(game, UP)
    assert game.phase.position == 4  # the kit's cursor rule: UP at the top goes to the bottom
    game, _ = step(game, DOWN)
    assert game.phase.position == 0


def test_a_long_column_shows_a_window_of_five_lines_around_the_cursor():
    game = started(streak="must", starters=(1, 2, 3))
    for k in range(11, 21):
        game, _ = place(game, LEFT, card(k), position=len(column(game, "birth")))
    game, _ = step(game, Tap(LEFT, card(30)))
    game, _ = step(game, *[DOWN] * 6)
    view = RULES.view(game)
    assert len(view.lines) == 5
    assert view.lines[view.cursor] == INSERT_MARK
    assert "Card 20" in view.lines[view.cursor - 1]
    assert all(len(line) <= 21 for line in view.lines)


def test_back_takes_a_plain_card_back_before_it_is_judged():
    game = started()
    tapped, _ = step(game, Tap(LEFT, card(20)))
    back, _ = step(tapped, BACK)
    assert back.phase == game.phase
    assert back.used == game.used  # the card may still be played
    assert RULES.dump(back)["current_player"] == "P1"


@pytest.mark.parametrize("action", [Tap(LEFT, "dl20"), Roll((3, 4))])
def test_inputs_the_box_does_not_wait_for_are_refused_and_change_nothing(action):
    game, _ = step(started(), Tap(LEFT, card(25)))
    before = game
    assert rejected(game, action)
    assert game == before


def test_a_card_of_another_deck_is_refused_even_past_the_service():
    assert rejected(started(), Tap(LEFT, "ds001")) == "Not a Deadlines card or reader"


def test_deadlines_never_wants_the_dice():
    assert RULES.wants_roll(started()) is False
    assert rejected(started(), Roll((1, 2))) == "Deadlines uses no dice"


def test_a_tap_before_a_button_is_answered_is_refused():
    game, _ = step(started(), Tap(LEFT, SPECIAL_A))
    assert rejected(game, Tap(RIGHT, card(20))) == "Answer with UP/DOWN and OK"


# --- ties and precision ------------------------------------------------------------


def test_a_tie_at_the_coarser_precision_may_go_either_side():
    game = started(starters=(5, 11, 12))  # Card 05 born 1805-06-15, Tie Year born 1805
    for position in (0, 1):
        placed, sounds = place(game, LEFT, TIE_YEAR, position)
        assert sounds == (Sound.RIGHT,)
        assert column(placed, "birth")[position] == TIE_YEAR


def test_strict_ties_refuse_an_equal_neighbour():
    game = started(starters=(5, 11, 12), ties="strict")
    for position in (0, 1):
        _, sounds = place(game, LEFT, TIE_YEAR, position)
        assert sounds == (Sound.WRONG,)


def test_life_spans_compare_years_only_when_one_card_prints_years_only():
    game = started(starters=(5, 11, 12))  # Card 11 lived 41y 0m; Tie Year is printed "40"
    _, sounds = place(game, MIDDLE, TIE_YEAR, position=1)
    assert sounds == (Sound.WRONG,)  # 40 < 41: it belongs above
    _, sounds = place(game, MIDDLE, TIE_YEAR, position=0)
    assert sounds == (Sound.RIGHT,)


def test_a_column_stays_in_order_as_a_whole_not_just_around_the_insertion_point():
    """RULINGS 3 with the built-in cards: a coarse card ties its neighbours, the others still count."""
    deck = RULES.load_deck()
    hitler, frank, roosevelt = (deck.find(name) for name in ("Adolf Hitler", "Anne Frank", "Franklin D. Roosevelt"))
    beethoven, dante, lincoln = (
        deck.find(name) for name in ("Ludwig van Beethoven", "Dante Alighieri", "Abraham Lincoln")
    )
    game, _ = step(
        RULES.new(Setup(("Ann", "Bob")), deck), Tap(LEFT, "dl004"), Tap(MIDDLE, beethoven), Tap(RIGHT, hitler)
    )
    game, _ = place(game, RIGHT, frank, 1)  # "1945" ties Hitler (1945-04-30)
    game, _ = place(game, MIDDLE, dante, 1)  # "56" ties Beethoven (56y 3m)
    for position, right in ((2, False), (1, False), (0, True)):  # 1945-04-12: before Hitler
        _, sounds = place(game, RIGHT, roosevelt, position)
        assert sounds[0] == (Sound.RIGHT if right else Sound.WRONG), position
    for position, right in ((2, False), (1, False), (0, True)):  # 56y 2m: shorter than Beethoven
        _, sounds = place(game, MIDDLE, lincoln, position, attempt=False)
        assert sounds[0] == (Sound.RIGHT if right else Sound.WRONG), position


# --- columns close ------------------------------------------------------------------


def fill(game: Game, reader: str, name: str, upto: int, first: int) -> tuple[Game, tuple[str, ...], int]:
    """Place right cards at the bottom of a column (streak=must) until it holds `upto` cards."""
    k, sounds = first, ()
    while len(column(game, name)) < upto:
        game, sounds = place(game, reader, card(k), position=len(column(game, name)))
        k += 1
    return game, sounds, k


def test_a_column_closes_at_twelve_counting_the_starter_with_a_fanfare():
    game, sounds, k = fill(started(streak="must", starters=(1, 2, 3)), LEFT, "birth", 12, 4)
    assert sounds == (Sound.RIGHT, Sound.COLUMN)
    assert RULES.dump(game)["closed"] == ["birth"]
    assert rejected(game, Tap(LEFT, card(k))) == "The Birth column is closed"


def test_a_short_life_closes_columns_at_eight():
    game, sounds, _ = fill(started(streak="must", variant="short-life", starters=(1, 2, 3)), LEFT, "birth", 8, 4)
    assert sounds == (Sound.RIGHT, Sound.COLUMN)
    assert RULES.dump(game)["closed"] == ["birth"]


def test_when_the_starter_does_not_count_a_column_closes_at_thirteen():
    game, sounds, _ = fill(started(streak="must", starter_counts="no", starters=(1, 2, 3)), LEFT, "birth", 12, 4)
    assert sounds == (Sound.RIGHT,)
    assert RULES.dump(game)["closed"] == []
    game, sounds, _ = fill(game, LEFT, "birth", 13, 20)
    assert sounds == (Sound.RIGHT, Sound.COLUMN)


# --- streak ---------------------------------------------------------------------------


def test_streak_must_keeps_the_player_until_a_mistake():
    game = started(streak="must")
    game, _ = place(game, LEFT, card(20), position=1)
    assert RULES.dump(game)["current_player"] == "P1"
    assert rejected(game, OK) == "Tap a card under a tombstone"
    game, _ = place(game, LEFT, card(30), position=0)
    assert RULES.dump(game)["current_player"] == "P2"


def test_streak_may_lets_the_player_stop_with_ok_after_a_right_card():
    game = started(streak="may")
    assert rejected(game, OK) == "Tap a card under a tombstone"
    game, _ = place(game, LEFT, card(20), position=1)
    assert RULES.dump(game)["current_player"] == "P1"
    assert "OK: stop here" in RULES.view(game).lines
    game, _ = step(game, OK)
    assert RULES.dump(game)["current_player"] == "P2"


# --- special cards -------------------------------------------------------------------


def test_a_special_card_asks_for_the_guess_then_the_judge_then_the_reward():
    game = started(players=3)
    game = replace(game, penalties=(1, 0, 0))
    game, _ = place(game, LEFT, SPECIAL_A, position=1, attempt=True)
    view = RULES.view(game)
    assert view.title == "Judge P3: keyword?"  # the player to the right of P1 answers
    assert "poison, hemlock" in " ".join(view.lines)
    assert rejected(game, BACK) == "The judge answers: UP/DOWN, OK"
    game, _ = step(game, OK)  # yes: a keyword was said
    assert RULES.view(game).lines == ("Drop my penalty", "Give a penalty")
    dropped, _ = step(game, OK)
    assert RULES.dump(dropped)["penalties"] == {"P1": 0, "P2": 0, "P3": 0}
    assert RULES.dump(dropped)["current_player"] == "P2"
    picking, _ = step(game, DOWN, OK)
    assert [line.split()[0] for line in RULES.view(picking).lines] == ["P2", "P3"]
    back, _ = step(picking, BACK)
    assert back.phase.choice == 1
    given, _ = step(picking, DOWN, OK)
    assert RULES.dump(given)["penalties"] == {"P1": 1, "P2": 0, "P3": 1}


def test_right_placement_but_wrong_cause_costs_nothing_and_earns_nothing():
    game, _ = place(started(), LEFT, SPECIAL_A, position=1, attempt=True)
    game, _ = step(game, DOWN, OK)
    assert RULES.dump(game)["penalties"] == {"P1": 0, "P2": 0}
    assert column(game, "birth") == [card(10), SPECIAL_A]


def test_a_wrong_placement_of_a_special_card_is_a_penalty_without_asking_the_judge():
    game, sounds = place(started(), LEFT, SPECIAL_A, position=0, attempt=True)
    assert sounds == (Sound.WRONG,)
    assert RULES.dump(game)["penalties"] == {"P1": 1, "P2": 0}
    assert RULES.dump(game)["phase"] == "drawing"


def test_not_attempting_the_cause_skips_the_judge():
    game, _ = place(started(), LEFT, SPECIAL_A, position=1, attempt=False)
    assert RULES.dump(game)["current_player"] == "P2"


def test_back_while_placing_a_special_card_puts_the_question_back():
    game, _ = step(started(), Tap(LEFT, SPECIAL_A), OK)
    game, _ = step(game, BACK)
    assert RULES.view(game).lines[0] == "Guess cause of death?"
    game, _ = step(game, BACK)
    assert RULES.dump(game)["phase"] == "drawing"


def test_a_player_without_penalties_can_only_give_and_with_one_rival_it_goes_straight_to_them():
    game, _ = place(started(), LEFT, SPECIAL_A, position=1, attempt=True)
    game, _ = step(game, OK)
    assert RULES.dump(game)["penalties"] == {"P1": 0, "P2": 1}
    assert RULES.dump(game)["current_player"] == "P2"


def test_reward_both_drops_a_penalty_and_gives_one():
    game = replace(started(players=3, reward="both"), penalties=(2, 0, 0))
    game, _ = place(game, LEFT, SPECIAL_A, position=1, attempt=True)
    game, _ = step(game, OK)
    assert RULES.view(game).title == "Penalty for whom?"
    game, _ = step(game, OK)
    assert RULES.dump(game)["penalties"] == {"P1": 1, "P2": 1, "P3": 0}


# --- the end and the death match -------------------------------------------------------


def close_all(game: Game, size: int) -> Game:
    """Fill the three columns with unused plain cards at the bottom (streak=must keeps one player on)."""
    fresh = (card(k) for k in range(4, 41) if card(k) not in game.used)
    for reader, name in ((LEFT, "birth"), (MIDDLE, "lifespan"), (RIGHT, "death")):
        while len(column(game, name)) < size and RULES.dump(game)["phase"] == "drawing":
            game, _ = place(game, reader, next(fresh), position=len(column(game, name)))
    return game


def test_the_game_ends_when_all_columns_close_and_fewest_penalties_wins():
    game = replace(started(streak="must", variant="short-life", starters=(1, 2, 3)), penalties=(0, 1))
    game = close_all(game, 8)
    dump = RULES.dump(game)
    assert dump["over"] is True
    assert dump["winners"] == ["P1"]
    assert dump["closed"] == ["birth", "lifespan", "death"]
    assert rejected(game, Tap(LEFT, card(40))) == "The game is over"


def test_a_tie_at_the_end_goes_to_the_death_match_between_the_tied_players():
    game = replace(started(players=3, streak="must", variant="short-life", starters=(1, 2, 3)), penalties=(1, 0, 0))
    game = close_all(game, 8)
    dump = RULES.dump(game)
    assert (dump["phase"], dump["over"], dump["current_player"]) == ("guessing", False, "P2")
    game, _ = step(game, OK)  # P2 guesses 50
    assert RULES.dump(game)["current_player"] == "P3"
    game, _ = step(game, DOWN)
    assert rejected(game, OK) == "P2 already guessed 50"
    game, _ = step(game, DOWN, OK)
    assert RULES.dump(game)["guesses"] == {"P2": 50, "P3": 49}
    assert RULES.dump(game)["phase"] == "revealing"


def death_match(players: int, guesses: list[int]) -> Game:
    """Straight into the death match between all players (equal penalties, columns closed)."""
    game = close_all(started(players=players, streak="must", variant="short-life", starters=(1, 2, 3)), 8)
    assert RULES.dump(game)["phase"] == "guessing"
    for guess in guesses:
        value = game.phase.value
        game, _ = step(game, *([UP] * (guess - value) if guess > value else [DOWN] * (value - guess)), OK)
    return game


def test_death_match_guesses_are_distinct_and_back_takes_the_last_one_back():
    game = death_match(3, [40, 60])
    assert RULES.dump(game)["current_player"] == "P3"
    back, _ = step(game, BACK)
    assert RULES.dump(back)["current_player"] == "P2"
    assert back.phase.value == 60


def test_the_closest_guess_wins_the_death_match():
    game = death_match(2, [40, 60])
    assert rejected(game, OK) == "Tap the top card of the centre deck"
    game, sounds = step(game, Tap(MIDDLE, card(38)))  # Card 38 lived 68 years
    assert RULES.dump(game)["winners"] == ["P2"]
    assert RULES.dump(game)["over"] is True
    assert sounds == (Sound.FANFARE,)


def test_equally_close_guesses_repeat_with_another_card():
    game = death_match(3, [50, 60, 20])
    game, _ = step(game, Tap(MIDDLE, card(25)))  # 55 years: P1 and P2 are both 5 away
    dump = RULES.dump(game)
    assert dump["over"] is False
    assert dump["phase"] == "guessing"
    assert game.phase.tied == (0, 1)
    game, _ = step(game, OK, UP, OK)  # P1 50, P2 51
    game, _ = step(game, Tap(MIDDLE, card(40)))  # 70 years
    assert RULES.dump(game)["winners"] == ["P2"]


# --- variants --------------------------------------------------------------------------


def test_death_match_variant_puts_a_player_out_at_three_penalties_and_skips_them():
    game = replace(started(players=3, variant="death-match"), penalties=(2, 0, 0))
    game, _ = place(game, LEFT, card(2), position=1)
    dump = RULES.dump(game)
    assert dump["eliminated"] == ["P1"]
    game, _ = place(game, LEFT, card(3), position=1)  # P2 wrong
    game, _ = place(game, LEFT, card(4), position=1)  # P3 wrong
    assert RULES.dump(game)["current_player"] == "P2"


def test_death_match_variant_last_player_standing_wins():
    game = replace(started(players=2, variant="death-match"), penalties=(0, 2))
    game, _ = place(game, LEFT, card(20), position=1)
    game, sounds = place(game, LEFT, card(2), position=2)
    dump = RULES.dump(game)
    assert dump["over"] is True
    assert dump["winners"] == ["P1"]
    assert dump["eliminated"] == ["P2"]
    assert Sound.FANFARE in sounds


def test_a_given_penalty_can_put_a_player_out():
    game = replace(started(players=2, variant="death-match"), penalties=(0, 2))
    game, _ = place(game, LEFT, SPECIAL_A, position=1, attempt=True)
    game, _ = step(game, OK)
    assert RULES.dump(game)["winners"] == ["P1"]


def test_til_death_shares_penalties_and_the_table_loses_at_three():
    game = started(players=2, variant="til-death")
    for k in (2, 3):
        game, _ = place(game, LEFT, card(k), position=1)
    assert RULES.dump(game)["team_penalties"] == 2
    assert RULES.dump(game)["over"] is False
    game, _ = place(game, LEFT, card(4), position=1)
    dump = RULES.dump(game)
    assert dump["over"] is True
    assert dump["winners"] == []
    assert dump["team_penalties"] == 3
    assert dump["penalties"] == {"P1": 2, "P2": 1}


def test_til_death_solo_wins_by_closing_the_columns():
    game = close_all(started(players=1, variant="til-death", streak="must", starters=(1, 2, 3)), 12)
    assert RULES.dump(game)["over"] is True
    assert RULES.dump(game)["winners"] == ["P1"]


def test_til_death_reward_drops_a_team_penalty():
    game = started(players=1, variant="til-death", starters=(1, 2, 3))
    game, _ = place(game, LEFT, card(4), position=0)
    assert RULES.dump(game)["team_penalties"] == 1
    game, _ = place(game, LEFT, SPECIAL_A, position=1, attempt=True)
    game, _ = step(game, OK)
    assert RULES.dump(game)["team_penalties"] == 0
    assert RULES.dump(game)["penalties"] == {"P1": 1}


def test_dead_end_trusts_the_table_and_plays_like_the_classic_game():
    classic, dead_end = started(), started(variant="dead-end")
    for reader, k in ((LEFT, 20), (RIGHT, 3), (MIDDLE, 30)):
        classic, _ = place(classic, reader, card(k), position=1)
        dead_end, _ = place(dead_end, reader, card(k), position=1)
        assert RULES.dump(classic) == RULES.dump(dead_end)


def test_the_undo_labels_say_which_card_goes_where():
    game = started()
    tapped, _ = step(game, Tap(LEFT, card(1)))
    name = DECK.name_of(card(1))
    assert RULES.describe(game, Tap(LEFT, card(1)), tapped) == f"{name} under Birth"
    moved, _ = step(tapped, DOWN)
    assert RULES.describe(tapped, DOWN, moved) == f"moving {name}"
    judged, _ = step(moved, OK)
    assert RULES.describe(moved, OK, judged) == f"placing {name}"
