"""The game state: who sits where, the board, the phase of the turn, the last cancellable play.

Phases are small frozen values; a phase that offers a choice keeps its cursor,
and `choices(game)` lists what it offers (the screen and the rules share it).
"""

from __future__ import annotations

from dataclasses import dataclass

from box.games.dead_fellas.board import Board, Mook
from box.games.dead_fellas.deck import BOOST, FUGAZI, SLOTS
from box.games.dead_fellas.plays import Play

WIN_SCORE = 10
DEALT_MOOKS = 3
ACTIONS = (("whack", "Whack"), ("draw", "Draw a card"), ("recruit", "Recruit a Mook"))


@dataclass(frozen=True)
class Deal:
    """Seat by seat, from the left of the dealer, each player taps the three Mooks dealt."""


@dataclass(frozen=True)
class Playing:
    """The player has drawn; Mafia cards are tapped, then one action is chosen from the menu."""

    cursor: int = 0


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
    """After a whack: pick the item the attacker discards."""

    attacker: str
    done: tuple[str, ...]
    cursor: int = 0


@dataclass(frozen=True)
class EndTurn:
    """Discard down to the hand limit, then OK passes the turn."""


@dataclass(frozen=True)
class Picking:
    """A tapped Mafia card waiting for its choices; `resume` is where play goes on after it.

    `step` is "mook" (which Mook gets it), "slot" (Fugazi), "item" (Boost: which item
    moves) or "discard" (I Know A Guy: which discarded card).
    """

    card: str
    step: str
    resume: Phase
    slot: str | None = None
    source: str | None = None
    cursor: int = 0


@dataclass(frozen=True)
class Reading:
    """An action card the table resolves: its text is shown until OK."""

    card: str
    resume: Phase


@dataclass(frozen=True)
class Chain:
    """Fuhgeddaboutits played against the last play, in order; OK settles the chain."""

    cards: tuple[str, ...]
    resume: Phase


@dataclass(frozen=True)
class Over:
    """`winner` has won; the winning whack can still be cancelled by a Fuhgeddaboutit."""

    winner: int
    done: tuple[str, ...] = ()


Phase = Deal | Playing | Recruit | Attack | Target | Evidence | EndTurn | Picking | Reading | Chain | Over
RESTING = (Playing, Attack, EndTurn)  # phases where a Mafia action card may be played


@dataclass(frozen=True)
class Game:
    """A game of Dead Fellas: `turn` is the seat playing (or being dealt)."""

    players: tuple[str, ...]
    board: Board
    phase: Phase
    turn: int = 0
    items_on_opponents: bool = False
    last: Play | None = None
    notice: str = ""

    @property
    def player(self) -> str:
        return self.players[self.turn]

    def name(self, card: str) -> str:
        return self.board.cards[card].name

    def seats_from_turn(self) -> tuple[int, ...]:
        """All seats, the current one first, then clockwise."""
        count = len(self.players)
        return tuple((self.turn + offset) % count for offset in range(count))


@dataclass(frozen=True)
class Choice:
    """One line of a picker: what it says and what OK picks."""

    label: str
    value: str | None


def mook_label(game: Game, mook: Mook, owner: int | None = None) -> str:
    """A Mook on one screen line: owner, name, items held (W D V) and total hits.

    >>> from box.games.dead_fellas.deck import Card
    >>> board = Board.empty({"dfm1": Card("dfm1", "Vinnie Bones", "mook", None, 2, "")}, 2)
    >>> mook_label(Game(("Ann", "Bob"), board, Deal()), Mook("dfm1"), owner=1)
    'Bob Vinnie Bone --- 2'
    """
    letters = "".join(letter if mook.item(slot) else "-" for letter, slot in zip("WDV", SLOTS, strict=True))
    prefix = f"{game.players[owner][:4]} " if owner not in (None, game.turn) else ""
    suffix = f" {letters} {game.board.total(mook)}"
    return prefix + game.name(mook.card)[: 21 - len(prefix) - len(suffix)] + suffix


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


def receivers(game: Game, picking: Picking) -> tuple[tuple[int, Mook], ...]:
    """The face-up Mooks that may receive the card being played."""
    card = game.board.cards[picking.card]
    if card.effect == BOOST:
        source = game.board.owner(picking.source) if picking.source else None
        seats = tuple(seat for seat in game.seats_from_turn() if seat != source)
    elif card.effect == FUGAZI or game.items_on_opponents:
        seats = game.seats_from_turn()
    else:
        seats = (game.turn,)
    return tuple((seat, mook) for seat in seats for mook in game.board.mooks[seat] if mook.face_up)


def boostable(game: Game) -> tuple[tuple[int, Mook, str], ...]:
    """Every item on a face-up Mook, as (seat, Mook, slot), opponents of the current player first."""
    seats = (*game.seats_from_turn()[1:], game.turn)
    return tuple(
        (seat, mook, slot)
        for seat in seats
        for mook in game.board.mooks[seat]
        if mook.face_up
        for slot in SLOTS
        if mook.item(slot)
    )


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
        return tuple(Choice(f"{slot}: {game.name(attacker.item(slot) or '')}"[:21], slot) for slot in SLOTS)
    if isinstance(phase, Picking):
        return picking_choices(game, phase)
    return ()


def picking_choices(game: Game, phase: Picking) -> tuple[Choice, ...]:
    if phase.step == "slot":
        return tuple(Choice(slot.capitalize(), slot) for slot in SLOTS)
    if phase.step == "item":
        return tuple(
            Choice(
                f"{game.players[seat][:4]} {game.name(mook.item(slot) or '')}"[:18] + f" {slot[0].upper()}",
                mook.item(slot),
            )
            for seat, mook, slot in boostable(game)
        )
    if phase.step == "discard":
        known = tuple(card for card in reversed(game.board.discard) if card != phase.card)
        return (*(Choice(game.name(card)[:21], card) for card in known), Choice("A card not listed", None))
    return tuple(Choice(mook_label(game, mook, seat), mook.card) for seat, mook in receivers(game, phase))
