"""What a Dead Fellas action did that others may follow (box/events.py): a whack."""

from __future__ import annotations

from dataclasses import replace

from box.events import Event, Whack
from box.games.dead_fellas import cards
from box.games.dead_fellas.state import Game, Whacked


def happened(before: Game, after: Game) -> tuple[Event, ...]:
    """The whack this action made, if it made one (told once: ditching the evidence afterwards
    rebuilds the play with its evidence, and a replayed state is equal, not the same object)."""
    play = after.last
    if not isinstance(play, Whacked) or same_whack(before.last, play):
        return ()
    return (Whack(cards.NAME, after.players[play.by], after.name(play.target.card), after.players[play.seat]),)


def same_whack(earlier: object, play: Whacked) -> bool:
    """Whether `earlier` is the whack `play`, whatever evidence either has."""
    return isinstance(earlier, Whacked) and replace(earlier, evidence=None, evidence_slot=None) == replace(
        play, evidence=None, evidence_slot=None)
