"""Dead Set rules through RULES.apply: every rule, house rule and rejection."""

from __future__ import annotations

import json

import pytest

from box.decks.codec import Deck
from box.games.base import Press, Rejected, Roll, Setup, Sound, Tap
from box.games.dead_set import RULES
from box.games.dead_set.state import Phase, State
from tests.support import play_all

# Ages chosen so totals are easy to follow: the id says the age.
AGES = {
    "ds10": 10,
    "ds20": 20,
    "ds25": 25,
    "ds30": 30,
    "ds40": 40,
    "ds50": 50,
    "ds60": 60,
    "ds70": 70,
    "ds80": 80,
    "ds90": 90,
    "ds95": 95,
    "ds99": 99,
    "ds101": 101,
    "ds30b": 30,
    "ds40b": 40,
    "ds50b": 50,
    "ds60b": 60,
    "ds70b": 70,
    "ds80b": 80,
    "ds90b": 90,
}
DECK = Deck("dead-set", AGES, {card: f"Celebrity {card[2:]}" for card in AGES}, "test.csv")
OK = Press("ok")


def tap(card: str, reader: str = "middle") -> Tap:
    return Tap(reader, card)


def start(players: str = "Ann,Bob", deck: Deck = DECK, **options: str) -> State:
    return RULES.new(Setup(tuple(players.split(",")), options), deck)


def play(state: State, *actions) -> State:
    """Apply actions that must all be accepted; the state after the last one."""
    return play_all(RULES, state, *actions)


def rejected(state: State, action, reason_part: str) -> None:
    """`action` is rejected with a reason containing `reason_part`, and nothing changes."""
    before = state
    answer = RULES.apply(state, action)
    assert isinstance(answer, Rejected), answer
    assert reason_part in answer.reason
    assert state == before


def dump(state: State) -> dict:
    return RULES.dump(state)


# --- start -------------------------------------------------------------------------------


def test_a_new_game_starts_in_round_one_with_the_first_named_player():
    state = start("Cy,Ann,Bob")
    assert dump(state) == {
        "current_player": "Cy",
        "over": False,
        "winners": [],
        "phase": "play",
        "round": 1,
        "celebrities": {"Cy": 0, "Ann": 0, "Bob": 0},
        "round_cards": {"Cy": [], "Ann": [], "Bob": []},
        "stuck": [],
        "last_round": {},
    }
    assert RULES.wants_roll(state) is False


def test_options_default_to_the_rulings():
    assert {o.key: o.default for o in RULES.options} == {
        "target": "13",
        "ties": "either",
        "order_bonus_min": "2",
        "high_tie": "all",
    }
    house = start().house
    assert (house.target, house.strict_ties, house.order_bonus_min, house.high_tie_all) == (13, False, 2, True)


def test_players_need_different_names():
    with pytest.raises(ValueError, match="different names"):
        start("Ann,Ann")


def test_a_bad_option_value_names_the_option():
    with pytest.raises(ValueError, match="ties must be one of either, strict"):
        start(ties="sometimes")


# --- twist and stick ---------------------------------------------------------------------


def test_twist_is_one_tap_on_any_reader_and_passes_the_turn():
    state = play(start("Ann,Bob,Cy"), tap("ds10", "left"), tap("ds20", "right"), tap("ds30", "middle"))
    assert dump(state)["round_cards"] == {"Ann": ["ds10"], "Bob": ["ds20"], "Cy": ["ds30"]}
    assert dump(state)["current_player"] == "Ann"


def test_twist_clicks_and_hides_the_age():
    step = RULES.apply(start(), tap("ds90"))
    assert step.sounds == (Sound.CLICK,)
    screen = RULES.view(step.state)
    assert "90" not in " ".join((screen.title, *screen.lines, screen.notice))


def test_stick_is_ok_and_a_stuck_player_is_skipped():
    state = play(start("Ann,Bob,Cy"), OK, tap("ds10"), tap("ds20"))
    assert dump(state)["stuck"] == ["Ann"]
    assert dump(state)["current_player"] == "Bob"
    state = play(state, tap("ds30"))
    assert dump(state)["round_cards"] == {"Ann": [], "Bob": ["ds10", "ds30"], "Cy": ["ds20"]}


def test_a_long_ok_also_sticks():
    state = play(start(), Press("ok", long=True))
    assert dump(state)["stuck"] == ["Ann"]


def test_a_card_tapped_twice_is_refused():
    state = play(start(), tap("ds10"), tap("ds20"))
    rejected(state, tap("ds10"), "You took it already")
    rejected(state, tap("ds20"), "Bob took it this round")


def test_a_card_owned_by_someone_is_refused():
    state = play(start(), tap("ds10"), OK, OK)  # Ann reveals her one card and keeps it
    state = play(state, tap("ds10"))
    assert dump(state)["celebrities"]["Ann"] == 1
    assert dump(state)["phase"] == "bonus"  # Ann's 10 is the highest total
    state = play(state, tap("ds20"))
    rejected(state, tap("ds10"), "Ann owns it already")
    rejected(state, tap("ds20"), "Ann owns it already")


def test_a_card_of_another_deck_is_refused():
    rejected(start(), tap("dl001"), "Not a Dead Set card")


def test_other_buttons_and_dice_are_refused_while_playing():
    state = start()
    for button in ("up", "down", "back", "roll"):
        rejected(state, Press(button), "Tap a card to twist, OK to stick")
    rejected(state, Roll((3, 4)), "no dice")


def test_the_round_ends_when_everyone_has_stuck():
    state = play(start("Ann,Bob"), tap("ds10"), OK, tap("ds20"))
    assert dump(state)["phase"] == "play"
    assert dump(state)["current_player"] == "Ann"  # Bob has stuck, Ann goes on alone
    state = play(state, OK)
    assert dump(state)["phase"] == "reveal"
    assert dump(state)["current_player"] == "Ann"
    assert dump(state)["stuck"] == ["Ann", "Bob"]


# --- reveal ------------------------------------------------------------------------------


def reveal_ready(first: tuple[str, ...], second: tuple[str, ...], players: str = "Ann,Bob", **options) -> State:
    """Ann twists `first`, Bob twists `second` (alternating, sticking when done), then scoring."""
    state = start(players, **options)
    pending = [list(first), list(second)]
    while dump(state)["phase"] == "play":
        seat = state.seat
        state = play(state, tap(pending[seat].pop(0)) if pending[seat] else OK)
    return state


def test_reveal_shows_each_age_and_judges_the_round():
    state = reveal_ready(("ds30", "ds10", "ds20"), ("ds40",))
    step = RULES.apply(state, tap("ds10"))
    assert step.sounds == (Sound.CLICK,)
    screen = RULES.view(step.state)
    assert screen.lines[-1].endswith(" 10")
    assert screen.cursor == len(screen.lines) - 1
    assert "10" in screen.notice
    state = play(step.state, tap("ds20"), tap("ds30"))
    assert dump(state)["last_round"]["Ann"] == {"total": 60, "bust": False, "order_ok": True, "bonus": 0}
    assert RULES.view(state).notice == "Ann +30 = 60 kept, in order"  # the last age too
    assert dump(state)["celebrities"]["Ann"] == 3
    assert dump(state)["phase"] == "bonus"
    assert dump(state)["current_player"] == "Ann"


def test_a_reveal_of_a_card_the_player_did_not_take_is_refused():
    state = reveal_ready(("ds30", "ds10"), ("ds40",))
    rejected(state, tap("ds40"), "Not one of your cards")
    rejected(state, tap("ds90"), "Not one of your cards")
    state = play(state, tap("ds10"))
    rejected(state, tap("ds10"), "Already revealed")


def test_buttons_do_nothing_during_a_reveal():
    state = reveal_ready(("ds30",), ())
    for button in ("ok", "up", "down", "back", "roll"):
        rejected(state, Press(button), "Tap your cards")


def test_a_wrong_order_earns_no_bonus():
    state = reveal_ready(("ds30", "ds10"), ("ds40",))
    state = play(state, tap("ds30"), tap("ds10"))
    assert dump(state)["last_round"]["Ann"] == {"total": 40, "bust": False, "order_ok": False, "bonus": 0}
    assert dump(state)["phase"] == "reveal"
    assert dump(state)["current_player"] == "Bob"
    assert state.notice == "Ann +10 = 40 kept, out of order: 30 then 10"  # the reason, not only "kept"


def test_a_single_card_says_why_it_earns_no_order_bonus():
    state = play(reveal_ready(("ds30",), ("ds40",)), tap("ds30"))
    assert state.notice == "Ann +30 = 30 kept, 1 card: no order bonus"


def test_equal_ages_may_go_either_way_by_default():
    state = play(reveal_ready(("ds30", "ds30b"), ()), tap("ds30b"), tap("ds30"))
    assert dump(state)["last_round"]["Ann"]["order_ok"] is True


def test_strict_ties_spoil_the_order():
    state = play(reveal_ready(("ds30", "ds30b"), (), ties="strict"), tap("ds30b"), tap("ds30"))
    assert dump(state)["last_round"]["Ann"]["order_ok"] is False


def test_one_card_earns_no_order_bonus_by_default():
    state = play(reveal_ready(("ds30",), ("ds40", "ds50")), tap("ds30"))
    assert dump(state)["last_round"]["Ann"]["order_ok"] is False
    assert dump(state)["phase"] == "reveal"


def test_order_bonus_min_can_lower_the_threshold():
    state = play(reveal_ready(("ds30",), ("ds40", "ds50"), order_bonus_min="1"), tap("ds30"))
    assert dump(state)["last_round"]["Ann"]["order_ok"] is True
    assert dump(state)["phase"] == "bonus"


def test_order_bonus_min_can_raise_the_threshold():
    state = play(reveal_ready(("ds10", "ds20"), (), order_bonus_min="3"), tap("ds10"), tap("ds20"))
    assert dump(state)["last_round"]["Ann"]["order_ok"] is False


# --- bust --------------------------------------------------------------------------------


def test_over_200_busts_and_the_cards_are_discarded():
    state = reveal_ready(("ds70", "ds80", "ds60"), ("ds40",))
    step = RULES.apply(play(state, tap("ds60"), tap("ds80")), tap("ds70"))
    assert step.sounds == (Sound.WRONG,)
    state = step.state
    assert dump(state)["last_round"]["Ann"] == {"total": 210, "bust": True, "order_ok": False, "bonus": 0}
    assert dump(state)["celebrities"]["Ann"] == 0
    assert RULES.figures_of(state) == {"Ann": {"celebrities": 0, "busts": 1}, "Bob": {"celebrities": 0, "busts": 0}}
    assert "BUST" in RULES.view(state).notice


def test_exactly_200_is_kept():
    state = play(reveal_ready(("ds50", "ds60", "ds90"), ()), tap("ds90"), tap("ds60"), tap("ds50"))
    assert dump(state)["last_round"]["Ann"] == {"total": 200, "bust": False, "order_ok": False, "bonus": 0}
    assert dump(state)["celebrities"]["Ann"] == 3


def test_a_bust_players_order_bonus_is_safe():
    state = play(reveal_ready(("ds60", "ds70", "ds80"), ("ds10",)), tap("ds60"), tap("ds70"), tap("ds80"))
    assert dump(state)["last_round"]["Ann"] == {"total": 210, "bust": True, "order_ok": True, "bonus": 0}
    state = play(state, tap("ds90"))
    assert dump(state)["celebrities"]["Ann"] == 1
    assert dump(state)["last_round"]["Ann"]["bonus"] == 1


def test_busted_cards_come_back_into_play_next_round():
    state = play(reveal_ready(("ds70", "ds80", "ds60"), ()), tap("ds70"), tap("ds80"), tap("ds60"))
    assert dump(state)["round"] == 2
    state = play(state, tap("ds70"))  # Bob starts round 2 and may take a discarded card
    assert dump(state)["round_cards"]["Bob"] == ["ds70"]


# --- bonus cards -------------------------------------------------------------------------


def test_the_order_bonus_comes_right_after_the_players_reveal():
    state = play(reveal_ready(("ds10", "ds20"), ("ds30", "ds40")), tap("ds10"), tap("ds20"))
    assert RULES.view(state).lines[0] == "Order correct!"
    state = play(state, tap("ds90"))
    assert dump(state)["celebrities"]["Ann"] == 3
    assert dump(state)["last_round"]["Ann"]["bonus"] == 1
    assert (dump(state)["phase"], dump(state)["current_player"]) == ("reveal", "Bob")


def test_a_bonus_card_must_come_from_the_graveyard():
    state = play(reveal_ready(("ds10", "ds20"), ("ds30", "ds40")), tap("ds10"), tap("ds20"))
    rejected(state, tap("ds10"), "Ann owns it already")
    rejected(state, tap("ds30"), "Bob took it this round")
    rejected(state, tap("nope"), "Not a Dead Set card")
    for button in ("ok", "up", "down", "roll"):
        rejected(state, Press(button), "Tap the bonus card")


def test_a_card_busted_this_round_is_in_the_discard_pile_not_the_graveyard():
    state = play(reveal_ready(("ds70", "ds80", "ds60"), ("ds10", "ds20")), tap("ds70"), tap("ds80"), tap("ds60"))
    state = play(state, tap("ds10"), tap("ds20"))  # Bob in order: bonus
    rejected(state, tap("ds70"), "Ann took it this round")


def test_the_highest_total_takes_a_bonus_card():
    state = play(reveal_ready(("ds90", "ds10"), ("ds40",)), tap("ds90"), tap("ds10"), tap("ds40"))
    assert (dump(state)["phase"], dump(state)["current_player"]) == ("bonus", "Ann")
    assert RULES.view(state).lines[0] == "Highest total!"
    state = play(state, tap("ds99"))
    assert dump(state)["last_round"]["Ann"] == {"total": 100, "bust": False, "order_ok": False, "bonus": 1}
    assert dump(state)["celebrities"] == {"Ann": 3, "Bob": 1}
    assert dump(state)["round"] == 2


def test_a_bust_total_is_never_the_highest():
    state = play(reveal_ready(("ds90", "ds80", "ds40"), ("ds10",)), tap("ds90"), tap("ds80"), tap("ds40"))
    state = play(state, tap("ds10"))
    assert (dump(state)["phase"], dump(state)["current_player"]) == ("bonus", "Bob")


def test_nobody_with_no_cards_is_the_highest():
    state = play(start(), OK, OK)
    assert dump(state)["round"] == 2
    assert dump(state)["last_round"] == {
        name: {"total": 0, "bust": False, "order_ok": False, "bonus": 0} for name in ("Ann", "Bob")
    }


def test_a_player_who_collected_no_card_takes_no_high_bonus_even_when_everyone_else_bust():
    state = reveal_ready((), ("ds90", "ds80", "ds40"))  # Ann sticks at once; Bob busts (RULINGS Dead Set 7)
    state = play(state, tap("ds90"), tap("ds80"), tap("ds40"))
    assert dump(state)["round"] == 2 and dump(state)["phase"] == "play"
    assert dump(state)["last_round"]["Ann"] == {"total": 0, "bust": False, "order_ok": False, "bonus": 0}
    assert dump(state)["last_round"]["Bob"]["bust"] is True


def test_tied_highest_totals_all_take_a_bonus_in_turn_order():
    state = play(reveal_ready(("ds60", "ds40"), ("ds50", "ds50b")), tap("ds60"), tap("ds40"))
    state = play(state, tap("ds50"), tap("ds50b"))  # Bob in order (equal ages): his order bonus
    state = play(state, tap("ds10"))
    assert (dump(state)["phase"], dump(state)["current_player"]) == ("bonus", "Ann")
    state = play(state, tap("ds20"))
    assert (dump(state)["phase"], dump(state)["current_player"]) == ("bonus", "Bob")
    state = play(state, tap("ds25"))
    assert dump(state)["last_round"]["Ann"]["bonus"] == 1
    assert dump(state)["last_round"]["Bob"]["bonus"] == 2
    assert dump(state)["round"] == 2


def test_high_tie_none_gives_no_bonus_on_a_tie():
    state = reveal_ready(("ds60", "ds40"), ("ds50", "ds50b"), high_tie="none")
    state = play(state, tap("ds60"), tap("ds40"), tap("ds50b"), tap("ds50"), tap("ds10"))
    assert dump(state)["round"] == 2
    assert dump(state)["celebrities"] == {"Ann": 2, "Bob": 3}


def test_high_tie_none_still_rewards_a_single_highest():
    state = reveal_ready(("ds60", "ds40"), ("ds50",), high_tie="none")
    state = play(state, tap("ds60"), tap("ds40"), tap("ds50"))
    assert (dump(state)["phase"], dump(state)["current_player"]) == ("bonus", "Ann")


def test_at_most_four_bonus_cards_a_round():
    players = "A,B,C,D,E"
    state = start(players)
    hands = {0: ["ds10", "ds20"], 1: ["ds25", "ds30"], 2: ["ds40", "ds50"], 3: ["ds60", "ds70"], 4: ["ds30b", "ds40b"]}
    while dump(state)["phase"] == "play":
        state = play(state, tap(hands[state.seat].pop(0)) if hands[state.seat] else OK)
    free = iter(["ds80", "ds90", "ds95", "ds99", "ds101"])
    while dump(state)["round"] == 1:
        if dump(state)["phase"] == "reveal":
            seat = state.seat
            state = play(state, *(tap(card) for card in state.taken[seat]))
        else:
            state = play(state, tap(next(free)))
    bonuses = {name: result["bonus"] for name, result in dump(state)["last_round"].items()}
    assert bonuses == {"A": 1, "B": 1, "C": 1, "D": 1, "E": 0}  # D had the highest total too: no card left


def test_back_tells_the_box_the_graveyard_is_empty():
    state = play(reveal_ready(("ds10", "ds20"), ("ds30", "ds40")), tap("ds10"), tap("ds20"))
    step = RULES.apply(state, Press("back"))
    state = step.state
    assert dump(state)["last_round"]["Ann"]["bonus"] == 0
    state = play(state, tap("ds30"), tap("ds40"))  # Bob in order and highest: no card left for him
    assert dump(state)["round"] == 2
    assert dump(state)["celebrities"] == {"Ann": 2, "Bob": 2}


def test_the_graveyard_holds_no_more_than_the_cards_left():
    tiny = Deck("dead-set", {"ds1": 10, "ds2": 20, "ds3": 30}, {"ds1": "A", "ds2": "B", "ds3": "C"}, "t.csv")
    state = start(deck=tiny)
    state = play(state, tap("ds1"), OK, tap("ds2"), OK, tap("ds1"), tap("ds2"))
    assert RULES.view(state).lines[2] == "and tap it (1 left)"
    state = play(state, tap("ds3"))
    assert dump(state)["round"] == 2  # the high bonus found the graveyard empty
    assert dump(state)["celebrities"] == {"Ann": 3, "Bob": 0}


# --- rounds and winning ------------------------------------------------------------------


def test_the_last_verdict_stays_on_screen_when_a_round_ends_without_bonus():
    state = play(reveal_ready(("ds70", "ds80", "ds60"), ()), tap("ds70"), tap("ds80"), tap("ds60"))
    assert dump(state)["round"] == 2
    assert RULES.view(state).notice == "Ann +60 = 210 BUST"
    assert RULES.view(state).title == "R2 Bob's turn"


def test_the_first_player_moves_one_seat_left_each_round():
    state = start("Ann,Bob,Cy")
    firsts = []
    for _ in range(4):
        firsts.append(dump(state)["current_player"])
        state = play(state, OK, OK, OK)
    assert firsts == ["Ann", "Bob", "Cy", "Ann"]
    assert dump(state)["round"] == 5


def test_scoring_goes_in_turn_order_from_the_rounds_first_player():
    state = play(start("Ann,Bob,Cy"), OK, OK, OK)  # round 2: Bob first
    state = play(state, tap("ds10"), tap("ds20"), tap("ds30"), OK, OK, OK)
    order = []
    while dump(state)["phase"] == "reveal":
        order.append(dump(state)["current_player"])
        state = play(state, *(tap(card) for card in state.taken[state.seat]))
    assert order == ["Bob", "Cy", "Ann"]


def test_the_last_round_stays_in_the_dump_during_the_next_round():
    state = play(reveal_ready(("ds10",), ("ds20",)), tap("ds10"), tap("ds20"), tap("ds30"))
    assert dump(state)["round"] == 2
    state = play(state, tap("ds40"))
    assert dump(state)["last_round"]["Bob"] == {"total": 20, "bust": False, "order_ok": False, "bonus": 1}
    assert dump(state)["round_cards"] == {"Ann": [], "Bob": ["ds40"]}
    assert dump(state)["stuck"] == []


def test_a_win_stops_scoring_before_later_players_reveal():
    # Round 1: Ann keeps 1, Bob keeps 1 and takes the high bonus (2 cards). Target 3.
    state = play(reveal_ready(("ds10",), ("ds20",), target="3"), tap("ds10"), tap("ds20"), tap("ds30"))
    assert dump(state)["celebrities"] == {"Ann": 1, "Bob": 2}
    # Round 2: Bob first. Ann twists two cards (would reach 3), Bob twists one (reaches 3 first).
    state = play(state, tap("ds40"), tap("ds50"), OK, tap("ds60"), OK)
    assert (dump(state)["phase"], dump(state)["current_player"]) == ("reveal", "Bob")
    step = RULES.apply(state, tap("ds40"))
    assert step.sounds == (Sound.FANFARE,)
    state = step.state
    assert dump(state)["over"] is True
    assert dump(state)["winners"] == ["Bob"]
    assert dump(state)["current_player"] is None
    assert dump(state)["celebrities"] == {"Ann": 1, "Bob": 3}
    assert "Ann" not in dump(state)["last_round"]
    screen = RULES.view(state)
    assert (screen.title, screen.lines[0]) == ("Game over", "Bob wins!")
    for action in (tap("ds70"), OK, Press("back"), Roll((1, 2))):
        rejected(state, action, "The game is over")


def test_a_bonus_card_can_win_the_game():
    state = play(reveal_ready(("ds10", "ds20"), ("ds30",), target="3"), tap("ds10"), tap("ds20"))
    step = RULES.apply(state, tap("ds90"))
    assert step.sounds == (Sound.FANFARE,)
    assert dump(step.state)["winners"] == ["Ann"]
    assert dump(step.state)["last_round"]["Ann"]["bonus"] == 1


# --- screens and dump --------------------------------------------------------------------


def test_screens_fit_the_oled():
    state = start("Annabelle-Marie,Bob,Cy,Dee,Ed,Flo")
    states = [state, play(state, *([OK] * 6))]
    for each in states:
        screen = RULES.view(each)
        assert len(screen.title) <= 21
        assert len(screen.lines) <= 5
        assert all(len(line) <= 21 for line in screen.lines)
    assert RULES.view(state).title == "R1 A.'s turn"  # a name too long: its first name, else its initials


def test_the_dump_is_json():
    state = play(reveal_ready(("ds10", "ds20"), ("ds30",)), tap("ds10"))
    assert json.loads(json.dumps(dump(state))) == dump(state)


def test_apply_never_mutates_its_input():
    state = reveal_ready(("ds10", "ds20"), ("ds30",))
    copy = State(**{field: getattr(state, field) for field in state.__dataclass_fields__})
    play(state, tap("ds10"), tap("ds20"), tap("ds90"))
    assert state == copy
    assert state.phase is Phase.REVEAL
