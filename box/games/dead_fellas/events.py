"""What a Dead Fellas action did that others may follow (box/events.py): a whack."""

from __future__ import annotations

from box.events import Event, Whack
from box.games.dead_fellas import cards
from box.games.dead_fellas.state import Game, Whacked


def happened(before: Game, after: Game) -> tuple[Event, ...]:
    """The whack this action made, if it made one."""
    play = after.last
    if not isinstance(play, Whacked) or play is before.last:
        return ()
    return (Whack(cards.NAME, after.players[play.by], after.name(play.target.card), after.players[play.seat]),)
