"""The plays a Fuhgeddaboutit can cancel: a whack, an item, an action card.

Each play remembers what it changed so that `cancel` can put the board back
(cards it sent to the discard pile come back, the cancelled card is discarded).

>>> from box.games.dead_fellas.deck import Card
>>> cards = {"dfm1": Card("dfm1", "Sal", "mook", None, 2, ""),
...          "dfw1": Card("dfw1", "Gun", "item", "weapon", 3, "")}
>>> from box.games.dead_fellas.board import Board, Mook
>>> board = Board.empty(cards, seats=2).add_mook(0, Mook("dfm1")).equip("dfm1", "weapon", "dfw1")
>>> play = Equipped(card="dfw1", mook="dfm1", slot="weapon", replaced=None)
>>> play.describe(board)
'Gun on Sal'
>>> play.cancel(board).mooks[0][0].weapon, play.cancel(board).discard
(None, ('dfw1',))
"""

from __future__ import annotations

from dataclasses import dataclass

from box.games.dead_fellas.board import Board, Mook


@dataclass(frozen=True)
class Equipped:
    """An item (or a Fugazi) put on a Mook, replacing `replaced`."""

    card: str
    mook: str
    slot: str
    replaced: str | None

    def describe(self, board: Board) -> str:
        return f"{board.cards[self.card].name} on {board.cards[self.mook].name}"

    def cancel(self, board: Board) -> Board:
        board = board.put_mook(board.mook(self.mook).with_item(self.slot, self.replaced))
        if self.replaced is not None:
            board = board.from_discard(self.replaced)
        return board.to_discard(self.card)


@dataclass(frozen=True)
class Boosted:
    """A Boost: `item` moved from the Mook `source` to the Mook `target`, replacing `replaced`."""

    card: str
    item: str
    source: str
    target: str
    slot: str
    replaced: str | None

    def describe(self, board: Board) -> str:
        return f"Boost {board.cards[self.item].name} to {board.cards[self.target].name}"

    def cancel(self, board: Board) -> Board:
        board = board.put_mook(board.mook(self.target).with_item(self.slot, self.replaced))
        if self.replaced is not None:
            board = board.from_discard(self.replaced)
        return board.put_mook(board.mook(self.source).with_item(self.slot, self.item))


@dataclass(frozen=True)
class Whacked:
    """The Mook `attacker` (seat `by`) whacked `target` (seat `seat`, at `position`).

    `evidence` is the attacker's item discarded afterwards (None until chosen).
    """

    attacker: str
    by: int
    target: Mook
    seat: int
    position: int
    evidence: str | None = None
    evidence_slot: str | None = None

    def describe(self, board: Board) -> str:
        return f"{board.cards[self.attacker].name} whacks {board.cards[self.target.card].name}"

    def cancel(self, board: Board) -> Board:
        board = board.from_pile(self.by, self.target.card).add_mook(self.seat, self.target, self.position)
        for item in self.target.items:
            board = board.from_discard(item)
        if self.evidence is not None and self.evidence_slot is not None:
            attacker = board.mook(self.attacker).with_item(self.evidence_slot, self.evidence)
            board = board.from_discard(self.evidence).put_mook(attacker)
        return board


@dataclass(frozen=True)
class TookFromDiscard:
    """An I Know A Guy: `taken` left the discard pile for a hand (None: a card the box did not list)."""

    card: str
    taken: str | None

    def describe(self, board: Board) -> str:
        taken = board.cards[self.taken].name if self.taken else "a card"
        return f"Guy gets {taken}"

    def cancel(self, board: Board) -> Board:
        """The card goes back to the discard pile, unless it was played already (then nothing)."""
        if self.taken is None or self.taken in board.discard:
            return board
        return board.to_discard(self.taken)


@dataclass(frozen=True)
class TablePlayed:
    """An action card the table resolves itself; cancelling it is up to the table too."""

    card: str

    def describe(self, board: Board) -> str:
        return board.cards[self.card].name

    def cancel(self, board: Board) -> Board:
        return board


CardPlay = Equipped | Boosted | TookFromDiscard | TablePlayed  # a play made with a Mafia card
Play = CardPlay | Whacked
