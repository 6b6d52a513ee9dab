"""How many players a game takes: as many as its deck deals for, up to ten (issue 26, item 7c).

None of the rulebooks of Dead Set, Dead Fellas or Deck of Death sets a limit; the deal does. A
custom deck that deals for fewer is refused at the start with a one-line reason, before anything
is journaled.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from box.base.settings import Settings
from box.core.service import Box
from box.decks.codec import Deck
from box.games.base import Press, Setup
from box.games.dead_fellas import RULES as DEAD_FELLAS
from box.games.dead_set import RULES as DEAD_SET
from box.games.deck_of_death import RULES as DECK_OF_DEATH
from box.games.kit import MOST_PLAYERS
from box.screens.tools import DiceCup
from box.storage.journal import Journal
from box.storage.tags import TagMap

SCENARIOS = Path(__file__).parent / "scenarios"
GAMES = (DEAD_SET, DEAD_FELLAS, DECK_OF_DEATH)


def seats(count: int) -> tuple[str, ...]:
    return tuple(f"P{n}" for n in range(1, count + 1))


@pytest.mark.parametrize("rules", GAMES, ids=lambda rules: rules.name)
def test_the_builtin_decks_deal_for_ten_players_and_no_game_takes_eleven(rules):
    assert rules.players == (2, MOST_PLAYERS) == (2, 10)
    game = rules.new(Setup(seats(MOST_PLAYERS)), rules.load_deck())
    assert rules.dump(game)["current_player"] == "P1"
    view = rules.view(game)
    assert len(view.lines) <= 5 and all(len(line) <= 21 for line in view.lines)


@pytest.mark.parametrize(
    ("rules", "folder", "most", "reason"),
    [
        (DEAD_FELLAS, "dead-fellas", 4, "12 Mooks deal for 4 players, not 5"),  # three Mooks each
        (DECK_OF_DEATH, "deck-of-death", 4, "31 cards deal for 4 players, not 5"),  # a hand of 7 each
    ],
    ids=("dead-fellas", "deck-of-death"),
)
def test_a_custom_deck_takes_as_many_players_as_it_deals_for_and_says_why_not_more(rules, folder, most, reason):
    deck = rules.load_deck(SCENARIOS / folder / "decks")
    rules.new(Setup(seats(most)), deck)
    with pytest.raises(ValueError, match=f"^{re.escape(reason)}$"):
        rules.new(Setup(seats(most + 1)), deck)


def test_dead_sets_deck_deals_a_first_card_to_each_player():
    three = Deck("dead-set", {"ds1": 10, "ds2": 20, "ds3": 30}, {"ds1": "A", "ds2": "B", "ds3": "C"}, "t.csv")
    DEAD_SET.new(Setup(seats(3)), three)
    with pytest.raises(ValueError, match=r"^3 cards deal for 3 players, not 4$"):
        DEAD_SET.new(Setup(seats(4)), three)


def test_dead_sets_scoreboard_shows_the_lines_around_the_player_whose_turn_it_is():
    game = DEAD_SET.new(Setup(seats(10)), DEAD_SET.load_deck())
    assert DEAD_SET.view(game).lines[2].startswith("P1 ")
    for _ in range(8):  # eight players stick
        game = DEAD_SET.apply(game, Press("ok")).state
    lines = DEAD_SET.view(game).lines
    assert len(lines) == 5 and any(line.startswith("P9 ") for line in lines)


def test_the_box_refuses_a_start_the_deck_cannot_deal_for_and_journals_nothing():
    box = Box(Journal(":memory:"), TagMap(), DiceCup(die=lambda: 2),
              Settings(decks_dir=SCENARIOS / "deck-of-death" / "decks"))
    with pytest.raises(ValueError, match=r"^31 cards deal for 4 players, not 5$"):
        box.lobby.start_game(DECK_OF_DEATH.name, now=0.0, players=5)
    assert box.session is None and box.journal.unfinished_game() is None
    box.lobby.start_game(DECK_OF_DEATH.name, now=0.0, players=4)
    assert box.session is not None and len(box.session.players) == 4
