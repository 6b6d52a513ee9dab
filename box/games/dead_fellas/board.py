"""The table as the box knows it: Mooks in front of each seat, their items, score piles, discards.

The box never sees hands or the two draw decks. It knows a card once it is
tapped, and counts the Mook deck down from the deck data: every Mook is either
still in the Mook deck, in front of a player, or in a score pile.

>>> from box.games.dead_fellas.deck import Card
>>> cards = {"dfm1": Card("dfm1", "Sal", "mook", None, 2, ""),
...          "dfw1": Card("dfw1", "Gun", "item", "weapon", 3, "")}
>>> board = Board.empty(cards, seats=2).add_mook(0, Mook("dfm1"))
>>> board = board.equip("dfm1", "weapon", "dfw1")
>>> board.total(board.mooks[0][0]), board.mooks_left()
(5, 0)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from box.games.dead_fellas.deck import SLOTS, Card


@dataclass(frozen=True)
class Mook:
    """A Mook in front of a player, with the id of the item in each slot (or None)."""

    card: str
    face_up: bool = True
    weapon: str | None = None
    disguise: str | None = None
    vehicle: str | None = None

    def item(self, slot: str) -> str | None:
        return getattr(self, slot)

    def with_item(self, slot: str, card: str | None) -> Mook:
        return replace(self, **{slot: card})

    @property
    def items(self) -> tuple[str, ...]:
        """The item ids on this Mook, in slot order."""
        return tuple(card for card in (self.weapon, self.disguise, self.vehicle) if card is not None)

    @property
    def armed(self) -> bool:
        """Face up with a weapon, a disguise and a vehicle: ready to whack."""
        return self.face_up and len(self.items) == len(SLOTS)


@dataclass(frozen=True)
class Board:
    """Per seat: the Mooks in front and the score pile; and the Mafia discards the box knows."""

    cards: Mapping[str, Card] = field(compare=False, repr=False)
    mooks: tuple[tuple[Mook, ...], ...]
    piles: tuple[tuple[str, ...], ...]
    discard: tuple[str, ...] = ()  # oldest first

    @classmethod
    def empty(cls, cards: Mapping[str, Card], seats: int) -> Board:
        return cls(cards=cards, mooks=((),) * seats, piles=((),) * seats)

    # --- reading -------------------------------------------------------------------------

    def hits(self, card: str) -> int:
        return self.cards[card].hits

    def total(self, mook: Mook) -> int:
        """The Mook's hits plus its items' hits (Fugazi counts 0)."""
        return self.hits(mook.card) + sum(self.item_hits(item) for item in mook.items)

    def item_hits(self, card: str) -> int:
        return self.cards[card].hits if self.cards[card].kind == "item" else 0

    def score(self, seat: int) -> int:
        """Mook hits in the seat's score pile (items never count)."""
        return sum(self.hits(card) for card in self.piles[seat])

    def mooks_left(self) -> int:
        """Mooks still in the Mook deck: the deck's Mooks minus those in front or in score piles."""
        known = sum(len(row) for row in self.mooks) + sum(len(pile) for pile in self.piles)
        return sum(1 for card in self.cards.values() if card.kind == "mook") - known

    def is_out(self, seat: int) -> bool:
        """No Mooks in front and none left to recruit."""
        return not self.mooks[seat] and self.mooks_left() == 0

    def find(self, card: str) -> tuple[int, int] | None:
        """(seat, index) of the Mook `card`, or of the Mook carrying the item `card`."""
        for seat, row in enumerate(self.mooks):
            for index, mook in enumerate(row):
                if card == mook.card or card in mook.items:
                    return seat, index
        return None

    def mook(self, card: str) -> Mook:
        seat, index = self.find(card) or (None, None)
        if seat is None or index is None:
            raise KeyError(card)
        return self.mooks[seat][index]

    def owner(self, card: str) -> int:
        """The seat with the Mook `card` (or carrying the item `card`) in front."""
        place = self.find(card)
        if place is None:
            raise KeyError(card)
        return place[0]

    def in_play(self, card: str) -> bool:
        """In front of a player (as a Mook or an item) or in a score pile."""
        return self.find(card) is not None or any(card in pile for pile in self.piles)

    # --- changing ------------------------------------------------------------------------

    def _with_row(self, seat: int, row: tuple[Mook, ...]) -> Board:
        return replace(self, mooks=(*self.mooks[:seat], row, *self.mooks[seat + 1 :]))

    def add_mook(self, seat: int, mook: Mook, index: int | None = None) -> Board:
        row = self.mooks[seat]
        at = len(row) if index is None else index
        return self._with_row(seat, (*row[:at], mook, *row[at:]))

    def remove_mook(self, card: str) -> Board:
        seat = self.owner(card)
        return self._with_row(seat, tuple(mook for mook in self.mooks[seat] if mook.card != card))

    def put_mook(self, mook: Mook) -> Board:
        """Replace the Mook with the same card by `mook`."""
        seat, index = self.find(mook.card) or (0, 0)
        row = self.mooks[seat]
        return self._with_row(seat, (*row[:index], mook, *row[index + 1 :]))

    def flip_up(self, seat: int) -> Board:
        return self._with_row(seat, tuple(replace(mook, face_up=True) for mook in self.mooks[seat]))

    def equip(self, mook: str, slot: str, item: str | None) -> Board:
        """Put `item` (or nothing) in the Mook's slot; the item it replaces is discarded."""
        target = self.mook(mook)
        replaced = target.item(slot)
        board = self.put_mook(target.with_item(slot, item))
        return board.to_discard(replaced) if replaced is not None else board

    def to_pile(self, seat: int, card: str) -> Board:
        return replace(self, piles=(*self.piles[:seat], (*self.piles[seat], card), *self.piles[seat + 1 :]))

    def from_pile(self, seat: int, card: str) -> Board:
        pile = tuple(kept for kept in self.piles[seat] if kept != card)
        return replace(self, piles=(*self.piles[:seat], pile, *self.piles[seat + 1 :]))

    def to_discard(self, *cards: str) -> Board:
        return replace(self, discard=(*self.discard, *cards))

    def from_discard(self, card: str) -> Board:
        return replace(self, discard=tuple(kept for kept in self.discard if kept != card))
