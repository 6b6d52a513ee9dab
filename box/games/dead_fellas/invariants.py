"""What every reachable Dead Fellas state keeps, checked by the property tests and the soak.

`check(state)`: every card in one place only, items in their slots and only on face-up
Mooks, score piles of Mooks, a card being played by a seat (an item by the current player's), a win by 10 hits or the last seat standing, the last play shown
on the table exactly when its chain of Fuhgeddaboutits is even (whatever the phase), the dump
JSON-ready and the screen within five lines. `check_step(before, action, after)`: scores grow
only by a whack of a no-stronger Mook by an armed one (or a chain letting it stand again) and
shrink only when a chain cancels it. Both raise AssertionError naming what broke.
"""

from __future__ import annotations

import json
from collections import Counter

from box.games.base import Action, Press, Tap
from box.games.dead_fellas.cards import FUGAZI, FUHGEDDABOUTIT, SLOTS
from box.games.dead_fellas.rules import RULES
from box.games.dead_fellas.state import WIN_SCORE, Game, Picking, Target, Whacked
from box.words import TEXT_LINES


def check(game: Game) -> None:
    """The invariants of one state (see the module's doc)."""
    board = game.board
    placed: Counter[str] = Counter()
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
    assert all(count == 1 for count in placed.values()), f"a card in two places: {placed.most_common(1)}"
    assert game.last is not None or not game.chain, "a chain against no play"
    if game.last is not None:  # the chain's parity decides, whatever the phase
        shown = game.last.applied(board)
        assert shown is None or shown == (len(game.chain) % 2 == 0), f"{game.last} against a chain of {len(game.chain)}"
    dump = RULES.dump(game)
    json.dumps(dump)
    assert dump["mook_deck"] >= 0
    assert dump["over"] == RULES.is_over(game)
    if dump["over"]:
        (winner,) = dump["winners"]
        standing = [name for name in game.players if name not in dump["out"]]
        assert dump["score"][winner] >= WIN_SCORE or standing == [winner]
    if isinstance(game.phase, Picking):  # the card's player is a seat; an item is the current player's
        assert 0 <= game.phase.by < len(game.players)
        assert board.cards[game.phase.card].kind == "action" or game.phase.by == game.turn
    view = RULES.view(game)
    assert len(view.lines) <= TEXT_LINES
    assert view.cursor is None or 0 <= view.cursor < len(view.lines)


def plays_fuhgeddaboutit(before: Game, action: Action) -> bool:
    """`action` plays a Fuhgeddaboutit: tapped, or played from the discard step's question, where a
    tapped action card asks whether it is discarded or played (RULINGS 5a)."""
    if isinstance(action, Tap):
        return before.board.cards[action.card].effect == FUHGEDDABOUTIT
    phase = before.phase
    return (
        isinstance(phase, Picking) and phase.step == "use" and action == Press("ok")
        and before.board.cards[phase.card].effect == FUHGEDDABOUTIT
    )


def check_step(before: Game, action: Action, after: Game) -> None:
    """Scores grow only by a whack of a no-stronger Mook by an armed one, shrink only when a chain cancels it."""
    for seat in range(len(before.players)):
        gained = after.board.score(seat) - before.board.score(seat)
        new_cards = [card for card in after.board.piles[seat] if card not in before.board.piles[seat]]
        answered = plays_fuhgeddaboutit(before, action)
        if gained > 0 and answered:  # a whack standing again
            assert len(after.chain) % 2 == 0 and isinstance(after.last, Whacked) and after.last.by == seat
            assert gained == before.board.hits(after.last.target.card)
        elif gained > 0:
            assert isinstance(before.phase, Target) and action == Press("ok") and seat == before.turn
            attacker = before.board.mook(before.phase.attacker)
            (whacked,) = new_cards
            assert attacker.armed, "an unarmed Mook whacked"
            assert before.board.owner(whacked) != seat
            assert before.board.total(before.board.mook(whacked)) <= before.board.total(attacker)
            assert gained == before.board.hits(whacked)
        elif gained < 0:
            assert answered and len(after.chain) % 2 == 1, "a score fell without a Fuhgeddaboutit"
            assert isinstance(before.last, Whacked) and before.last.by == seat
            assert -gained == before.board.hits(before.last.target.card)
        elif not answered:
            assert not new_cards
