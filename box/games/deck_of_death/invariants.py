"""What every reachable Deck of Death state keeps, checked by the property tests and the soak.

`check(state)`: tokens on their rings, one card a space and none on Start, a card either on
the board or in the discard pile (once) or neither, a failure kept only in the failed phase (of
a card that moves tokens), a duel only in the duel phases, an effect only while it is carried
out, every player in one seat of the turn order, the dump
JSON-ready and the screen within five lines of 21 characters. `check_step(before, action,
after)`: laps and drinks only grow (laps by the mover's roll, never by a card's move), the lockout stays, at most one
duel is won a step, and after enough chaos only scrolling. Both raise AssertionError.
"""

from __future__ import annotations

import json
from typing import Any

from box.games.base import Action, Press, Roll
from box.games.deck_of_death.rules import RULES
from box.games.deck_of_death.state import Phase, State, order_of
from box.words import LINE_CHARS, TEXT_LINES


def check(state: State) -> dict[str, Any]:
    """The invariants every reachable state keeps; returns its dump."""
    board = state.board
    for token in state.tokens:
        if token.ring == "outer":
            assert 0 <= token.space < board.outer
        else:
            assert token.ring == "inner" and 0 <= token.space < board.inner
            assert token.entry is not None and board.arrow_target(token.entry) is not None
    cards = [placed.card for placed in state.spaces if placed is not None]
    assert len(cards) == len(set(cards)), "a card on two spaces"
    assert len(state.spaces) == board.size, "one slot per space"
    assert state.spaces[board.start] is None, "Start holds no card"
    assert len(state.discard) == len(set(state.discard)), "a card discarded twice"
    assert not set(cards) & set(state.discard), "a card both on the board and in the discard pile"
    for player, token in enumerate(state.tokens):
        if token.ring == "outer":
            assert state.inner_turns[player] == 0
    assert (state.phase is Phase.FAILED) == (state.failure is not None), "a failure only in the failed phase"
    if state.failure is not None:
        assert state.cards[state.failure.card].moves_tokens, "the failed phase for a card that moves no token"
    duelling = (Phase.DUEL_STYLE, Phase.DUEL_ROLL, Phase.DUEL_WINNER)
    assert (state.phase in duelling) == (state.duel is not None), "a duel only in the duel phases"
    if state.effect is not None:
        assert state.phase is Phase.EFFECT or state.phase in duelling, "an effect only while it is carried out"
        assert state.cards[state.effect.card].turn_effect is not None
    else:
        assert state.phase is not Phase.EFFECT, "the effect phase with no effect"
    order = order_of(state)
    assert sorted(order.seats) == list(range(len(state.players))), "every player in one seat"
    assert order.step in (1, -1) and all(0 <= p < len(state.players) for p in order.skips)
    data = RULES.dump(state)
    json.loads(json.dumps(data))
    assert data["over"] == RULES.is_over(state)
    view = RULES.view(state)
    assert len(view.title) <= LINE_CHARS and len(view.lines) <= TEXT_LINES
    assert all(isinstance(line, str) for line in view.lines)
    return data


def check_step(before: State, action: Action, after: State) -> None:
    """The figures of an accepted step (see the module's doc)."""
    data, new = RULES.dump(before), RULES.dump(after)
    if isinstance(action, Roll):
        assert RULES.wants_roll(before), "dice accepted while the game wanted none"
    mover = data["current_player"]
    for name in before.players:
        assert new["laps"][name] >= data["laps"][name], "laps only grow"
        assert new["drinks"][name] >= data["drinks"][name], "drinks are never taken back"
        if name != mover or not isinstance(action, Roll):
            assert new["laps"][name] == data["laps"][name], "only the mover's roll completes laps"
    assert new["lockout"] or not data["lockout"], "the lockout stays"
    assert sum(new["duels_won"].values()) - sum(data["duels_won"].values()) in (0, 1)
    if data["over"]:
        assert action in (Press("up"), Press("down")), "only scrolling after enough chaos"
        assert new == data
