"""Deck of Death property tests: random sessions of legal and illegal inputs and random dice."""

from __future__ import annotations

import pickle
import random
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from box.games.base import READERS, Chug, Press, Rejected, Roll, Setup, Step, Tap
from box.games.deck_of_death import RULES
from box.games.deck_of_death.invariants import check, check_step
from box.games.kit import MOST_PLAYERS

DECKS = Path(__file__).parent / "scenarios" / "deck-of-death" / "decks"
SMALL = RULES.load_deck(DECKS)
BUILTIN = RULES.load_deck()
# the built-in cards on a 10-space board (the board file alone), so tokens meet the cards often
TIGHT = RULES.load_deck(Path(__file__).parent / "scenarios" / "deck-of-death-board" / "decks")
EFFECT_CARDS = sorted(c for c in TIGHT.cards if TIGHT[c].turn_effect is not None)

# Short OK and ROLL move a turn on; the rest is noise the game must refuse or absorb.
PRESSES = [Press("ok")] * 6 + [Press("back"), Press("up"), Press("down"), Press("roll")]
LONG_PRESSES = [Press("up", long=True), Press("down", long=True), Press("ok", long=True)]


def actions(deck):
    cards = sorted(deck.cards)
    return st.one_of(
        st.sampled_from(PRESSES),
        st.builds(lambda a, b: Roll((a, b)), st.integers(1, 6), st.integers(1, 6)),
        st.builds(lambda a, b: Roll((a, b)), st.integers(1, 6), st.integers(1, 6)),
        st.builds(Tap, st.sampled_from(READERS), st.sampled_from(cards)),
        st.sampled_from(LONG_PRESSES),
        st.builds(lambda a, b: Roll((a, b)), st.integers(-1, 8), st.integers(-1, 8)),
    )


def play_session(deck, players, moves):
    state = RULES.new(Setup(players, {"forfeits": "drinks"}), deck)
    data = check(state)
    for action in moves:
        result = RULES.apply(state, action)
        if isinstance(result, Rejected):
            assert result.reason and len(result.reason) <= 40
            assert RULES.dump(state) == data, "a rejection changed the state"
            continue
        assert isinstance(result, Step)
        check_step(state, action, result.state)
        state, data = result.state, check(result.state)
    return state


def play_inputs(state, *inputs):
    """Apply inputs the game must accept."""
    for action in inputs:
        result = RULES.apply(state, action)
        assert isinstance(result, Step), getattr(result, "reason", "")
        state = result.state
    return state


@settings(max_examples=150, deadline=None)
@given(
    players=st.sampled_from([("A", "B"), ("Ann", "Bob", "Cy"), tuple(f"P{i}" for i in range(1, 5))]),
    moves=st.lists(actions(SMALL), min_size=50, max_size=400),
)
def test_random_sessions_on_the_small_board_keep_the_invariants(players, moves):
    play_session(SMALL, players, moves)


@settings(max_examples=40, deadline=None)
@given(
    players=st.sampled_from([("Ann", "Bob", "Cy", "Dee"), tuple(f"P{i}" for i in range(1, MOST_PLAYERS + 1))]),
    moves=st.lists(actions(BUILTIN), min_size=50, max_size=400),
)
def test_random_sessions_on_the_builtin_board_keep_the_invariants(players, moves):
    play_session(BUILTIN, players, moves)


def effect_actions(deck):
    """Mostly the cards the box follows (turns, spaces, discards, duels), some others, and presses."""
    return st.one_of(
        st.sampled_from(PRESSES),
        st.builds(lambda a, b: Roll((a, b)), st.integers(1, 6), st.integers(1, 6)),
        st.builds(Tap, st.sampled_from(READERS), st.sampled_from(EFFECT_CARDS)),
        st.builds(Tap, st.sampled_from(READERS), st.sampled_from(sorted(deck.cards))),
    )


@settings(max_examples=60, deadline=None)
@given(
    players=st.sampled_from([("A", "B"), ("Ann", "Bob", "Cy"), tuple(f"P{i}" for i in range(1, 6))]),
    moves=st.lists(effect_actions(TIGHT), min_size=50, max_size=400),
)
def test_random_sessions_with_the_cards_that_change_turns_and_spaces_keep_the_invariants(players, moves):
    state = play_session(TIGHT, players, moves)
    order = RULES.dump(state)
    assert sorted(order["seats"]) == sorted(players) and set(order["skips"]) <= set(players)


def test_a_long_session_stays_small_and_reaches_the_lockout_the_inner_circle_and_duels():
    """Thousands of mostly legal inputs: the state stays small and every mechanism turns up."""
    rng = random.Random(7)
    cards = sorted(SMALL.cards)
    state = RULES.new(Setup(("Ann", "Bob", "Cy")), SMALL)
    seen = set()
    for _ in range(30000):
        placed = state.spaces[state.slot] if state.overlay is None else None
        if len(state.discard) > 4 and state.overlay is None and state.phase == "draw":
            state = play_inputs(state, Press("down"), Press("down"), Press("ok"))  # the table reshuffles
            seen.add("reshuffle")
            continue
        if state.overlay is not None and state.overlay.kind in ("menu", "move") and rng.random() < 0.8:
            action = Press("back")  # the table menu opened by chance: mostly closed again
        elif RULES.wants_roll(state) and rng.random() < 0.8:
            action = Roll((rng.randint(1, 6), rng.randint(1, 6)))
        elif placed is not None and state.phase == "challenge" and rng.random() < 0.3:
            action = Tap("left", placed.card)  # react to it
        elif placed is not None and state.phase == "react" and rng.random() < 0.5:
            tier = SMALL[placed.card].tier
            action = Tap("right", rng.choice([c for c in cards if SMALL[c].tier == tier]))
        elif rng.random() < (0.5 if state.phase == "card" else 0.35):  # a turn has one card phase now: use it
            action = Tap(rng.choice(READERS), rng.choice(cards))
        else:
            action = rng.choice(PRESSES[:-1])
        result = RULES.apply(state, action)
        if isinstance(result, Step):
            state = result.state
            seen.add(state.phase)
            if state.token.ring == "inner":
                seen.add("inside")
            if result.timer == Chug():
                seen.add("chug")
    data = check(state)
    assert data["lockout"]
    assert {"inside", "duel-roll", "duel-winner", "reflected", "react", "chug", "reshuffle"} <= seen
    assert sum(data["laps"].values()) > 10
    assert len(pickle.dumps(state)) < 200_000
