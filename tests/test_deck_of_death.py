"""Deck of Death rules through `RULES.apply`, on the small scenario board.

The board (tests/scenarios/deck-of-death/decks/deck-of-death.toml) has 12 outer
spaces, Start at 0 and arrows 2->0, 4->2, 6->4, 8->6, 10->8 into the inner circle.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from box.games.base import Chug, Press, Rejected, Roll, Setup, Sound, Step, Tap
from box.games.deck_of_death import RULES
from box.games.deck_of_death.state import Phase, Placed, Token
from tests.support import play_all

DECKS = Path(__file__).parent / "scenarios" / "deck-of-death" / "decks"
DECK = RULES.load_deck(DECKS)
OK, BACK, UP, DOWN = Press("ok"), Press("back"), Press("up"), Press("down")


def card(title: str) -> str:
    """The id of a scenario card by title."""
    found = DECK.find(title)
    assert found is not None, title
    return found


def tap(title: str) -> Tap:
    return Tap("middle", card(title))


def start(players=("Ann", "Bob", "Cy"), forfeits="drinks", **house: str):
    return RULES.new(Setup(tuple(players), {"forfeits": forfeits, **house}), DECK)


def play(state, *actions):
    """Apply each action, failing the test on a rejection; return the last state."""
    return play_all(RULES, state, *actions)


def rejected(state, action) -> str:
    result = RULES.apply(state, action)
    assert isinstance(result, Rejected), f"{action} was accepted"
    return result.reason


def on_board(state, slot_key: str, title: str, owner: int):
    """`state` with a card placed on an outer or inner space, as earlier turns would leave it."""
    slot = int(slot_key) if not slot_key.startswith("i") else state.board.outer + int(slot_key[1:])
    spaces = list(state.spaces)
    spaces[slot] = Placed(card(title), owner)
    return replace(state, spaces=tuple(spaces))


def dump(state):
    return RULES.dump(state)


# -- setup, draw and movement -------------------------------------------------------------


def test_a_new_session_starts_everyone_on_start_with_an_empty_board():
    state = start()
    data = dump(state)
    assert data["positions"] == {name: {"ring": "outer", "space": 0} for name in ("Ann", "Bob", "Cy")}
    assert data["board"] == {} and data["laps"] == {"Ann": 0, "Bob": 0, "Cy": 0}
    assert data["current_player"] == "Ann" and data["phase"] == "draw"
    assert RULES.wants_roll(state)  # ROLL on the draw screen: drawn, and the dice are thrown


def test_dump_has_the_issue_keys_and_is_json():
    data = dump(start())
    for key in ("current_player", "over", "winners", "positions", "laps", "board", "drinks", "inner_turns"):
        assert key in data
    for key in ("lockout", "immune", "persistent"):
        assert key in data
    assert data["winners"] == [] and data["over"] is False
    json.dumps(data)


def test_roll_on_the_draw_screen_means_drawn_and_rolls_in_one_press():
    state = start()
    assert rejected(state, tap("Truth")) == "Cards go on your space in card phase"
    rolled = play(state, Roll((1, 2)))
    assert dump(rolled)["positions"]["Ann"] == {"ring": "outer", "space": 3} and rolled.phase == "card"
    state = play(state, OK)  # OK: drawn, to the roll screen (inside the circle: the forced exit)
    assert state.phase == "roll" and RULES.wants_roll(state)


def test_a_roll_moves_the_token_clockwise_to_an_empty_space_and_opens_the_card_phase():
    state = play(start(), OK, Roll((1, 2)))
    assert dump(state)["positions"]["Ann"] == {"ring": "outer", "space": 3}
    assert state.phase == "card"


def test_dice_out_of_range_are_refused():
    state = play(start(), OK)
    assert rejected(state, Roll((0, 7))) == "Dice must be two of 1 to 6"


def test_passing_start_completes_a_lap_and_everyone_drinks():
    state = play(start(), OK)
    state = replace(state, tokens=(Token("outer", 9), *state.tokens[1:]))
    result = RULES.apply(state, Roll((2, 3)))  # 9 -> 2 crosses Start... 2 is an arrow
    assert isinstance(result, Step) and Sound.LAP in result.sounds
    data = dump(result.state)
    assert data["laps"] == {"Ann": 1, "Bob": 0, "Cy": 0}
    assert data["drinks"] == {"Ann": 1, "Bob": 1, "Cy": 1}
    assert data["positions"]["Ann"] == {"ring": "inner", "space": 0}


def test_landing_exactly_on_start_is_a_lap_and_start_holds_no_card():
    state = play(start(), OK, Roll((6, 6)))
    data = dump(state)
    assert data["positions"]["Ann"] == {"ring": "outer", "space": 0}
    assert data["laps"]["Ann"] == 1 and data["drinks"] == {"Ann": 1, "Bob": 1, "Cy": 1}
    assert state.phase == "draw" and state.turn == 1  # nothing to challenge or place on Start: Bob's turn
    assert rejected(state, tap("Truth")) == "Cards go on your space in card phase"


def test_a_roll_without_passing_start_counts_no_lap():
    state = play(start(), OK, Roll((5, 6)))
    assert dump(state)["laps"]["Ann"] == 0 and dump(state)["drinks"]["Bob"] == 0


def test_immune_players_are_skipped_by_the_lap_drinks():
    state = replace(play(start(), OK), immune=(False, True, False))
    state = play(state, Roll((6, 6)))
    assert dump(state)["drinks"] == {"Ann": 1, "Bob": 0, "Cy": 1}
    assert "but Bob" in state.notice


def test_the_turn_passes_in_seating_order_after_the_card_phase():
    state = play(start(), Roll((1, 2)), OK)  # ROLL, place nothing: a whole turn in two inputs
    assert state.phase == "draw" and dump(state)["current_player"] == "Bob"
    assert "Ann: discard to 7" in RULES.view(state).lines  # the end-of-turn reminder, on the next screen
    state = play(state, Roll((1, 2)), OK, Roll((1, 2)), OK)
    assert dump(state)["current_player"] == "Ann"


# -- the inner circle ---------------------------------------------------------------------


def test_landing_on_an_arrow_sends_the_token_to_the_inner_space_it_points_to():
    state = play(start(), OK, Roll((2, 2)))  # space 4 -> inner 2
    assert dump(state)["positions"]["Ann"] == {"ring": "inner", "space": 2}
    assert state.token.entry == 4 and dump(state)["inner_turns"]["Ann"] == 0


def test_passing_over_an_arrow_does_nothing():
    state = play(start(), OK, Roll((2, 1)))
    assert dump(state)["positions"]["Ann"]["ring"] == "outer"


def inside(turns: int, space: int = 5, entry: int = 4):
    """Ann in the inner circle, in her roll phase, after `turns` failed turns inside."""
    state = play(start(), OK)
    return replace(state, tokens=(Token("inner", space, entry), *state.tokens[1:]), inner_turns=(turns, 0, 0))


def test_inner_movement_wraps_the_ten_spaces_and_counts_turns_inside():
    state = play(inside(0, space=8), Roll((3, 4)))
    assert dump(state)["positions"]["Ann"] == {"ring": "inner", "space": 5}
    assert dump(state)["inner_turns"]["Ann"] == 1


def test_snake_eyes_escape_to_the_entry_arrow_without_moving_further_or_a_lap():
    state = play(inside(2), Roll((1, 1)))
    data = dump(state)
    assert data["positions"]["Ann"] == {"ring": "outer", "space": 4}
    assert data["inner_turns"]["Ann"] == 0 and data["laps"]["Ann"] == 0
    assert state.phase == "card"  # the arrow space can take a card now


def test_the_way_out_cannot_be_forced_before_the_sixth_turn():
    assert rejected(inside(4), OK) == "Way out forced in 1 turn"
    assert rejected(play(start(), OK), OK) == "Press ROLL to roll"


def test_on_the_sixth_turn_the_way_out_is_forced_with_a_chug_then_the_roll_moves_from_the_arrow():
    state = play(inside(5), OK)
    assert state.phase == "force" and not RULES.wants_roll(state)
    result = RULES.apply(state, OK)
    assert isinstance(result, Step) and result.timer == Chug()
    state = result.state
    data = dump(state)
    assert data["positions"]["Ann"] == {"ring": "outer", "space": 4}
    assert data["drinks"]["Ann"] == 2 and data["inner_turns"]["Ann"] == 0
    assert state.phase == "roll"
    state = play(state, Roll((3, 2)))  # 4 -> 9
    assert dump(state)["positions"]["Ann"] == {"ring": "outer", "space": 9}


def test_the_forced_exit_can_be_declined():
    state = play(inside(6), OK, BACK)
    assert state.phase == "roll" and state.token.ring == "inner"


def test_an_immune_player_forces_the_way_out_without_the_chug():
    state = replace(play(inside(5), OK), immune=(True, False, False))
    result = RULES.apply(state, OK)
    assert isinstance(result, Step) and result.timer is None
    assert dump(result.state)["drinks"]["Ann"] == 0


def test_the_forced_exit_then_a_roll_over_start_counts_a_lap():
    state = play(inside(5, entry=10), OK, OK, Roll((1, 2)))  # 10 -> 1 passes Start
    assert dump(state)["laps"]["Ann"] == 1


def test_inner_spaces_hold_cards_too():
    state = play(start(), OK, Roll((2, 2)), tap("Truth"))
    assert dump(state)["board"] == {"i2": {"card": card("Truth"), "owner": "Ann"}}


# -- challenges and the card phase --------------------------------------------------------


def landed(title: str, owner: int = 1, space: int = 3, players=("Ann", "Bob", "Cy"), **house: str):
    """Ann has just rolled onto `space`, which holds `title` placed by player `owner`."""
    state = on_board(play(start(players, **house), OK), str(space), title, owner)
    return play(state, Roll((1, space - 1)))


def test_landing_on_a_card_opens_its_challenge():
    state = landed("Plank")
    assert state.phase == "challenge"
    assert "Plank" in RULES.view(state).lines
    assert rejected(state, Roll((1, 1))) == "No dice now"


def test_a_completed_challenge_passes_the_turn_unless_a_card_is_tapped_to_take_the_space_over():
    state = play(landed("Plank"), OK)  # done, and no takeover: no screen of its own
    assert state.phase == "draw" and state.turn == 1 and state.notice == "Challenge completed"
    assert dump(state)["board"]["3"] == {"card": card("Plank"), "owner": "Bob"}
    lines = RULES.view(landed("Plank")).lines  # the card says no cost: its tier (RULINGS 8a)
    assert lines[2:] == ("OK done  DOWN: menu", "BACK failed: 2 drinks", "Tap: react or replace")
    assert RULES.view(landed("Plank", fail_forfeit="none")).lines[3] == "BACK failed: see card"


def test_a_failed_challenge_costs_its_tier_when_the_card_says_nothing_and_nothing_with_fail_forfeit_none():
    state = play(landed("Plank"), BACK)
    assert dump(state)["drinks"]["Ann"] == 2 and not state.completed and state.notice == "Failed: 2 drinks"
    state = play(landed("Plank", fail_forfeit="tier"), BACK)
    assert dump(state)["drinks"]["Ann"] == 2 and not state.completed
    state = play(landed("Plank", fail_forfeit="none"), BACK)
    assert dump(state)["drinks"]["Ann"] == 0 and state.notice == "Failed: as the card says"


def test_points_mode_counts_points_and_says_so():
    state = play(on_board(play(start(forfeits="points", fail_forfeit="tier"), OK), "3", "Handstand", 1), Roll((1, 2)))
    state = play(state, BACK)
    assert dump(state)["drinks"]["Ann"] == 3 and state.notice == "Failed: 3 points"
    assert dump(state)["forfeits"] == "points"


def test_placing_a_card_on_an_empty_space():
    state = play(start(), OK, Roll((1, 2)), tap("Truth"))
    assert dump(state)["board"] == {"3": {"card": card("Truth"), "owner": "Ann"}}
    assert state.phase == "draw" and state.turn == 1


def test_the_card_phase_can_place_nothing():
    state = play(start(), OK, Roll((1, 2)), OK)
    assert state.phase == "draw" and state.turn == 1 and dump(state)["board"] == {}


def test_a_card_placed_is_named_with_its_space_not_the_rolls_notice():
    rolled = play(start(), OK, Roll((1, 2)))
    assert "To space 3" in rolled.notice
    placed = play(rolled, tap("Truth"))
    assert placed.notice == "Truth on space 3" and dump(placed)["board"]["3"]["card"] == card("Truth")


def test_a_card_already_on_the_board_cannot_be_placed_again():
    state = on_board(play(start(), OK, Roll((1, 2))), "5", "Truth", 1)
    assert rejected(state, tap("Truth")) == "Already on space 5"


def test_a_card_outside_the_card_phase_is_refused():
    assert rejected(start(), tap("Truth")) == "Cards go on your space in card phase"
    assert rejected(play(start(), OK), tap("Truth")) == "Cards go on your space in card phase"


def test_a_replacement_needs_a_completed_challenge():
    failed = play(landed("Plank"), BACK)  # nothing may be placed: the card phase's one answer is made
    assert failed.phase == "draw" and failed.turn == 1
    assert rejected(replace(failed, phase=Phase.CARD, turn=0), tap("Handstand")) == (
        "Replace only after a completed challenge"
    )


def test_a_card_tapped_on_the_challenge_screen_is_done_and_a_takeover_in_one_input():
    state = play(landed("Plank"), tap("Handstand"))
    assert dump(state)["board"]["3"] == {"card": card("Handstand"), "owner": "Ann"}
    assert state.phase == "draw" and state.turn == 1
    assert rejected(on_board(landed("Plank"), "5", "Truth", 2), tap("Truth")) == "Already on space 5"


def test_same_colour_higher_tier_is_a_clean_takeover():
    state = play(landed("Plank"), tap("Handstand"))
    assert dump(state)["board"]["3"] == {"card": card("Handstand"), "owner": "Ann"}
    assert state.phase == "draw" and dump(state)["duels_won"] == {"Ann": 0, "Bob": 0, "Cy": 0}


@pytest.mark.parametrize("title", ["Squats", "Dance", "Trial"])  # lower tier, same tier, other colour
def test_anything_else_is_a_duel_against_the_owner(title):
    state = play(landed("Plank"), tap(title))
    assert state.phase == "duel-style" and "Bob defends:" in RULES.view(state).lines
    assert dump(state)["board"]["3"]["card"] == card("Plank")


def test_replacing_your_own_card_needs_no_duel():
    state = play(landed("Plank", owner=0), tap("Squats"))
    assert dump(state)["board"]["3"] == {"card": card("Squats"), "owner": "Ann"}


def duel(title: str = "Trial"):
    return play(landed("Plank"), tap(title))


def test_high_die_roll_challenger_wins_and_places_the_card():
    state = play(duel(), OK)
    assert state.phase == "duel-roll" and RULES.wants_roll(state)
    state = play(state, Roll((6, 5)), Roll((1, 2)))
    data = dump(state)
    assert data["board"]["3"] == {"card": card("Trial"), "owner": "Ann"}
    assert data["duels_won"]["Ann"] == 1 and state.phase == "draw"


def test_high_die_roll_defender_wins_and_the_challengers_card_is_discarded():
    state = play(duel(), OK, Roll((1, 1)), Roll((4, 4)))
    data = dump(state)
    assert data["board"]["3"] == {"card": card("Plank"), "owner": "Bob"}
    assert data["duels_won"] == {"Ann": 0, "Bob": 1, "Cy": 0}


def test_a_high_die_tie_rolls_again():
    state = play(duel(), OK, Roll((3, 4)), Roll((5, 2)))
    assert state.phase == "duel-roll" and state.duel.rolls == () and "Tie" in state.notice
    state = play(state, Roll((2, 2)), Roll((6, 6)))
    assert dump(state)["duels_won"]["Bob"] == 1


def test_another_minigame_takes_the_winner_by_button():
    state = play(duel(), DOWN, OK)
    assert state.phase == "duel-winner" and not RULES.wants_roll(state)
    assert RULES.view(state).lines[:2] == ("Ann", "Bob")
    state = play(state, DOWN, OK)  # Bob won
    assert dump(state)["board"]["3"]["owner"] == "Bob" and dump(state)["duels_won"]["Bob"] == 1
    state = play(duel(), DOWN, OK, OK)  # Ann won
    assert dump(state)["board"]["3"]["owner"] == "Ann"


def test_the_defender_may_pick_a_new_minigame_and_the_takeover_may_be_dropped():
    state = play(duel(), OK, Roll((3, 3)), BACK)
    assert state.phase == "duel-style" and state.duel.rolls == ()
    state = play(state, BACK)
    assert state.phase == "card" and state.duel is None
    assert rejected(duel(), Roll((1, 1))) == "No dice now"


# -- reactions ----------------------------------------------------------------------------


def test_a_reaction_of_the_same_tier_cancels_the_challenge():
    state = play(landed("Plank"), tap("Plank"))
    assert state.phase == "react"
    state = play(state, tap("Vote"))  # orange tier 2 against green tier 2
    assert state.phase == "draw" and state.turn == 1 and state.notice == "Cancelled"  # nothing to place
    assert dump(state)["drinks"]["Ann"] == 0


def test_same_tier_and_colour_reflects_onto_the_owner_who_cannot_react():
    state = play(landed("Plank", fail_forfeit="tier"), tap("Plank"), tap("Dance"))
    assert state.phase == "reflected" and "Bob takes it!" in RULES.view(state).lines
    assert rejected(state, tap("Dance")) == "Dance is discarded"  # the reaction card is spent
    assert rejected(state, tap("Squats")) == "One reaction per challenge"
    state = play(state, BACK)  # Bob fails it
    assert dump(state)["drinks"] == {"Ann": 0, "Bob": 2, "Cy": 0}
    assert state.phase == "card"
    assert dump(state)["board"] == {} and dump(state)["discard_pile"] == [card("Dance"), card("Plank")]


def test_a_reflected_challenge_completed_by_the_owner_costs_nothing():
    state = play(landed("Plank"), tap("Plank"), tap("Dance"), OK)
    assert dump(state)["drinks"] == {"Ann": 0, "Bob": 0, "Cy": 0}


def test_a_reaction_of_another_tier_is_not_allowed_and_the_window_stays_open():
    state = play(landed("Plank"), tap("Plank"))
    assert rejected(state, tap("Squats")) == "Not allowed: needs tier 2"
    assert rejected(state, tap("Halo")) == "White cards cannot react"
    assert rejected(state, OK) == "Tap your reaction card"
    assert play(state, BACK).phase == "challenge"


def test_a_second_reaction_in_the_same_challenge_is_refused():
    state = play(landed("Plank"), tap("Plank"))
    assert rejected(replace(state, reacted=True, phase=Phase.CHALLENGE), tap("Plank")) == "One reaction per challenge"


def test_no_reaction_to_your_own_card():
    assert rejected(landed("Plank", owner=0), tap("Plank")) == "Your own card: no reaction"


def test_a_reaction_card_already_on_the_board_is_refused():
    state = on_board(play(landed("Plank"), tap("Plank")), "5", "Dance", 2)
    assert rejected(state, tap("Dance")) == "Already on space 5"


def test_a_white_card_on_a_space_cannot_be_reacted_to():
    assert rejected(landed("Decree"), tap("Decree")) == "No reaction to a white card"


# -- white cards --------------------------------------------------------------------------


def test_immunity_protects_the_chosen_player_until_their_next_turn():
    state = play(start(), tap("Halo"))
    assert state.overlay.kind == "immunity" and RULES.view(state).cursor == 0
    state = play(state, DOWN, OK)  # Bob
    assert dump(state)["immune"] == ["Bob"]
    assert rejected(play(state, tap("Shield"), DOWN), OK) == "Bob is already immune"
    state = play(state, OK, Roll((6, 6)))  # Ann laps: Bob is skipped
    assert dump(state)["drinks"] == {"Ann": 1, "Bob": 0, "Cy": 1}
    state = play(state, OK)
    assert dump(state)["current_player"] == "Bob" and dump(state)["immune"] == []


def test_an_immune_player_fails_a_challenge_for_free():
    state = replace(landed("Plank"), immune=(True, False, False))
    assert dump(play(state, BACK))["drinks"]["Ann"] == 0


def test_immunity_can_be_put_back_unplayed():
    state = play(start(), tap("Halo"), BACK)
    assert state.overlay is None and dump(state)["immune"] == []


def test_rule_creator_writes_a_permanent_rule_on_a_chosen_space_for_its_player():
    state = play(start(), OK, Roll((1, 2)), tap("Decree"))
    assert RULES.view(state).title == "Decree: where?"
    state = play(state, DOWN, OK)  # the cursor starts on Ann's space 3; DOWN -> 4
    assert RULES.view(state).title == "Decree: whose?"
    state = play(state, DOWN, OK)  # Bob's rule
    assert dump(state)["board"]["4"] == {"card": card("Decree"), "owner": "Bob"}
    assert dump(state)["persistent"] == [card("Decree")]
    assert state.phase == "card"  # Ann's card phase goes on


def test_rule_creator_replaces_what_is_on_the_space_and_back_steps_out():
    state = on_board(play(start(), OK, Roll((1, 2))), "3", "Plank", 1)
    state = play(state, tap("Decree"), OK, BACK)
    assert state.overlay.slot is None
    state = play(state, OK, OK)
    assert dump(state)["board"]["3"]["card"] == card("Decree")
    assert play(state, tap("Decree")).overlay.kind == "broken"  # a rule on the board: who broke it?
    assert play(state, tap("Edict"), BACK).overlay is None


def test_blue_cards_and_rules_are_listed_with_a_long_up_at_any_time():
    state = on_board(on_board(start(), "5", "Whispers", 1), "7", "Plank", 2)
    state = play(state, Press("up", long=True))
    assert RULES.view(state).lines == ("5: Whispers",)
    assert dump(state)["persistent"] == [card("Whispers")]
    assert rejected(state, Roll((1, 1))) == "Close this screen first"
    rolling = play(start(), OK, Press("up", long=True))
    assert not RULES.wants_roll(rolling) and RULES.wants_roll(play(rolling, OK))
    assert play(state, BACK).overlay is None
    assert RULES.view(play(start(), Press("up", long=True))).lines == ("No rules in play",)


def test_scores_with_a_long_down():
    state = play(start(), Press("down", long=True))
    assert RULES.view(state).lines[0] == "L:lap D:drink W:duel" and RULES.view(state).lines[1].startswith("Ann")
    assert rejected(state, DOWN) == "End of the list"


# -- lockout and enough chaos -------------------------------------------------------------


OUTER_CARDS = (
    "Truth",
    "Vote",
    "Trial",
    "Squats",
    "Plank",
    "Burpees",
    "Swap",
    "Tornado",
    "Black Hole",
    "Accents",
    "Mime",
)


def full_outer(state):
    """Every outer space but Start holds a card of Bob's."""
    for space, title in enumerate(OUTER_CARDS, start=1):
        state = on_board(state, str(space), title, 1)
    return state


def test_filling_the_last_outer_space_locks_the_board_for_good():
    state = play(start(), OK)
    state = full_outer(state)
    spaces = list(state.spaces)
    spaces[3] = None
    state = play(replace(state, spaces=tuple(spaces)), Roll((1, 2)), tap("Halo"), BACK, tap("Dance"))
    assert dump(state)["lockout"] and state.notice == "Dance on space 3. Board full: lockout!"
    # an empty inner space takes no card any more: the card phase has one answer and is not asked
    landed_inside = play(state, Roll((2, 2)))
    assert dump(landed_inside)["positions"]["Bob"]["ring"] == "inner"
    assert landed_inside.phase == "draw" and landed_inside.turn == 2 and landed_inside.notice.endswith("Board locked")
    card_phase = replace(landed_inside, turn=1, phase=Phase.CARD)
    assert rejected(card_phase, tap("Flamingo")) == "Board locked: no empty spaces"


def test_the_lockout_needs_every_outer_space_but_start():
    state = play(start(), OK)
    for space in range(1, 11):
        state = on_board(state, str(space), DECK.name_of(f"dd{space}"), 1)
    state = play(state, Roll((5, 6)), tap("Burpees"))  # space 11 is filled now
    assert dump(state)["lockout"]
    assert not dump(play(start(), OK, Roll((1, 2)), tap("Truth")))["lockout"]


def test_enough_chaos_needs_a_confirmation_and_ends_the_session_with_its_figures():
    state = play(start(), OK, Roll((6, 6)))
    asked = play(state, Press("ok", long=True))
    assert RULES.view(asked).title == "Enough chaos?"
    assert play(asked, BACK) == state
    over = play(asked, OK)
    data = dump(over)
    assert data["over"] is True and data["current_player"] is None and data["winners"] == []
    view = RULES.view(over)
    assert view.title == "Enough chaos!" and view.lines[0] == "L:lap D:drink W:duel"
    assert view.lines[1].split() == ["Ann", "L1", "D1", "W0"]
    assert rejected(over, OK) == "The session is over"
    assert rejected(over, Roll((1, 1))) == "The session is over"
    assert not RULES.wants_roll(over)


def test_long_back_and_other_long_presses_do_nothing_here():
    assert rejected(start(), Press("roll", long=True)) == "Long ROLL does nothing here"


def test_a_tag_of_another_deck_is_refused():
    assert rejected(play(start(), OK, Roll((1, 2))), Tap("left", "ds1")) == "Not a Deck of Death card"


def test_a_rejection_changes_nothing():
    state = play(landed("Plank"), BACK)
    before = dump(state)
    rejected(state, tap("Handstand"))
    assert dump(state) == before


def test_every_screen_fits_the_oled():
    state = play(landed("Plank"), tap("Plank"))
    for candidate in (start(), landed("Plank"), state, duel(), play(duel(), OK), inside(5)):
        view = RULES.view(candidate)
        assert len(view.title) <= 21 and len(view.lines) <= 5
