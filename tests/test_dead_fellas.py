"""Dead Fellas rules through RULES.apply: deal, turn phases, whacks, items, action cards, chains."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from box.games.base import Press, Roll, Setup, Sound, Step, Tap
from box.games.dead_fellas import RULES
from box.games.dead_fellas.state import Board, Game, Mook, Playing, choices
from tests.support import play_all, refused

DECK = RULES.load_deck(Path(__file__).parent / "scenarios" / "dead-fellas" / "decks")
OK, BACK, UP, DOWN = Press("ok"), Press("back"), Press("up"), Press("down")


def accept(game: Game, *actions) -> Game:
    """Apply each action, failing the test on a rejection."""
    return play_all(RULES, game, *actions)


def refuse(game: Game, action) -> str:
    """The reason `action` is rejected; also checks nothing changed."""
    return refused(RULES, game, action)


def tap(card: str) -> Tap:
    return Tap("middle", card)


def choose(game: Game, value: str | None) -> Game:
    """Move the cursor down from where it stands to the choice whose value is `value`, then press OK."""
    values = [choice.value for choice in choices(game)]
    assert value in values, f"{value} not offered: {values}"
    moves = (values.index(value) - getattr(game.phase, "cursor", 0)) % len(values)
    return accept(game, *[DOWN] * moves, OK)


def table(ann: tuple[Mook, ...], bob: tuple[Mook, ...], **options: str) -> Game:
    """Ann's turn, play phase, with these Mooks in front (a state the deal leads to)."""
    game = RULES.new(Setup(("Ann", "Bob"), options), DECK)
    board = replace(game.board, mooks=(ann, bob))
    return replace(game, board=board, phase=Playing(), turn=0)


def armed(mook: str, weapon: str = "dfw01", disguise: str = "dfd01", vehicle: str = "dfv01") -> Mook:
    return Mook(mook, True, weapon, disguise, vehicle)


def dump(game: Game) -> dict:
    return RULES.dump(game)


# --- deal -----------------------------------------------------------------------------


def dealt(
    first: tuple[str, ...] = ("dfm03", "dfm01", "dfm02"), second: tuple[str, ...] = ("dfm04", "dfm05", "dfm06")
) -> Game:
    game = RULES.new(Setup(("Ann", "Bob")), DECK)
    return accept(game, *map(tap, first + second))


def test_deal_goes_seat_by_seat_from_the_left_of_the_dealer():
    game = RULES.new(Setup(("Ann", "Bob")), DECK)
    assert RULES.view(game).title == "Deal: Ann"
    game = accept(game, tap("dfm01"), tap("dfm02"), tap("dfm03"))
    assert dump(game)["current_player"] == "Bob"
    assert [mook["card"] for mook in dump(game)["mooks"]["Ann"]] == ["dfm01", "dfm02", "dfm03"]
    assert all(mook["face_up"] for mook in dump(game)["mooks"]["Ann"])


def test_deal_takes_only_mooks():
    game = RULES.new(Setup(("Ann", "Bob")), DECK)
    assert refuse(game, tap("dfw01")) == "deal: tap Mooks only"
    assert refuse(game, tap("dfx01")) == "nothing to cancel"
    assert refuse(game, OK) == "tap the dealt Mooks"


def test_highest_dealt_hits_starts():
    game = dealt(("dfm01", "dfm04", "dfm07"), ("dfm03", "dfm06", "dfm09"))
    assert dump(game)["current_player"] == "Bob"
    assert dump(game)["phase"] == "playing"
    assert "Bob starts (9 hits)" in game.notice


def test_a_tie_goes_to_the_player_left_of_the_dealer():
    game = dealt()  # 6 hits each
    assert dump(game)["current_player"] == "Ann"


def test_a_deck_takes_as_many_players_as_it_deals_three_mooks_to():
    with pytest.raises(ValueError, match=r"^12 Mooks deal for 4 players, not 5$"):
        RULES.new(Setup(("A", "B", "C", "D", "E")), DECK)
    game = RULES.new(Setup(("A", "B", "C", "D")), DECK)
    game = accept(game, *(tap(f"dfm{n:02d}") for n in range(1, 13)))
    assert dump(game)["phase"] == "playing"
    assert dump(game)["mook_deck"] == 0
    assert dump(game)["out"] == []


# --- the turn -------------------------------------------------------------------------


def test_draw_action_ends_with_the_hand_limit_then_passes_the_turn():
    game = accept(dealt(), DOWN, OK)
    assert dump(game)["phase"] == "endturn"
    assert "Keep at most 3 cards" in RULES.view(game).lines
    game = accept(game, OK)
    assert dump(game)["current_player"] == "Bob"
    assert dump(game)["phase"] == "playing"


def test_recruit_from_the_menu_is_face_down_and_counts_for_the_hand_limit():
    game = accept(dealt(), DOWN, DOWN, OK)
    assert dump(game)["phase"] == "recruit"
    game = accept(game, tap("dfm10"))
    assert dump(game)["mooks"]["Ann"][-1] == {
        "card": "dfm10",
        "face_up": False,
        "items": {"weapon": None, "disguise": None, "vehicle": None},
        "total": 3,
    }
    assert "Keep at most 4 cards" in RULES.view(game).lines
    assert dump(game)["mook_deck"] == 5


def test_tapping_a_mook_in_the_play_phase_recruits_it():
    game = accept(dealt(), tap("dfm10"))
    assert dump(game)["phase"] == "endturn"
    assert dump(game)["mooks"]["Ann"][-1]["face_up"] is False


def test_a_face_down_recruit_is_secret_until_it_turns_face_up():
    game = accept(dealt(), tap("dfm10"))
    assert RULES.secret(game, "dfm10") and not RULES.secret(game, "dfm01")
    assert not any(DECK.name_of("dfm10") in line for line in RULES.view(game).lines)


def test_the_undo_label_does_not_name_a_secret_recruit():
    from box.base.session import GameSession
    from box.storage.journal import Journal

    journal = Journal(":memory:")
    journal.start_game("dead-fellas", ["Ann", "Bob"], {}, None)
    record = journal.unfinished_game()
    session = GameSession(RULES, DECK, record, journal)
    for card in ("dfm03", "dfm01", "dfm02", "dfm04", "dfm05", "dfm06", "dfm10"):  # dealt(), then a recruit
        assert isinstance(session.apply(tap(card)), Step)
    assert session.last_action() == "Ann recruited a Mook"  # says what undo takes back, not which Mook
    assert DECK.name_of("dfm10") not in session.last_action()


def test_the_undo_label_of_next_player_says_whose_turn_ended_not_who_turned_up():
    game = accept(dealt(), DOWN, DOWN, OK, tap("dfm10"))  # Ann recruits Nicky, face down
    before = accept(game, OK, DOWN, OK)  # Next player; Bob draws: his end of turn
    after = accept(before, OK)  # Next player: Nicky turns up at Ann's turn
    assert after.notice == "Nicky turned up"
    assert RULES.describe(before, OK, after) == "Bob ends turn"  # "Undo: Bob ends turn"
    drawn = accept(after, DOWN, OK)
    assert RULES.describe(after, OK, drawn) == "Draw a Mafia card"


def test_back_from_recruit_returns_to_the_menu():
    game = accept(dealt(), DOWN, DOWN, OK, BACK)
    assert dump(game)["phase"] == "playing"


def test_recruited_mook_turns_face_up_at_the_owners_next_turn():
    game = accept(dealt(), tap("dfm10"), OK, DOWN, OK, OK)
    assert dump(game)["current_player"] == "Ann"
    assert dump(game)["mooks"]["Ann"][-1]["face_up"] is True
    assert "Nicky turned up" in game.notice  # named once face up


def test_recruit_is_refused_with_an_empty_mook_deck():
    game = accept(dealt(), tap("dfm07"), OK, tap("dfm08"), OK, tap("dfm09"), OK, tap("dfm10"), OK)
    game = accept(game, tap("dfm11"), OK, tap("dfm12"), OK)
    assert dump(game)["mook_deck"] == 0
    game = accept(game, DOWN, DOWN)
    assert refuse(game, OK) == "the Mook deck is empty"


def test_a_mook_is_not_recruited_outside_the_play_phase():
    game = accept(dealt(), DOWN, OK)
    assert refuse(game, tap("dfm10")) == "recruit with the action menu"


def test_no_dice_in_dead_fellas():
    game = dealt()
    assert RULES.wants_roll(game) is False
    assert refuse(game, Roll((3, 4))) == "Dead Fellas uses no dice"
    assert refuse(game, Press("roll")) == "Dead Fellas uses no dice"


def test_menu_cursor_wraps():
    game = accept(dealt(), UP)
    assert RULES.view(game).cursor == 3  # "Recruit a Mook"
    assert refuse(game, BACK) == "choose an action"


# --- items ----------------------------------------------------------------------------


def test_an_item_goes_on_a_chosen_face_up_mook():
    game = accept(dealt(), tap("dfw02"))
    assert RULES.view(game).title == "Snub Nose on?"
    game = choose(game, "dfm02")
    assert dump(game)["mooks"]["Ann"][2]["items"]["weapon"] == "dfw02"
    assert dump(game)["mooks"]["Ann"][2]["total"] == 4
    assert dump(game)["phase"] == "playing"


def test_a_same_slot_item_replaces_the_old_one_which_is_discarded():
    game = accept(dealt(), tap("dfw02"))
    game = choose(game, "dfm02")
    game = choose(accept(game, tap("dfw01")), "dfm02")
    assert dump(game)["mooks"]["Ann"][2]["items"]["weapon"] == "dfw01"
    assert dump(game)["discard_pile"] == ["dfw02"]


def test_items_go_only_on_own_face_up_mooks_by_default():
    game = table((Mook("dfm01"), Mook("dfm02", face_up=False)), (Mook("dfm04"),))
    game = accept(game, tap("dfw01"))  # only Sal can take it: on at once, no picker
    assert dump(game)["phase"] == "playing"
    assert dump(game)["mooks"]["Ann"][0]["items"]["weapon"] == "dfw01"


def test_a_player_with_only_face_down_mooks_cannot_play_an_item():
    game = table((Mook("dfm02", face_up=False),), (Mook("dfm04"),))
    assert refuse(game, tap("dfw01")) == "face-down Mooks take no items"
    game = table((), (Mook("dfm04"),))
    assert refuse(game, tap("dfw01")) == "no Mook to take an item"


def test_house_rule_items_on_opponents():
    game = table((Mook("dfm01"),), (Mook("dfm04"), Mook("dfm05", face_up=False)), items_on_opponents="yes")
    game = accept(game, tap("dfd03"))
    assert [choice.value for choice in choices(game)] == ["dfm01", "dfm04"]
    game = choose(game, "dfm04")
    assert dump(game)["mooks"]["Bob"][0]["items"]["disguise"] == "dfd03"


def test_back_from_an_item_picker_leaves_it_in_hand():
    game = dealt()
    after = accept(game, tap("dfw01"), BACK)
    assert dump(after) == dump(game)
    assert after.notice == "Tommy Gun not played"


def test_the_mook_picker_starts_on_the_mook_nearest_to_armed_with_the_slot_free():
    game = table((Mook("dfm03", True, "dfw01"), Mook("dfm01", True, None, "dfd01"), Mook("dfm02")), (Mook("dfm04"),))
    assert RULES.view(accept(game, tap("dfw02"))).cursor == 1  # Sal: a weapon slot free, one item already
    assert RULES.view(accept(game, tap("dfv02"))).cursor == 0  # a vehicle: Paulie (one item, 6 hits) before Sal (4)
    assert RULES.view(accept(game, tap("dff01"), DOWN, OK)).cursor == 0  # a Fugazi disguise: Paulie
    empty = table((Mook("dfm01"), Mook("dfm03"), Mook("dfm02")), (Mook("dfm04"),))
    assert RULES.view(accept(empty, tap("dfw02"))).cursor == 1  # nothing on anyone: the strongest, Paulie


def test_a_mook_tapped_before_the_action_takes_the_next_items_without_a_picker():
    game = accept(dealt(), tap("dfm02"))  # Vinnie, Ann's third Mook
    assert game.notice == "Items go on Vinnie" and RULES.view(game).lines[0] == "Items on Vinnie"
    game = accept(game, tap("dfw02"), tap("dfd03"), tap("dfv03"))  # three taps, no picker
    vinnie = dump(game)["mooks"]["Ann"][2]
    assert vinnie["items"] == {"weapon": "dfw02", "disguise": "dfd03", "vehicle": "dfv03"}
    assert dump(game)["phase"] == "playing" and game.notice == "Taxi on Vinnie"
    assert RULES.view(game).cursor == 1  # the menu's cursor is still on Whack


def test_a_fugazi_goes_on_the_tapped_mook_after_its_slot():
    game = accept(table((Mook("dfm03"), Mook("dfm01")), (Mook("dfm06"),)), tap("dfm01"), tap("dff01"))
    game = choose(game, "vehicle")
    assert dump(game)["mooks"]["Ann"][1]["items"]["vehicle"] == "dff01" and dump(game)["phase"] == "playing"


def test_tapping_the_armed_mook_again_asks_again_and_only_own_face_up_mooks_are_armed():
    game = accept(dealt(), tap("dfm02"), tap("dfm02"))
    assert game.phase == Playing() and RULES.view(game).lines[0] == "Draw; tap cards; act:"
    assert RULES.view(accept(game, tap("dfw02"))).title == "Snub Nose on?"
    game = table((Mook("dfm01"), Mook("dfm02", face_up=False)), (Mook("dfm04"),))
    assert refuse(game, tap("dfm02")) == "face-down Mooks take no items"
    assert refuse(game, tap("dfm04")) == "Tony is in play"  # Bob's: items go on one's own Mooks
    opponents = table((Mook("dfm01"),), (Mook("dfm04"), Mook("dfm05")), items_on_opponents="yes")
    game = accept(opponents, tap("dfm04"), tap("dfw01"))
    assert dump(game)["mooks"]["Bob"][0]["items"]["weapon"] == "dfw01"


def test_a_mook_is_armed_only_before_the_action():
    game = accept(table((armed("dfm03"), Mook("dfm01")), (Mook("dfm04"), Mook("dfm05"))), OK)
    assert dump(game)["phase"] == "target"
    assert refuse(game, tap("dfm01")) == "Sal is in play"


def test_a_card_already_in_play_is_refused():
    game = choose(accept(dealt(), tap("dfw01")), "dfm01")
    assert refuse(game, tap("dfw01")) == "Tommy Gun is in play"
    assert refuse(game, tap("dfm04")) == "Tony is in play"


def test_items_come_before_the_action():
    game = table((armed("dfm03"),), (Mook("dfm04"), Mook("dfm05")))
    game = accept(game, OK)
    assert dump(game)["phase"] == "target"  # one armed Mook: not asked who whacks
    assert refuse(game, tap("dfw02")) == "items go before the action"


def test_a_pickers_mook_lines_are_explained_on_the_bottom_line():
    game = accept(table((armed("dfm03"),), (Mook("dfm04"), Mook("dfm05"))), OK)  # whacks who?
    view = RULES.view(game)
    assert view.notice == "Items WDV, then hits" and view.lines[view.cursor].endswith(" --- 2")
    assert len(view.notice) <= 21


def test_items_tapped_at_the_end_of_the_turn_are_known_discards():
    game = accept(dealt(), DOWN, OK, tap("dfw02"))
    assert dump(game)["discard_pile"] == ["dfw02"]
    assert refuse(game, tap("dfw02")) == "Snub Nose is discarded"


def test_a_discarded_card_played_again_means_the_discards_were_reshuffled():
    game = accept(dealt(), DOWN, OK, tap("dfw02"), tap("dfd02"), OK, DOWN, OK, OK)
    assert dump(game)["current_player"] == "Ann"
    game = choose(accept(game, tap("dfw02")), "dfm01")
    assert dump(game)["discard_pile"] == []
    assert "discards reshuffled" in game.notice


# --- whacks ---------------------------------------------------------------------------


def test_whack_needs_an_armed_mook():
    game = table((Mook("dfm03", True, "dfw01", "dfd01", None),), (Mook("dfm04"),))
    assert refuse(game, OK) == "no Mook has all three items"


def test_whack_needs_a_target_no_stronger_than_the_attacker():
    weak = armed("dfm01", "dfw03", "dfd03", "dfv03")  # 4 hits
    strong = Mook("dfm06", True, "dfw04", None, None)  # 6 hits
    game = table((weak,), (strong,))
    assert refuse(game, OK) == "no target weak enough to whack"


def test_only_armed_mooks_attack_and_only_legal_targets_are_offered():
    attacker = armed("dfm01", "dfw03", "dfd03", "dfv03")  # 4 hits
    game = table(
        (attacker, Mook("dfm02", True, "dfw01", "dfd01")),
        (Mook("dfm04", True, "dfw02"), Mook("dfm06", True, "dfw04"), Mook("dfm05", False)),
    )
    game = accept(game, OK)  # Sal is the only armed Mook, Tony his only target (3 hits; Carmine has 6, Joey is face down)
    assert dump(game)["phase"] == "evidence" and dump(game)["score_piles"]["Ann"] == ["dfm04"]  # a choice of one: made


def test_the_pickers_start_on_the_mook_a_whack_scores_most_and_on_the_weakest_evidence():
    attacker = armed("dfm03", "dfw03", "dff01", "dfv01")  # Switchblade 1, a Fugazi (0) as disguise, Hearse 3
    game = table((attacker,), (Mook("dfm04"), Mook("dfm06"), Mook("dfm05")), items_on_opponents="no")
    game = accept(game, OK)
    assert [choice.value for choice in choices(game)] == ["dfm04", "dfm06", "dfm05"]  # the table's order
    assert RULES.view(game).cursor == 1  # Carmine, 3 hits: what the whack scores
    game = accept(game, OK)
    assert dump(game)["score"]["Ann"] == 3 and RULES.view(game).cursor == 1  # the Fugazi, 0 hits
    game = accept(game, OK)
    assert dump(game)["mooks"]["Ann"][0]["items"]["disguise"] is None


def test_a_chosen_attacker_with_one_target_whacks_it_at_once_but_the_next_attacker_is_asked():
    two = table((armed("dfm03"), armed("dfm02", "dfw02", "dfd02", "dfv02")), (Mook("dfm04"),))
    game = accept(two, OK, OK)  # Whack, who whacks? Paulie: Tony is his one target
    assert dump(game)["phase"] == "evidence" and dump(game)["score_piles"]["Ann"] == ["dfm04"]
    game = table((armed("dfm03"), armed("dfm02", "dfw02", "dfd02", "dfv02")), (Mook("dfm04"), Mook("dfm05")))
    game = accept(game, OK, OK, OK, OK)  # Whack, Paulie, Joey (worth most), ditch
    assert dump(game)["phase"] == "target" and [choice.value for choice in choices(game)] == ["dfm04"]
    assert RULES.view(game).title == "Vinnie whacks who?"  # his one target, but he need not attack


def test_a_whack_scores_the_mook_discards_its_items_and_the_attacker_ditches_one():
    game = table((armed("dfm03"),), (Mook("dfm05", True, "dfw02"), Mook("dfm04")))
    game = accept(game, OK)
    result = RULES.apply(game, OK)
    assert isinstance(result, Step) and Sound.RIGHT in result.sounds
    game = result.state
    state = dump(game)
    assert state["score"] == {"Ann": 2, "Bob": 0}
    assert state["score_piles"]["Ann"] == ["dfm05"]
    assert [mook["card"] for mook in state["mooks"]["Bob"]] == ["dfm04"]
    assert state["discard_pile"] == ["dfw02"]
    assert state["phase"] == "evidence"
    assert refuse(game, BACK) == "choose the item to discard"
    game = choose(game, "disguise")
    assert dump(game)["mooks"]["Ann"][0]["items"]["disguise"] is None
    assert dump(game)["discard_pile"] == ["dfw02", "dfd01"]
    assert dump(game)["phase"] == "endturn"  # Paulie is no longer armed


def test_each_armed_mook_attacks_once_in_one_whack_action():
    ann = (armed("dfm03"), armed("dfm02", "dfw02", "dfd02", "dfv02"))
    game = table(ann, (Mook("dfm04"), Mook("dfm07"), Mook("dfm12")))
    game = accept(game, OK)
    game = choose(choose(game, "dfm03"), "dfm04")
    game = choose(game, "weapon")
    assert dump(game)["phase"] == "target"  # Vinnie is the only one left: not asked who whacks
    game = choose(game, "dfm07")
    game = choose(game, "vehicle")
    assert dump(game)["phase"] == "endturn"
    assert dump(game)["score"]["Ann"] == 2


def test_done_ends_the_whack_action_and_back_before_any_attack_returns_to_the_menu():
    game = table((armed("dfm03"),), (Mook("dfm04"), Mook("dfm05")))
    assert dump(accept(game, OK, BACK))["phase"] == "playing"  # the skipped picker's BACK
    two = table((armed("dfm03"), armed("dfm02", "dfw02", "dfd02", "dfv02")), (Mook("dfm04"), Mook("dfm05")))
    assert dump(accept(two, OK, BACK))["phase"] == "playing"
    assert dump(accept(two, OK, DOWN, DOWN, OK))["phase"] == "endturn"
    assert dump(accept(two, OK, OK, BACK))["phase"] == "attack"


def test_whacked_players_without_mooks_keep_playing_while_the_mook_deck_has_mooks():
    game = table((armed("dfm03"),), (Mook("dfm04"),))
    game = choose(accept(game, OK), "weapon")  # Whack: Tony, the only target, is whacked at once
    game = accept(game, OK)
    assert dump(game)["current_player"] == "Bob"
    assert dump(game)["out"] == []


def test_ten_hits_in_the_score_pile_wins_at_once():
    game = table((armed("dfm03"),), (Mook("dfm06"),))
    board = game.board.to_pile(0, "dfm09").to_pile(0, "dfm10").to_pile(0, "dfm01")  # 7 hits
    result = RULES.apply(replace(game, board=board), OK)  # Whack: Carmine, the only target, at once
    assert isinstance(result, Step) and Sound.FANFARE in result.sounds
    state = dump(result.state)
    assert state["over"] is True and state["winners"] == ["Ann"] and state["current_player"] is None
    assert state["score"]["Ann"] == 10
    assert RULES.view(result.state).title == "Ann wins!"
    assert refuse(result.state, OK) == "the game is over"
    assert refuse(result.state, tap("dfw02")) == "the game is over"


def test_out_only_with_no_mooks_and_an_empty_mook_deck_and_the_last_one_standing_wins():
    board = Board.empty(DECK.cards, 2)
    others = ["dfm01", "dfm02", *(f"dfm{n:02d}" for n in range(5, 13))]
    for card in others:
        board = board.to_pile(1, card)  # every other Mook is already gone
    game = table((armed("dfm03"),), (Mook("dfm04"),))
    game = replace(game, board=replace(board, mooks=game.board.mooks))
    game = accept(game, OK)
    assert dump(game)["out"] == ["Bob"]
    assert dump(game)["winners"] == ["Ann"]


# --- Fuhgeddaboutit -------------------------------------------------------------------


def test_fuhgeddaboutit_needs_something_to_cancel():
    assert refuse(dealt(), tap("dfx01")) == "nothing to cancel"


def test_one_fuhgeddaboutit_cancels_the_last_item_at_once():
    game = choose(accept(dealt(), tap("dfw02")), "dfm02")
    game = choose(accept(game, tap("dfw01")), "dfm02")
    game = accept(game, tap("dfx01"))
    assert dump(game)["chain"] == ["dfx01"] and dump(game)["phase"] == "playing"
    assert dump(game)["mooks"]["Ann"][2]["items"]["weapon"] == "dfw02"
    assert dump(game)["discard_pile"] == ["dfx01", "dfw01"]
    assert game.notice == "Fuhgeddaboutit x1: cancelled"
    game = accept(game, DOWN, OK, OK)  # Draw; the end of the turn leaves the chain open (RULINGS 5)
    assert dump(accept(game, tap("dfx02")))["mooks"]["Ann"][2]["items"]["weapon"] == "dfw01"


def test_two_fuhgeddaboutits_let_the_play_stand():
    game = choose(accept(dealt(), tap("dfw02")), "dfm02")
    game = accept(game, tap("dfx01"), tap("dfx02"))
    assert dump(game)["mooks"]["Ann"][2]["items"]["weapon"] == "dfw02"
    assert dump(game)["discard_pile"] == ["dfx01", "dfx02"]
    assert game.notice == "Fuhgeddaboutit x2: stands"


def test_chain_of_three_cancels_a_whack_and_takes_the_score_back():
    game = table((armed("dfm03"),), (Mook("dfm05", True, "dfw02"), Mook("dfm04")))
    game = choose(accept(game, OK, OK), "vehicle")
    assert dump(game)["score"]["Ann"] == 2
    game = accept(game, tap("dfx01"), tap("dfx02"), tap("dfx03"))
    state = dump(game)
    assert state["score"]["Ann"] == 0 and state["score_piles"]["Ann"] == []
    assert state["mooks"]["Bob"][0] == {
        "card": "dfm05",
        "face_up": True,
        "items": {"weapon": "dfw02", "disguise": None, "vehicle": None},
        "total": 4,
    }
    assert state["mooks"]["Ann"][0]["items"]["vehicle"] == "dfv01"
    assert state["discard_pile"] == ["dfx01", "dfx02", "dfx03"]
    assert state["phase"] == "endturn"  # Paulie has attacked in this action


def test_a_whack_can_be_cancelled_before_the_evidence_is_chosen():
    game = table((armed("dfm03"), armed("dfm02", "dfw02", "dfd02", "dfv02")), (Mook("dfm04"),))
    game = accept(game, OK, OK, tap("dfx01"))  # Paulie whacks Tony (his only target); cancelled in the evidence choice
    assert dump(game)["score"]["Ann"] == 0
    assert dump(game)["phase"] == "target"  # Paulie's attack is spent: Vinnie, the only one left
    assert RULES.view(game).title == "Vinnie whacks who?"


def test_the_winning_whack_can_still_be_cancelled():
    game = table((armed("dfm03"),), (Mook("dfm06"),))
    board = game.board.to_pile(0, "dfm09").to_pile(0, "dfm10").to_pile(0, "dfm01")
    game = accept(replace(game, board=board), OK)
    assert dump(game)["over"] is True
    stands = accept(game, tap("dfx01"), tap("dfx02"))
    assert dump(stands)["over"] is True and dump(stands)["winners"] == ["Ann"]
    game = accept(game, tap("dfx01"))
    assert dump(game)["over"] is False and dump(game)["winners"] == []
    assert dump(game)["score"]["Ann"] == 7
    assert dump(game)["phase"] == "endturn"


def test_an_open_chain_blocks_nothing_and_the_next_play_closes_it():
    game = choose(accept(dealt(), tap("dfw02")), "dfm02")
    game = accept(game, tap("dfx01"), tap("dfx02"))
    game = accept(game, tap("dfw01"))  # another item: its picker opens, the chain is still open
    assert dump(game)["phase"] == "picking" and dump(game)["chain"] == ["dfx01", "dfx02"]
    game = choose(game, "dfm03")  # the Tommy Gun is played: a new last play
    assert dump(game)["chain"] == []
    game = accept(game, tap("dfx03"))
    assert dump(game)["mooks"]["Ann"][0]["items"]["weapon"] is None  # the Tommy Gun, not the Snub Nose
    assert dump(game)["mooks"]["Ann"][2]["items"]["weapon"] == "dfw02"


def test_the_last_play_is_still_cancelled_at_the_start_of_the_next_turn():
    game = choose(accept(dealt(), tap("dfw02")), "dfm02")
    game = accept(game, DOWN, OK, OK)  # Draw; Next player: drawing and the turn's end do not close it (RULINGS 5)
    assert dump(game)["current_player"] == "Bob"
    game = accept(game, tap("dfx01"))
    assert dump(game)["mooks"]["Ann"][2]["items"]["weapon"] is None and dump(game)["chain"] == ["dfx01"]
    assert dump(game)["current_player"] == "Bob" and dump(game)["phase"] == "playing"
    game = accept(game, tap("dfw01"), OK)  # Bob's Tommy Gun: a new last play, the chain closed
    assert dump(game)["chain"] == []
    assert dump(accept(game, tap("dfx02")))["mooks"]["Ann"][2]["items"]["weapon"] is None


def test_a_whack_of_the_turn_before_cancelled_then_standing_asks_its_evidence_and_play_goes_on():
    game = table((armed("dfm03"), armed("dfm02", "dfw02", "dfd02", "dfv02")), (Mook("dfm04"), Mook("dfm05")))
    game = accept(game, OK, OK, OK, OK)  # Whack: Paulie whacks Joey, ditches his evidence
    game = accept(game, OK, tap("dfx01"))  # Vinnie whacks Tony; cancelled before his evidence
    assert dump(game)["phase"] == "endturn" and dump(game)["score_piles"]["Ann"] == ["dfm05"]
    game = accept(game, OK)  # Next player
    assert dump(game)["current_player"] == "Bob"
    game = accept(game, tap("dfx02"))  # the whack stands again at Bob's turn: Vinnie's evidence is due
    assert dump(game)["phase"] == "evidence" and dump(game)["score_piles"]["Ann"] == ["dfm05", "dfm04"]
    game = accept(game, OK)
    assert dump(game)["phase"] == "playing" and dump(game)["current_player"] == "Bob"
    assert len([item for item in dump(game)["mooks"]["Ann"][1]["items"].values() if item]) == 2


def test_fuhgeddaboutit_answers_while_a_choice_is_open():
    game = choose(accept(dealt(), tap("dfw01")), "dfm02")
    game = accept(game, tap("dfw02"))  # the Snub Nose's picker is open
    game = accept(game, tap("dfx01"))  # cancels the Tommy Gun; the picker stays
    assert dump(game)["phase"] == "picking"
    assert dump(game)["mooks"]["Ann"][2]["items"]["weapon"] is None


# --- Fugazi, Boost, I Know A Guy, other action cards ----------------------------------


def test_fugazi_is_a_zero_hit_item_in_a_chosen_slot_and_arms_a_mook():
    game = table((Mook("dfm03", True, "dfw01", "dfd01"),), (Mook("dfm06"),))
    game = accept(game, tap("dff01"))
    assert RULES.view(game).title == "Fugazi as?"
    game = choose(game, "vehicle")  # Paulie is Ann's only Mook: on at once
    state = dump(game)
    assert state["mooks"]["Ann"][0]["items"]["vehicle"] == "dff01"
    assert state["mooks"]["Ann"][0]["total"] == 9
    game = accept(game, OK)  # Whack: Carmine, the only target
    assert dump(game)["score"]["Ann"] == 3
    game = choose(game, "vehicle")
    assert dump(game)["discard_pile"] == ["dff01"]


def test_fugazi_goes_on_the_players_own_mooks_and_on_others_only_with_the_house_rule():
    game = table((Mook("dfm03"), Mook("dfm01")), (Mook("dfm06"), Mook("dfm05", face_up=False)))
    game = accept(game, tap("dff01"), OK)
    assert [choice.value for choice in choices(game)] == ["dfm03", "dfm01"]
    game = accept(game, BACK)
    assert dump(game)["phase"] == "picking"  # back to the slot choice
    assert dump(accept(game, BACK))["phase"] == "playing"
    game = table((Mook("dfm03"),), (Mook("dfm06"), Mook("dfm05", face_up=False)), items_on_opponents="yes")
    game = accept(game, tap("dff01"), OK)
    assert [choice.value for choice in choices(game)] == ["dfm03", "dfm06"]


def test_boost_moves_an_opponents_item_to_your_mook_replacing_the_same_slot():
    game = table((Mook("dfm03", True, "dfw03"),), (Mook("dfm06", True, "dfw01", "dfd02"),))
    game = accept(game, tap("dfb01"))
    offered = choices(game)  # opponents' items only, then Bob's card (RULINGS 5a)
    assert [(choice.value, choice.seat) for choice in offered] == [("dfw01", None), ("dfd02", None), (None, 1)]
    game = choose(game, "dfw01")  # onto Paulie, Ann's only Mook: at once
    state = dump(game)
    assert state["mooks"]["Ann"][0]["items"]["weapon"] == "dfw01"
    assert state["mooks"]["Bob"][0]["items"]["weapon"] is None
    assert state["discard_pile"] == ["dfw03", "dfb01"]
    game = accept(game, tap("dfx01"))
    state = dump(game)
    assert state["mooks"]["Ann"][0]["items"]["weapon"] == "dfw03"
    assert state["mooks"]["Bob"][0]["items"]["weapon"] == "dfw01"
    assert state["discard_pile"] == ["dfb01", "dfx01"]


def test_boost_needs_an_item_to_move_and_a_mook_to_take_it():
    game = table((Mook("dfm03"),), (Mook("dfm06"),))
    assert refuse(game, tap("dfb01")) == "no item to boost"
    game = table((Mook("dfm03", face_up=False),), (Mook("dfm06", True, "dfw01"),))
    assert refuse(game, tap("dfb01")) == "no face-up Mook to take it"


def test_i_know_a_guy_takes_a_known_discard_or_one_not_listed():
    game = accept(dealt(), DOWN, OK, tap("dfw02"), tap("dfd02"), tap("dfg01"))
    assert [choice.label for choice in choices(game)] == ["Cop Uniform", "Snub Nose", "A card not listed", "Bob's card"]
    after = choose(game, "dfw02")
    assert dump(after)["discard_pile"] == ["dfd02", "dfg01"]
    assert dump(after)["phase"] == "endturn"
    unlisted = choose(game, None)
    assert dump(unlisted)["discard_pile"] == ["dfw02", "dfd02", "dfg01"]
    cancelled = accept(after, tap("dfx01"))
    assert dump(cancelled)["discard_pile"] == ["dfd02", "dfg01", "dfx01", "dfw02"]


def test_cancelling_i_know_a_guy_whose_card_was_played_in_the_chain_changes_nothing_more():
    game = accept(dealt(), tap("dfw02"), OK)
    game = accept(game, tap("dfx01"), tap("dfx02"))  # the Snub Nose stands; both discarded
    game = accept(game, tap("dfg01"))
    game = choose(game, "dfx02")
    game = accept(game, tap("dfx02"))  # the card the Guy got cancels the Guy
    assert Counter(dump(game)["discard_pile"])["dfx02"] == 1


def test_a_discarded_fuhgeddaboutit_played_again_means_a_reshuffle():
    game = choose(accept(dealt(), tap("dfw02")), "dfm02")
    game = accept(game, tap("dfx01"))  # the Snub Nose cancelled
    game = choose(accept(game, tap("dfw01")), "dfm03")  # a Tommy Gun on Paulie: the next play
    game = accept(game, tap("dfx01"))  # the same Fuhgeddaboutit again: the discards were reshuffled
    assert dump(game)["discard_pile"] == ["dfx01", "dfw01"]
    assert game.notice == "Fuhgeddaboutit x1: cancelled; discards reshuffled"


def test_i_know_a_guy_with_no_known_discards_resolves_at_once():
    game = accept(dealt(), tap("dfg01"))
    assert dump(game)["phase"] == "playing"
    assert dump(game)["discard_pile"] == ["dfg01"]
    assert game.notice == "Take any discarded card"


def test_another_action_card_is_shown_for_the_table_to_resolve():
    game = accept(dealt(), tap("dft01"))
    view = RULES.view(game)
    assert view.title == "Sit-Down"
    assert view.lines[-1] == "OK: done"
    game = accept(game, OK)
    assert dump(game)["phase"] == "playing"
    assert dump(game)["discard_pile"] == ["dft01"]
    assert dump(accept(game, tap("dfx01")))["chain"] == ["dfx01"]  # the Sit-Down is cancelled, for the table


def test_action_cards_may_be_played_after_the_action_too():
    game = accept(dealt(), DOWN, OK, tap("dff01"))
    assert dump(game)["phase"] == "picking"


# --- dump and view --------------------------------------------------------------------


def test_dump_has_the_issue_keys_with_player_names():
    state = dump(dealt())
    assert set(state) >= {"current_player", "over", "winners", "score", "score_piles", "mooks"}
    assert state["score"] == {"Ann": 0, "Bob": 0}
    assert state["score_piles"] == {"Ann": [], "Bob": []}
    assert state["mooks"]["Bob"][2]["card"] == "dfm06"


@pytest.mark.parametrize("players", [2, 6])
def test_view_fits_the_oled(players):
    game = RULES.new(Setup(tuple(f"Player number {n}" for n in range(players))), RULES.load_deck())
    view = RULES.view(game)
    assert len(view.title) <= 21 and len(view.lines) <= 5
