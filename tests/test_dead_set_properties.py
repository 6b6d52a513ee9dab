"""Property tests: random Dead Set games with legal and illegal inputs keep the issue's invariants."""

from __future__ import annotations

import copy

from hypothesis import given, settings
from hypothesis import strategies as st

from box.decks.codec import Deck
from box.games.base import BUTTONS, READERS, Press, Rejected, Roll, Setup, Step, Tap
from box.games.dead_set import RULES
from box.games.dead_set.invariants import check, check_step
from box.games.dead_set.state import Phase, State
from box.games.kit import MOST_PLAYERS

AGES = [3, 15, 22, 27, 27, 33, 36, 40, 45, 52, 56, 60, 64, 69, 71, 77, 80, 84, 88, 90, 95, 99, 101, 122]
DECK = Deck(
    "dead-set",
    {f"ds{n}": age for n, age in enumerate(AGES)},
    {f"ds{n}": f"Celebrity {n}" for n in range(len(AGES))},
    "property.csv",
)
NAMES = ("Ann", "Bob", "Cy", "Dee", "Ed", "Flo", "Gus", "Hal", "Ivy", "Jo")

setups = st.builds(
    lambda count, target, ties, minimum, high_tie: Setup(
        NAMES[:count],
        {"target": str(target), "ties": ties, "order_bonus_min": str(minimum), "high_tie": high_tie},
    ),
    st.integers(2, MOST_PLAYERS),
    st.integers(1, 13),
    st.sampled_from(["either", "strict"]),
    st.integers(1, 4),
    st.sampled_from(["all", "none"]),
)


def sensible(state: State, data: st.DataObject):
    """An input a table would likely give now: keeps random games moving."""
    free = [card for card in DECK.cards if not any(card in cards for cards in state.owned + state.taken)]
    if state.phase is Phase.PLAY:
        choice = data.draw(st.sampled_from([*free[:3], "stick"]))
        return Press("ok") if choice == "stick" else Tap(data.draw(st.sampled_from(READERS)), choice)
    if state.phase is Phase.REVEAL:
        hidden = [card for card in state.taken[state.seat] if card not in state.revealed]
        return Tap("middle", data.draw(st.sampled_from(hidden)))
    if state.phase is Phase.BONUS and free:
        return Tap("left", data.draw(st.sampled_from(free)))
    return Press("back")


def anything(data: st.DataObject):
    """Any input the service could send (and a few it filters out)."""
    return data.draw(
        st.one_of(
            st.builds(Press, st.sampled_from(BUTTONS), st.booleans()),
            st.builds(Tap, st.sampled_from(READERS), st.sampled_from([*DECK.cards, "dl1", "xx"])),
            st.builds(Roll, st.tuples(st.integers(1, 6), st.integers(1, 6))),
        )
    )


@settings(max_examples=200, deadline=None)
@given(setup=setups, data=st.data())
def test_random_games_keep_the_invariants(setup: Setup, data: st.DataObject):
    state = RULES.new(setup, DECK)
    check(state)
    for _ in range(data.draw(st.integers(10, 250))):
        action = anything(data) if data.draw(st.integers(0, 4)) == 0 else sensible(state, data)
        before = copy.deepcopy(state)
        answer = RULES.apply(state, action)
        assert state == before, "apply changed its input"
        if isinstance(answer, Rejected):
            assert answer.reason and len(answer.reason) <= 40
            continue
        assert isinstance(answer, Step)
        check_step(state, action, answer.state)
        if before.phase is not Phase.OVER and answer.state.phase is Phase.OVER:
            assert "fanfare" in answer.sounds
        state = answer.state
        check(state)


@settings(max_examples=60, deadline=None)
@given(setup=setups, data=st.data())
def test_a_finished_game_accepts_nothing(setup: Setup, data: st.DataObject):
    state = RULES.new(setup, DECK)
    for _ in range(400):
        if state.phase is Phase.OVER:
            break
        answer = RULES.apply(state, sensible(state, data))
        if isinstance(answer, Step):
            state = answer.state
    if state.phase is Phase.OVER:
        answer = RULES.apply(state, anything(data))
        assert answer == Rejected("The game is over")
