"""The four games, loaded lazily by their canonical names.

>>> sorted(GAMES)
['dead-fellas', 'dead-set', 'deadlines', 'deck-of-death']
"""

from __future__ import annotations

import importlib
from typing import Any

from box.games.base import Rules

GAMES: dict[str, str] = {
    "deadlines": "box.games.deadlines",
    "dead-set": "box.games.dead_set",
    "dead-fellas": "box.games.dead_fellas",
    "deck-of-death": "box.games.deck_of_death",
}


def rules_for(name: str) -> Rules[Any]:
    """The `RULES` of a game by its canonical name; KeyError for an unknown name."""
    return importlib.import_module(GAMES[name]).RULES
