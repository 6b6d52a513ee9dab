"""Deadlines character cards: the CSV columns, the row parser and the dates the cards print.

>>> card = parse_row({"id": "dl1", "name": "Albert Einstein", "born": "1879-03-14", "died": "1955-04-18",
...                   "lifespan": "", "cause": "aortic aneurysm", "special": "no", "keywords": ""})
>>> str(card.lifespan), card.special
('76y 1m', False)

Dates and life spans are compared at the precision both show. A date is written
`YYYY-MM-DD`, `YYYY-MM` or `YYYY`, with a ` BC` suffix before year 1 (there is no year 0). It stands for the whole day, month or year it
names, so two dates tie when they agree at the coarser of their two precisions:

>>> compare(parse_date("1879-03-14"), parse_date("1879"))
0
>>> compare(parse_date("0044-03-15 BC"), parse_date("0014-08-19"))
-1
>>> str(parse_date("0356 BC"))
'356 BC'

A life span is printed `56y 3m` or `56` (years only) and compares the same way:

>>> compare_spans(parse_span("56y 3m"), parse_span("56"))
0
>>> str(span_between(parse_date("1879-03-14"), parse_date("1955-04-18")))
'76y 1m'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from box.decks.codec import Deck, RowError, one_of, open_deck

NAME = "deadlines"
COLUMNS = ("id", "name", "born", "died", "lifespan", "cause", "special", "keywords")
OLDEST_AGE = 125  # no one on record lived longer: a longer life span is a typing mistake
YEAR, MONTH, DAY = 1, 2, 3  # precision: how many parts of the date are written

_DATE = re.compile(r"^(\d{1,4})(?:-(\d{2})(?:-(\d{2}))?)?( BC)?$")
_SPAN = re.compile(r"^(\d{1,3})(?:y(?: (\d{1,2})m)?)?$")
_DAYS_IN_MONTH = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


@dataclass(frozen=True)
class PartialDate:
    """A date known to the day, the month or the year. `year` is negative before year 1 (44 BC is -44)."""

    year: int
    month: int | None = None
    day: int | None = None

    @property
    def precision(self) -> int:
        return DAY if self.day is not None else MONTH if self.month is not None else YEAR

    def key(self, precision: int) -> tuple[int, ...]:
        """A sortable tuple cut to `precision` parts; BC years count back from year 0 (1 BC)."""
        astronomical = self.year + 1 if self.year < 0 else self.year
        return (astronomical, self.month or 0, self.day or 0)[:precision]

    def __str__(self) -> str:
        if self.year < 0:
            parts = [str(-self.year), *(f"{p:02d}" for p in (self.month, self.day) if p is not None)]
            return "-".join(parts) + " BC"
        return "-".join([f"{self.year:04d}", *(f"{p:02d}" for p in (self.month, self.day) if p is not None)])


@dataclass(frozen=True)
class LifeSpan:
    """A life span in completed years and, when printed, months."""

    years: int
    months: int | None = None

    def __str__(self) -> str:
        return f"{self.years}y" if self.months is None else f"{self.years}y {self.months}m"


def parse_date(text: str) -> PartialDate:
    """Read `YYYY[-MM[-DD]][ BC]`, or raise ValueError saying what is wrong.

    >>> parse_date("0000")
    Traceback (most recent call last):
    ValueError: there is no year 0 (1 BC is followed by 1 AD)
    """
    match = _DATE.match(text.strip())
    if not match:
        raise ValueError(f"{text!r} is not a date like 1879-03-14, 1879-03, 1879 or 0044-03-15 BC")
    year = int(match[1])
    month = int(match[2]) if match[2] else None
    day = int(match[3]) if match[3] else None
    if year == 0:
        raise ValueError("there is no year 0 (1 BC is followed by 1 AD)")
    if month is not None and not 1 <= month <= 12:
        raise ValueError(f"month {month} is not 1..12 in {text!r}")
    if day is not None and not 1 <= day <= _days_in_month(year if not match[4] else -year, month):
        raise ValueError(f"day {day} does not exist in {text!r}")
    return PartialDate(-year if match[4] else year, month or None, day or None)


def parse_span(text: str) -> LifeSpan:
    """Read a printed life span `56y 3m`, `56y` or `56`, or raise ValueError."""
    match = _SPAN.match(text.strip())
    if not match:
        raise ValueError(f"{text!r} is not a life span like 56y 3m or 56")
    months = int(match[2]) if match[2] else None
    if months is not None and months > 11:
        raise ValueError(f"{months} months is more than 11 in {text!r}")
    return LifeSpan(int(match[1]), months)


def compare(a: PartialDate, b: PartialDate) -> int:
    """-1, 0 or 1: `a` before, tied with (at the coarser precision) or after `b`."""
    precision = min(a.precision, b.precision)
    first, second = a.key(precision), b.key(precision)
    return (first > second) - (first < second)


def compare_spans(a: LifeSpan, b: LifeSpan) -> int:
    """-1, 0 or 1 like `compare`, months counting only when both spans print them."""
    first: tuple[int, ...]
    second: tuple[int, ...]
    if a.months is None or b.months is None:
        first, second = (a.years,), (b.years,)
    else:
        first, second = (a.years, a.months), (b.years, b.months)
    return (first > second) - (first < second)


def span_between(born: PartialDate, died: PartialDate) -> LifeSpan:
    """The completed years and months between two dates exact to the day."""
    if born.precision < DAY or died.precision < DAY:
        raise ValueError("a life span is computed only from dates exact to the day")
    months = months_between(born.key(DAY), died.key(DAY))
    return LifeSpan(*divmod(months, 12))


def months_between(start: tuple[int, ...], end: tuple[int, ...]) -> int:
    """Completed months from day `start` to day `end`, both (astronomical year, month, day)."""
    return (end[0] - start[0]) * 12 + end[1] - start[1] - (end[2] < start[2])


def _days_in_month(year: int, month: int | None) -> int:
    astronomical = year + 1 if year < 0 else year
    leap = astronomical % 4 == 0 and (astronomical % 100 != 0 or astronomical % 400 == 0)
    return 28 if month == 2 and not leap else _DAYS_IN_MONTH[(month or 1) - 1]


# --- the cards ------------------------------------------------------------------


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
    return open_deck(NAME, COLUMNS, parse_row, Path(directory) if directory is not None else None)


def _date(values: dict[str, str], field: str) -> PartialDate:
    try:
        return parse_date(values[field])
    except ValueError as problem:
        raise RowError(field, str(problem)) from None
