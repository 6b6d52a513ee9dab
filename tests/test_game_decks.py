"""Every game's deck file: a bad row is refused with one line naming the file, the line and the field."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from box.errors import DeckError
from box.games import rules_for

BEFORE = {  # a header and good rows before the bad one
    "dead-fellas": "id,name,kind,slot,hits,text\n" + "".join(f"dfm{n},Mook {n},mook,,1,x\n" for n in range(6)),
    "deadlines": "id,name,born,died,lifespan,cause,special,keywords\ndl0,Bob,1900-01-01,1950-01-01,,x,no,\n",
    "deck-of-death": "id,title,color,tier,effect,text\ndd9,Fine,blue,1,,Fine.\n",
}



def bad_rows() -> list[tuple[str, str, str, str]]:
    """(game, row, field, words in the message), from tests/bad-deck-rows.csv."""
    lines = (Path(__file__).parent / "bad-deck-rows.csv").read_text(encoding="utf-8").splitlines()
    rows = csv.DictReader(line for line in lines if not line.startswith("#"))
    return [(row["game"], row["row"], row["field"], row["words"]) for row in rows]


@pytest.mark.parametrize(("game", "row", "field", "words"), bad_rows())
def test_a_bad_row_names_file_line_and_field(tmp_path: Path, game: str, row: str, field: str, words: str):
    path = tmp_path / f"{game}.csv"
    path.write_text(BEFORE[game] + row + "\n", encoding="utf-8")
    with pytest.raises(DeckError) as problem:
        rules_for(game).load_deck(tmp_path)
    line = BEFORE[game].count("\n") + 1
    assert (problem.value.line, problem.value.field) == (line, field)
    assert str(problem.value).startswith(f"{path}:{line}: {field}: ")
    assert words in problem.value.message
