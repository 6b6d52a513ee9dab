"""Deadlines character cards: the CSV columns and the row parser.

>>> card = parse_row({"id": "dl1", "name": "Albert Einstein", "born": "1879-03-14", "died": "1955-04-18",
...                   "lifespan": "", "cause": "aortic aneurysm", "special": "no", "keywords": ""})
>>> str(card.lifespan), card.special
('76y 1m', False)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from box.cards import Deck, RowError, one_of, open_deck
from box.games.deadlines.dates import (
    LifeSpan,
    PartialDate,
    compare,
    parse_date,
    parse_span,
    span_between,
)

GAME = "deadlines"
COLUMNS = ("id", "name", "born", "died", "lifespan", "cause", "special", "keywords")
OLDEST_AGE = 125  # no one on record lived longer: a longer life span is a typing mistake


@dataclass(frozen=True)
class Person:
    """The back of a character card."""

    born: PartialDate
    died: PartialDate
    lifespan: LifeSpan
    cause: str
    special: bool
    keywords: tuple[str, ...]


def parse_row(values: dict[str, str]) -> Person:
    """A card from one CSV row, or RowError naming the bad field."""
    born = _date(values, "born")
    died = _date(values, "died")
    if compare(born, died) > 0:
        raise RowError("died", f"{died} is before the birth date {born}")
    if values["lifespan"]:
        try:
            lifespan = parse_span(values["lifespan"])
        except ValueError as problem:
            raise RowError("lifespan", str(problem)) from None
    elif born.day is None or died.day is None:
        raise RowError("lifespan", "empty, and the dates are not exact to the day: print the life span")
    else:
        lifespan = span_between(born, died)
    if lifespan.years > OLDEST_AGE:
        raise RowError("lifespan", f"{lifespan} is longer than anyone has lived")
    special = one_of(values, "special", ("yes", "no")) == "yes"
    keywords = tuple(word.strip() for word in values["keywords"].split("|") if word.strip())
    if special and not keywords:
        raise RowError("keywords", "a special card needs its keywords (separated by |)")
    return Person(born, died, lifespan, values["cause"], special, keywords)


def load_deck(directory: Path | str | None = None) -> Deck:
    """The Deadlines deck from `<directory>/deadlines.csv`, or the built-in one."""
    return open_deck(GAME, COLUMNS, parse_row, Path(directory) if directory is not None else None)


def _date(values: dict[str, str], field: str) -> PartialDate:
    try:
        return parse_date(values[field])
    except ValueError as problem:
        raise RowError(field, str(problem)) from None
