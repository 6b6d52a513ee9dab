"""The printed order: which sheet and place each card of a deck is printed at.

A double-sided print puts nine cards on a sheet (three rows of three, every paper and card
size the box prints), in the deck file's order, left to right and top to bottom on the fronts.
Card enrolment walks the deck in this same order and shows the place, so a stack of printed
cards, sheet by sheet, is enrolled top to bottom.

>>> from box.decks.codec import Deck
>>> deck = Deck("demo", {f"c{n}": n for n in range(12)}, {f"c{n}": f"Card {n}" for n in range(12)}, "demo.csv")
>>> printed_order(deck)[:3], place(11), place_label(11)
(('c0', 'c1', 'c2'), Place(sheet=2, card=3), 'Sheet 2, card 3')
"""

from __future__ import annotations

from typing import NamedTuple

from box.decks.codec import Deck

CARDS_PER_SHEET = 9
"""Cards on one double-sided sheet: 3 x 3 on A4 and letter, poker and bridge size alike."""


class Place(NamedTuple):
    """Where a card is printed: its sheet (from 1) and its place on the sheet's front (from 1)."""

    sheet: int
    card: int


def printed_order(deck: Deck) -> tuple[str, ...]:
    """The deck's card ids in the order they are printed (and enrolled): the deck file's order."""
    return tuple(deck.cards)


def place(index: int) -> Place:
    """The sheet and place of the card printed `index`-th (from 0)."""
    sheet, card = divmod(index, CARDS_PER_SHEET)
    return Place(sheet + 1, card + 1)


def place_label(index: int) -> str:
    """`Sheet 3, card 5`: the place of the card printed `index`-th, as the card and the screen say it."""
    where = place(index)
    return f"Sheet {where.sheet}, card {where.card}"


def sheets(count: int) -> int:
    """How many sheets `count` cards take.

    >>> sheets(9), sheets(10), sheets(256)
    (1, 2, 29)
    """
    return -(-count // CARDS_PER_SHEET)
