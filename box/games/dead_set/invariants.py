"""What every reachable Dead Set state keeps, checked by the property tests and the soak.

`check(state)` looks at one state, `check_step(before, action, after)` at an accepted
transition; both raise AssertionError naming what broke.
"""

from __future__ import annotations

import json

from box.games.base import Action
from box.games.dead_set.rules import RULES
from box.games.dead_set.state import BUST_OVER, Phase, State
from box.words import LINE_CHARS, TEXT_LINES


def check(state: State) -> None:
    """Cards owned and taken once, the target not passed, busts right, dump and screen in shape."""
    target = state.house.target
    counts = [len(cards) for cards in state.owned]
    owned = [card for cards in state.owned for card in cards]
    taken = [card for cards in state.taken for card in cards]
    assert len(owned) == len(set(owned)), "a card is owned twice"
    assert len(taken) == len(set(taken)), "a card was taken twice this round"
    for seat, cards in enumerate(state.taken):
        result = state.results[seat]
        kept = result is not None and not result.bust and state.phase is not Phase.PLAY
        overlap = set(cards) & set(owned)
        assert overlap == (set(cards) if kept else set()), "a round's card is owned before it was kept"
    if state.phase is Phase.OVER:
        assert state.winner is not None and counts[state.winner] >= target
        assert all(count < target for seat, count in enumerate(counts) if seat != state.winner)
    else:
        assert all(count < target for count in counts), "the game went on past the target"
    for result in state.results:
        if result is not None:
            assert result.bust == (result.total > BUST_OVER)
    dumped = RULES.dump(state)
    assert json.loads(json.dumps(dumped)) == dumped
    assert dumped["over"] == (state.phase is Phase.OVER) == RULES.is_over(state)
    screen = RULES.view(state)
    assert len(screen.title) <= LINE_CHARS and len(screen.lines) <= TEXT_LINES
    assert all(len(line) <= LINE_CHARS for line in screen.lines)


def check_step(before: State, action: Action, after: State) -> None:
    """Owned cards only grow: by a round's cards kept (total <= 200) or one bonus card; a bust counts once."""
    for seat, (old, new) in enumerate(zip(before.busts, after.busts, strict=True)):
        result = after.results[seat]
        judged_bust = before.results[seat] is None and result is not None and result.bust
        assert new == old + judged_bust, "a bust was not counted exactly once"
    for seat, (had, has) in enumerate(zip(before.owned, after.owned, strict=True)):
        assert has[: len(had)] == had, "an owned card was lost"
        gained = has[len(had) :]
        if not gained:
            continue
        result = after.results[seat]
        assert result is not None, "cards gained outside the scoring"
        if set(gained) == set(before.taken[seat]) and len(gained) == len(before.taken[seat]):
            assert not result.bust and result.total <= BUST_OVER
            assert result.total == sum(after.deck[card] for card in gained)
        else:
            earlier = before.results[seat]
            assert len(gained) == 1 and gained[0] not in before.taken[seat], "a gain is neither kept nor bonus"
            assert result.bonus == (earlier.bonus if earlier else 0) + 1
