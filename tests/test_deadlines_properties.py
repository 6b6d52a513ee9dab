"""Random Deadlines games: random legal and illegal inputs never break the rules' invariants.

Checked after every input: columns in order under the `ties` rule and never past
their size, penalties equal to wrong placements adjusted by rewards, the game
over exactly when its end condition is met, a refused input changing nothing,
the dump JSON-ready and the screen within 5 lines of 21 characters.
"""

from __future__ import annotations

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from box.games.base import BUTTONS, READERS, Press, Rejected, Roll, Setup, Step, Tap
from box.games.deadlines import RULES
from box.games.deadlines.invariants import check, check_step, right_positions
from box.games.deadlines.state import QUESTIONS, READER_COLUMN, REWARDS, Drawing, Finished, Game, Guessing, Placing

DECK = RULES.load_deck()
CARDS = tuple(DECK.cards)

options = st.fixed_dictionaries(
    {
        "variant": st.sampled_from(RULES.options[0].choices),
        "streak": st.sampled_from(("off", "must", "may")),
        "ties": st.sampled_from(("either", "strict")),
        "starter_counts": st.sampled_from(("yes", "no")),
        "reward": st.sampled_from(("one", "both")),
    }
)


def guided(game: Game, data: st.DataObject):
    """An input that moves the game on, mostly the right one."""
    phase = game.phase
    fresh = [card for card in CARDS if card not in game.used]
    if not isinstance(phase, (Placing, Guessing, *QUESTIONS)):
        if isinstance(phase, Drawing) and game.options.streak == "may" and phase.placed and data.draw(st.booleans()):
            return Press("ok")
        open_readers = [r for r in READERS if not game.closed(READER_COLUMN[r])] or list(READERS)
        return Tap(data.draw(st.sampled_from(open_readers)), data.draw(st.sampled_from(fresh)))
    if isinstance(phase, Placing):
        targets = right_positions(game, phase)
        if targets and phase.position not in targets and data.draw(st.integers(0, 9)) < 8:
            return Press("up" if targets[0] < phase.position else "down")
        return Press(data.draw(st.sampled_from(("ok", "ok", "ok", "up", "down"))))
    return Press(data.draw(st.sampled_from(("ok", "ok", "up", "down", "back"))))


def anything(game: Game, data: st.DataObject):
    """Any input at all, legal or not."""
    kind = data.draw(st.integers(0, 2))
    if kind == 0:
        return Press(data.draw(st.sampled_from(BUTTONS)), data.draw(st.booleans()))
    if kind == 1:
        return Tap(data.draw(st.sampled_from(READERS)), data.draw(st.sampled_from(CARDS)))
    return Roll((data.draw(st.integers(1, 6)), data.draw(st.integers(1, 6))))


def snapshot(game: Game):
    return RULES.dump(game), game.phase, game.used, game.notice, game.turn, game.team_penalties


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(options, st.integers(1, 5), st.data())
def test_random_games_keep_the_invariants(chosen, players, data):
    names = tuple(f"P{n}" for n in range(1, players + 1))
    game = RULES.new(Setup(names, chosen), DECK)
    starters = data.draw(st.lists(st.sampled_from(CARDS), min_size=3, max_size=3, unique=True))
    for reader, card in zip(READERS, starters):
        game = RULES.apply(game, Tap(reader, card)).state
    wrong = [0] * players  # wrong placements, by the test's own judgement
    rewards = [0] * players  # penalties dropped (-) and given (+) by rewards
    team = 0
    for _ in range(data.draw(st.integers(100, 600))):
        if isinstance(game.phase, Finished):
            break
        action = data.draw(st.sampled_from((guided,) * 5 + (anything,)))(game, data)
        before, phase = snapshot(game), game.phase
        result = RULES.apply(game, action)
        if isinstance(result, Rejected):
            assert result.reason
            assert snapshot(game) == before
            continue
        assert isinstance(result, Step)
        after = result.state
        check_step(game, action, after)
        delta = [new - old for new, old in zip(after.penalties, game.penalties)]
        if isinstance(phase, Placing) and action in (Press("ok"), Press("ok", True)):
            right = phase.position in right_positions(game, phase)
            assert (phase.card in after.columns[phase.column]) == right
            assert delta == [0 if right or p != game.turn else 1 for p in range(players)]
            wrong[game.turn] += not right
            team += not right
        elif isinstance(phase, REWARDS) and action in (Press("ok"), Press("ok", True)):
            assert all(d >= 0 for p, d in enumerate(delta) if p != game.turn)
            assert delta[game.turn] in (0, -1) and sum(abs(d) for d in delta) <= 2
            rewards = [r + d for r, d in zip(rewards, delta)]
            team += after.team_penalties - game.team_penalties
        else:
            assert delta == [0] * players
            assert after.team_penalties == game.team_penalties
        game = after
        check(game)
        if game.options.cooperative:
            assert game.penalties == tuple(wrong)
            assert game.team_penalties == team
        else:
            assert game.penalties == tuple(w + r for w, r in zip(wrong, rewards))
    event(f"ended in phase {type(game.phase).__name__}")
