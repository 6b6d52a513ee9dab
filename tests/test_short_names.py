"""Every built-in deck's names, shortened for the OLED at any width a screen gives them, stay told
apart: no two people share a short form, and no short form is a word of another name (issue 38, row 5)."""

from __future__ import annotations

import pytest

from box.games import rules_for
from box.games.dead_fellas.cards import base_name
from box.games.kit import short_person

WIDTHS = range(8, 22)  # the narrowest: a Mook beside its owner and its items (9 left), a name beside a date (10)
PEOPLE = ("deadlines", "dead-set", "dead-fellas")


def names_of(game: str) -> tuple[str, ...]:
    """The deck's names, a Dead Fellas copy ("Switchblade 2") as the card it copies."""
    return tuple(dict.fromkeys(base_name(name) for name in rules_for(game).load_deck().names.values()))


@pytest.mark.parametrize("game", PEOPLE)
@pytest.mark.parametrize("width", WIDTHS)
def test_no_two_names_of_a_built_in_deck_share_a_short_form(game: str, width: int):
    names = names_of(game)
    shown: dict[str, str] = {}
    for name in names:
        short = short_person(name, width, names)
        assert len(short) <= width
        assert shown.setdefault(short, name) == name, f"{name!r} and {shown[short]!r} both shown as {short!r}"


@pytest.mark.parametrize("game", PEOPLE)
def test_a_shortened_name_is_no_run_of_another_names_words(game: str):
    names = names_of(game)
    for width in WIDTHS:
        for name in names:
            short = short_person(name, width, names)
            if short == name or short.endswith("~"):
                continue
            for other in names:
                if other != name:
                    assert f" {short} " not in f" {other} ", f"{name!r} shown as {short!r}, a part of {other!r}"


@pytest.mark.parametrize(
    ("game", "width", "expected"),
    [
        ("deadlines", 10, {"John F. Kennedy": "JFK", "Robert F. Kennedy": "RFK"}),
        ("deadlines", 10, {"Louis Armstrong": "Louis A.", "Neil Armstrong": "Neil"}),
        ("deadlines", 12, {"Alexander the Great": "Alexander G.", "Catherine the Great": "Catherine", "Peter the Great": "Peter"}),
        ("deadlines", 10, {"Benjamin Franklin": "Benjamin", "Rosalind Franklin": "Rosalind", "Aretha Franklin": "Aretha"}),
        ("deadlines", 10, {"Franklin D. Roosevelt": "FDR", "Theodore Roosevelt": "Theodore"}),
        ("dead-set", 17, {"Queen Elizabeth The Queen Mother": "Queen Mother", "Mother Teresa": "Mother Teresa"}),
    ],
)
def test_the_clashes_the_table_met_are_told_apart(game: str, width: int, expected: dict[str, str]):
    names = names_of(game)
    assert {name: short_person(name, width, names) for name in expected} == expected
