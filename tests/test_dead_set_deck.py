"""The built-in Dead Set deck and the deck loader's answers to bad files."""

from __future__ import annotations

import csv
import re
from datetime import date
from pathlib import Path

import pytest

from box.decks.codec import BUILTIN_DIR
from box.errors import DeckError
from box.games.dead_set import RULES

BUILTIN = BUILTIN_DIR / "dead-set.csv"
DEADLINES = BUILTIN_DIR / "deadlines.csv"
SOURCE_COMMENT = re.compile(r"^# born (\d{4}-\d{2}-\d{2}), died (\d{4}-\d{2}-\d{2})$")
EXACT_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def completed_years(born: date, died: date) -> int:
    """Whole years lived: 1926-06-01 to 1962-08-04 is 36.

    >>> completed_years(date(1939, 4, 2), date(1984, 4, 1))
    44
    """
    return died.year - born.year - ((died.month, died.day) < (born.month, born.day))


def test_the_builtin_deck_has_108_real_ages():
    deck = RULES.load_deck()
    assert len(deck) == 108
    assert deck.game == "dead-set"
    assert all(card_id.startswith("ds") for card_id in deck.cards)
    assert all(0 <= age <= 122 for age in deck.cards.values())
    assert len({name.casefold() for name in deck.names.values()}) == 108
    assert deck[deck.find("Marilyn Monroe")] == 36
    assert deck[deck.find("Jeanne Calment")] == 122


def test_every_dated_age_matches_the_dates_in_its_comment():
    """Each card follows a '# born ..., died ...' comment (or a note where a day is unknown)."""
    deck = RULES.load_deck()
    checked = 0
    dates = None
    for line in BUILTIN.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            match = SOURCE_COMMENT.match(line)
            dates = match and (date.fromisoformat(match[1]), date.fromisoformat(match[2]))
            continue
        card_id = line.split(",", 1)[0]
        if dates and card_id in deck:
            assert deck[card_id] == completed_years(*dates), f"{deck.name_of(card_id)}: age does not fit {dates}"
            checked += 1
        dates = None
    assert checked >= 100


def test_ages_agree_with_the_deadlines_deck():
    if not DEADLINES.exists():
        pytest.skip("box/decks/deadlines.csv does not exist yet")
    ours = RULES.load_deck()
    by_name = {name.casefold(): ours[card_id] for card_id, name in ours.names.items()}
    shared = 0
    with open(DEADLINES, encoding="utf-8", newline="") as handle:
        rows = csv.DictReader(line for line in handle if not line.lstrip().startswith("#"))
        for row in rows:
            name = row["name"].strip().casefold()
            born, died = row["born"].strip(), row["died"].strip()
            if name not in by_name or not (EXACT_DAY.match(born) and EXACT_DAY.match(died)):
                continue
            expected = completed_years(date.fromisoformat(born), date.fromisoformat(died))
            assert by_name[name] == expected, (
                f"{row['name']}: Dead Set says {by_name[name]}, Deadlines dates {expected}"
            )
            shared += 1
    if not shared:
        pytest.skip("no person with exact dates is in both decks")


def write_deck(directory: Path, text: str) -> Path:
    path = directory / "dead-set.csv"
    path.write_text(text, encoding="utf-8")
    return path


def test_plain_ids_need_no_game_prefix(tmp_path):
    write_deck(tmp_path, "id,name,age\n1,Young One,21\n2,Old One,99\n3,Mid One,50\n")
    assert dict(RULES.load_deck(tmp_path).cards) == {"1": 21, "2": 99, "3": 50}


def test_a_custom_deck_loads_from_a_directory(tmp_path):
    write_deck(tmp_path, "id,name,age\nds1,Young One,21\nds2,Old One,99\n")
    deck = RULES.load_deck(tmp_path)
    assert dict(deck.cards) == {"ds1": 21, "ds2": 99}
    assert deck.path == str(tmp_path / "dead-set.csv")
    assert len(RULES.load_deck(str(tmp_path))) == 2


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("id,name,age\nds1,Ada,36\nds2,Bob,old\n", ":3: age: not a whole number: 'old'"),
        ("id,name,age\nds1,Ada,123\n", ":2: age: 123 is out of range 0..122"),
        ("id,name,age\nds1,Ada,-1\n", ":2: age: -1 is out of range 0..122"),
        ("id,name,age\nds1,Ada,36\nds1,Bob,40\n", ":3: id: duplicate id 'ds1'"),
        ("id,name,age\nds1,Ada,36\nds2,ada,40\n", ":3: name: duplicate name 'ada'"),
        ("id,name\nds1,Ada\n", ":1: header lacks column(s) age"),
    ],
)
def test_a_bad_deck_names_file_line_and_field(tmp_path, text, message):
    path = write_deck(tmp_path, text)
    with pytest.raises(DeckError) as problem:
        RULES.load_deck(tmp_path)
    assert str(problem.value).startswith(str(path))
    assert message in str(problem.value)


def test_a_missing_deck_file_is_a_deck_error(tmp_path):
    with pytest.raises(DeckError, match="no such deck file"):
        RULES.load_deck(tmp_path)
