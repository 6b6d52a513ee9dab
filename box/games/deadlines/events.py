"""What a Deadlines action did that others may follow (box/events.py): a column closed."""

from __future__ import annotations

from box.events import ColumnCompleted, Event
from box.games.deadlines import cards
from box.games.deadlines.state import COLUMN_LABELS, COLUMNS, Game


def happened(before: Game, after: Game) -> tuple[Event, ...]:
    """Each column this action closed, with the player whose card closed it."""
    player = before.players[before.turn]
    return tuple(
        ColumnCompleted(cards.NAME, player, COLUMN_LABELS[column])
        for column in range(len(COLUMNS))
        if after.closed(column) and not before.closed(column)
    )
