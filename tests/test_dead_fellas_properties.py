"""Random Dead Fellas games (legal and illegal inputs) keep the rulebook's invariants."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from box.games.base import Press, Rejected, Roll, Setup, Step, Tap
from box.games.dead_fellas import RULES
from box.games.dead_fellas.deck import FUGAZI, SLOTS
from box.games.dead_fellas.plays import Whacked
from box.games.dead_fellas.state import WIN_SCORE, Chain, Game, Over, Target

SMALL = RULES.load_deck(Path(__file__).parent / "scenarios" / "dead-fellas" / "decks")
BUILTIN = RULES.load_deck()


def inputs(deck):
    presses = st.sampled_from([Press(button) for button in ("up", "down", "ok", "ok", "ok", "back", "roll")])
    taps = st.builds(Tap, st.sampled_from(("left", "middle", "right")), st.sampled_from(sorted(deck.cards)))
    return st.one_of(presses, presses, taps, st.just(Roll((1, 2))))


def check_state(game: Game) -> None:
    board = game.board
    placed = Counter()
    for row in board.mooks:
        for mook in row:
            placed[mook.card] += 1
            assert mook.face_up or not mook.items, "a face-down Mook holds an item"
            for slot in SLOTS:
                item = mook.item(slot)
                if item is not None:
                    placed[item] += 1
                    card = board.cards[item]
                    assert card.slot == slot or card.effect == FUGAZI, f"{item} in the {slot} slot"
    for pile in board.piles:
        placed.update(pile)
        assert all(board.cards[card].kind == "mook" for card in pile)
    placed.update(board.discard)
    if isinstance(game.phase, Chain):
        placed.update(game.phase.cards)
    assert all(count == 1 for count in placed.values()), f"a card in two places: {placed.most_common(1)}"
    dump = RULES.dump(game)
    json.dumps(dump)
    assert dump["mook_deck"] >= 0
    if dump["over"]:
        (winner,) = dump["winners"]
        standing = [name for name in game.players if name not in dump["out"]]
        assert dump["score"][winner] >= WIN_SCORE or standing == [winner]
    view = RULES.view(game)
    assert len(view.lines) <= 5
    assert view.cursor is None or 0 <= view.cursor < len(view.lines)


def check_transition(before: Game, action, after: Game) -> None:
    """Scores grow only by a whack of a no-stronger Mook by an armed one, shrink only when a chain cancels it."""
    for seat in range(len(before.players)):
        gained = after.board.score(seat) - before.board.score(seat)
        new_cards = [card for card in after.board.piles[seat] if card not in before.board.piles[seat]]
        if gained > 0:
            assert isinstance(before.phase, Target) and action == Press("ok") and seat == before.turn
            attacker = before.board.mook(before.phase.attacker)
            (whacked,) = new_cards
            assert attacker.armed, "an unarmed Mook whacked"
            assert before.board.owner(whacked) != seat
            assert before.board.total(before.board.mook(whacked)) <= before.board.total(attacker)
            assert gained == before.board.hits(whacked)
        elif gained < 0:
            assert isinstance(before.phase, Chain) and len(before.phase.cards) % 2 == 1
            assert isinstance(before.last, Whacked) and before.last.by == seat
            assert -gained == before.board.hits(before.last.target.card)
        else:
            assert not new_cards


def play(game: Game, actions) -> Game:
    check_state(game)
    for action in actions:
        snapshot = RULES.dump(game)
        result = RULES.apply(game, action)
        if isinstance(result, Rejected):
            assert result.reason and len(result.reason) <= 40
            assert RULES.dump(game) == snapshot
            continue
        assert isinstance(result, Step)
        check_state(result.state)
        check_transition(game, action, result.state)
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
@given(players=st.integers(2, 6), actions=st.lists(inputs(BUILTIN), min_size=50, max_size=400))
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
