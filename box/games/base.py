"""The contract every game follows: pure rules over the box's physical inputs.

A game is a package (docs/games/writing-a-game.md) whose `RULES` satisfies `Rules`. Its state
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

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, NamedTuple, Protocol, TypeVar

from box.cards import Deck
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

    Lines are about 21 characters wide; longer ones are cut (the highlighted one scrolls).
    `cursor` highlights one line (inverted). `dice` draws two dice with pips instead of the
    lines. `big` is a short text (a countdown's seconds) drawn large above the lines.
    `notice` is a short message (the last rejection or result) on the bottom line.
    """

    title: str
    lines: tuple[str, ...] = ()
    cursor: int | None = None
    dice: tuple[int, int] | None = None
    notice: str = ""
    big: str = ""


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
    [low, high].
    """

    key: str
    label: str
    default: str
    choices: tuple[str, ...] = ()
    low: int = 0
    high: int = 0

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


class Rules(Protocol[S]):
    """What the box needs of a game package's `RULES`; `S` is the game's state type."""

    name: str  # "deadlines", "dead-set", "dead-fellas", "deck-of-death"
    title: str  # as shown in the menu
    min_players: int
    max_players: int
    options: tuple[Option, ...]

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
