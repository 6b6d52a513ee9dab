"""Random Dead Fellas games (legal and illegal inputs) keep the rulebook's invariants."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from box.events import Whack
from box.games.base import Press, Rejected, Roll, Setup, Step, Tap
from box.games.dead_fellas import RULES
from box.games.dead_fellas.invariants import check, check_step
from box.games.dead_fellas.state import Game, Over, Whacked
from box.games.kit import MOST_PLAYERS

SMALL = RULES.load_deck(Path(__file__).parent / "scenarios" / "dead-fellas" / "decks")
BUILTIN = RULES.load_deck()


def inputs(deck):
    presses = st.sampled_from([Press(button) for button in ("up", "down", "ok", "ok", "ok", "back", "roll")])
    taps = st.builds(Tap, st.sampled_from(("left", "middle", "right")), st.sampled_from(sorted(deck.cards)))
    return st.one_of(presses, presses, taps, st.just(Roll((1, 2))))


def play(game: Game, actions) -> Game:
    check(game)
    for action in actions:
        snapshot = RULES.dump(game)
        result = RULES.apply(game, action)
        if isinstance(result, Rejected):
            assert result.reason and len(result.reason) <= 40
            assert RULES.dump(game) == snapshot
            continue
        assert isinstance(result, Step)
        check(result.state)
        check_step(game, action, result.state)
        game = result.state
    return game


@settings(max_examples=300, deadline=None)
@given(
    players=st.integers(2, 4),
    on_opponents=st.sampled_from(("no", "yes")),
    actions=st.lists(inputs(SMALL), min_size=50, max_size=400),
)
def test_random_games_on_the_small_deck_keep_the_invariants(players, on_opponents, actions):
    setup = Setup(tuple(f"P{n + 1}" for n in range(players)), {"items_on_opponents": on_opponents})
    play(RULES.new(setup, SMALL), actions)


@settings(max_examples=50, deadline=None)
@given(players=st.integers(2, MOST_PLAYERS), actions=st.lists(inputs(BUILTIN), min_size=50, max_size=400))
def test_random_games_on_the_builtin_deck_keep_the_invariants(players, actions):
    play(RULES.new(Setup(tuple(f"P{n + 1}" for n in range(players))), BUILTIN), actions)


@settings(max_examples=10, deadline=None)
@given(players=st.integers(2, 3), chooser=st.randoms(use_true_random=False))
def test_random_legal_games_keep_the_invariants_and_never_get_stuck(players, chooser):
    """Each step picks one of the inputs the game accepts (a random legal move)."""
    candidates = [Press(button) for button in ("up", "down", "ok", "back")] + [
        Tap("left", card) for card in SMALL.cards
    ]
    game = RULES.new(Setup(tuple(f"P{n + 1}" for n in range(players))), SMALL)
    for _ in range(250):
        if isinstance(game.phase, Over):
            break
        legal = [action for action in candidates if isinstance(RULES.apply(game, action), Step)]
        assert legal, f"no legal input in {game.phase}"
        game = play(game, [chooser.choice(legal)])



def scored(game: Game) -> int:
    return sum(len(pile) for pile in game.board.piles)


@settings(max_examples=25, deadline=None)
@given(players=st.integers(2, 3), chooser=st.randoms(use_true_random=False))
def test_a_whole_game_tells_each_whack_once(players, chooser):
    """Counted against the moves: only a step that sends a Mook to a score pile tells a whack, one at
    most (the attacker ditching its evidence afterwards rebuilds the play, not the whack; a cancelled
    cancel brings the whack back without a new one), and every whack played is told."""
    candidates = [Press(button) for button in ("up", "down", "ok", "ok", "back")] + [
        Tap("left", card) for card in SMALL.cards
    ]
    game = RULES.new(Setup(tuple(f"P{n + 1}" for n in range(players))), SMALL)
    plays, told = set(), 0
    for _ in range(300):
        if isinstance(game.phase, Over):
            break
        steps = [step for action in candidates if isinstance(step := RULES.apply(game, action), Step)]
        after = chooser.choice(steps).state
        said = [event for event in RULES.events(game, after) if isinstance(event, Whack)]
        assert len(said) <= max(0, scored(after) - scored(game)), (game.phase, after.phase)
        if isinstance(after.last, Whacked):
            plays.add(replace(after.last, evidence=None, evidence_slot=None))
        told, game = told + len(said), after
    assert told >= len(plays)  # each whack played told (the same whack again, after a cancel, is told again)
