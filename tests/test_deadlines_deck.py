"""The Deadlines deck: the built-in cards' facts, and clear answers for bad deck files."""

from __future__ import annotations

import csv
from pathlib import Path

from box.decks.codec import BUILTIN_DIR
from box.games.deadlines import RULES
from box.games.deadlines.cards import DAY, MONTH, YEAR, PartialDate, compare, compare_spans, parse_date, parse_span

DECK = RULES.load_deck()
HEADER = "id,name,born,died,lifespan,cause,special,keywords\n"


def raw_rows() -> list[dict[str, str]]:
    with open(BUILTIN_DIR / "deadlines.csv", encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(line for line in handle if not line.startswith("#")))


def completed_months(born: tuple[int, int, int], died: tuple[int, int, int]) -> int:
    """Count whole months by stepping from the birth day: a second, independent reckoning."""
    year, month, day = born
    months = 0
    while True:
        month += 1
        if month == 13:
            year, month = year + 1, 1
        if (year, month, day) > died:
            return months
        months += 1


def day_range(date: PartialDate) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """The first and last day a date of any precision may stand for (astronomical years)."""
    year = date.year + 1 if date.year < 0 else date.year
    if date.precision == DAY:
        return (year, date.month, date.day), (year, date.month, date.day)
    if date.precision == MONTH:
        return (year, date.month, 1), (year, date.month, 31)
    return (year, 1, 1), (year, 12, 31)


def test_the_built_in_deck_is_big_enough_and_varied():
    people = list(DECK.cards.values())
    assert len(DECK) >= 150
    assert all(card_id.startswith("dl") for card_id in DECK.cards)
    assert len({name.casefold() for name in DECK.names.values()}) == len(DECK)
    assert sum(person.born.year < 0 for person in people) >= 5
    assert sum(person.born.precision == YEAR for person in people) >= 5
    assert sum(person.born.precision == MONTH or person.died.precision == MONTH for person in people) >= 2
    specials = [person for person in people if person.special]
    assert len(specials) >= 20
    assert all(person.keywords for person in specials)


def test_every_printed_life_span_matches_day_exact_dates():
    checked = 0
    for row in raw_rows():
        born, died = parse_date(row["born"]), parse_date(row["died"])
        if row["lifespan"] and born.precision == DAY and died.precision == DAY:
            span = parse_span(row["lifespan"])
            years, months = divmod(completed_months(born.key(DAY), died.key(DAY)), 12)
            assert (span.years, span.months) == (years, months), row["name"]
            checked += 1
    assert checked >= 5


def test_every_life_span_fits_its_dates_and_is_a_plausible_age():
    for card_id, person in DECK.cards.items():
        earliest_birth, latest_birth = day_range(person.born)
        earliest_death, latest_death = day_range(person.died)
        shortest = completed_months(latest_birth, earliest_death)
        longest = completed_months(earliest_birth, latest_death)
        printed_low = person.lifespan.years * 12 + (person.lifespan.months or 0)
        printed_high = person.lifespan.years * 12 + (11 if person.lifespan.months is None else person.lifespan.months)
        name = DECK.name_of(card_id)
        assert printed_low <= longest and printed_high >= shortest, name
        assert 10 <= person.lifespan.years <= 100, name
        assert compare(person.born, person.died) < 0, name


def test_the_death_match_can_guess_every_life_span_in_years():
    assert all(0 <= person.lifespan.years <= 125 for person in DECK.cards.values())


def test_famous_anchors_are_right():
    by_name = {DECK.name_of(card_id): person for card_id, person in DECK.cards.items()}
    assert str(by_name["Albert Einstein"].lifespan) == "76y 1m"
    assert str(by_name["Julius Caesar"].died) == "44-03-15 BC"
    assert str(by_name["Augustus"].lifespan) == "75y 10m"
    assert compare_spans(by_name["Wolfgang Amadeus Mozart"].lifespan, parse_span("35y 10m")) == 0


def test_a_custom_deck_loads_from_a_directory(tmp_path: Path):
    (tmp_path / "deadlines.csv").write_text(HEADER + "dl1,Ann,0044 BC,0030-05,73,old age,yes,age|old\n")
    deck = RULES.load_deck(tmp_path)
    assert deck["dl1"].keywords == ("age", "old")
    assert str(deck["dl1"].born) == "44 BC"
