"""The Deadlines deck: the built-in cards' facts, and clear answers for bad deck files."""

from __future__ import annotations

import csv
import re
from itertools import pairwise
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


# --- the calendar (issue 38, row 6) -------------------------------------------------------------

GREGORIAN_FROM = (1582, 10, 15)


def day_number(year: int, month: int, day: int) -> int:
    """The Julian day number of a date in the deck's calendar: Gregorian from 1582-10-15, Julian before."""
    a = (14 - month) // 12
    y, m = year + 4800 - a, month + 12 * a - 3
    days = day + (153 * m + 2) // 5 + 365 * y + y // 4
    return days - y // 100 + y // 400 - 32045 if (year, month, day) >= GREGORIAN_FROM else days - 32083


def julian_date(number: int) -> tuple[int, int, int]:
    """The Julian-calendar date of a Julian day number."""
    c = number + 32082
    d = (4 * c + 3) // 1461
    e = c - 1461 * d // 4
    m = (5 * e + 2) // 153
    return d - 4800 + m // 10, m + 3 - 12 * (m // 10), e - (153 * m + 2) // 5 + 1


def test_the_header_states_the_calendar():
    header = [line for line in (BUILTIN_DIR / "deadlines.csv").read_text(encoding="utf-8").splitlines() if line.startswith("#")]
    assert any("Gregorian from 1582-10-15" in line and "Julian before" in line for line in header)


def test_dates_after_1582_from_julian_countries_are_converted_to_gregorian():
    by_name = {DECK.name_of(card_id): person for card_id, person in DECK.cards.items()}
    expected = {
        ("George Frideric Handel", "born"): "1685-03-05",  # 1685-02-23 in Halle's Julian calendar
        ("William Shakespeare", "died"): "1616-05-03",  # 1616-04-23 in England
        ("Elizabeth I", "died"): "1603-04-03",  # 1603-03-24
        ("Mary Queen of Scots", "died"): "1587-02-18",  # 1587-02-08
        ("Isaac Newton", "born"): "1643-01-04",  # 1642-12-25
        ("Johann Sebastian Bach", "born"): "1685-03-31",  # 1685-03-21
        ("George Washington", "born"): "1732-02-22",  # 1732-02-11
        ("Peter the Great", "born"): "1672-06-09",  # 1672-05-30 in Russia
        ("Julius Caesar", "died"): "44-03-15 BC",  # before 1582: Julian, as historians give it
    }
    assert {key: str(getattr(by_name[key[0]], key[1])) for key in expected} == expected
    for person in DECK.cards.values():  # the ten days that never were, in either calendar
        for date in (person.born, person.died):
            assert not (date.precision == DAY and (1582, 10, 5) <= date.key(DAY) < GREGORIAN_FROM)


def test_a_life_span_computed_across_1582_counts_in_one_calendar():
    checked = 0
    for card_id, person in DECK.cards.items():
        if person.born.precision != DAY or person.died.precision != DAY:
            continue
        born, died = person.born.key(DAY), person.died.key(DAY)
        if born < GREGORIAN_FROM <= died:  # the death in the birth's (Julian) calendar
            years, months = divmod(completed_months(born, julian_date(day_number(*died))), 12)
            assert (person.lifespan.years, person.lifespan.months) == (years, months), DECK.name_of(card_id)
            checked += 1
    assert checked >= 3  # Galileo, Elizabeth I, Mary Queen of Scots, Kepler


def test_dates_are_as_precise_as_they_are_known():
    by_name = {DECK.name_of(card_id): person for card_id, person in DECK.cards.items()}
    assert str(by_name["Confucius"].lifespan) == "71y"  # 551 to 479 BC, by the traditional dates
    months = {
        ("Alexander the Great", "born"): "356-07 BC",
        ("Alexander the Great", "died"): "323-06 BC",
        ("Julius Caesar", "born"): "100-07 BC",
        ("Cleopatra", "died"): "30-08 BC",
        ("Marco Polo", "died"): "1324-01",
    }
    assert {key: str(getattr(by_name[key[0]], key[1])) for key in months} == months


MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")


def dead_set_dates() -> dict[str, dict[str, str]]:
    """Per name, the born/died dates Dead Set's comments give, written as Deadlines writes them."""
    lines = (BUILTIN_DIR / "dead-set.csv").read_text(encoding="utf-8").splitlines()
    month = "|".join(MONTHS)
    found: dict[str, dict[str, str]] = {}
    for comment, row in pairwise(lines):
        if not comment.startswith("#") or not row.startswith("ds"):
            continue
        dates = {}
        for event, text in re.findall(r"(born|died) ([^,]+)", comment):
            if exact := re.fullmatch(r"(\d{4}-\d\d-\d\d)", text):
                dates[event] = exact[1]
            elif named := re.fullmatch(rf"(?:(\d+) )?({month}) (\d+)( BC)?", text):
                day, name, year, bc = named.groups()
                day_part = f"-{int(day):02d}" if day else ""
                dates[event] = f"{int(year)}-{MONTHS.index(name) + 1:02d}{day_part}{bc or ''}"
        found[row.split(",")[1]] = dates
    return found


def test_the_dates_agree_with_dead_sets_comments_where_both_decks_hold_the_person():
    by_name = {DECK.name_of(card_id): person for card_id, person in DECK.cards.items()}
    checked = 0
    for name, dates in dead_set_dates().items():
        if name in by_name:
            for event, text in dates.items():
                assert str(getattr(by_name[name], event)) == text, (name, event)
                checked += 1
    assert checked >= 150
