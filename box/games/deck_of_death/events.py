"""What a Deck of Death action did that others may follow (box/events.py): a lap completed."""

from __future__ import annotations

from box.events import Event, LapCompleted
from box.games.deck_of_death import cards
from box.games.deck_of_death.state import State


def happened(before: State, after: State) -> tuple[Event, ...]:
    """Each player whose laps this action counted up, with their laps so far."""
    return tuple(
        LapCompleted(cards.NAME, player, laps)
        for player, was, laps in zip(after.players, before.laps, after.laps, strict=True)
        if laps > was
    )
