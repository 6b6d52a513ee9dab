"""The contract every game follows: pure rules over the box's physical inputs.

A game is a package (docs/games/writing-a-game.md) whose `RULES` satisfies `Rules`: besides its
functions it declares what the rest of the box needs of it (its title, its `Option`s with their
labels, its per-player `Figure`s and what the phone page draws, `Phone`), so nothing outside
`box/games/` names a game, a title or a figure. Its state
is an immutable value (frozen dataclasses, tuples, frozen mappings); `apply`
never mutates the state it is given, uses no clock, thread, hardware or
randomness, and answers either a `Step` (the new state and its effects) or a
`Rejected` with a reason a player can read on the OLED (<= ~40 characters is
best, it is wrapped over two lines).

The service owns everything around the game: it resolves a tag to a card id of
the running game's deck (unknown tags and cards of other games never reach the
game), throws the dice when ROLL is pressed and `wants_roll` is true, and keeps
these inputs for itself: a long press of BACK (undo), a long press of ROLL (the
shot timer), BACK+OK held together (power off). Every other press reaches the
game.

Example, a one-action game:

>>> step = Step(state=1, sounds=(Sound.RIGHT,))
>>> step.sounds == ('right',)
True
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, Literal, NamedTuple, Protocol, TypeVar

from box.decks.codec import Deck
from box.events import Event
from box.words import BUTTONS as BUTTONS
from box.words import READERS as READERS
from box.words import Sound as Sound

S = TypeVar("S")  # a game's state type

@dataclass(frozen=True)
class Press:
    """A button pressed and released: `long` after >= 1 s held."""

    button: str  # one of BUTTONS
    long: bool = False


@dataclass(frozen=True)
class Tap:
    """A card laid on a reader. `card` is an id of the running game's deck."""

    reader: str  # one of READERS
    card: str


@dataclass(frozen=True)
class Roll:
    """Two dice thrown by the box for the game (only sent while `wants_roll`)."""

    dice: tuple[int, int]


Action = Press | Tap | Roll


@dataclass(frozen=True)
class View:
    """What the OLED shows: a title bar, up to five text lines, an optional highlight.

    The title and the lines are 21 characters wide. A value is never cut: a line holding one is
    made to fit (the kit's `short_name`, a short label); only free text (a card's name, a list of
    names) may be longer, on a line listed in `scrolling`: it scrolls through its row, and so does
    the highlighted line. `cursor` highlights one line (inverted). `dice` draws two dice with pips
    instead of the lines. `big` is a short text (a countdown's seconds) drawn large above the
    lines. `notice` is a short message (the last rejection or result) on the bottom line.
    """

    title: str
    lines: tuple[str, ...] = ()
    cursor: int | None = None
    dice: tuple[int, int] | None = None
    notice: str = ""
    big: str = ""
    scrolling: tuple[int, ...] = ()  # the indices of `lines` holding free text


@dataclass(frozen=True)
class Chug:
    """Ask the box's shot timer for the chug stopwatch."""


class Countdown(NamedTuple):
    """Ask the box's shot timer for a countdown of `seconds`."""

    seconds: int


TimerRequest = Chug | Countdown


@dataclass(frozen=True)
class Step(Generic[S]):
    """An accepted action: the new state and what the box should do about it.

    `timer` asks the box's shot timer to start (`Chug()` or `Countdown(30)`).
    """

    state: S
    sounds: tuple[str, ...] = ()
    timer: TimerRequest | None = None


class Rejected(NamedTuple):
    """An illegal action: nothing changes; the reason is shown and the error sound plays."""

    reason: str


@dataclass(frozen=True)
class Option:
    """A variant or house rule, offered in the menu and as `key=value` in scripts.

    `choices` lists the allowed values; an empty tuple means a whole number in
    [low, high]. `label` is the long label (the phone page's roster), `short` the one the
    box's setup shows with the value on one line of 21 characters (`label` where none is
    given), `help` one sentence saying what the option does.

    >>> Option("target", "Celebrities to win", "13", low=1, high=108, short="To win").short
    'To win'
    >>> Option("ties", "Ties", "either", ("either", "strict")).short
    'Ties'
    """

    key: str
    label: str
    default: str
    choices: tuple[str, ...] = ()
    low: int = 0
    high: int = 0
    short: str = ""
    help: str = ""

    def __post_init__(self) -> None:
        if not self.short:
            object.__setattr__(self, "short", self.label)

    def parse(self, text: str) -> str:
        """The canonical value for `text`, or raise ValueError naming the allowed ones."""
        if self.choices:
            if text not in self.choices:
                raise ValueError(f"{self.key} must be one of {', '.join(self.choices)}, not {text!r}")
            return text
        try:
            number = int(text)
        except ValueError:
            raise ValueError(f"{self.key} must be a whole number, not {text!r}") from None
        if not self.low <= number <= self.high:
            raise ValueError(f"{self.key} must be between {self.low} and {self.high}, not {number}")
        return str(number)


@dataclass(frozen=True)
class Setup:
    """How a game starts: the players in seating order and the chosen options."""

    players: tuple[str, ...]
    options: Mapping[str, str] = field(default_factory=dict)


Adds = Literal["sum", "max", "min"]
_ADDING: dict[str, Callable[[int, int], int]] = {"sum": lambda a, b: a + b, "max": max, "min": min}

Figures = dict[str, dict[str, int]]
"""Each player's figures at a moment of a game: player -> figure key -> value."""


@dataclass(frozen=True)
class Figure:
    """A number a game keeps for each player, shown in the history and a player's stats.

    `key` names it in `figures_of`, `label` heads its column, `adds` says how one player's
    values add up across games: "sum", "max" (the best is the highest) or "min".

    >>> Figure("laps", "laps").add(3, 4), Figure("fastest", "fastest lap", "min").add(3, 4)
    (7, 3)
    """

    key: str
    label: str
    adds: Adds = "sum"
    fewest_lead: bool = False  # in play, who has the fewest leads (penalties), not the most (the home's leader)

    def add(self, total: int, value: int) -> int:
        """`total` so far with one more game's `value`."""
        return _ADDING[self.adds](total, value)


@dataclass(frozen=True)
class Shown:
    """One thing the phone page shows beside each player: the state dump's `key`, and its label."""

    key: str
    label: str


@dataclass(frozen=True)
class Column:
    """A column of cards a picture draws: its key in the dump's `columns`, its label, and the field
    of a placed card's deck record that the column reveals (a date, a life span).

    >>> Column("birth", "Birth", "born").reveals
    'born'
    """

    key: str
    label: str
    reveals: str


@dataclass(frozen=True)
class Phone:
    """What the phone page's Now draws of a game in play, from its state dump, and what it may do.

    Beside each player: each of `counts` (a dump key holding {player: number}) with its label,
    and the label of each of `marks` (a dump key listing players) that lists the player. Below
    the players, the picture `picture` names ("columns", "hands", "mooks", "board": the page's
    template `_picture_<picture>.html`), drawn from the game's own dump keys. What a picture knows
    of the game comes from here too: `columns`, left to right as the box's screens list them, and
    `limit`, the total a player's cards may reach without going bust (0: none). `ends_with`: the
    presses that end a session which ends only when the table says so (a long OK, then OK on the
    game's question): a paired phone's *End the session* plays them as if pressed on the box.

    >>> Phone("board", counts=(Shown("laps", "laps"),)).counts[0].label
    'laps'
    """

    picture: str
    counts: tuple[Shown, ...] = ()
    marks: tuple[Shown, ...] = ()
    columns: tuple[Column, ...] = ()
    limit: int = 0
    ends_with: tuple[Press, ...] = ()


def open_dump(dump: dict[str, Any]) -> dict[str, Any]:
    """A game with nothing face down: its whole dump is the table's."""
    return dump


@dataclass(frozen=True)
class Secrets:
    """What of a game the table may not see, declared once by the game: `kept` says it in a player's
    words ("" when every card the box knows lies face up), `hide` takes it out of a state dump. Every
    reader of the state goes through `hide` (`Rules.public`): the dump the box publishes on its control
    socket (the page, `gravebox mqtt`), the page's own rebuild of a game, so the history and exports too.

    >>> Secrets().hide({"card": "x"}), Secrets("a face-down card", lambda dump: {}).hide({"card": "x"})
    ({'card': 'x'}, {})
    """

    kept: str = ""
    hide: Callable[[dict[str, Any]], dict[str, Any]] = open_dump


class Rules(Protocol[S]):
    """What the box needs of a game package's `RULES`; `S` is the game's state type."""

    name: str  # "deadlines", "dead-set", "dead-fellas", "deck-of-death"
    title: str  # as shown in the menu (box.games.TITLES)
    min_players: int
    max_players: int
    options: tuple[Option, ...]
    figures: tuple[Figure, ...]  # what `figures_of` counts for each player, in the history's order
    phone: Phone  # what the phone page draws of a game in play
    secrets: Secrets  # what the table may not see of the game's state dump

    def load_deck(self, directory: Path | str | None = None) -> Deck:
        """The game's deck from `<directory>/<name>.csv`, or the built-in one."""

    def new(self, setup: Setup, deck: Deck) -> S:
        """The first state of a game; options are already validated and complete."""

    def apply(self, state: S, action: Action) -> Step[S] | Rejected:
        """The pure transition."""

    def wants_roll(self, state: S) -> bool:
        """True while the next ROLL press throws the game's own dice."""

    def secret(self, state: S, card: str) -> bool:
        """True for a card of the game in play that the shared screen must not name (a secret recruit)."""

    def describe(self, before: S | None, action: Action, after: S) -> str | None:
        """What `action` did, for the undo label ("Ann sticks"), or None to let the box say the action."""

    def events(self, before: S, after: S) -> tuple[Event, ...]:
        """The game's own moments an action made, from the states around it (box/events.py)."""

    def is_over(self, state: S) -> bool:
        """True once the game has ended (it then accepts nothing but scrolling)."""

    def view(self, state: S) -> View:
        """The screen for this state."""

    def dump(self, state: S) -> dict[str, Any]:
        """JSON-ready keys: `current_player`, `over`, `winners` and the game's own keys."""

    def public(self, state: S) -> dict[str, Any]:
        """The dump as the table may see it: `secrets` taken out. What leaves the box's loop."""

    def figures_of(self, state: S) -> Figures:
        """Each player's value of every declared figure, in `figures` order: {player: {key: value}}."""
