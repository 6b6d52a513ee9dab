"""Dead Fellas: Fuhgeddaboutit at any time, chains open until the next dependent action,
the secret recruit, and the inputs the box spares (through `RULES.apply`)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from box.games.base import Press, Setup, Tap
from box.games.dead_fellas import RULES
from tests.support import play_all, refused

DECK = RULES.load_deck(Path(__file__).parent / "scenarios" / "dead-fellas" / "decks")
OK, BACK, DOWN = Press("ok"), Press("back"), Press("down")


def accept(game, *actions):
    return play_all(RULES, game, *actions)


def refuse(game, action) -> str:
    return refused(RULES, game, action)


def tap(card: str) -> Tap:
    return Tap("middle", card)


def dealt(players=("Ann", "Bob"), **options: str):
    """Ann: Paulie 3, Sal 1, Vinnie 2; Bob: Tony 1, Joey 2, Carmine 3; Ann's turn."""
    game = RULES.new(Setup(tuple(players), options), DECK)
    return accept(game, *(tap(card) for card in ("dfm03", "dfm01", "dfm02", "dfm04", "dfm05", "dfm06")))


def armed_paulie():
    """Paulie with Tommy Gun, Tuxedo, Hearse (12 hits), the only armed Mook."""
    return accept(dealt(), tap("dfw01"), OK, tap("dfd01"), OK, tap("dfv01"), OK)


def dump(game):
    return RULES.dump(game)


# -- Fuhgeddaboutit in every phase -----------------------------------------------------------


def test_nothing_to_cancel_during_the_deal_but_the_last_play_outlives_the_turn():
    game = RULES.new(Setup(("Ann", "Bob")), DECK)
    assert refuse(game, tap("dfx01")) == "nothing to cancel"
    game = accept(armed_paulie(), DOWN, OK, OK)  # Draw, end of turn: the Hearse is still the last play (RULINGS 5)
    game = accept(game, tap("dfx01"))
    assert dump(game)["current_player"] == "Bob" and dump(game)["mooks"]["Ann"][0]["items"]["vehicle"] is None


@pytest.mark.parametrize(
    ("inputs", "phase", "then"),
    [
        ((tap("dfw02"),), "picking", "picking"),  # an item waits for its Mook
        ((tap("dft01"),), "reading", "reading"),  # a table-resolved card's text (that card is cancelled)
        ((DOWN, DOWN, OK), "recruit", "recruit"),
        ((DOWN, OK), "endturn", "endturn"),
        ((OK,), "target", "playing"),  # Paulie picks a target; without the Hearse he is unarmed: the menu
    ],
)
def test_a_fuhgeddaboutit_is_taken_in_every_phase(inputs, phase, then):
    game = accept(armed_paulie(), *inputs)
    assert dump(game)["phase"] == phase
    after = accept(game, tap("dfx01"))
    assert dump(after)["phase"] == then
    assert dump(after)["chain"] == ["dfx01"]
    if phase != "reading":
        assert dump(after)["mooks"]["Ann"][0]["items"]["vehicle"] is None  # the Hearse is cancelled


def test_a_chain_alternates_with_its_parity_whatever_the_phase():
    game = accept(armed_paulie(), OK, OK)  # Paulie whacks Carmine (the cursor's Mook, worth most): the evidence choice is open
    assert dump(game)["phase"] == "evidence" and dump(game)["score"]["Ann"] == 3
    for count, card in enumerate(("dfx01", "dfx02", "dfx03", "dfx04", "dfx05"), start=1):
        game = accept(game, tap(card))
        assert dump(game)["score"]["Ann"] == (0 if count % 2 else 3)
        assert len(dump(game)["mooks"]["Bob"]) == (3 if count % 2 else 2)
        assert dump(game)["phase"] == ("endturn" if count % 2 else "evidence")


def test_a_whack_cancelled_after_its_evidence_returns_the_evidence_and_comes_back_without_it():
    game = accept(armed_paulie(), OK, OK, OK)  # whacks Carmine, ditches the Tommy Gun (the first of equals)
    game = accept(game, tap("dfx01"))
    assert dump(game)["mooks"]["Ann"][0]["items"]["weapon"] == "dfw01"
    game = accept(game, tap("dfx02"))
    assert dump(game)["mooks"]["Ann"][0]["items"]["weapon"] is None
    assert dump(game)["score_piles"]["Ann"] == ["dfm06"]


def test_the_next_play_closes_the_chain_and_the_next_fuhgeddaboutit_answers_it():
    game = accept(armed_paulie(), tap("dfx01"))  # the Hearse cancelled
    game = accept(game, tap("dfv02"), OK)  # Getaway Sedan on Paulie: a new play
    assert dump(game)["chain"] == []
    game = accept(game, tap("dfx02"))
    mook = dump(game)["mooks"]["Ann"][0]
    assert mook["items"]["vehicle"] is None and dump(game)["discard_pile"][-1] == "dfv02"


def test_in_the_discard_step_an_item_is_discarded_and_an_action_card_asks_one_ok_for_a_discard():
    game = accept(armed_paulie(), DOWN, OK, DOWN, OK)  # Draw, then "Discard cards"
    assert dump(game)["phase"] == "discard"
    game = accept(game, tap("dfx01"))
    assert RULES.view(game).lines == ("Ann discards it", "Play it")
    game = accept(game, OK, tap("dfg01"))
    assert RULES.view(game).lines == ("Ann discards it", "Ann plays it", "Bob plays it")
    game = accept(game, OK, tap("dfw02"))
    assert dump(game)["discard_pile"] == ["dfx01", "dfg01", "dfw02"]
    assert dump(game)["mooks"]["Ann"][0]["items"]["vehicle"] == "dfv01"  # nothing was cancelled
    assert dump(accept(game, tap("dfb01"), BACK))["phase"] == "discard"  # BACK: the Boost stays in hand
    assert refuse(game, tap("dfx01")) == "Fuhgeddaboutit is discarded"
    assert refuse(game, tap("dfw01")) == "Tommy Gun is in play"
    assert refuse(game, tap("dfm10")) == "Mooks are not discarded"
    assert dump(accept(game, BACK))["phase"] == "endturn"
    assert dump(accept(game, OK))["current_player"] == "Bob"


# -- the secret recruit ---------------------------------------------------------------------


def test_a_recruit_is_announced_without_its_name_and_named_when_it_turns_up():
    game = accept(dealt(), DOWN, DOWN, OK, tap("dfm10"))
    screen = RULES.view(game)
    assert screen.notice == "Ann recruited a Mook"
    assert "Nicky" not in " ".join((screen.title, *screen.lines, screen.notice))
    game = accept(game, OK, DOWN, OK, OK)  # Bob draws
    assert RULES.view(game).notice == "Nicky turned up"


# -- inputs the box spares ------------------------------------------------------------------


def alone(game, seat: int = 0):
    """`game` where `seat` keeps only its first Mook."""
    board = game.board
    mooks = tuple(row[:1] if index == seat else row for index, row in enumerate(board.mooks))
    return replace(game, board=replace(board, mooks=mooks))


def test_an_item_with_one_mook_to_take_it_goes_on_at_the_tap():
    game = accept(alone(dealt()), tap("dfw01"))
    assert dump(game)["phase"] == "playing"
    assert dump(game)["mooks"]["Ann"][0]["items"]["weapon"] == "dfw01"


def test_a_fugazi_offers_only_the_players_own_mooks():
    game = accept(alone(dealt()), tap("dff01"), OK)  # a weapon: Paulie, the only own Mook
    assert dump(game)["mooks"]["Ann"][0]["items"]["weapon"] == "dff01"
    assert all(mook["items"]["weapon"] is None for mook in dump(game)["mooks"]["Bob"])


def test_a_boost_takes_an_opponents_item_only_onto_the_players_own_mooks():
    game = accept(dealt(), tap("dfw01"), OK)  # Ann's own Tommy Gun: Ann cannot boost it, Bob can
    bobs = accept(game, tap("dfb01"))  # so the Boost opens as Bob's (RULINGS 5a)
    assert RULES.view(bobs).title == "Bob boosts which?" and RULES.view(bobs).lines == ("Ann Tommy Gun W",)
    game = accept(game, DOWN, OK, OK)  # Ann draws; Bob's turn
    game = accept(game, tap("dfw02"), DOWN, OK)  # Bob: Snub Nose on Tony (the picker starts on Carmine, his strongest)
    game = accept(alone(game, seat=1), DOWN, OK, OK)  # Bob keeps only Tony; Ann's turn
    game = accept(game, tap("dfb01"))  # the items offered: Bob's Snub Nose, then Bob may play it
    assert RULES.view(game).lines == ("Bob Snub Nose W", "Bob's card")
    game = accept(game, OK)  # onto which of Ann's Mooks? Paulie, Sal, Vinnie
    assert len(RULES.view(game).lines) == 3


def test_one_armed_mook_is_not_asked_who_whacks_and_back_goes_to_the_menu():
    game = accept(armed_paulie(), OK)
    assert dump(game)["phase"] == "target"
    assert dump(accept(game, BACK))["phase"] == "playing"


# -- RULINGS 5a: any player plays an action card, the box asks whose -------------------------


def test_the_current_players_action_card_costs_nothing_more_and_lists_the_others_below():
    game = accept(dealt(), tap("dff01"))
    view = RULES.view(game)
    assert view.title == "Fugazi as?" and view.lines == ("Weapon", "Disguise", "Vehicle", "Bob's card")
    assert view.cursor == 0
    game = accept(game, OK, OK)  # Weapon, then Ann's Mook the picker starts on: as before 5a
    assert dump(game)["mooks"]["Ann"][0]["items"]["weapon"] == "dff01"


def test_bobs_fugazi_on_anns_turn_goes_on_bobs_mook():
    game = accept(dealt(), tap("dff01"), DOWN, DOWN, DOWN, OK)  # "Bob's card"
    view = RULES.view(game)
    assert view.title == "Bob's Fugazi as?" and view.lines[3] == "Ann's card" and view.cursor == 0
    game = accept(game, DOWN, OK)  # Disguise: then Bob's Mooks only
    view = RULES.view(game)
    assert view.title == "Bob's Fugazi on?" and all(line.startswith("Bob ") for line in view.lines)
    game = accept(game, OK)
    assert dump(game)["current_player"] == "Ann" and dump(game)["phase"] == "playing"
    assert [mook["items"]["disguise"] for mook in dump(game)["mooks"]["Bob"]].count("dff01") == 1
    assert all(mook["items"]["disguise"] is None for mook in dump(game)["mooks"]["Ann"])
    cancelled = accept(game, tap("dfx01"))  # anyone's Fuhgeddaboutit answers it as any play
    assert all(mook["items"]["disguise"] is None for mook in dump(cancelled)["mooks"]["Bob"])


def test_back_from_bobs_mook_picker_asks_bobs_slot_again_and_back_again_leaves_the_card_in_hand():
    game = accept(dealt(), tap("dff01"), DOWN, DOWN, DOWN, OK, OK)  # Bob's card, Weapon
    game = accept(game, BACK)
    assert RULES.view(game).title == "Bob's Fugazi as?"
    game = accept(game, BACK)
    assert dump(game)["phase"] == "playing" and RULES.view(game).notice == "Fugazi not played"


def test_bobs_boost_on_anns_turn_takes_anns_item_onto_bobs_mook():
    game = accept(dealt(), tap("dfd02"), OK)  # Ann: Cop Uniform on Paulie
    game = accept(game, tap("dfb01"))  # nothing for Ann to boost (Bob has no items): Bob's card
    assert RULES.view(game).title == "Bob boosts which?"
    game = accept(game, OK)  # Ann's Cop Uniform, onto which of Bob's Mooks?
    assert RULES.view(game).title == "Bob's Boost on?"
    game = accept(game, OK)
    assert all(mook["items"]["disguise"] is None for mook in dump(game)["mooks"]["Ann"])
    assert [mook["items"]["disguise"] for mook in dump(game)["mooks"]["Bob"]].count("dfd02") == 1
    assert dump(game)["current_player"] == "Ann"


def test_nobody_can_boost_without_an_item_on_an_opponents_face_up_mook():
    assert refuse(dealt(), tap("dfb01")) == "no item to boost"


def test_bobs_i_know_a_guy_fills_bobs_hand():
    game = accept(dealt(), DOWN, OK, tap("dfw02"), tap("dfg01"))  # Ann drew; Snub Nose discarded
    assert RULES.view(game).lines == ("Snub Nose", "A card not listed", "Bob's card")
    game = accept(game, DOWN, DOWN, OK)
    assert RULES.view(game).title == "Bob's Guy gets?"
    game = accept(game, OK)
    assert RULES.view(game).notice == "Snub Nose to Bob's hand" and dump(game)["discard_pile"] == ["dfg01"]


def test_a_player_who_cannot_play_the_card_is_not_offered():
    game = accept(dealt(), tap("dff01"))
    bob_without_mooks = replace(game, board=replace(game.board, mooks=(game.board.mooks[0], ())))
    assert "Bob's card" not in RULES.view(bob_without_mooks).lines


# -- RULINGS 5 and 5a: action cards while a choice is open, a play told from a discard -------------


def test_an_opponent_boosts_the_lone_attackers_item_while_it_picks_its_target():
    game = accept(armed_paulie(), OK)  # Whack: Paulie, the only armed Mook, picks his target
    assert dump(game)["phase"] == "target"
    game = accept(game, tap("dfb01"))  # Bob's Boost (Ann has nothing to boost): not refused
    assert RULES.view(game).title == "Bob boosts which?"
    game = accept(game, OK, OK)  # the Tommy Gun, onto Bob's Mook the picker starts on
    assert dump(game)["mooks"]["Ann"][0]["items"]["weapon"] is None
    assert "dfw01" in [mook["items"]["weapon"] for mook in dump(game)["mooks"]["Bob"]]
    assert dump(game)["phase"] == "playing"  # Paulie is no longer armed: no whack (the choice asked again)
    assert refuse(game, OK) == "no Mook has all three items"
    game = accept(game, tap("dfx01"))  # Ann cancels the Boost: Paulie is armed again
    assert dump(game)["mooks"]["Ann"][0]["items"]["weapon"] == "dfw01"
    assert dump(accept(game, OK))["phase"] == "target"


def test_a_fugazi_played_by_an_opponent_while_a_target_is_picked_leaves_the_target_list_open():
    game = accept(armed_paulie(), OK, tap("dff01"))
    assert RULES.view(game).title == "Fugazi as?" and RULES.view(game).lines[-1] == "Bob's card"
    game = accept(game, DOWN, DOWN, DOWN, OK, OK, OK)  # Bob's card: Weapon, on the Mook the picker starts on
    assert dump(game)["phase"] == "target" and dump(game)["current_player"] == "Ann"
    assert "dff01" in [mook["items"]["weapon"] for mook in dump(game)["mooks"]["Bob"]]


def test_a_boost_in_the_evidence_choice_leaves_the_items_that_remain_to_ditch():
    game = accept(armed_paulie(), OK, OK)  # Paulie whacks Carmine: the evidence is open
    assert dump(game)["phase"] == "evidence"
    game = accept(game, tap("dfb01"), OK, OK)  # Bob boosts the Tommy Gun onto his Mook
    assert dump(game)["phase"] == "evidence"
    assert RULES.view(game).lines == ("disguise: Tuxedo", "vehicle: Hearse")
    game = accept(game, OK)
    assert [item for item in dump(game)["mooks"]["Ann"][0]["items"].values() if item] == ["dfv01"]


def test_an_action_card_while_a_cards_text_is_read_or_a_mook_is_awaited_or_a_picker_is_open():
    game = accept(armed_paulie(), tap("dft01"), tap("dfg01"))  # I Know A Guy over the Sit-Down's text
    assert RULES.view(game).title == "Guy gets which card?"
    game = accept(game, OK)
    assert dump(game)["phase"] == "reading"
    game = accept(armed_paulie(), tap("dfw02"), tap("dff01"))  # a Fugazi while the Snub Nose waits for its Mook
    assert RULES.view(game).title == "Fugazi as?"
    assert refuse(game, tap("dfw02")) == "Snub Nose is being played"
    game = accept(game, DOWN, OK, OK)  # Fugazi as disguise on Sal: back to the Snub Nose's picker
    assert dump(game)["phase"] == "picking" and RULES.view(game).title == "Snub Nose on?"
    game = accept(armed_paulie(), DOWN, DOWN, OK, tap("dfg01"))  # awaiting the recruit; no known discards
    assert dump(game)["phase"] == "recruit" and game.notice == "Take any discarded card"


def test_on_the_discard_screen_an_opponents_play_is_told_from_the_players_discard():
    game = accept(armed_paulie(), DOWN, OK, DOWN, OK)  # Draw, then "Discard cards"
    game = accept(game, tap("dfb01"))
    assert RULES.view(game).lines == ("Ann discards it", "Bob plays it")
    game = accept(game, DOWN, OK)  # Bob plays it: Bob's Boost, as anywhere
    assert RULES.view(game).title == "Bob boosts which?"
    game = accept(game, OK, OK)
    assert dump(game)["phase"] == "discard" and "dfb01" in dump(game)["discard_pile"]
    assert dump(game)["mooks"]["Ann"][0]["items"]["weapon"] is None
    game = accept(game, tap("dfx01"), DOWN, OK)  # a Fuhgeddaboutit played: the Boost is cancelled
    assert dump(game)["mooks"]["Ann"][0]["items"]["weapon"] == "dfw01" and dump(game)["chain"] == ["dfx01"]
    assert dump(game)["phase"] == "discard"
