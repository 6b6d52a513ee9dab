"""Enrolment follows the print: the walk is the printed order, and the screen says each card's sheet and place."""

from __future__ import annotations

from box.decks.order import printed_order
from box.games import load_deck
from box.screens.enrolment import Enrolment
from box.storage.tags import TagMap


def test_the_walk_is_the_printed_order_and_names_each_cards_sheet_and_place() -> None:
    deck = load_deck("deadlines")
    walk = Enrolment("deadlines", deck, TagMap())
    assert walk.ids == list(printed_order(deck))
    assert walk.lines(0.0)[:2] == ["Sheet 1, card 1:", "Albert Einstein"]
    for _ in range(9):
        walk.press("down", "short", 0.0)
    tenth = printed_order(deck)[9]
    assert walk.place() == "Sheet 2, card 1" and walk.lines(0.0)[:2] == ["Sheet 2, card 1:", deck.name_of(tenth)]
    walk.tag("left", bytes.fromhex("04a1b2c3d4e5f6"), None, now=1.0)  # enrolled as the 10th card, on to the 11th
    assert walk.tags.uid_of("deadlines", tenth) == bytes.fromhex("04a1b2c3d4e5f6")
    assert walk.lines(1.5)[:2] == ["Sheet 2, card 2:", deck.name_of(printed_order(deck)[10])]
    assert walk.lines(1.5)[-1] == f"{deck.name_of(tenth)}: enrolled"


def test_past_the_last_card_there_is_no_place() -> None:
    deck = load_deck("dead-set")
    walk = Enrolment("dead-set", deck, TagMap(), done_ids=deck.cards)
    assert walk.current is None and walk.place() == ""
