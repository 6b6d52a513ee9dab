"""The Dead Fellas deck: the built-in 108 cards and clear errors for bad files."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from box.errors import DeckError
from box.games.dead_fellas import RULES
from box.games.dead_fellas.cards import BOOST, FUGAZI, FUHGEDDABOUTIT, I_KNOW_A_GUY

HEADER = "id,name,kind,slot,hits,text\n"
MOOKS = "".join(f"dfm{n},Mook {n},mook,,1,x\n" for n in range(6))


def test_the_builtin_deck_has_108_cards():
    assert len(RULES.load_deck()) == 108


def test_the_builtin_deck_make_up_is_as_documented():
    cards = RULES.load_deck().cards.values()
    assert Counter(card.hits for card in cards if card.kind == "mook") == {1: 12, 2: 14, 3: 10}
    for slot in ("weapon", "disguise", "vehicle"):
        assert Counter(card.hits for card in cards if card.slot == slot) == {1: 6, 2: 6, 3: 4}
    assert Counter(card.effect for card in cards if card.kind == "action") == {
        FUHGEDDABOUTIT: 8,
        FUGAZI: 6,
        BOOST: 6,
        I_KNOW_A_GUY: 4,
    }
    assert all(card.id.startswith("df") for card in cards)


def test_copies_of_a_card_share_its_effect():
    deck = RULES.load_deck()
    assert deck["dfx08"].name == "Fuhgeddaboutit 8"
    assert deck["dfx08"].effect == FUHGEDDABOUTIT
    assert deck.find("i know a guy 4") == "dfg04"


def test_an_unknown_action_is_left_to_the_table(tmp_path: Path):
    (tmp_path / "dead-fellas.csv").write_text(HEADER + MOOKS + "dfa1,Sit-Down,action,,,Skip a draw\n")
    assert RULES.load_deck(tmp_path)["dfa1"].effect is None


@pytest.mark.parametrize(
    ("row", "field", "message"),
    [
        ("dfw1,Gun,item,,2,x", "slot", "an item needs a slot"),
        ("dfw1,Gun,item,hat,2,x", "slot", "'hat' is not one of weapon, disguise, vehicle"),
        ("dfm9,Sal,mook,weapon,2,x", "slot", "a mook card has no slot"),
        ("dfm9,Sal,mook,,4,x", "hits", "4 is out of range 1..3"),
        ("dfm9,Sal,mook,,0,x", "hits", "0 is out of range 1..3"),
        ("dfm9,Sal,mook,,many,x", "hits", "not a whole number"),
        ("dfx1,Fuhgeddaboutit,action,,2,x", "hits", "an action card has no hits"),
        ("dfz1,Spell,magic,,1,x", "kind", "'magic' is not one of mook, item, action"),
    ],
)
def test_a_bad_row_names_file_line_and_field(tmp_path: Path, row: str, field: str, message: str):
    (tmp_path / "dead-fellas.csv").write_text(HEADER + MOOKS + row + "\n")
    with pytest.raises(DeckError) as problem:
        RULES.load_deck(tmp_path)
    assert problem.value.line == 8
    assert problem.value.field == field
    assert message in str(problem.value)
    assert str(problem.value).startswith(str(tmp_path / "dead-fellas.csv"))


def test_a_deck_needs_six_mooks(tmp_path: Path):
    (tmp_path / "dead-fellas.csv").write_text(HEADER + "dfm1,Sal,mook,,1,x\ndfw1,Gun,item,weapon,1,x\n")
    with pytest.raises(DeckError, match="the deck has 1 Mooks; a game needs at least 6"):
        RULES.load_deck(tmp_path)


def test_a_missing_deck_file_is_a_deck_error(tmp_path: Path):
    with pytest.raises(DeckError, match="no such deck file"):
        RULES.load_deck(str(tmp_path))


def test_copies_need_a_copy_number(tmp_path: Path):
    (tmp_path / "dead-fellas.csv").write_text(HEADER + MOOKS + "dfb1,Boost,action,,,x\ndfb2,Boost,action,,,x\n")
    with pytest.raises(DeckError, match="duplicate name 'Boost'"):
        RULES.load_deck(tmp_path)


def test_plain_ids_need_no_game_prefix(tmp_path: Path):
    rows = "".join(f"{n},Mook {n},mook,,1,x\n" for n in range(1, 8))
    (tmp_path / "dead-fellas.csv").write_text(HEADER + rows)
    assert [card.id for card in RULES.load_deck(tmp_path).cards.values()][:3] == ["1", "2", "3"]
