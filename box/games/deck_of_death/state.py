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
    # RULINGS 8a: failing a challenge or breaking a rule costs what the card says, else its tier
    Option(
        "fail_forfeit", "Fail costs", "card", ("card", "tier", "none"),
        help="What a failed challenge or a broken rule costs: what the card says (card), always its tier (tier), "
        "or nothing the box counts (none).",
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
    EFFECT = "effect"  # a done card's effect that needs a choice: whose turn, which space, which card
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
    BROKEN = "broken"  # a rule on the board was tapped: who broke it?


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
    """A duel: who challenges whom, the challenger's card for the space (None for a duel a card
    starts, which only counts who wins) and the High-Die totals rolled so far."""

    challenger: int
    defender: int
    card: str | None = None
    rolls: tuple[int, ...] = ()


@dataclass(frozen=True)
class Order:
    """Whose turn comes next: the players round the table clockwise (`seats`, player indices), the
    way play passes (1 clockwise, -1 the other way), the player whose next turn sets it clockwise
    again, the players who skip their next turn (once per entry), and a player who plays the next
    turn in its player's stead (`hijacker`)."""

    seats: tuple[int, ...]
    step: int = 1
    until: int | None = None
    skips: tuple[int, ...] = ()
    hijacker: int | None = None


@dataclass(frozen=True)
class Effect:
    """A done card's effect being carried out: the card, the player it is for (the one who landed,
    or its owner after a reflect), the spaces cleared so far, and a card tapped to take the space
    over once the effect is done."""

    card: str
    player: int
    cleared: int = 0
    then: str | None = None


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
    order: Order | None = None  # None: clockwise in seating order, nobody skipping (see `order_of`)
    at: int | None = None  # whose turn by the order, when another player plays it (a hijack)
    effect: Effect | None = None  # in the effect phase: the effect being carried out
    doubled: tuple[int, ...] = ()  # players whose next failed challenge costs double (Double Trouble)
    loaded: tuple[int, ...] = ()  # players whose next turn throws twice, the better kept (Loaded Dice)
    first_roll: tuple[int, int] | None = None  # a loaded turn's first throw: OK keeps it, ROLL throws again
    fail_forfeit: str = "card"  # RULINGS 8a: "card" its stated cost (else tier), "tier", "none"
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


def order_of(state: State) -> Order:
    """The turn order (a new session's: clockwise in seating order)."""
    return state.order if state.order is not None else Order(tuple(range(len(state.players))))


def next_player(state: State) -> tuple[int, int | None, Order]:
    """Who plays the next turn, whose turn it is by the order when that differs (a hijack), and
    the order after it: play passes by `step` from the seat of the turn being played, a reverse
    ends as its player's turn comes, a skip uses up that player's turn."""
    order = order_of(state)
    seats, step, until, skips = order.seats, order.step, order.until, list(order.skips)
    seat = seats.index(state.at if state.at is not None else state.turn)
    while True:
        seat = (seat + step) % len(seats)
        player = seats[seat]
        if player == until:
            step, until = 1, None
        if player not in skips:
            break
        skips.remove(player)
    hijacker = order_of(state).hijacker
    order = Order(seats, step, until, tuple(skips))
    if hijacker is None or hijacker == player:
        return player, None, order
    return hijacker, player, order


def other_players(state: State, effect: Effect) -> tuple[int, ...]:
    """The other players, in the order they play from the effect's player (the next one first)."""
    order = order_of(state)
    seats = order.seats
    seat = seats.index(effect.player)
    return tuple(seats[(seat + order.step * n) % len(seats)] for n in range(1, len(seats)))


def clear_choices(state: State, effect: Effect) -> tuple[int, ...]:
    """The slots holding a card, nearest the effect player's token first (its own space last)."""
    token, board = state.tokens[effect.player], state.board
    here = board.slot(token.ring, token.space)

    def distance(slot: int) -> tuple[int, int]:
        if slot == here:
            return (2, 0)
        ring, size, space = ("outer", board.outer, slot) if slot < board.outer else ("inner", board.inner, slot - board.outer)
        if ring != token.ring:
            return (1, slot)
        ahead = (space - token.space) % size
        return (0, min(ahead, size - ahead) * 2 + (ahead > size - ahead))

    return tuple(sorted((slot for slot, placed in enumerate(state.spaces) if placed is not None), key=distance))


PICKS_PLAYER = ("skip", "swap-seats", "duel")  # effects that ask which other player
CLEARS = {"clear": 1, "clear-two": 2}  # effects that clear cards off spaces, and how many


def effect_choices(state: State, effect: Effect) -> tuple[int, ...]:
    """What the effect's cursor picks from: other players, or slots (nearest first); () for none."""
    what = state.cards[effect.card].turn_effect
    if what in CLEARS:
        return clear_choices(state, effect)
    return other_players(state, effect) if what in PICKS_PLAYER else ()


def chosen_here(state: State) -> tuple[int, ...] | None:
    """On the challenge of a card whose effect asks a player or a space: the choices, which the
    challenge screen's UP/DOWN move through (OK carries it out); None on any other screen."""
    if state.phase is not Phase.CHALLENGE:
        return None
    placed = state.spaces[state.slot]
    if placed is None:
        return None
    what = state.cards[placed.card].turn_effect
    if what not in PICKS_PLAYER and what not in CLEARS:
        return None
    return effect_choices(state, Effect(placed.card, state.turn))


def may_place(state: State) -> bool:
    """Whether the card phase on the token's space has a choice: an empty space (unless the board is
    locked), or an occupied one after its challenge was completed."""
    placed = state.spaces[state.slot]
    return not state.lockout if placed is None else state.completed


def cost(state: State, card_id: str) -> int | None:
    """What failing the card (or breaking its rule) costs under the `fail_forfeit` rule; None: the table's count."""
    card = state.cards[card_id]
    if state.fail_forfeit == "none":
        return None
    return card.tier_cost if state.fail_forfeit == "tier" else card.forfeit


def forfeit(state: State, count: int) -> str:
    """The forfeit in the session's currency: '2 drinks', '1 point'."""
    word = "drink" if state.forfeits == "drinks" else "point"
    return f"{count} {word}{'' if count == 1 else 's'}"


def dump(state: State) -> dict[str, Any]:
    """JSON-ready figures; see docs/games/deck-of-death.md for every key."""
    names = state.players
    board = state.board
    over = state.phase is Phase.OVER
    order = order_of(state)
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
        "seats": [names[player] for player in order.seats],
        "direction": "clockwise" if order.step == 1 else "anticlockwise",
        "skips": [names[player] for player in order.skips],
        "next_player": None if over else names[next_player(state)[0]],
        "doubled": [names[player] for player in state.doubled],
        "loaded": [names[player] for player in state.loaded],
        "first_roll": list(state.first_roll) if state.first_roll is not None else None,
    }


def figures_of(state: State) -> Figures:
    """Each player's laps, drinks (or points) and duels won (FIGURES)."""
    return {
        name: {"laps": laps, "drinks": drinks, "duels_won": duels}
        for name, laps, drinks, duels in zip(state.players, state.laps, state.drinks, state.duels_won, strict=True)
    }
