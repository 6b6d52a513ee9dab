"""Dead Set cards: one CSV row `id,name,age` is a celebrity and their age at death.

>>> parse_celebrity({"id": "ds7", "name": "Ada Lovelace", "age": "36"})
36
>>> parse_celebrity({"id": "7", "name": "Ada Lovelace", "age": "36"})  # an owner's plain id
36
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from box.decks.codec import Deck, open_deck, whole_number

NAME = "dead-set"
COLUMNS = ("id", "name", "age")
OLDEST_AGE = 122  # Jeanne Calment, the oldest verified human


def parse_celebrity(values: Mapping[str, str]) -> int:
    """A deck row's age at death (any id: the tag map keys cards by game and id)."""
    return whole_number(values, "age", 0, OLDEST_AGE)


def load_deck(directory: Path | str | None = None) -> Deck:
    """`<directory>/dead-set.csv`, or the built-in deck."""
    return open_deck(NAME, COLUMNS, parse_celebrity, Path(directory) if directory is not None else None)
