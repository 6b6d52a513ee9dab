"""What each game declares for the rest of the box: title, options' labels, figures, the phone page's drawing."""

from __future__ import annotations

from pathlib import Path

import pytest

from box.games import CARD_NAMES, GAMES, LISTED, TITLES, rules_for
from box.games.base import Setup
from box.web.journal_view import JournalView
from box.words import LINE_CHARS

TEMPLATES = Path(__file__).parents[1] / "box" / "web" / "templates"


@pytest.mark.parametrize("game", list(GAMES))
def test_the_registry_and_the_rules_agree(game: str) -> None:
    rules = rules_for(game)
    assert rules.name == game and rules.title == TITLES[game]
    assert [listing.name for listing in LISTED] == list(GAMES)


@pytest.mark.parametrize("game", list(GAMES))
def test_every_option_has_a_short_label_that_fits_the_setup_line_and_one_sentence_of_help(game: str) -> None:
    for option in rules_for(game).options:
        shown = [f"{option.short}: {value}" for value in option.choices] or [f"{option.short}: < {option.high} >"]
        assert all(len(line) <= LINE_CHARS for line in shown), shown
        assert option.label and option.help.endswith(".") and ". " not in option.help.rstrip("."), option.help


@pytest.mark.parametrize("game", list(GAMES))
def test_figures_of_gives_every_player_every_declared_figure(game: str) -> None:
    rules = rules_for(game)
    keys = [figure.key for figure in rules.figures]
    assert keys and len(set(keys)) == len(keys)
    assert all(figure.adds in ("sum", "max", "min") for figure in rules.figures)
    players = ("Ann", "Bob", "Cid")
    state = rules.new(Setup(players), rules.load_deck())
    figures = rules.figures_of(state)
    assert list(figures) == list(players)
    assert all(list(row) == keys and all(value == 0 for value in row.values()) for row in figures.values())


@pytest.mark.parametrize("game", list(GAMES))
def test_the_phone_declaration_names_keys_of_the_dump_and_a_picture_the_page_has(game: str) -> None:
    rules = rules_for(game)
    state = rules.new(Setup(("Ann", "Bob")), rules.load_deck())
    dump = rules.dump(state)
    for shown in rules.phone.counts:
        assert set(dump[shown.key]) == {"Ann", "Bob"}, shown
    for shown in rules.phone.marks:
        assert isinstance(dump[shown.key], list), shown
    assert (TEMPLATES / f"_picture_{rules.phone.picture}.html").exists()


@pytest.mark.parametrize("game", list(GAMES))
def test_the_registrys_card_name_column_names_cards_as_the_rules_do(game: str) -> None:
    deck = rules_for(game).load_deck()
    listed = JournalView(Path("/nonexistent/journal.db")).card_list(game)
    assert listed.names == dict(deck.names), CARD_NAMES[game]


def test_a_pictures_columns_are_the_dumps_in_the_order_the_box_lists_them_and_reveal_a_cards_field() -> None:
    drawn = [game for game in GAMES if rules_for(game).phone.columns]
    assert drawn, "a game draws columns"
    for game in drawn:
        rules = rules_for(game)
        columns = rules.phone.columns
        deck = rules.load_deck()
        state = rules.new(Setup(("Ann", "Bob")), deck)
        assert list(rules.dump(state)["columns"]) == [column.key for column in columns]
        screen = "\n".join(rules.view(state).lines)
        where = [screen.find(column.label) for column in columns]
        assert -1 not in where and where == sorted(where), screen  # the box's screen, in the same order
        card = deck[next(iter(deck.names))]
        assert all(hasattr(card, column.reveals) for column in columns)


def test_each_deadlines_column_reveals_what_it_sorts_by() -> None:
    from box.games.deadlines.state import value_of

    rules = rules_for("deadlines")
    deck = rules.load_deck()
    for card_id in list(deck.names)[:20]:
        person = deck[card_id]
        assert [getattr(person, column.reveals) for column in rules.phone.columns] == [
            value_of(person, index) for index in range(len(rules.phone.columns))
        ]
