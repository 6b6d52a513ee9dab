"""What every reachable Deadlines state keeps, checked by the property tests and the soak.

`check(state)`: columns in order as a whole (every pair of cards) under the `ties` rule and never past their size, the game
over exactly when its end condition is met, the dump JSON-ready and the screen within five
lines of 21 characters. `check_step(before, action, after)`: penalties change only when a card
is placed or a reward is settled. Both raise AssertionError naming what broke.
"""

from __future__ import annotations

import json
from itertools import combinations

from box.games.base import Action, Press
from box.games.deadlines.cards import compare, compare_spans
from box.games.deadlines.rules import RULES
from box.games.deadlines.state import COLUMNS, ENDGAME, PENALTY_LIMIT, REWARDS, Finished, Game, Guessing, Placing
from box.words import LINE_CHARS, TEXT_LINES


def may_follow(game: Game, column: int, first: str, second: str) -> bool:
    """Whether `first` may stand above `second`, read straight from the card data."""
    a, b = game.deck[first], game.deck[second]
    if column == 1:
        order = compare_spans(a.lifespan, b.lifespan)
    else:
        order = compare(a.born, b.born) if column == 0 else compare(a.died, b.died)
    return order < 0 or (order == 0 and game.options.ties == "either")


def right_positions(game: Game, phase: Placing) -> list[int]:
    """Every position where the card being placed is in order with every card above and below."""
    cards = game.columns[phase.column]
    return [
        position
        for position in range(len(cards) + 1)
        if all(may_follow(game, phase.column, above, phase.card) for above in cards[:position])
        and all(may_follow(game, phase.column, phase.card, below) for below in cards[position:])
    ]


def check(game: Game) -> None:
    """The invariants of one state (see the module's doc)."""
    size = game.options.column_size
    placed = [card for cards in game.columns for card in cards]
    assert len(placed) == len(set(placed)), "a card in two places"
    assert set(placed) <= game.used
    for column, cards in enumerate(game.columns):
        assert len(cards) <= size, "a column past its size"
        assert all(may_follow(game, column, a, b) for a, b in combinations(cards, 2)), "a column out of order"
    dump = RULES.dump(game)
    json.dumps(dump)
    assert dump["closed"] == [name for name, cards in zip(COLUMNS, game.columns) if len(cards) == size]
    assert all(count >= 0 for count in game.penalties)
    all_closed = len(dump["closed"]) == 3
    survivors = [p for p in range(len(game.players)) if p not in game.eliminated]
    if game.options.cooperative:
        ended = game.team_penalties >= PENALTY_LIMIT or all_closed
    elif game.options.eliminating:
        ended = not survivors or (len(game.players) > 1 and len(survivors) == 1) or all_closed
        assert all(game.penalties[p] >= PENALTY_LIMIT for p in game.eliminated)
        assert all(game.penalties[p] < PENALTY_LIMIT for p in survivors)
    else:
        ended = all_closed
    if isinstance(game.phase, REWARDS):  # the reward of the last card is settled before the end
        assert not ended or all_closed
    else:
        assert ended == isinstance(game.phase, ENDGAME)
    assert dump["over"] == isinstance(game.phase, Finished) == RULES.is_over(game)
    if isinstance(game.phase, Finished) and not game.options.cooperative and game.winners:
        assert set(dump["winners"]) <= {game.players[p] for p in survivors}
        if all_closed and len(survivors) > 1:
            fewest = min(game.penalties[p] for p in survivors)
            assert all(dump["penalties"][name] == fewest for name in dump["winners"])
    if dump["current_player"] is not None and not isinstance(game.phase, Guessing):
        assert game.players.index(dump["current_player"]) not in game.eliminated
    view = RULES.view(game)
    assert len(view.title) <= LINE_CHARS
    assert len(view.lines) <= TEXT_LINES
    assert all(len(line) <= LINE_CHARS for line in view.lines)
    assert view.cursor is None or 0 <= view.cursor < len(view.lines)
    assert RULES.wants_roll(game) is False


def check_step(before: Game, action: Action, after: Game) -> None:
    """A placement moves only the player's penalty (by one, when wrong); a reward at most two; the rest none."""
    delta = [new - old for new, old in zip(after.penalties, before.penalties)]
    phase = before.phase
    confirmed = isinstance(action, Press) and action.button == "ok"
    if isinstance(phase, Placing) and confirmed:
        right = phase.position in right_positions(before, phase)
        assert (phase.card in after.columns[phase.column]) == right
        assert delta == [0 if right or p != before.turn else 1 for p in range(len(delta))]
    elif isinstance(phase, REWARDS) and confirmed:
        assert all(d >= 0 for p, d in enumerate(delta) if p != before.turn)
        assert delta[before.turn] in (0, -1) and sum(abs(d) for d in delta) <= 2
    else:
        assert delta == [0] * len(delta), "penalties changed without a placement or a reward"
        assert after.team_penalties == before.team_penalties
