"""The state of a Dead Fellas game: the table (`Board`), the plays a Fuhgeddaboutit can cancel, the phase.

The table as the box knows it (`Board`): Mooks in front of each seat, their items, score piles,
discards.

The box never sees hands or the two draw decks. It knows a card once it is
tapped, and counts the Mook deck down from the deck data: every Mook is either
still in the Mook deck, in front of a player, or in a score pile.

>>> from box.games.dead_fellas.cards import Card
>>> cards = {"dfm1": Card("dfm1", "Sal", "mook", None, 2, ""),
...          "dfw1": Card("dfw1", "Gun", "item", "weapon", 3, "")}
>>> board = Board.empty(cards, seats=2).add_mook(0, Mook("dfm1"))
>>> board = board.equip("dfm1", "weapon", "dfw1")
>>> board.total(board.mooks[0][0]), board.mooks_left()
(5, 0)

The plays a Fuhgeddaboutit can cancel: a whack, an item, an action card. Each play remembers what it changed so that `cancel` can put the board back
(cards it sent to the discard pile come back, the cancelled card is discarded).

>>> play = Equipped(card="dfw1", mook="dfm1", slot="weapon", replaced=None)
>>> play.describe(board)
'Gun on Sal'
>>> play.cancel(board).mooks[0][0].weapon, play.cancel(board).discard
(None, ('dfw1',))

The game (`Game`): who sits where, the board, the phase of the turn, the last cancellable play. Phases are small frozen values; a phase that offers a choice keeps its cursor,
and `choices(game)` lists what it offers (the screen and the rules share it).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from box.games.base import Figure, Figures, Option, Phone, Secrets, Shown
from box.games.dead_fellas.cards import BOOST, FUGAZI, FUHGEDDABOUTIT, SLOTS, Card, base_name
from box.games.kit import name_line, set_at, short_name, short_person
from box.words import LINE_CHARS

OPTIONS = (
    Option(
        "items_on_opponents", "Items on opponents", "no", ("no", "yes"), short="Items on foes",
        help="Whether a player may put items on the opponents' face-up Mooks too, not only on their own.",
    ),
)
FIGURES = (Figure("score", "score"), Figure("whacks", "whacks"))
PHONE = Phone("mooks", counts=(Shown("score", "points"),), marks=(Shown("out", "out"),))


# --- the table -------------------------------------------------------------------------


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
        """This Mook with `card` (or nothing) in `slot`, one of SLOTS."""
        match slot:
            case "weapon":
                return replace(self, weapon=card)
            case "disguise":
                return replace(self, disguise=card)
            case "vehicle":
                return replace(self, vehicle=card)
        raise ValueError(f"no item slot {slot!r}; the slots are {', '.join(SLOTS)}")

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
        return replace(self, mooks=set_at(self.mooks, seat, row))

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
        return self._with_row(seat, set_at(self.mooks[seat], index, mook))

    def flip_up(self, seat: int) -> Board:
        return self._with_row(seat, tuple(replace(mook, face_up=True) for mook in self.mooks[seat]))

    def equip(self, mook: str, slot: str, item: str | None) -> Board:
        """Put `item` (or nothing) in the Mook's slot; the item it replaces is discarded."""
        target = self.mook(mook)
        replaced = target.item(slot)
        board = self.put_mook(target.with_item(slot, item))
        return board.to_discard(replaced) if replaced is not None else board

    def restore(self, mook: str, slot: str, replaced: str | None) -> Board:
        """Undo an `equip`: `replaced` (or nothing) back in the Mook's slot, taken back from the discards."""
        board = self.put_mook(self.mook(mook).with_item(slot, replaced))
        return board.from_discard(replaced) if replaced is not None else board

    def to_pile(self, seat: int, card: str) -> Board:
        return replace(self, piles=set_at(self.piles, seat, (*self.piles[seat], card)))

    def from_pile(self, seat: int, card: str) -> Board:
        pile = tuple(kept for kept in self.piles[seat] if kept != card)
        return replace(self, piles=set_at(self.piles, seat, pile))

    def to_discard(self, *cards: str) -> Board:
        return replace(self, discard=(*self.discard, *cards))

    def from_discard(self, card: str) -> Board:
        return replace(self, discard=tuple(kept for kept in self.discard if kept != card))


# --- the plays a Fuhgeddaboutit can cancel ----------------------------------------------


@dataclass(frozen=True)
class Equipped:
    """An item (or a Fugazi) put on a Mook, replacing `replaced`."""

    card: str  # the item played
    mook: str
    slot: str
    replaced: str | None  # comes back from the discards if the play is cancelled

    def describe(self, board: Board) -> str:
        return f"{board.cards[self.card].name} on {board.cards[self.mook].name}"

    def cancel(self, board: Board) -> Board:
        return board.restore(self.mook, self.slot, self.replaced).to_discard(self.card)

    def redo(self, board: Board) -> Board:
        """The play again after a cancel (a second Fuhgeddaboutit reversed the first)."""
        board = board.from_discard(self.card).put_mook(board.mook(self.mook).with_item(self.slot, self.card))
        return board.to_discard(self.replaced) if self.replaced is not None else board

    def applied(self, board: Board) -> bool | None:
        """Whether the board shows the play (None when the box cannot tell)."""
        return board.find(self.mook) is not None and board.mook(self.mook).item(self.slot) == self.card


@dataclass(frozen=True)
class Boosted:
    """A Boost: `item` moved from the Mook `source` to the Mook `target`, replacing `replaced`."""

    card: str  # the Boost card
    item: str
    source: str
    target: str
    slot: str
    replaced: str | None

    def describe(self, board: Board) -> str:
        return f"Boost {board.cards[self.item].name} to {board.cards[self.target].name}"

    def cancel(self, board: Board) -> Board:
        board = board.restore(self.target, self.slot, self.replaced)
        return board.put_mook(board.mook(self.source).with_item(self.slot, self.item))

    def redo(self, board: Board) -> Board:
        board = board.put_mook(board.mook(self.source).with_item(self.slot, None))
        board = board.put_mook(board.mook(self.target).with_item(self.slot, self.item))
        return board.to_discard(self.replaced) if self.replaced is not None else board

    def applied(self, board: Board) -> bool | None:
        return board.mook(self.target).item(self.slot) == self.item


@dataclass(frozen=True)
class Whacked:
    """The Mook `attacker` (seat `by`) whacked `target` (seat `seat`, at `position`).

    `done` are the Mooks that have attacked in this Whack action, the attacker included;
    `evidence` is the attacker's item discarded afterwards (None until chosen).
    """

    attacker: str
    by: int
    target: Mook  # as it stood, with its items
    seat: int
    position: int
    done: tuple[str, ...] = ()
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

    def redo(self, board: Board) -> Board:
        board = board.remove_mook(self.target.card).to_pile(self.by, self.target.card).to_discard(*self.target.items)
        if self.evidence is not None and self.evidence_slot is not None:
            board = board.equip(self.attacker, self.evidence_slot, None)
        return board

    def applied(self, board: Board) -> bool | None:
        return self.target.card in board.piles[self.by]


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

    def redo(self, board: Board) -> Board:
        return board.from_discard(self.taken) if self.taken is not None else board

    def applied(self, board: Board) -> bool | None:
        return None  # a reshuffle may have emptied the known discard pile


@dataclass(frozen=True)
class TablePlayed:
    """An action card the table resolves itself; cancelling it is up to the table too."""

    card: str

    def describe(self, board: Board) -> str:
        return board.cards[self.card].name

    def cancel(self, board: Board) -> Board:
        return board

    def redo(self, board: Board) -> Board:
        return board

    def applied(self, board: Board) -> bool | None:
        return None


CardPlay = Equipped | Boosted | TookFromDiscard | TablePlayed  # a play made with a Mafia card
Play = CardPlay | Whacked


# --- the phases and the game --------------------------------------------------------------

WIN_SCORE = 10
DEALT_MOOKS = 3
DEALT_MAFIA = 3  # the Mafia cards dealt to each hand (the box never sees them)
ACTIONS = (("whack", "Whack"), ("draw", "Draw a card"), ("recruit", "Recruit a Mook"))
TURN_END = (("next", "Next player"), ("discard", "Discard cards"))


@dataclass(frozen=True)
class Deal:
    """Seat by seat, from the left of the dealer, each player taps the three Mooks dealt."""


@dataclass(frozen=True)
class Playing:
    """The player has drawn; Mafia cards are tapped, then one action is chosen from the menu.

    `mook` is the Mook the player tapped to arm: items (and a Fugazi or a Boost) go on it
    without asking which Mook, until another Mook is tapped or the same one again.
    """

    cursor: int = 0
    mook: str | None = None


@dataclass(frozen=True)
class Recruit:
    """The Recruit action: waiting for the new Mook's tap."""


@dataclass(frozen=True)
class Attack:
    """The Whack action: pick the next armed Mook to attack with (`done` have attacked)."""

    done: tuple[str, ...] = ()
    cursor: int = 0


@dataclass(frozen=True)
class Target:
    """Pick the Mook that `attacker` whacks."""

    attacker: str
    done: tuple[str, ...]
    cursor: int = 0


@dataclass(frozen=True)
class Evidence:
    """After a whack: pick the item the attacker discards; then the attack goes on, or `resume`
    (a whack standing again on a later turn)."""

    attacker: str
    done: tuple[str, ...]
    cursor: int = 0
    resume: Phase | None = None


@dataclass(frozen=True)
class EndTurn:
    """Discard down to the hand limit (trusted), then "Next player" passes the turn or "Discard cards"."""

    cursor: int = 0


@dataclass(frozen=True)
class Discard:
    """The discard step: every Mafia card tapped goes to the discard pile unplayed; OK passes the turn."""


@dataclass(frozen=True)
class Picking:
    """A tapped Mafia card waiting for its choices; `resume` is where play goes on after it.

    `step` is "mook" (which Mook gets it), "slot" (Fugazi), "item" (Boost: which item
    moves), "discard" (I Know A Guy: which discarded card) or "use" (an action card tapped in
    the discard step: the current player's discard, or a play and whose). `by` is the seat playing the
    card: the current player's for an item; an action card may be anyone's (RULINGS 5a), the
    current player's unless a line of its first step says otherwise.
    """

    card: str
    step: str
    resume: Phase
    by: int
    slot: str | None = None
    source: str | None = None
    cursor: int = 0


@dataclass(frozen=True)
class Reading:
    """An action card the table resolves: its text is shown until OK."""

    card: str
    resume: Phase  # where play goes on after it


@dataclass(frozen=True)
class Over:
    """`winner` has won; the winning whack can still be cancelled by a Fuhgeddaboutit."""

    winner: int
    done: tuple[str, ...] = ()


Phase = Deal | Playing | Recruit | Attack | Target | Evidence | EndTurn | Discard | Picking | Reading | Over
CHOOSING = (Playing, Attack, Target, Evidence, EndTurn, Picking)  # phases offering choices, each with its cursor


@dataclass(frozen=True)
class Game:
    """A game of Dead Fellas: `turn` is the seat playing (or being dealt).

    `last` is the play a Fuhgeddaboutit answers and `chain` the Fuhgeddaboutits played against
    it so far: an odd chain has cancelled it, an even one lets it stand. Both are open until
    the next play, the next whack or the end of the turn (RULINGS 5).
    """

    players: tuple[str, ...]
    board: Board
    phase: Phase
    turn: int = 0
    items_on_opponents: bool = False
    last: Play | None = None
    chain: tuple[str, ...] = ()
    notice: str = ""

    @property
    def player(self) -> str:
        return self.players[self.turn]

    def name(self, card: str) -> str:
        return self.board.cards[card].name

    def short(self, card: str, width: int) -> str:
        """The card's name in `width` characters, told apart from the deck's other names (a copy
        number goes first: "Switchblade 2" is a Switchblade)."""
        name = self.name(card)
        if len(name) <= width:
            return name
        names = tuple(dict.fromkeys(base_name(known.name) for known in self.board.cards.values()))
        return short_person(base_name(name), width, names)

    def seats_from_turn(self) -> tuple[int, ...]:
        """All seats, the current one first, then clockwise."""
        return self.seats_from(self.turn)

    def seats_from(self, seat: int) -> tuple[int, ...]:
        """All seats, `seat` first, then clockwise."""
        count = len(self.players)
        return tuple((seat + offset) % count for offset in range(count))


@dataclass(frozen=True)
class Choice:
    """One line of a picker: what it says and what OK picks (`seat`: the card is that player's)."""

    label: str
    value: str | None
    seat: int | None = None


def mook_label(game: Game, mook: Mook, owner: int | None = None) -> str:
    """A Mook on one screen line: owner, name, items held (W D V) and total hits.

    >>> board = Board.empty({"dfm1": Card("dfm1", "Vinnie Bones", "mook", None, 2, "")}, 2)
    >>> mook_label(Game(("Ann", "Bob"), board, Deal()), Mook("dfm1"), owner=1)
    'Bob V. Bones --- 2'
    """
    letters = "".join(letter if mook.item(slot) else "-" for letter, slot in zip("WDV", SLOTS, strict=True))
    prefix = f"{short_name(game.players[owner], 4)} " if owner not in (None, game.turn) else ""
    suffix = f" {letters} {game.board.total(mook)}"
    return prefix + game.short(mook.card, LINE_CHARS - len(prefix) - len(suffix)) + suffix


def attackers(game: Game, done: tuple[str, ...]) -> tuple[Mook, ...]:
    """The current player's armed Mooks that have not attacked yet and have a target."""
    return tuple(
        mook for mook in game.board.mooks[game.turn] if mook.armed and mook.card not in done and targets(game, mook)
    )


def targets(game: Game, attacker: Mook) -> tuple[tuple[int, Mook], ...]:
    """Opponents' face-up Mooks whose total hits are at most the attacker's."""
    strength = game.board.total(attacker)
    return tuple(
        (seat, mook)
        for seat in game.seats_from_turn()[1:]
        for mook in game.board.mooks[seat]
        if mook.face_up and game.board.total(mook) <= strength
    )


def aim(game: Game, attacker: str, done: tuple[str, ...]) -> Target:
    """The target picker for `attacker`, its cursor on the Mook a whack scores most for (the first
    of equals): the likeliest choice is one OK away."""
    offered = targets(game, game.board.mook(attacker))
    scores = [game.board.hits(mook.card) for _, mook in offered]
    return Target(attacker, done, scores.index(max(scores)) if scores else 0)


def evidence(game: Game, attacker: str, done: tuple[str, ...]) -> Evidence:
    """The evidence picker, its cursor on the attacker's item with the fewest hits (the first of
    equals): ditching it costs the least strength."""
    mook = game.board.mook(attacker)
    hits = [game.board.item_hits(item) for item in mook.items]
    return Evidence(attacker, done, hits.index(min(hits)) if hits else 0)


def receivers(game: Game, picking: Picking) -> tuple[tuple[int, Mook], ...]:
    """The face-up Mooks that may receive the card being played."""
    # the Mooks of the player playing it (a Boost takes an opponent's item onto one of them); with
    # items_on_opponents an item or a Fugazi may go on anyone's
    card = game.board.cards[picking.card]
    seats = game.seats_from(picking.by) if game.items_on_opponents and card.effect != BOOST else (picking.by,)
    return tuple((seat, mook) for seat in seats for mook in game.board.mooks[seat] if mook.face_up)


def likely_receiver(game: Game, picking: Picking) -> int:
    """Where the Mook picker starts: on the player's own Mook nearest to armed (most items, then most
    hits; the first of equals) whose slot for the card is empty, else on the first line."""
    card = game.board.cards[picking.card]
    slot = picking.slot or card.slot or (game.board.cards[picking.source].slot if picking.source else None)
    if slot not in SLOTS:
        return 0
    offered = receivers(game, picking)
    fits = [at for at, (seat, mook) in enumerate(offered) if seat == picking.by and mook.item(slot) is None]
    if not fits:
        return 0
    return max(fits, key=lambda at: (len(offered[at][1].items), game.board.total(offered[at][1])))


def boostable(game: Game, by: int) -> tuple[tuple[int, Mook, str], ...]:
    """Every item on a face-up Mook of `by`'s opponents (the current player among them when `by` is
    another), as (seat, Mook, slot), clockwise from `by`."""
    seats = game.seats_from(by)[1:]
    return tuple(
        (seat, mook, slot)
        for seat in seats
        for mook in game.board.mooks[seat]
        if mook.face_up
        for slot in SLOTS
        if mook.item(slot)
    )


def players_for(game: Game, card: Card) -> tuple[int, ...]:
    """The seats that can play the action card `card` now, clockwise from the current player (RULINGS 5a):
    a Fugazi needs a face-up Mook to go on, a Boost an opponent's item and a face-up Mook to take
    it; an I Know A Guy, anyone."""
    seats = game.seats_from_turn()
    if card.effect == FUGAZI:
        return tuple(seat for seat in seats if receivers(game, Picking(card.id, "mook", Deal(), seat)))
    if card.effect == BOOST:
        return tuple(
            seat for seat in seats if boostable(game, seat) and receivers(game, Picking(card.id, "mook", Deal(), seat))
        )
    return seats


def choices(game: Game) -> tuple[Choice, ...]:
    """What the current phase offers to UP/DOWN/OK (empty when it offers nothing)."""
    phase = game.phase
    if isinstance(phase, Playing):
        return tuple(Choice(label, value) for value, label in ACTIONS)
    if isinstance(phase, Attack):
        return (
            *(Choice(mook_label(game, mook), mook.card) for mook in attackers(game, phase.done)),
            Choice("Done", None),
        )
    if isinstance(phase, Target):
        attacker = game.board.mook(phase.attacker)
        return tuple(Choice(mook_label(game, mook, seat), mook.card) for seat, mook in targets(game, attacker))
    if isinstance(phase, Evidence):
        attacker = game.board.mook(phase.attacker)
        return tuple(Choice(f"{slot}: {game.name(item)}", slot) for slot in SLOTS if (item := attacker.item(slot)))
    if isinstance(phase, Picking):
        return picking_choices(game, phase)
    if isinstance(phase, EndTurn):
        return tuple(Choice(label, value) for value, label in TURN_END)
    return ()


def picking_choices(game: Game, phase: Picking) -> tuple[Choice, ...]:
    if phase.step == "use":
        card = game.board.cards[phase.card]
        plays = (Choice("Play it", "play"),) if card.effect == FUHGEDDABOUTIT else tuple(
            Choice(name_line("", game.players[seat], " plays it"), "play", seat) for seat in players_for(game, card)
        )
        return (Choice(name_line("", game.player, " discards it"), "discard"), *plays)
    if phase.step == "slot":
        return (*(Choice(slot.capitalize(), slot) for slot in SLOTS), *_other_players(game, phase))
    if phase.step == "item":
        items = tuple(
            Choice(
                f"{short_name(game.players[seat], 4)} "
                f"{game.short(mook.item(slot) or '', LINE_CHARS - 7)} {slot[0].upper()}",
                mook.item(slot),
            )
            for seat, mook, slot in boostable(game, phase.by)
        )
        return (*items, *_other_players(game, phase))
    if phase.step == "discard":
        known = tuple(card for card in reversed(game.board.discard) if card != phase.card)
        listed = (*(Choice(game.name(card), card) for card in known), Choice("A card not listed", None))
        return (*listed, *_other_players(game, phase))
    return tuple(Choice(mook_label(game, mook, seat), mook.card) for seat, mook in receivers(game, phase))


def _other_players(game: Game, phase: Picking) -> tuple[Choice, ...]:
    """Below an action card's first choices, a line for each other player who can play it (RULINGS 5a):
    OK there makes it that player's card."""
    seats = players_for(game, game.board.cards[phase.card])
    return tuple(Choice(name_line("", game.players[seat], "'s card"), None, seat) for seat in seats if seat != phase.by)


def dump(game: Game) -> dict[str, Any]:
    """The state as JSON-ready data; player names are the keys (see docs/games/dead-fellas.md)."""
    board = game.board
    phase = game.phase
    over = isinstance(phase, Over)
    return {
        "current_player": None if over else game.player,
        "over": over,
        "winners": [game.players[phase.winner]] if isinstance(phase, Over) else [],
        "phase": type(phase).__name__.lower(),
        "score": {name: board.score(seat) for seat, name in enumerate(game.players)},
        "score_piles": {name: list(board.piles[seat]) for seat, name in enumerate(game.players)},
        "mooks": {
            name: [
                {
                    "card": mook.card,
                    "face_up": mook.face_up,
                    "items": {slot: mook.item(slot) for slot in SLOTS},
                    "total": board.total(mook),
                }
                for mook in board.mooks[seat]
            ]
            for seat, name in enumerate(game.players)
        },
        "discard_pile": list(board.discard),
        "mook_deck": board.mooks_left(),
        "out": [name for seat, name in enumerate(game.players) if board.is_out(seat)],
        "chain": list(game.chain),
    }


def hide_recruits(dump: dict[str, Any]) -> dict[str, Any]:
    """The dump without what a face-down recruit is (its card, strength, items): the table sees only
    that it lies there face down, as the rulebook says ("do not show it to other people").

    >>> down = {"card": "dfm10", "face_up": False, "items": {}, "total": 3}
    >>> hide_recruits({"mooks": {"Ann": [down]}, "over": False})
    {'mooks': {'Ann': [{'face_up': False}]}, 'over': False}
    """
    mooks = {
        name: [mook if mook.get("face_up", True) else {"face_up": False} for mook in row]
        for name, row in dump.get("mooks", {}).items()
    }
    return {**dump, "mooks": mooks} if "mooks" in dump else dump


SECRETS = Secrets("a face-down recruit: its card, its strength, its items", hide_recruits)


def figures_of(game: Game) -> Figures:
    """Each player's score and whacks, the Mooks in their score pile (FIGURES)."""
    board = game.board
    return {
        name: {"score": board.score(seat), "whacks": len(board.piles[seat])} for seat, name in enumerate(game.players)
    }
