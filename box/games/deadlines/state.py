"""The state of a Deadlines game: options, the phase the box is in, and the table.

Every value is frozen; the rules build new states with `dataclasses.replace`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from box.decks.codec import Deck
from box.games.base import Column, Figure, Figures, Option, Phone, Secrets, Shown
from box.games.deadlines.cards import Person
from box.games.kit import read_options

COLUMNS = ("birth", "lifespan", "death")  # left to right, as the tombstones stand
COLUMN_LABELS = ("Birth", "Life span", "Death")
COLUMN_REVEALS = ("born", "lifespan", "died")  # the field of a card each column sorts by, shown once it is placed
READER_COLUMN = {"left": 0, "middle": 1, "right": 2}
PENALTY_LIMIT = 3  # out (Death Match) or lost (Til Death) at this many penalties
FIRST_GUESS = 50  # where a death-match guess starts, in years

OPTIONS = (
    Option(
        "variant", "Variant", "classic", ("classic", "short-life", "dead-end", "death-match", "til-death"),
        help="The game played: classic, A Short Life (columns of 8), Dead End, Death Match or Til Death (co-op).",
    ),
    Option(
        "streak", "After a right card", "off", ("off", "must", "may"), short="Streak",
        help="After a right card the turn passes (off), the player goes on (must) or chooses (may).",
    ),
    Option(
        "ties", "Equal dates", "either", ("either", "strict"),
        help="Whether equal dates may stand on either side of each other (either) or never (strict).",
    ),
    Option(
        "starter_counts", "Starter counts", "yes", ("yes", "no"),
        help="Whether a column's starting card counts towards the cards that close it.",
    ),
    Option(
        "reward", "Special reward", "one", ("one", "both"),
        help="A special card's reward: drop a penalty or give one (one), or drop one and give one (both).",
    ),
)
ACCURACY = tuple(f"{key}_right" for key in COLUMN_REVEALS)  # a figure a column: its placements that were right, in %
FIGURES = (
    Figure("penalties", "penalties", fewest_lead=True),
    *(Figure(key, f"% right, {label}", "max") for key, label in zip(ACCURACY, COLUMN_LABELS, strict=True)),
)
PHONE = Phone(
    "columns",
    counts=(Shown("penalties", "penalties"),),
    marks=(Shown("eliminated", "out"),),
    columns=tuple(Column(*column) for column in zip(COLUMNS, COLUMN_LABELS, COLUMN_REVEALS, strict=True)),
)

SECRETS = Secrets("a drawn card's dates until it is placed, a special card's keywords (the judge's): never in the dump")


@dataclass(frozen=True)
class Options:
    """The variant and house rules, as chosen in the menu (see RULINGS, Deadlines)."""

    variant: str = "classic"  # classic | short-life | dead-end | death-match | til-death
    streak: str = "off"  # off | must | may
    ties: str = "either"  # either | strict
    starter_counts: str = "yes"  # yes | no
    reward: str = "one"  # one | both

    @classmethod
    def from_mapping(cls, options: Mapping[str, str]) -> Options:
        return cls(**read_options(OPTIONS, options))

    @property
    def column_size(self) -> int:
        """How many cards close a column: 12, or 8 with A Short Life, plus the starter when it does not count."""
        size = 8 if self.variant == "short-life" else 12
        return size if self.starter_counts == "yes" else size + 1

    @property
    def cooperative(self) -> bool:
        return self.variant == "til-death"

    @property
    def eliminating(self) -> bool:
        return self.variant == "death-match"


# The phases: what the box waits for next.


@dataclass(frozen=True)
class Starting:
    """Waiting for the starting card of each empty column."""


@dataclass(frozen=True)
class Drawing:
    """The current player taps a card on a reader."""

    placed: int = 0  # right cards already placed this turn (a streak goes on from here)


@dataclass(frozen=True)
class Attempting:
    """A special card was tapped: does the player try the cause of death?"""

    card: str  # the special card
    column: int  # where it was tapped: 0 birth, 1 life span, 2 death
    placed: int
    choice: int = 0  # 0 yes, 1 no


@dataclass(frozen=True)
class Placing:
    """Moving the insertion cursor: the card goes before the card at `position`."""

    card: str
    column: int
    position: int
    attempt: bool  # the player tries the cause of death once the card is right
    placed: int


@dataclass(frozen=True)
class Judging:
    """The judge says whether the player named a keyword."""

    card: str
    placed: int
    choice: int = 0  # 0 yes, 1 no


@dataclass(frozen=True)
class Rewarding:
    """The player chooses a reward."""

    placed: int
    choice: int = 0  # 0 discard one of their penalties, 1 give one


@dataclass(frozen=True)
class Targeting:
    """The player picks who gets a penalty among `targets` (player indexes)."""

    placed: int
    targets: tuple[int, ...]
    from_choice: bool  # BACK returns to the reward choice
    choice: int = 0


@dataclass(frozen=True)
class Guessing:
    """The death match: `tied` players in order, `guesses` so far, the next guess being set."""

    tied: tuple[int, ...]
    guesses: tuple[int, ...]
    value: int


@dataclass(frozen=True)
class Revealing:
    """All tied players guessed: the next card is tapped to reveal its life span."""

    tied: tuple[int, ...]
    guesses: tuple[int, ...]


@dataclass(frozen=True)
class Finished:
    """The game is over."""


Phase = Starting | Drawing | Attempting | Placing | Judging | Rewarding | Targeting | Guessing | Revealing | Finished
Question = Attempting | Judging | Rewarding | Targeting  # answered by moving a cursor, then OK
QUESTIONS = (Attempting, Judging, Rewarding, Targeting)
REWARDS = (Judging, Rewarding, Targeting)  # the special card's judge and reward
ENDGAME = (Guessing, Revealing, Finished)  # the death match after a tie, and the end


@dataclass(frozen=True)
class Game:
    """A whole Deadlines game. `turn` is the current player's index in `players`."""

    deck: Deck
    players: tuple[str, ...]
    options: Options
    phase: Phase
    columns: tuple[tuple[str, ...], ...] = ((), (), ())
    penalties: tuple[int, ...] = ()
    placements: tuple[tuple[int, ...], ...] = ()  # each player's cards placed in each column, right or wrong
    right: tuple[tuple[int, ...], ...] = ()  # each player's right cards in each column
    team_penalties: int = 0
    eliminated: tuple[int, ...] = ()  # in the order they went out
    used: frozenset[str] = frozenset()  # every card tapped for good: columns, penalties, death match
    turn: int = 0
    winners: tuple[str, ...] = ()
    notice: str = ""

    def card(self, card_id: str) -> Person:
        return self.deck[card_id]

    def name(self, card_id: str) -> str:
        return self.deck.name_of(card_id)

    def closed(self, column: int) -> bool:
        return len(self.columns[column]) >= self.options.column_size

    @property
    def all_closed(self) -> bool:
        return all(self.closed(column) for column in range(len(COLUMNS)))

    @property
    def survivors(self) -> tuple[int, ...]:
        return tuple(p for p in range(len(self.players)) if p not in self.eliminated)

    @property
    def current_player(self) -> str | None:
        """Who the box waits for: the player on turn, or the death-match guesser."""
        if isinstance(self.phase, Guessing):
            return self.players[self.phase.tied[len(self.phase.guesses)]]
        if isinstance(self.phase, Starting | Revealing | Finished):
            return None
        return self.players[self.turn]


def value_of(person: Person, column: int) -> object:
    """What a column sorts by: the birth date, the life span or the death date."""
    return (person.born, person.lifespan, person.died)[column]


def dump(game: Game) -> dict[str, Any]:
    """The keys the simulator's `expect` lines check (see docs/games/deadlines.md)."""
    phase = game.phase
    guesses = (
        {game.players[p]: g for p, g in zip(phase.tied, phase.guesses)} if isinstance(phase, Guessing | Revealing) else {}
    )
    data: dict[str, Any] = {
        "current_player": game.current_player,
        "over": isinstance(phase, Finished),
        "winners": list(game.winners),
        "phase": type(phase).__name__.lower(),
        "columns": {name: list(column) for name, column in zip(COLUMNS, game.columns)},
        "closed": [name for column, name in enumerate(COLUMNS) if game.closed(column)],
        "penalties": dict(zip(game.players, game.penalties)),
        "eliminated": [game.players[p] for p in game.eliminated],
        "guesses": guesses,
    }
    if game.options.cooperative:
        data["team_penalties"] = game.team_penalties
    return data


def figures_of(game: Game) -> Figures:
    """Each player's penalties, and the share of their placements in each column that were right
    (FIGURES; 0 for a column they placed nothing in)."""
    figures: Figures = {}
    for player, name in enumerate(game.players):
        row: dict[str, int] = {"penalties": game.penalties[player]}
        for column, key in enumerate(ACCURACY):
            placed = game.placements[player][column]
            row[key] = round(100 * game.right[player][column] / placed) if placed else 0
        figures[name] = row
    return figures
