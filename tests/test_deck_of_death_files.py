"""Deck of Death files: the card CSV and the board TOML, built-in and broken."""

from __future__ import annotations

import itertools
import shutil
from pathlib import Path

import pytest

from box.errors import ConfigError, DeckError
from box.games.deck_of_death import RULES
from box.games.deck_of_death.cards import parse_board

SCENARIO = Path(__file__).parent / "scenarios" / "deck-of-death" / "decks"
HEADER = "id,title,color,tier,effect,text\n"
GOOD_BOARD = "outer = 12\nstart = 0\n[arrows]\n2 = 0\n4 = 2\n6 = 4\n8 = 6\n10 = 8\n"


def deck_dir(tmp_path: Path, rows: str, board: str | None = None) -> Path:
    (tmp_path / "deck-of-death.csv").write_text(HEADER + rows, encoding="utf-8")
    if board is not None:
        (tmp_path / "deck-of-death.toml").write_text(board, encoding="utf-8")
    return tmp_path


# -- the built-in deck and board ------------------------------------------------------------


def test_the_builtin_deck_has_190_cards_across_every_colour_and_tier():
    deck = RULES.load_deck()
    assert len(deck) >= 190
    kinds = {(card.color, card.tier) for card in deck.cards.values()}
    for color in ("blue", "orange", "green", "red"):
        assert {(color, 1), (color, 2), (color, 3)} <= kinds
    effects = {card.effect for card in deck.cards.values() if card.color == "white"}
    assert effects == {"immunity", "rule-creator"}
    assert all(card_id.startswith("dd") for card_id in deck.cards)


def test_the_builtin_deck_is_playable_without_alcohol():
    deck = RULES.load_deck()
    assert not [card.title for card in deck.cards.values() if "drink" in card.text.lower()]


def test_the_builtin_board_follows_the_rulings():
    board = RULES.load_deck().board
    assert (board.outer, board.start, board.inner) == (36, 0, 10)
    assert len(board.arrows) == 6 and all(target == 0 for _, target in board.arrows)
    spaces = [space for space, _ in board.arrows]
    assert {b - a for a, b in itertools.pairwise(spaces)} == {6}  # spread evenly


def test_a_deck_directory_brings_its_own_board():
    deck = RULES.load_deck(SCENARIO)
    assert deck.board.outer == 12 and len(deck) == 31


def test_a_deck_directory_without_a_board_uses_the_builtin_one(tmp_path):
    shutil.copy(SCENARIO / "deck-of-death.csv", tmp_path)
    assert RULES.load_deck(tmp_path).board.outer == 36


# -- bad decks ------------------------------------------------------------------------------


def test_a_duplicate_title_is_reported(tmp_path):
    folder = deck_dir(tmp_path, "dd1,Same,blue,1,,A.\ndd2,same,red,1,,B.\n")
    with pytest.raises(DeckError, match=r":3: title: duplicate name"):
        RULES.load_deck(folder)


# -- bad boards -----------------------------------------------------------------------------


def board_problem(text: str) -> ConfigError:
    with pytest.raises(ConfigError) as problem:
        parse_board(text, "board.toml")
    return problem.value


def test_a_good_board_parses():
    board = parse_board(GOOD_BOARD, "board.toml")
    assert board.arrow_target(4) == 2 and board.arrow_target(5) is None


def test_toml_syntax_errors_carry_their_line():
    problem = board_problem("outer = 12\nstart = = 0\n")
    assert problem.line == 2 and "not valid TOML" in problem.message


@pytest.mark.parametrize(
    ("text", "line", "field", "words"),
    [
        (GOOD_BOARD.replace("10 = 8\n", ""), 3, "arrows", "4 arrows; a board has 5 to 8"),
        (GOOD_BOARD + "1 = 1\n3 = 1\n5 = 1\n7 = 1\n", 3, "arrows", "9 arrows"),
        (GOOD_BOARD.replace("2 = 0", "0 = 0"), 4, "arrows.0", "Start space"),
        (GOOD_BOARD.replace("2 = 0", "12 = 0"), 4, "arrows.12", "off the outer ring"),
        (GOOD_BOARD.replace("4 = 2", "4 = 10"), 5, "arrows.4", "out of range 0..9"),
        (GOOD_BOARD.replace("4 = 2", '4 = "two"'), 5, "arrows.4", "not a whole number"),
        (GOOD_BOARD.replace("4 = 2", "x = 2"), 5, "arrows.x", "not a space number"),
        (GOOD_BOARD.replace("outer = 12", "outer = 5"), 1, "outer", "out of range 10..99"),
        (GOOD_BOARD.replace("outer = 12", "outer = true"), 1, "outer", "not a whole number"),
        (GOOD_BOARD.replace("start = 0", "start = 12"), 2, "start", "out of range 0..11"),
        ("inner = 8\n" + GOOD_BOARD, 1, "inner", "the inner circle has 10 spaces"),
        ("size = 8\n" + GOOD_BOARD, 1, "size", "unknown key"),
        ("outer = 12\narrows = 3\n", 2, "arrows", "must be a table"),
    ],
)
def test_a_bad_board_value_names_its_line_and_field(text, line, field, words):
    problem = board_problem(text)
    assert (problem.line, problem.field) == (line, field)
    assert words in problem.message


def test_a_missing_key_is_named():
    problem = board_problem("outer = 12\n")
    assert problem.field == "arrows" and "missing" in problem.message


def test_an_arrow_on_a_moved_start_is_refused():
    problem = board_problem(GOOD_BOARD.replace("start = 0", "start = 4"))
    assert problem.field == "arrows.4" and problem.line == 5


def test_a_bad_board_file_in_a_deck_directory_stops_the_load(tmp_path):
    folder = deck_dir(tmp_path, "dd1,Fine,blue,1,,Fine.\n", GOOD_BOARD.replace("6 = 4", "6 = 40"))
    with pytest.raises(ConfigError) as problem:
        RULES.load_deck(folder)
    assert str(problem.value) == f"{folder / 'deck-of-death.toml'}:6: arrows.6: 40 is out of range 0..9"


def test_a_board_file_that_is_not_utf8(tmp_path):
    folder = deck_dir(tmp_path, "dd1,Fine,blue,1,,Fine.\n")
    (folder / "deck-of-death.toml").write_bytes(b"outer = \xff\n")
    with pytest.raises(ConfigError, match="not UTF-8"):
        RULES.load_deck(folder)
