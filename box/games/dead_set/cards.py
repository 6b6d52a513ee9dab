"""Dead Set cards: one CSV row `id,name,age` is a celebrity and their age at death.

>>> parse_celebrity({"id": "ds7", "name": "Ada Lovelace", "age": "36"})
36
>>> parse_celebrity({"id": "dl7", "name": "Ada Lovelace", "age": "36"})
Traceback (most recent call last):
box.cards.RowError: must start with 'ds', not 'dl7'
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from box.cards import Deck, RowError, open_deck, whole_number

NAME = "dead-set"
COLUMNS = ("id", "name", "age")
ID_PREFIX = "ds"
OLDEST_AGE = 122  # Jeanne Calment, the oldest verified human


def parse_celebrity(values: Mapping[str, str]) -> int:
    """A deck row's age at death; the id must carry the game's prefix."""
    if not values["id"].startswith(ID_PREFIX):
        raise RowError("id", f"must start with {ID_PREFIX!r}, not {values['id']!r}")
    return whole_number(values, "age", 0, OLDEST_AGE)


def load_deck(directory: Path | str | None = None) -> Deck:
    """`<directory>/dead-set.csv`, or the built-in deck."""
    return open_deck(NAME, COLUMNS, parse_celebrity, Path(directory) if directory is not None else None)
