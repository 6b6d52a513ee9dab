"""Deck of Death: token moves by card, the discard pile, reflect discards, house rules, board files.

Through `RULES.apply` on the small scenario board: 12 outer spaces, Start at 0 and arrows
2->0, 4->2, 6->4, 8->6, 10->8 into the inner circle.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from box.errors import ConfigError
from box.games.base import Press, Roll, Setup, Tap
from box.games.deck_of_death import RULES
from box.games.deck_of_death.state import Token
from tests.support import play_all, refused

DECKS = Path(__file__).parent / "scenarios" / "deck-of-death" / "decks"
DECK = RULES.load_deck(DECKS)
OK, BACK, UP, DOWN = Press("ok"), Press("back"), Press("up"), Press("down")


def tap(title: str) -> Tap:
    found = DECK.find(title)
    assert found is not None, title
    return Tap("middle", found)


def start(players=("Ann", "Bob"), **options: str):
    return RULES.new(Setup(tuple(players), options), DECK)


def play(state, *actions):
    """Apply each action, failing the test on a rejection; return the last state."""
    return play_all(RULES, state, *actions)


def rejected(state, action) -> str:
    return refused(RULES, state, action)


def at_card_phase(**options: str):
    """Ann rolled 1+2 from Start: space 3, empty, card phase."""
    return play(start(**options), OK, Roll((1, 2)))


def move(state, who: int, how: int, steps: int = 1):
    """Through the table menu: Move a token, the player (cursor from the current one), the way, N."""
    state = play(state, DOWN, OK, *[DOWN] * who, OK, *[DOWN] * how, OK)
    if how < 2:
        state = play(state, *[UP] * (steps - 1), OK)
    return state


def test_moving_forwards_by_a_card_never_makes_a_lap():
    state = move(at_card_phase(), who=0, how=0, steps=10)  # 3 + 10 = 13 -> 1, over Start
    dump = RULES.dump(state)
    assert dump["positions"]["Ann"] == {"ring": "outer", "space": 1}
    assert dump["laps"] == {"Ann": 0, "Bob": 0} and dump["drinks"] == {"Ann": 0, "Bob": 0}
    assert state.phase == "card"


def test_a_card_move_onto_an_arrow_casts_the_token_inside_and_inside_it_wraps():
    state = move(at_card_phase(), who=0, how=1, steps=1)  # 3 - 1 = 2: an arrow to inner 0
    assert RULES.dump(state)["positions"]["Ann"] == {"ring": "inner", "space": 0}
    state = move(state, who=0, how=1, steps=3)  # inside: 0 - 3 wraps to 7
    assert RULES.dump(state)["positions"]["Ann"] == {"ring": "inner", "space": 7}
    assert rejected(play(state, DOWN, OK, OK, DOWN, DOWN), OK) == "Already in the inner circle"


def test_into_the_inner_circle_goes_by_the_next_arrow_ahead():
    state = move(at_card_phase(), who=1, how=2)  # Bob on Start: the next arrow is 2 -> inner 0
    assert RULES.dump(state)["positions"]["Bob"] == {"ring": "inner", "space": 0}
    assert state.tokens[1].entry == 2
    state = move(play(state, OK, OK, Roll((1, 2))), who=1, how=2)  # Bob inside at 3; Ann on 3: arrow 4
    assert RULES.dump(state)["positions"]["Ann"] == {"ring": "inner", "space": 2}


def test_an_immune_token_is_not_moved_and_moves_are_offered_only_in_challenge_and_card_phases():
    state = play(start(), tap("Halo"), DOWN, OK)  # Bob immune
    assert rejected(play(state, DOWN), OK) == "Moves only in challenge or card phase"
    state = play(state, OK, Roll((1, 2)))
    assert rejected(play(state, DOWN, OK, DOWN), OK) == "Bob is immune"


def test_the_table_menu_closes_with_back_and_changes_nothing():
    state = at_card_phase()
    assert play(state, DOWN, BACK) == state


def test_a_reflect_discards_both_cards_and_a_cancel_only_the_reaction():
    state = play(at_card_phase(), tap("Tornado"), OK, Roll((1, 2)), tap("Tornado"), tap("Backstab"))
    assert state.phase == "reflected"
    state = play(state, OK)
    dump = RULES.dump(state)
    assert dump["board"] == {} and dump["discard_pile"] == [DECK.find("Backstab"), DECK.find("Tornado")]
    cancelled = play(at_card_phase(), tap("Plank"), OK, Roll((1, 2)), tap("Plank"), tap("Vote"))
    assert RULES.dump(cancelled)["board"]["3"]["card"] == DECK.find("Plank")
    assert RULES.dump(cancelled)["discard_pile"] == [DECK.find("Vote")]


def test_discarded_cards_are_refused_until_the_table_reshuffles():
    state = play(at_card_phase(), tap("Plank"), OK, Roll((1, 2)), tap("Handstand"))
    assert RULES.dump(state)["discard_pile"] == [DECK.find("Plank")]
    assert rejected(state, tap("Plank")) == "Plank is discarded"
    state = play(state, DOWN, DOWN, OK)  # the next draw screen's table menu: Reshuffle discards
    assert RULES.dump(state)["discard_pile"] == []
    assert RULES.view(state).notice == "Discards shuffled into the deck"


def test_a_lost_duel_discards_the_challengers_card():
    state = play(at_card_phase(), tap("Plank"), OK, Roll((1, 2)), tap("Trial"))
    state = play(state, DOWN, OK, DOWN, OK)  # another minigame, won by the defender
    assert RULES.dump(state)["discard_pile"] == [DECK.find("Trial")]
    assert RULES.dump(state)["board"]["3"]["card"] == DECK.find("Plank")


@pytest.mark.parametrize(("options", "drinks"), [({}, 2), ({"fail_forfeit": "tier"}, 2), ({"fail_forfeit": "none"}, 0)])
def test_a_failed_challenge_costs_its_tier_unless_fail_forfeit_is_none(options, drinks):
    state = play(at_card_phase(**options), tap("Plank"), OK, Roll((1, 2)), BACK)
    assert RULES.dump(state)["drinks"]["Bob"] == drinks


@pytest.mark.parametrize(("options", "phase"), [({}, "card"), ({"blue_landing": "challenge"}, "challenge")])
def test_a_blue_card_is_a_challenge_only_with_the_house_rule(options, phase):
    state = play(at_card_phase(**options), tap("Whispers"), OK, Roll((1, 2)))
    assert state.phase == phase
    if phase == "card":
        assert play(state, tap("Whispers")).overlay.kind == "broken"  # tapped: who broke the rule?
        assert play(state, tap("Mime")).phase == "draw"  # blue T3 over blue T2: a clean takeover, the next turn


def test_the_house_rules_are_options_with_the_books_reading_first():
    options = {option.key: option for option in RULES.options}
    assert options["fail_forfeit"].default == "card" and options["fail_forfeit"].choices == ("card", "tier", "none")
    assert options["blue_landing"].default == "rule" and options["blue_landing"].choices == ("rule", "challenge")


# -- board files ----------------------------------------------------------------------------

BOARD = "outer = 12\nstart = 0\n\n[arrows]\n2 = 0\n4 = 2\n6 = 4\n8 = 6\n10 = 8\n"


def test_a_space_written_twice_in_the_arrows_is_refused(tmp_path):
    (tmp_path / "deck-of-death.toml").write_text(BOARD.replace("10 = 8", "05 = 8\n5 = 1"), encoding="utf-8")
    with pytest.raises(ConfigError) as problem:
        RULES.load_deck(tmp_path)
    assert problem.value.field == "arrows.5" and problem.value.line == 10
    assert "twice" in problem.value.message


def test_a_board_file_alone_replaces_the_board_with_the_builtin_cards(tmp_path):
    (tmp_path / "deck-of-death.toml").write_text(BOARD, encoding="utf-8")
    deck = RULES.load_deck(tmp_path)
    assert deck.board.outer == 12 and len(deck) == len(RULES.load_deck())


def test_a_bad_board_file_alone_stops_the_load(tmp_path):
    (tmp_path / "deck-of-death.toml").write_text(BOARD.replace("outer = 12", "outer = 3"), encoding="utf-8")
    with pytest.raises(ConfigError, match="outer"):
        RULES.load_deck(tmp_path)


def test_the_box_finds_a_deck_folder_by_either_file(tmp_path):
    from box.decks.codec import deck_folder

    assert deck_folder("deck-of-death", tmp_path) is None
    (tmp_path / "deck-of-death.toml").write_text(BOARD, encoding="utf-8")
    assert deck_folder("deck-of-death", tmp_path) == tmp_path
    assert deck_folder("deadlines", tmp_path) is None
    assert deck_folder("deadlines", None) is None


# --- a failed card that moves tokens: its consequences before play goes on (issue 26, 7b) ---------


def failed_on(title: str, **options: str):
    """Ann put `title` on space 3; Bob rolled onto it and failed it (BACK)."""
    return play(at_card_phase(**options), tap(title), OK, Roll((1, 2)), BACK)


def test_a_failed_card_that_moves_tokens_is_counted_then_offers_what_it_does():
    state = failed_on("Black Hole", fail_forfeit="tier")
    assert state.phase == "failed" and RULES.dump(state)["current_player"] == "Bob"
    assert RULES.dump(state)["drinks"] == {"Ann": 0, "Bob": 3}  # the forfeit is counted at the failure
    view = RULES.view(state)
    assert view.lines == ("Black Hole failed:", "Next player", "Bob into the circle", "Move a token")
    assert view.cursor == 1 and view.notice == "Failed: 3 drinks"
    cast = play(state, DOWN, OK)
    dump = RULES.dump(cast)
    assert dump["positions"]["Bob"] == {"ring": "inner", "space": 2}  # by the next arrow ahead, 4
    assert dump["drinks"] == {"Ann": 0, "Bob": 3} and cast.phase == "card" and dump["current_player"] == "Bob"
    passed = play(state, OK)  # Next player: nothing moved
    assert RULES.dump(passed)["current_player"] == "Ann" and RULES.dump(passed)["positions"]["Bob"]["space"] == 3


def test_a_failed_card_that_moves_nothing_passes_the_turn_at_once():
    state = failed_on("Plank")
    assert state.phase == "draw" and RULES.dump(state)["current_player"] == "Ann"


def test_the_failed_phase_moves_any_token_and_goes_on_from_the_move():
    state = play(failed_on("Step Back"), UP, OK)  # Move a token: whose? the cursor on Bob, who failed
    assert RULES.view(state).lines[RULES.view(state).cursor or 0].startswith("Bob")
    own = play(state, OK, DOWN, OK, UP, OK)  # Bob backwards 2: 3 -> 1, the card phase there
    assert RULES.dump(own)["positions"]["Bob"] == {"ring": "outer", "space": 1} and own.phase == "card"
    other = play(state, UP, OK, OK, UP, OK)  # Ann forwards 2: 3 -> 5; Bob's failure is still on screen
    assert RULES.dump(other)["positions"]["Ann"] == {"ring": "outer", "space": 5}
    assert other.phase == "failed" and RULES.view(other).cursor == 1  # the cursor back on going on
    back = play(state, BACK)  # BACK from the move's "whose?": back to the failure
    assert back.phase == "failed" and back.overlay is None


def test_the_failed_phase_refuses_what_cannot_be_done_and_changes_nothing():
    state = failed_on("Black Hole")
    assert rejected(state, BACK) == "Pick what the card does, OK"
    assert rejected(state, tap("Plank")) == "Cards go on your space in card phase"
    assert rejected(state, Roll((1, 1))) == "No dice now"
    immune = play(state, tap("Halo"), OK)  # Bob immune (the picker starts on him): Immunity ignores card effects
    assert rejected(play(immune, DOWN), OK) == "Bob is immune"
    inside = replace(state, tokens=(state.tokens[0], Token("inner", 2, 4)))  # Bob already inside
    assert rejected(play(inside, DOWN), OK) == "Already in the inner circle"


def test_a_reflected_failure_offers_the_owners_consequences_then_the_empty_space():
    state = play(at_card_phase(fail_forfeit="tier"), tap("Backstab"), OK, Roll((1, 2)), tap("Backstab"), tap("Tornado"))
    assert state.phase == "reflected"
    state = play(state, BACK)  # Ann, the owner, fails her own card: 2 drinks
    assert state.phase == "failed" and state.failure is not None and state.failure.player == 0
    assert RULES.dump(state)["drinks"] == {"Ann": 2, "Bob": 0}
    assert RULES.view(state).lines[1:3] == ("Place a card", "Ann into the circle")  # the space is empty now
    state = play(state, DOWN, OK)
    assert RULES.dump(state)["positions"]["Ann"] == {"ring": "inner", "space": 2}  # 3: next arrow 4
    assert state.phase == "card" and RULES.dump(state)["current_player"] == "Bob"


def test_which_builtin_cards_move_tokens_by_their_text():
    moving = sorted(card.title for card in RULES.load_deck().cards.values() if card.moves_tokens)
    assert moving == [
        "Backstab", "Black Hole", "Bloodbath", "Ghost Voice", "Hurricane", "Identity Theft", "Landslide",
        "Shortcut", "Statue Roll", "Step Back", "Total Reversal", "Trapdoor",
    ]
