"""The state of a Dead Set game: the house rules, the phase, what each seat owns and took.

Every value is frozen; the rules build new states with `dataclasses.replace`.

>>> HouseRules.from_options({"target": "10", "ties": "strict"})
HouseRules(target=10, strict_ties=True, order_bonus_min=2, high_tie_all=True)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from box.decks.codec import Deck
from box.games.base import Figure, Figures, Option, Phone, Secrets, Shown
from box.games.kit import read_options
from box.words import Word

BUST_OVER = 200
GRAVEYARD_SLOTS = 4

OPTIONS = (
    Option(
        "target", "Celebrities to win", "13", low=1, high=108, short="To win",
        help="The game ends the moment a player owns this many celebrities.",
    ),
    Option(
        "ties", "Equal ages in order", "either", ("either", "strict"), short="Equal ages",
        help="Whether two equal ages side by side still count as youngest to oldest (either) or not (strict).",
    ),
    Option(
        "order_bonus_min", "Cards for order bonus", "2", low=1, high=20, short="Order bonus",
        help="How many cards a round's reveal needs, youngest to oldest, to earn a bonus card.",
    ),
    Option(
        "high_tie", "Tie for high total", "all", ("all", "none"), short="High tie",
        help="Whether every player tied for the round's highest total kept takes a bonus card, or none does.",
    ),
)
FIGURES = (Figure("celebrities", "celebrities"), Figure("busts", "busts"))
PHONE = Phone("hands", counts=(Shown("celebrities", "celebrities"),), marks=(Shown("stuck", "stuck"),), limit=BUST_OVER)
SECRETS = Secrets()  # every card lies face up (the Graveyard, each pile); the deck's top card the box never knows


class Phase(Word):
    PLAY = "play"  # twist or stick
    REVEAL = "reveal"  # a player taps their round's cards, youngest first
    BONUS = "bonus"  # a player taps the bonus card they took from the graveyard
    OVER = "over"


@dataclass(frozen=True)
class HouseRules:
    """The options of a game, parsed."""

    target: int = 13
    strict_ties: bool = False
    order_bonus_min: int = 2
    high_tie_all: bool = True

    @classmethod
    def from_options(cls, options: Mapping[str, str]) -> HouseRules:
        chosen = read_options(OPTIONS, options)
        return cls(
            target=int(chosen["target"]),
            strict_ties=chosen["ties"] == "strict",
            order_bonus_min=int(chosen["order_bonus_min"]),
            high_tie_all=chosen["high_tie"] == "all",
        )


@dataclass(frozen=True)
class Result:
    """One player's end of round: total age, bust, order bonus earned, bonus cards taken."""

    total: int
    bust: bool
    order_ok: bool
    bonus: int = 0


@dataclass(frozen=True)
class State:
    """One moment of a game. Tuples indexed by seat; `seat` is the player the box waits for.

    `results` holds the round being scored, or the last round's during play.
    `owed` lists the seats still owed a bonus card, `graveyard` how many cards
    are left in the graveyard for bonuses while scoring.
    """

    players: tuple[str, ...]
    deck: Deck = field(repr=False)
    house: HouseRules
    owned: tuple[tuple[str, ...], ...]
    taken: tuple[tuple[str, ...], ...]
    stuck: tuple[bool, ...]
    results: tuple[Result | None, ...]
    busts: tuple[int, ...]  # the rounds each seat went bust
    phase: Phase = Phase.PLAY
    round: int = 1
    first: int = 0
    seat: int = 0
    revealed: tuple[str, ...] = ()
    owed: tuple[int, ...] = ()
    graveyard: int = 0
    high_bonus_done: bool = False
    winner: int | None = None
    notice: str = ""


def dump(state: State) -> dict[str, Any]:
    """JSON-ready keys; see docs/games/dead-set.md."""
    over = state.phase is Phase.OVER
    return {
        "current_player": None if over else state.players[state.seat],
        "over": over,
        "winners": [] if state.winner is None else [state.players[state.winner]],
        "phase": state.phase.value,
        "round": state.round,
        "celebrities": {name: len(cards) for name, cards in zip(state.players, state.owned, strict=True)},
        "round_cards": {name: list(cards) for name, cards in zip(state.players, state.taken, strict=True)},
        "stuck": [name for name, stuck in zip(state.players, state.stuck, strict=True) if stuck],
        "last_round": {
            name: {"total": r.total, "bust": r.bust, "order_ok": r.order_ok, "bonus": r.bonus}
            for name, r in zip(state.players, state.results, strict=True)
            if r is not None
        },
    }


def figures_of(state: State) -> Figures:
    """Each player's celebrities owned and rounds gone bust (FIGURES)."""
    return {
        name: {"celebrities": len(owned), "busts": busts}
        for name, owned, busts in zip(state.players, state.owned, state.busts, strict=True)
    }
