"""What a Dead Set action did that others may follow (box/events.py): a player bust."""

from __future__ import annotations

from box.events import Bust, Event
from box.games.dead_set import cards
from box.games.dead_set.state import State


def happened(before: State, after: State) -> tuple[Event, ...]:
    """Each player whose round was scored over the limit by this action."""
    return tuple(
        Bust(cards.NAME, player, result.total)
        for player, was, result in zip(after.players, before.results, after.results, strict=True)
        if result is not None and result.bust and result != was
    )
