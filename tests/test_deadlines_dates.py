"""Dates and life spans compared at the precision printed on both cards."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from box.games.deadlines.cards import (
    DAY,
    LifeSpan,
    PartialDate,
    compare,
    compare_spans,
    parse_date,
    parse_span,
    span_between,
)


@pytest.mark.parametrize(
    ("text", "date", "shown"),
    [
        ("1879-03-14", PartialDate(1879, 3, 14), "1879-03-14"),
        ("1879-03", PartialDate(1879, 3), "1879-03"),
        ("1879", PartialDate(1879), "1879"),
        ("0044-03-15 BC", PartialDate(-44, 3, 15), "44-03-15 BC"),
        ("0356 BC", PartialDate(-356), "356 BC"),
        ("0014-08-19", PartialDate(14, 8, 19), "0014-08-19"),
        ("2000-02-29", PartialDate(2000, 2, 29), "2000-02-29"),
    ],
)
def test_dates_read_at_their_precision(text, date, shown):
    assert parse_date(text) == date
    assert str(date) == shown


@pytest.mark.parametrize("text", ["1900-02-29", "0000", "1879-00", "1879-3", "March 1879", "1879-03-14BC", ""])
def test_impossible_dates_are_refused(text):
    with pytest.raises(ValueError):
        parse_date(text)


def test_bc_years_count_down_and_there_is_no_year_zero():
    assert compare(parse_date("0001 BC"), parse_date("0001")) == -1
    assert compare(parse_date("0100 BC"), parse_date("0044 BC")) == -1
    assert compare(parse_date("0044-03-15 BC"), parse_date("0044-12 BC")) == -1


def test_dates_tie_at_the_coarser_precision():
    assert compare(parse_date("1805"), parse_date("1805-06-15")) == 0
    assert compare(parse_date("1805-06"), parse_date("1805-06-15")) == 0
    assert compare(parse_date("1805-05"), parse_date("1805-06-15")) == -1
    assert compare(parse_date("1806"), parse_date("1805-12-31")) == 1


def test_life_spans_compare_months_only_when_both_print_them():
    assert compare_spans(parse_span("56y 3m"), parse_span("56y 4m")) == -1
    assert compare_spans(parse_span("56y 3m"), parse_span("56")) == 0
    assert compare_spans(parse_span("56y"), parse_span("57y 0m")) == -1
    assert parse_span("56") == LifeSpan(56)


def test_life_spans_count_completed_years_and_months_across_the_bc_ad_line():
    assert span_between(parse_date("0063-09-23 BC"), parse_date("0014-08-19")) == LifeSpan(75, 10)
    assert span_between(parse_date("1756-01-27"), parse_date("1791-12-05")) == LifeSpan(35, 10)
    assert span_between(parse_date("1900-01-31"), parse_date("1900-02-28")) == LifeSpan(0, 0)
    with pytest.raises(ValueError):
        span_between(parse_date("1900"), parse_date("1950-01-01"))


dates = st.builds(
    lambda year, month, day, precision: PartialDate(
        year, month if precision > 1 else None, day if precision > 2 else None
    ),
    st.integers(-500, 2100).filter(bool),
    st.integers(1, 12),
    st.integers(1, 28),
    st.integers(1, 3),
)


@given(dates, dates)
def test_comparison_is_antisymmetric_and_round_trips(a, b):
    assert compare(a, b) == -compare(b, a)
    assert parse_date(_written(a)) == a


@given(dates, dates, dates, st.integers(1, 3))
def test_dates_at_one_precision_are_ordered_transitively(a, b, c, precision):
    a, b, c = (_at(date, precision) for date in (a, b, c))
    if compare(a, b) <= 0 and compare(b, c) <= 0:
        assert compare(a, c) <= 0


def _at(date: PartialDate, precision: int) -> PartialDate:
    """`date` at exactly `precision`, made up parts taken as the 1st."""
    return PartialDate(
        date.year, (date.month or 1) if precision > 1 else None, (date.day or 1) if precision == DAY else None
    )


def _written(date: PartialDate) -> str:
    """How a card file writes `date`."""
    parts = [f"{abs(date.year):04d}", *(f"{part:02d}" for part in (date.month, date.day) if part is not None)]
    return "-".join(parts) + (" BC" if date.year < 0 else "")
