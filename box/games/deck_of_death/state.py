"""The state of a Deck of Death session: small frozen values updated with `dataclasses.replace`.

Per-player figures are tuples in seating order; the board is one tuple of slots
(outer ring first, then the inner circle, see `Board.slot`), each None or a `Placed`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from box.games.base import Figure, Figures, Option, Phone, Press, Secrets, Shown
from box.games.deck_of_death.cards import Board, Card
from box.words import Word

OPTIONS = (
    Option(
        "forfeits", "Forfeits", "drinks", ("drinks", "points"),
        help="Whether a forfeit is a drink or, for a table that does not drink, a penalty point.",
    ),
    # House rules for penalties the rulebook does not state; the book's reading comes first.
    Option(
        "fail_forfeit", "Fail costs", "none", ("none", "tier"),
        help="House rule: a failed challenge costs nothing the box counts (none) or the card's tier in drinks.",
    ),
    Option(
        "blue_landing", "Blue card", "rule", ("rule", "challenge"),
        help="House rule: landing on a blue card is a rule for everyone (rule) or a challenge one can react to.",
    ),
)
FIGURES = (Figure("laps", "laps"), Figure("drinks", "drinks"), Figure("duels_won", "duels won"))
# a session ends when the table has had enough chaos: a phone asks as a long OK and OK do on the box
PHONE = Phone(
    "board",
    counts=(Shown("laps", "laps"), Shown("drinks", "drinks")),
    ends_with=(Press("ok", long=True), Press("ok")),
)
DUEL_STYLES = ("High-Die Roll", "Other minigame")
HAND = 7  # the starting hand dealt to each player, and what the draw phase tops up to
FORCED_EXIT_DRINKS = 2  # finish the drink, or 2 heavy shots
FORCED_EXIT_AFTER = 5  # failed turns inside before the way out may be forced
MENU_ITEMS = ("Move a token", "Reshuffle discards", "Back")  # the table menu (short UP/DOWN)
WAYS = ("Forwards", "Backwards", "Inner circle")  # how a card moves a token
GO_ON, CAST_INSIDE, MOVE_TOKEN = 0, 1, 2  # what a failed card does, in the failed phase's order
MOST_STEPS = 12  # a card moves a token 1 to 12 spaces
SECRETS = Secrets()  # the hands stay in the players' hands: the box learns a card as it is placed, face up


class Phase(Word):
    """The phases of a turn, in order, and the detours a turn can take."""

    DRAW = "draw"  # reminder: draw up to 7 (and the player before: discard down to 7); ROLL throws
    ROLL = "roll"  # ROLL throws 2d6 (inside the circle, OK offers the forced exit from the 6th turn)
    FORCE = "force"  # confirm the forced exit from the inner circle (chug)
    CHALLENGE = "challenge"  # the card on the landing space: OK completed, BACK failed
    REACT = "react"  # the attacking card was tapped: waiting for the reaction card
    REFLECTED = "reflected"  # the card's owner takes the reflected challenge
    FAILED = "failed"  # a failed card that moves tokens: its consequences before play goes on
    CARD = "card"  # tap a card to place it on the token's space, OK to skip
    DUEL_STYLE = "duel-style"  # the defender picks High-Die Roll or another minigame
    DUEL_ROLL = "duel-roll"  # High-Die Roll: challenger rolls, then defender
    DUEL_WINNER = "duel-winner"  # another minigame: who won?
    OVER = "over"  # "enough chaos": the session's figures


class Layer(Word):
    """The screens laid over any phase, closed with OK/BACK."""

    RULES_LIST = "rules"  # long UP: the active persistent rules
    SCORES = "scores"  # long DOWN: laps, drinks, duels
    CHAOS = "chaos"  # long OK: confirm "enough chaos"
    IMMUNITY = "immunity"  # a tapped Immunity card: who plays it?
    RULE_CREATOR = "rule-creator"  # a tapped Rule Creator card: which space, then whose
    MENU = "menu"  # short UP/DOWN: move a token, reshuffle the discards
    MOVE = "move"  # a card moved a token: whose, which way, how far


@dataclass(frozen=True)
class Token:
    """Where a token stands; `entry` is the arrow space it entered the inner circle by."""

    ring: str = "outer"
    space: int = 0
    entry: int | None = None


@dataclass(frozen=True)
class Placed:
    """A card on a space and the player who placed it."""

    card: str
    owner: int  # the player's index in `State.players`


@dataclass(frozen=True)
class Duel:
    """A hostile takeover: the challenger's card and the High-Die totals rolled so far."""

    card: str
    rolls: tuple[int, ...] = ()


@dataclass(frozen=True)
class Failure:
    """A failed card whose text moves tokens: who failed it (the player, or its owner after a reflect)."""

    player: int
    card: str


@dataclass(frozen=True)
class Overlay:
    """A screen over the phase: a list, a confirmation or a white card's picker."""

    kind: Layer
    cursor: int = 0
    card: str | None = None
    slot: int | None = None  # Rule Creator: the space chosen, before choosing its owner
    player: int | None = None  # a token move: whose token, once chosen
    way: int | None = None  # a token move: the index in WAYS, once chosen (the cursor then counts steps - 1)


@dataclass(frozen=True)
class State:
    """One moment of a session. `turn` is the current player's index in `players`."""

    players: tuple[str, ...]
    board: Board
    cards: Mapping[str, Card] = field(compare=False, repr=False)
    forfeits: str
    turn: int
    phase: Phase
    tokens: tuple[Token, ...]
    laps: tuple[int, ...]
    drinks: tuple[int, ...]
    inner_turns: tuple[int, ...]
    duels_won: tuple[int, ...]
    immune: tuple[bool, ...]
    spaces: tuple[Placed | None, ...]
    lockout: bool = False
    discard: tuple[str, ...] = ()  # the discard pile the box saw, oldest first (emptied by a reshuffle)
    fail_forfeit: str = "none"  # house rule: "tier" makes a failed challenge cost its tier
    blue_landing: str = "rule"  # house rule: "challenge" makes a blue card a challenge one can react to
    completed: bool = False  # the current challenge was completed: a replacement is allowed
    reacted: bool = False  # a reaction was played in this turn's challenge
    duel: Duel | None = None
    failure: Failure | None = None  # in the failed phase: whose failure, of which card
    cursor: int = 0  # the highlighted choice in the phase's picker
    before: int | None = None  # the seat whose turn just ended: reminded to discard on the draw screen
    overlay: Overlay | None = None
    notice: str = ""

    @property
    def token(self) -> Token:
        """The current player's token."""
        return self.tokens[self.turn]

    @property
    def slot(self) -> int:
        """The board slot under the current player's token."""
        return self.board.slot(self.token.ring, self.token.space)

    def where(self, slot: int) -> str:
        """A slot as players call it: 'space 7' or 'inner 3'."""
        key = self.board.key(slot)
        return f"inner {key[1:]}" if key.startswith("i") else f"space {key}"

    def slot_of(self, card_id: str) -> int | None:
        """The slot holding `card_id`, or None when the card is not on the board."""
        for slot, placed in enumerate(self.spaces):
            if placed is not None and placed.card == card_id:
                return slot
        return None


def may_place(state: State) -> bool:
    """Whether the card phase on the token's space has a choice: an empty space (unless the board is
    locked), or an occupied one after its challenge was completed."""
    placed = state.spaces[state.slot]
    return not state.lockout if placed is None else state.completed


def forfeit(state: State, count: int) -> str:
    """The forfeit in the session's currency: '2 drinks', '1 point'."""
    word = "drink" if state.forfeits == "drinks" else "point"
    return f"{count} {word}{'' if count == 1 else 's'}"


def dump(state: State) -> dict[str, Any]:
    """JSON-ready figures; see docs/games/deck-of-death.md for every key."""
    names = state.players
    board = state.board
    over = state.phase is Phase.OVER
    return {
        "current_player": None if over else names[state.turn],
        "over": over,
        "winners": [],
        "phase": state.phase.value,
        "forfeits": state.forfeits,
        "positions": {n: {"ring": t.ring, "space": t.space} for n, t in zip(names, state.tokens)},
        "laps": dict(zip(names, state.laps)),
        "board": {
            board.key(slot): {"card": placed.card, "owner": names[placed.owner]}
            for slot, placed in enumerate(state.spaces)
            if placed is not None
        },
        "drinks": dict(zip(names, state.drinks)),
        "inner_turns": dict(zip(names, state.inner_turns)),
        "duels_won": dict(zip(names, state.duels_won)),
        "lockout": state.lockout,
        "immune": [n for n, immune in zip(names, state.immune) if immune],
        "persistent": [p.card for p in state.spaces if p is not None and state.cards[p.card].persistent],
        "discard_pile": list(state.discard),
    }


def figures_of(state: State) -> Figures:
    """Each player's laps, drinks (or points) and duels won (FIGURES)."""
    return {
        name: {"laps": laps, "drinks": drinks, "duels_won": duels}
        for name, laps, drinks, duels in zip(state.players, state.laps, state.drinks, state.duels_won, strict=True)
    }
