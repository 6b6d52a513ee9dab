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
