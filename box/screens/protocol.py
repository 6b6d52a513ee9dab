"""The one screen protocol: every screen the box shows answers these few calls.

The Box keeps a stack of screens (the menu or a tool at the bottom, a game above it,
pickers, confirmations and the shot timer on top) and gives each input to the top one,
keeping for itself only what cuts across all of them: notices, the unknown-card flash,
the dice, the power combination and undo. A screen is told about inputs with the time
they happened and answers with its `view` (or a ready-made `image`) and its sounds.

A screen is a plain object: no threads, no clock, no hardware. It reaches the Box
through the `Host` it is given (to open another screen, say something, journal a value).

>>> screen = BaseScreen()
>>> screen.press("back", PressKind.SHORT, now=0.0); screen.closed
True
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Protocol

from box.words import PressKind, Sound

if TYPE_CHECKING:
    from PIL import Image

    from box.events import Event
    from box.games.base import View
    from box.messages import CardWritten, WriteCard

log = logging.getLogger(__name__)

Card = tuple[str, str]  # (game, card id), as the tag map knows it


class Screen(Protocol):
    """What the Box and the loop need of every screen.

    `global_keys`: the Box keeps a long BACK (its menu), ROLL (the dice) and a long ROLL
    (the shot timer) for itself while this screen is on top; False gives the screen every
    press (pickers, confirmations, tools that test the buttons). `raw_tags`: the screen
    takes every tag as it is (the self-test, enrolment); otherwise the Box answers tags
    left lying and unknown tags itself and gives the screen only known cards.
    """

    name: str  # the screen's name in the state dump
    closed: bool
    global_keys: bool
    raw_tags: bool

    def press(self, button: str, kind: PressKind, now: float) -> None: ...

    def edge(self, button: str, pressed: bool, now: float) -> None: ...

    def tag(self, reader: str, uid: bytes, card: Card | None, now: float) -> None: ...

    def reader_status(self, reader: str, online: bool, message: str, now: float) -> None: ...

    def card_written(self, result: CardWritten, now: float) -> None: ...

    def wants_roll(self) -> bool: ...

    def roll(self, dice: tuple[int, int], now: float) -> None: ...

    def advance(self, now: float) -> None: ...

    def next_deadline(self, now: float) -> float | None: ...

    def take_sounds(self) -> list[Sound]: ...

    def view(self, now: float) -> View: ...

    def image(self, now: float) -> Image.Image | None: ...

    def dump(self) -> dict[str, Any]: ...


class Host(Protocol):
    """What a screen, and each part of the Box (box/parts/lobby.py, box/parts/seating.py...), may ask of the Box.

    Open a screen, say something on the bottom line, refuse an input (said, with the error
    sound), play a sound, publish what happened (box/events.py), refuse a card the screen on
    top cannot take, hand a card record's write to the readers.
    """

    def push(self, screen: Screen) -> None: ...

    def say(self, text: str, now: float, seconds: float = ...) -> None: ...

    def reject(self, reason: str, now: float) -> None: ...

    def play(self, sound: Sound) -> None: ...

    def publish(self, event: Event) -> None: ...

    def refuse_card(self, card: Card | None, now: float) -> None: ...

    def request_write(self, request: WriteCard) -> bool: ...


class StackHost(Host, Protocol):
    """A host whose parts also look at the screen on top of its stack (the seats, the readers' watch)."""

    @property
    def top(self) -> Screen: ...


class BaseScreen:
    """Defaults for the calls a screen does not care about; `play` queues a sound."""

    name = "screen"
    global_keys = False
    raw_tags = False

    def __init__(self) -> None:
        self.closed = False
        self._sounds: list[Sound] = []
        self.host: Host | None = None  # set by the Box when the screen is pushed

    def play(self, sound: Sound) -> None:
        self._sounds.append(sound)

    def press(self, button: str, kind: PressKind, now: float) -> None:
        """BACK closes by default."""
        if button == "back":
            self.closed = True

    def edge(self, button: str, pressed: bool, now: float) -> None:
        """A raw level change; only the self-test shows buttons held down."""

    def tag(self, reader: str, uid: bytes, card: Card | None, now: float) -> None:
        """A known card laid on a reader while this screen is up: refused, saying why."""
        assert self.host is not None
        self.host.refuse_card(card, now)

    def reader_status(self, reader: str, online: bool, message: str, now: float) -> None:
        """The Box shows readers going off and coming back; tools may show more."""

    def card_written(self, result: CardWritten, now: float) -> None:
        """The readers' answer to a write this screen asked for (enrolment): others asked none,
        so the answer came after the screen that asked had closed."""
        log.info("a card write answered after its screen closed: %s", result)

    def wants_roll(self) -> bool:
        return False

    def roll(self, dice: tuple[int, int], now: float) -> None:
        """The game's own dice (only called while `wants_roll`)."""

    def advance(self, now: float) -> None:
        """Let time pass."""

    def next_deadline(self, now: float) -> float | None:
        return None

    def take_sounds(self) -> list[Sound]:
        sounds, self._sounds = self._sounds, []
        return sounds

    def image(self, now: float) -> Image.Image | None:
        """A ready-made frame instead of the rendered `view` (test patterns, progress bars)."""
        return None

    def dump(self) -> dict[str, Any]:
        """Keys this screen adds to the state dump."""
        return {}
