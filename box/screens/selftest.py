"""The self-test: is every button, reader, the display and the buzzer wired right?

Two ways in, one screen. `SelfTest` is a screen (box/screens/protocol.py) the Box shows from its
menu or, for `gravebox selftest` (box/cli/selftest.py), as the root of its stack:
presses, tags, reader status and time in; a `View`, a test-pattern image and sounds out.

>>> test = SelfTest({"left": "/dev/gravebox-left"}, now=0.0)
>>> test.press("ok", "long", now=1.0)
>>> test.view(1.0).title, test.view(1.0).lines[0]
('Self-test: OK long', '.. .. OK+ .. ..')
>>> test.problems()[0]
'button up: not pressed yet'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from box.games.base import View
from box.screens.protocol import BaseScreen, Card
from box.words import BUTTONS, LINE_CHARS, SCREEN_HEIGHT, SCREEN_WIDTH, Sound

if TYPE_CHECKING:
    from PIL import Image

SOUNDS = tuple(Sound)  # every sound, in order
LABELS = {"up": "UP", "down": "DN", "ok": "OK", "back": "BK", "roll": "RL"}
KINDS = ("short", "long", "repeat", "combo")
PATTERN_SECONDS = 3.0  # the test patterns show this long when the self-test opens (half each)
SOUND_EVERY = 2.0  # seconds from one test sound to the next (the longest melody lasts ~1.3 s)
IDLE_EXIT = 300.0  # with no input for this long the self-test closes (a dead BACK button can't trap it)
WIDTH, HEIGHT = SCREEN_WIDTH, SCREEN_HEIGHT


@dataclass
class ReaderCheck:
    """What the self-test knows of one reader: None online means not heard from yet."""

    port: str
    online: bool | None = None
    message: str = ""
    last_uid: bytes | None = None
    cards: int = 0


def pattern_image(kind: str = "grid") -> Image.Image:
    """A 128x64 test pattern: "full" lights every pixel (dead pixels show),
    "grid" is a border, a one-pixel checkerboard and diagonals (a shifted or
    wrong-controller panel loses the border or tears the diagonals).

    >>> image = pattern_image("full")
    >>> image.size, image.mode, image.getbbox()
    ((128, 64), '1', (0, 0, 128, 64))
    """
    from PIL import Image, ImageDraw

    if kind == "full":
        return Image.new("1", (WIDTH, HEIGHT), 1)
    if kind != "grid":
        raise ValueError(f"pattern must be 'full' or 'grid', not {kind!r}")
    image = Image.new("1", (WIDTH, HEIGHT), 0)
    pixels = image.load()
    assert pixels is not None  # a new image has its pixels in memory
    for y in range(16, HEIGHT - 16):  # a checkerboard band across the middle
        for x in range(16, WIDTH - 16):
            pixels[x, y] = (x + y) % 2
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, WIDTH - 1, HEIGHT - 1), outline=1)
    draw.line((0, 0, WIDTH - 1, HEIGHT - 1), fill=1)
    draw.line((0, HEIGHT - 1, WIDTH - 1, 0), fill=1)
    draw.rectangle((2, 2, 13, 13), fill=1)  # a solid corner block: top-left is where it should be
    return image


class SelfTest(BaseScreen):
    """The self-test screen: buttons seen, each reader's status and last tag, the sound playing.

    Every button is under test, so only a long BACK leaves (or `IDLE_EXIT`
    seconds without any input); the box keeps BACK+OK (power off) for itself.
    The first `PATTERN_SECONDS` show test patterns (`image`), then the status
    screen (`view`); from then on the sounds play in turn, one every `SOUND_EVERY`.

    >>> test = SelfTest({"middle": "/dev/gravebox-middle"}, now=0.0)
    >>> msg = "reader middle: no answer on /dev/gravebox-middle: is its switch on HSU?"
    >>> test.reader_status("middle", False, msg, now=1.0)
    >>> msg in test.problems()
    True
    """

    name = "selftest"
    raw_tags = True  # every tag is under test: shown by its UID

    def __init__(
        self,
        readers: Mapping[str, str],
        now: float,
        buttons: Sequence[str] = BUTTONS,
        offline: Mapping[str, str] | None = None,
        assume_online: bool = False,
        sound_every: float = SOUND_EVERY,
        pattern_seconds: float = PATTERN_SECONDS,
    ):
        """`readers` maps each reader to its port ("" when unknown). `offline` gives the
        readers known to be off (with their message); with `assume_online` the others are
        taken as answering (the box's readers report only changes)."""
        super().__init__()
        self.opened = now
        self.buttons = tuple(buttons)
        self.seen: dict[str, set[str]] = {button: set() for button in self.buttons}
        self.held: set[str] = set()
        self.last_press: tuple[str, str] | None = None
        self.readers = {name: ReaderCheck(port) for name, port in readers.items()}
        for name, check in self.readers.items():
            if offline and name in offline:
                check.online, check.message = False, offline[name]
            elif assume_online:
                check.online = True
        self.sound_every = sound_every
        self.pattern_seconds = pattern_seconds
        self.sounds_started = 0
        self.next_sound_at = now + pattern_seconds
        self.last_input = now
        self._messages: list[str] = []

    # ----- inputs -------------------------------------------------------------------------

    def press(self, button: str, kind: str, now: float) -> None:
        """A press from the press detector; a long BACK closes the self-test."""
        if kind not in KINDS:
            raise ValueError(f"press kind must be one of {', '.join(KINDS)}, not {kind!r}")
        self.last_input = now
        if kind == "combo":
            self._messages.append("buttons back+ok: held together")
            for button_name in ("back", "ok"):
                if button_name in self.seen:
                    self.seen[button_name].add("combo")
            return
        if button not in self.seen:
            raise ValueError(f"unknown button {button!r}; buttons are {', '.join(self.seen)}")
        first = not self.seen[button]
        self.seen[button].add(kind)
        self.last_press = (button, kind)
        if first or kind != "repeat":
            self._messages.append(f"button {button}: {kind} press")
        if button == "back" and kind == "long":
            self.closed = True

    def edge(self, button: str, pressed: bool, now: float) -> None:
        """A raw edge (optional): the title shows a button while it is held down."""
        self.last_input = now
        if pressed:
            self.held.add(button)
        else:
            self.held.discard(button)

    def tag(self, reader: str, uid: bytes, card: Card | None, now: float) -> None:
        """A tag laid on a reader: the reader answers, and its UID is shown."""
        check = self._reader(reader)
        self.last_input = now
        check.online, check.last_uid = True, uid
        check.cards += 1
        self._messages.append(f"reader {reader}: card {uid.hex()}")

    def reader_status(self, reader: str, online: bool, message: str, now: float) -> None:
        """A reader came online or went offline (the message names its port and what to check)."""
        check = self._reader(reader)
        check.online, check.message = online, message
        self._messages.append(message if message else f"reader {reader}: {'online' if online else 'offline'}")

    def _reader(self, reader: str) -> ReaderCheck:
        if reader not in self.readers:
            raise ValueError(f"unknown reader {reader!r}; readers are {', '.join(self.readers)}")
        return self.readers[reader]

    # ----- time ---------------------------------------------------------------------------

    def advance(self, now: float) -> None:
        """Start the sounds that are due; close after `IDLE_EXIT` seconds without input."""
        while now >= self.next_sound_at:
            self._sounds.append(SOUNDS[self.sounds_started % len(SOUNDS)])
            self.sounds_started += 1
            self.next_sound_at += self.sound_every
        if now - self.last_input >= IDLE_EXIT:
            self.closed = True

    def next_deadline(self, now: float) -> float | None:
        """When the screen or the sounds next change by themselves."""
        deadlines = [self.next_sound_at, self.last_input + IDLE_EXIT]
        for switch in (self.opened + self.pattern_seconds / 2, self.opened + self.pattern_seconds):
            if switch > now:
                deadlines.append(switch)
        return min(deadlines)

    def take_messages(self) -> list[str]:
        """Human-readable lines about what happened since last asked (for a terminal)."""
        messages, self._messages = self._messages, []
        return messages

    # ----- output -------------------------------------------------------------------------

    @property
    def sound(self) -> str | None:
        """The sound started last, or None before the first."""
        return SOUNDS[(self.sounds_started - 1) % len(SOUNDS)] if self.sounds_started else None

    def image(self, now: float) -> Image.Image | None:
        """The test pattern while it shows, else None (render `view` instead)."""
        if now < self.opened + self.pattern_seconds / 2:
            return pattern_image("full")
        if now < self.opened + self.pattern_seconds:
            return pattern_image("grid")
        return None

    def button_line(self) -> str:
        """The buttons seen: "OK" after a short press, "OK+" after a long one, ".." not yet."""
        words = []
        for button in self.buttons:
            kinds = self.seen[button] - {"combo"}
            label = LABELS.get(button, button[:2].upper())
            words.append((label + ("+" if "long" in kinds else "")) if kinds else "..")
        return " ".join(words)

    def reader_line(self, name: str) -> str:
        """One reader: its last tag, "ready", "OFF" and why, or "waiting"."""
        check = self.readers[name]
        letter = name[:1].upper()
        if check.online is False:
            reason = check.message.split(": ", 1)[-1] if check.message else "offline"
            return f"{letter} OFF {reason}"
        if check.last_uid is not None:
            return f"{letter} {check.last_uid.hex()}"
        if check.online:
            return f"{letter} ready: tap a card"
        return f"{letter} waiting..."

    def view(self, now: float) -> View:
        """The status screen: last press, buttons, readers, sound; BACK held leaves."""
        if self.held:  # all five fit: "Held: BK DN OK RL UP"
            title = "Held: " + " ".join(LABELS.get(b, b).upper() for b in sorted(self.held))
        elif self.last_press is not None:
            button, kind = self.last_press
            title = f"Self-test: {button.upper()} {kind}"
            if len(title) > LINE_CHARS:  # "Self-test: RL repeat", not "Self-test: ROLL repea"
                title = f"Self-test: {LABELS.get(button, button)} {kind}"
        else:
            title = "Self-test: press all"
        lines = [self.button_line(), *(self.reader_line(name) for name in self.readers)]
        sound = self.sound
        lines.append(
            f"Sound {sound} {(self.sounds_started - 1) % len(SOUNDS) + 1}/{len(SOUNDS)}" if sound else "Sound: soon"
        )
        return View(title, tuple(lines[:5]), notice="Hold BACK: exit")

    def problems(self) -> list[str]:
        """What is missing or broken, each with what to check; empty when all is well."""
        found = [f"button {button}: not pressed yet" for button in self.buttons if not self.seen[button]]
        for name, check in self.readers.items():
            if check.online is False:
                found.append(check.message or f"reader {name}: offline on {check.port}")
            elif check.online is None:
                where = f" on {check.port}" if check.port else ""
                found.append(f"reader {name}: no answer yet{where}: is it plugged in, its switch on HSU?")
            elif check.last_uid is None:
                found.append(f"reader {name}: no card tapped yet")
        return found
