"""Deck of Death: the built-in cards the box follows (RULINGS 6c), what failing costs (8a) and
immunity against duels (5), through `RULES.apply` on the built-in deck and board.

The built-in board has 36 outer spaces, Start at 0 and arrows at 3, 9, 15, 21, 27 and 33.
Four players, Ann, Bob, Cy and Dee, seated clockwise in that order.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from box.games.base import Press, Roll, Setup, Tap
from box.games.deck_of_death import RULES
from box.games.deck_of_death.state import Placed
from tests.support import play_all

DECK = RULES.load_deck()
OK, BACK, UP, DOWN = Press("ok"), Press("back"), Press("up"), Press("down")
PLAYERS = ("Ann", "Bob", "Cy", "Dee")
ANN, BOB, CY, DEE = range(4)


def card(title: str) -> str:
    found = DECK.find(title)
    assert found is not None, title
    return found


def tap(title: str) -> Tap:
    return Tap("middle", card(title))


def play(state, *actions):
    return play_all(RULES, state, *actions)


def rejected(state, action) -> str:
    result = RULES.apply(state, action)
    assert not hasattr(result, "state"), f"{action} was accepted"
    return result.reason


def on_board(state, space: int, title: str, owner: int):
    """`state` with a card on an outer space, as an earlier turn would leave it."""
    return replace(state, spaces=tuple(Placed(card(title), owner) if s == space else p for s, p in enumerate(state.spaces)))


def landed(title: str, owner: int = BOB, **options: str):
    """Ann has drawn and rolled 1+3 onto space 4, where `owner` placed `title`: its challenge."""
    state = RULES.new(Setup(PLAYERS, options), DECK)
    state = play(on_board(play(state, OK), 4, title, owner), Roll((1, 3)))
    assert state.phase == "challenge"
    return state


def turn_passes(state):
    """The current player rolls 1+1 and places nothing (or takes nothing over): the next turn."""
    state = play(state, Roll((1, 1)))
    while state.phase != "draw":
        state = play(state, BACK if state.phase == "challenge" else OK)
    return state


def current(state) -> str:
    return RULES.dump(state)["current_player"]


def players_after(state, turns: int) -> list[str]:
    """The current player now and after each of `turns` turns passed."""
    seen = [current(state)]
    for _ in range(turns):
        state = turn_passes(state)
        seen.append(current(state))
    return seen


# -- the turn order ----------------------------------------------------------------------


def test_reverse_passes_play_the_other_way_until_its_players_next_turn():
    state = play(landed("Reverse"), OK)
    data = RULES.dump(state)
    assert current(state) == "Dee" and data["direction"] == "anticlockwise" and data["next_player"] == "Cy"
    assert players_after(state, 5) == ["Dee", "Cy", "Bob", "Ann", "Bob", "Cy"]  # clockwise again from Ann's turn
    assert RULES.dump(turn_passes(turn_passes(turn_passes(state))))["direction"] == "clockwise"


def test_hijack_takes_the_next_players_turn():
    state = play(landed("Hijack"), OK)
    assert current(state) == "Ann" and state.notice == "Ann takes the next turn"
    assert RULES.dump(state)["next_player"] == "Cy"  # Bob's turn was taken: Cy after it
    assert current(turn_passes(state)) == "Cy"


def test_exile_makes_a_chosen_player_skip_their_next_turn():
    state = landed("Exile")  # the choice is on the challenge screen, the next to play first
    assert RULES.view(state).lines[2:] == ("OK: Bob skips", "UP/DOWN: who", "BACK failed: 3 drinks")
    assert RULES.view(play(state, DOWN)).lines[2] == "OK: Cy skips"
    state = play(state, DOWN, OK)  # Cy
    assert current(state) == "Bob" and RULES.dump(state)["skips"] == ["Cy"]
    state = turn_passes(state)
    assert current(state) == "Dee" and RULES.dump(state)["skips"] == []
    assert current(turn_passes(state)) == "Ann"


def test_swap_seats_changes_who_plays_after_whom():
    state = landed("Swap Seats")
    assert RULES.view(state).lines[2] == "OK: swap with Bob"
    state = play(state, DOWN, OK)  # swap with Cy: Cy, Bob, Ann, Dee round the table
    data = RULES.dump(state)
    assert data["seats"] == ["Cy", "Bob", "Ann", "Dee"] and current(state) == "Dee"
    assert players_after(state, 3) == ["Dee", "Cy", "Bob", "Ann"]


def test_hostage_swap_is_an_orange_swap_of_seats():
    state = play(landed("Hostage Swap"), OK)  # with Bob
    assert RULES.dump(state)["seats"] == ["Bob", "Ann", "Cy", "Dee"] and current(state) == "Cy"


def test_an_immune_player_is_not_chosen():
    state = play(RULES.new(Setup(PLAYERS), DECK), OK)
    state = play(state, tap("Holy Water"), DOWN, OK)  # Bob immune
    state = play(on_board(state, 4, "Exile", CY), Roll((1, 3)))
    assert rejected(state, OK) == "Bob is immune"
    assert current(play(state, DOWN, OK)) == "Bob"  # Cy skips


# -- clearing spaces, the discard pile -------------------------------------------------------


def test_sabotage_clears_the_nearest_card_with_one_ok_or_the_card_tapped():
    state = on_board(on_board(landed("Sabotage"), 7, "Plank", CY), 30, "Wall Sit", DEE)
    assert RULES.view(state).lines[2] == "OK: clear space 7"  # nearest first; its own space last
    assert RULES.view(play(state, DOWN)).lines[2] == "OK: clear space 30"
    after = play(state, OK)
    data = RULES.dump(after)
    assert "7" not in data["board"] and data["discard_pile"] == [card("Plank")] and current(after) == "Bob"
    tapped = RULES.dump(play(state, tap("Wall Sit")))
    assert "30" not in tapped["board"] and "7" in tapped["board"]
    assert tapped["board"]["4"]["card"] == card("Sabotage")


def test_sabotage_may_clear_its_own_space_which_the_player_may_then_seed():
    state = play(landed("Sabotage"), OK)  # nothing else on the board: its own space only
    assert state.phase == "card" and RULES.dump(state)["board"] == {}
    assert RULES.dump(play(state, tap("Plank")))["board"]["4"]["card"] == card("Plank")


def test_meteor_shower_clears_two_spaces_and_an_immune_owners_card_stays():
    state = on_board(on_board(landed("Meteor Shower"), 6, "Plank", CY), 8, "Wall Sit", DEE)
    state = play(state, OK)  # the nearest, then the second in the effect phase
    assert state.phase == "effect" and RULES.dump(state)["discard_pile"] == [card("Plank")]
    assert RULES.view(state).title == "Meteor Shower: clear?" and RULES.view(state).lines[0] == "space 8: Wall Sit"
    assert rejected(state, BACK) == "Pick the second space, then OK"
    state = play(state, OK)
    assert RULES.dump(state)["discard_pile"] == [card("Plank"), card("Wall Sit")] and current(state) == "Bob"
    shielded = play(on_board(landed("Meteor Shower"), 6, "Plank", CY), tap("Lucky Charm"), DOWN, DOWN, OK)
    assert rejected(shielded, OK) == "Cy is immune"


def test_wild_vote_takes_a_card_back_from_the_discard_pile():
    state = replace(landed("Wild Vote"), discard=(card("Plank"), card("Wall Sit")))
    state = play(state, OK)
    assert state.phase == "effect"
    state = play(state, tap("Plank"))
    assert RULES.dump(state)["discard_pile"] == [card("Wall Sit")] and current(state) == "Bob"
    assert rejected(state, tap("Wall Sit")) == "Wall Sit is discarded"
    shortcut = play(replace(landed("Wild Vote"), discard=(card("Plank"),)), tap("Plank"))  # done, and this one
    assert RULES.dump(shortcut)["discard_pile"] == [] and current(shortcut) == "Bob"
    white = play(replace(landed("Wild Vote"), discard=(card("Holy Water"),)), tap("Holy Water"))  # not played
    assert RULES.dump(white)["discard_pile"] == [] and white.overlay is None
    empty = play(landed("Wild Vote"), OK)  # nothing the box saw discarded: nothing to ask
    assert current(empty) == "Bob"


# -- duels ------------------------------------------------------------------------------------


def test_ambush_starts_a_duel_the_box_records():
    state = play(landed("Ambush"), DOWN, DOWN, OK)  # done: a duel with Dee (the picker starts on Bob)
    assert state.phase == "duel-style" and RULES.view(state).lines[0] == "Dee defends:"
    state = play(state, OK, Roll((6, 6)), Roll((1, 2)))
    data = RULES.dump(state)
    assert data["duels_won"] == {"Ann": 1, "Bob": 0, "Cy": 0, "Dee": 0} and current(state) == "Bob"
    assert data["board"]["4"]["card"] == card("Ambush")


def test_an_immune_player_ignores_a_duel():
    state = play(RULES.new(Setup(PLAYERS), DECK), OK, tap("Holy Water"), DOWN, OK)  # Bob immune
    state = play(on_board(state, 4, "Ambush", CY), Roll((1, 3)))
    assert rejected(state, OK) == "Bob is immune"
    takeover = play(RULES.new(Setup(PLAYERS), DECK), OK, tap("Holy Water"), DOWN, OK)
    takeover = play(on_board(takeover, 4, "Plank", BOB), Roll((1, 3)))  # Bob's green T2
    assert rejected(takeover, tap("Step Back")) == "Bob is immune: no duel"  # done, but no duel for it
    upgrade = play(takeover, tap("Long Plank"))  # green T3 over green T2: free, no duel
    assert RULES.dump(upgrade)["board"]["4"] == {"card": card("Long Plank"), "owner": "Ann"}


# -- reflected, and a takeover after the effect ---------------------------------------------


def test_a_reflected_reverse_turns_play_until_its_owners_next_turn():
    state = play(landed("Reverse"), tap("Reverse"), tap("Swap Seats"))  # red T1 on red T1: reflect
    assert state.phase == "reflected"
    state = play(state, OK)  # Bob does it
    data = RULES.dump(state)
    assert state.phase == "card" and "4" not in data["board"] and data["direction"] == "anticlockwise"
    assert set(data["discard_pile"]) == {card("Reverse"), card("Swap Seats")}
    state = play(state, OK)
    assert players_after(state, 3) == ["Dee", "Cy", "Bob", "Cy"]


def test_a_card_tapped_on_the_challenge_screen_takes_over_after_the_effect():
    state = play(landed("Reverse"), tap("Hijack"))  # red T2 over red T1: clean, after the reverse
    data = RULES.dump(state)
    assert data["board"]["4"] == {"card": card("Hijack"), "owner": "Ann"} and current(state) == "Dee"


# -- what failing costs (RULINGS 8a) -----------------------------------------------------------


@pytest.mark.parametrize(("fail_forfeit", "drinks", "says"), [("card", 2, "2 drinks"), ("tier", 3, "3 drinks"), ("none", 0, "see card")])
def test_a_failed_challenge_costs_what_the_card_says(fail_forfeit, drinks, says):
    state = landed("Tell-All", fail_forfeit=fail_forfeit)  # orange T3: "Fail: 2 forfeits."
    assert RULES.view(state).lines[3] == f"BACK failed: {says}"
    assert RULES.dump(play(state, BACK))["drinks"]["Ann"] == drinks


def test_a_broken_rule_is_tapped_and_costs_its_breaker_what_it_says():
    state = on_board(landed("Plank"), 20, "The Sacred Word", CY)  # blue T3: "Broken: 2 forfeits."
    state = play(state, tap("The Sacred Word"))
    assert RULES.view(state).title == "Broke it: 2 drinks" and RULES.view(state).lines[0] == "Ann"
    state = play(state, DOWN, OK)
    assert RULES.dump(state)["drinks"] == {"Ann": 0, "Bob": 2, "Cy": 0, "Dee": 0} and state.phase == "challenge"
    immune = play(state, tap("Holy Water"), DOWN, DOWN, OK, tap("The Sacred Word"), DOWN, DOWN)
    assert rejected(immune, OK) == "Cy is immune"
    none = on_board(landed("Plank", fail_forfeit="none"), 20, "The Sacred Word", CY)
    assert rejected(none, tap("The Sacred Word")) == "Fail costs: none: the table counts"


def test_every_builtin_challenge_and_rule_says_its_cost():
    unsaid = [c.title for c in DECK.cards.values() if c.color in ("orange", "green", "blue") and c.stated_cost is None]
    assert unsaid == []
    word = {c.color: c.text.rsplit(": ", 1)[0].rsplit(" ", 1)[-1] for c in DECK.cards.values() if c.stated_cost}
    assert word == {"blue": "Broken", "orange": "Fail", "green": "Fail"}


def test_the_builtin_cards_that_change_turns_spaces_and_discards_carry_what_the_box_follows():
    effects = {c.title: c.turn_effect for c in DECK.cards.values() if c.turn_effect is not None}
    assert effects == {
        "Reverse": "reverse",
        "Hijack": "hijack",
        "Exile": "skip",
        "Swap Seats": "swap-seats",
        "Hostage Swap": "swap-seats",
        "Sabotage": "clear",
        "Meteor Shower": "clear-two",
        "Wild Vote": "recall",
        "Ambush": "duel",
        "Double Trouble": "double",
        "Loaded Dice": "loaded",
    }


def test_loaded_dice_throw_twice_on_the_next_turn_and_keep_the_better():
    state = play(landed("Loaded Dice"), OK)  # Ann did the red card: her next turn throws twice
    assert RULES.dump(state)["loaded"] == ["Ann"] and current(state) == "Bob"
    for _ in range(3):  # Bob, Cy and Dee throw once each, as ever
        state = turn_passes(state)
    assert current(state) == "Ann" and RULES.dump(state)["positions"]["Ann"]["space"] == 4
    state = play(state, Roll((1, 2)))  # the first throw waits: the token stays
    assert RULES.dump(state)["first_roll"] == [1, 2] and RULES.dump(state)["positions"]["Ann"]["space"] == 4
    assert RULES.view(state).lines[1:3] == ("Threw 1+2", "OK: keep it")
    kept = play(state, OK)  # OK keeps the first: 4 + 3 = 7
    assert RULES.dump(kept)["positions"]["Ann"]["space"] == 7 and RULES.dump(kept)["loaded"] == []
    again = play(state, Roll((2, 4)))  # ROLL again: the better (6 over 3) is kept, 4 + 6 = 10
    assert RULES.dump(again)["positions"]["Ann"]["space"] == 10 and RULES.dump(again)["first_roll"] is None
    worse = play(state, Roll((1, 1)))  # a worse second throw keeps the first
    assert RULES.dump(worse)["positions"]["Ann"]["space"] == 7 and RULES.dump(worse)["loaded"] == []
    assert rejected(state, Roll((0, 7))) == "Dice must be two of 1 to 6"


def test_double_trouble_doubles_the_players_next_failed_challenge():
    state = play(landed("Double Trouble"), OK)
    assert RULES.dump(state)["doubled"] == ["Ann"] and current(state) == "Bob"
    state = play(on_board(state, 5, "Plank", CY), Roll((1, 4)), BACK)  # Bob's failure: not doubled
    assert RULES.dump(state)["drinks"]["Bob"] == 2
    state = play(state, Roll((1, 4)), OK, Roll((1, 4)), OK)  # Cy and Dee onto space 5: Plank, done
    state = play(on_board(state, 6, "Wall Sit", BOB), Roll((1, 1)), BACK)  # Ann 4 -> 6: "Fail: 1 forfeit."
    assert RULES.dump(state)["drinks"]["Ann"] == 2 and RULES.dump(state)["doubled"] == []


def test_a_reflected_exile_lets_its_owner_choose_and_back_returns_to_the_reflected_challenge():
    state = play(landed("Exile"), tap("Exile"), tap("Apocalypse"), OK)  # red T3 on red T3: Bob does it
    assert state.phase == "effect" and RULES.view(state).title == "Exile: who skips?"
    assert RULES.view(state).lines[:3] == ("Cy", "Dee", "Ann")  # after Bob, in the order of play
    assert play(state, BACK).phase == "reflected"
    state = play(state, OK)
    assert state.phase == "card" and RULES.dump(state)["skips"] == ["Cy"] and "4" not in RULES.dump(state)["board"]
    assert players_after(play(state, OK), 1) == ["Bob", "Dee"]
