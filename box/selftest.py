"""The self-test: is every button, reader, the display and the buzzer wired right?

Two ways in, one screen. `SelfTest` is a pure screen-state object the box
drives like its other overlays (presses, cards, reader status, time in; a
`View`, a test-pattern image and sounds out). `gravebox selftest` (`main`)
opens the parts itself, runs the automatic checks (each reader answers, the
display takes a frame, the buzzer plays every sound), then waits a while for
each button and prints a report; it exits 0 when every part answered.

`PartsDriver` runs any such tool screen on opened parts (real or simulated);
`gravebox enroll` uses it too.

>>> test = SelfTest({"left": "/dev/gravebox-left"}, now=0.0)
>>> test.press("ok", "long", now=1.0)
>>> test.view(1.0).title, test.view(1.0).lines[0]
('Self-test: OK long', '.. .. OK+ .. ..')
>>> test.problems()[0]
'button up: not pressed yet'
"""

from __future__ import annotations

import argparse
import logging
import queue
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from box.games.base import BUTTONS, Sound, View

if TYPE_CHECKING:
    from PIL import Image

    from box.hardware import Parts

log = logging.getLogger(__name__)

SOUNDS = tuple(value for key, value in vars(Sound).items() if key.isupper())  # every `Sound`, in order
LABELS = {"up": "UP", "down": "DN", "ok": "OK", "back": "BK", "roll": "RL"}
KINDS = ("short", "long", "repeat", "combo")
PATTERN_SECONDS = 3.0  # the test patterns show this long when the self-test opens (half each)
SOUND_EVERY = 2.0  # seconds from one test sound to the next (the longest melody lasts ~1.3 s)
IDLE_EXIT = 300.0  # with no input for this long the self-test closes (a dead BACK button can't trap it)
READER_SECONDS = 3.0  # how long `gravebox selftest` waits for each reader to answer
POLL_EVERY = 0.05
WIDTH, HEIGHT = 128, 64


class ToolScreen(Protocol):
    """What `PartsDriver` (and the Box, for its overlays) needs of a tool screen."""

    closed: bool

    def press(self, button: str, kind: str, now: float) -> None: ...

    def card(self, reader: str, uid: bytes, now: float) -> None: ...

    def reader_status(self, reader: str, online: bool, message: str, now: float) -> None: ...

    def advance(self, now: float) -> None: ...

    def next_deadline(self, now: float) -> float | None: ...

    def take_sounds(self) -> list[str]: ...

    def view(self, now: float) -> View: ...

    def image(self, now: float) -> Image.Image | None: ...


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
    for y in range(16, HEIGHT - 16):  # a checkerboard band across the middle
        for x in range(16, WIDTH - 16):
            pixels[x, y] = (x + y) % 2
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, WIDTH - 1, HEIGHT - 1), outline=1)
    draw.line((0, 0, WIDTH - 1, HEIGHT - 1), fill=1)
    draw.line((0, HEIGHT - 1, WIDTH - 1, 0), fill=1)
    draw.rectangle((2, 2, 13, 13), fill=1)  # a solid corner block: top-left is where it should be
    return image


class SelfTest:
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
        self.closed = False
        self._sounds: list[str] = []
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

    def card(self, reader: str, uid: bytes, now: float) -> None:
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

    def take_sounds(self) -> list[str]:
        """The sounds to play now (oldest first); the buzzer plays the last one."""
        sounds, self._sounds = self._sounds, []
        return sounds

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
        if self.held:
            title = "Self-test: " + " ".join(LABELS.get(b, b).upper() for b in sorted(self.held)) + " down"
        elif self.last_press is not None:
            button, kind = self.last_press
            title = f"Self-test: {button.upper()} {kind}"
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


# ----- running a tool screen on the parts --------------------------------------------------


class VirtualTime:
    """A clock for simulated parts: `sleep` moves time on instead of waiting."""

    def __init__(self, now: float = 0.0):
        self.now = now

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += max(0.0, seconds)


class PartsDriver:
    """Runs one tool screen on opened parts: edges and reader events in, sounds and frames out.

    Hardware threads (gpiozero's callbacks, `ReaderThread`s) only call `enqueue`;
    `process(now)` takes the events out, runs the press detector and the screen,
    plays the sounds and shows the frame when it changed. With simulated parts
    the caller polls the readers itself (`poll_readers`) on virtual time.
    """

    def __init__(self, screen: ToolScreen, clock: Callable[[], float]):
        from box.ports.buttons import PressDetector

        self.screen = screen
        self.clock = clock
        self.parts: Parts | None = None
        self.inbox: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self.detector = PressDetector()
        self.threads: list[Any] = []
        self.shown: bytes | None = None
        self.display_error: str | None = None

    def enqueue(self, event: Any) -> None:
        """Thread-safe: an `Edge` or a reader event."""
        self.inbox.put(event)

    def attach(self, parts: Parts) -> None:
        self.parts = parts

    def start_threads(self) -> None:
        """Poll each reader on its own thread (a real box: a silent reader must not stall the loop)."""
        from box.ports.nfc.reader import ReaderThread

        assert self.parts is not None
        self.threads = [ReaderThread(reader, self.enqueue) for reader in self.parts.readers.values()]
        for thread in self.threads:
            thread.start()

    def stop_threads(self) -> None:
        for thread in self.threads:
            thread.stop()
        self.threads = []

    def poll_readers(self, now: float) -> None:
        """One poll of every reader, in this thread (simulated parts, or the self-test's first check)."""
        assert self.parts is not None
        for reader in self.parts.readers.values():
            for event in reader.poll(now):
                self.enqueue(event)

    def process(self, now: float) -> None:
        """Handle what is queued and due by `now`, then play the sounds and refresh the display."""
        from box.ports.buttons import Edge
        from box.ports.nfc.reader import CardPlaced, ReaderStatus

        while True:
            try:
                event = self.inbox.get_nowait()
            except queue.Empty:
                break
            if isinstance(event, Edge):
                if hasattr(self.screen, "edge"):
                    self.screen.edge(event.button, event.pressed, event.at)
                for press in self.detector.edge(event):
                    self.screen.press(press.button, press.kind, now)
            elif isinstance(event, CardPlaced):
                self.screen.card(event.reader, event.uid, now)
            elif isinstance(event, ReaderStatus):
                self.screen.reader_status(event.reader, event.online, event.message, now)
        for press in self.detector.advance(now):
            self.screen.press(press.button, press.kind, now)
        self.screen.advance(now)
        assert self.parts is not None
        for sound in self.screen.take_sounds():
            self.parts.buzzer.play(sound, now)
        self.parts.buzzer.advance(now)
        self.refresh(now)

    def refresh(self, now: float) -> None:
        """Show the screen's frame if it differs from the one shown; a display error is kept, not raised."""
        from box.screens import render

        assert self.parts is not None
        image = self.screen.image(now) or render(self.screen.view(now))
        data = image.tobytes()
        if data == self.shown:
            return
        try:
            self.parts.display.display(image)
        except Exception as problem:  # luma's DeviceNotFoundError, OSError: report, keep going
            if self.display_error is None:
                log.warning("display: %s", problem)
            self.display_error = str(problem)
            return
        self.shown, self.display_error = data, None

    def next_wake(self, now: float, step: float = POLL_EVERY) -> float:
        """When to look again: the next deadline, at most `step` away."""
        assert self.parts is not None
        deadlines = [now + step, self.detector.next_deadline(), self.screen.next_deadline(now)]
        deadlines.append(self.parts.buzzer.next_deadline())
        return max(now, min(d for d in deadlines if d is not None))


# ----- gravebox selftest --------------------------------------------------------------------


@dataclass
class Check:
    """One line of the report: a part, whether it answered (None: not checked), and the details."""

    part: str
    ok: bool | None
    detail: str

    def line(self) -> str:
        mark = {True: "ok", False: "FAIL", None: "--"}[self.ok]
        return f"{self.part:<14} {mark:<5} {self.detail}"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `gravebox selftest`."""
    parser.add_argument("--fake", action="store_true", help="test the simulated parts (the default off a Pi)")
    parser.add_argument("--pinmap", type=Path, help="pin map file (default wiring/pinmap.toml)")
    parser.add_argument(
        "--seconds",
        type=float,
        help="how long to wait for the button presses (default 20 in a terminal on a Pi, else 0: not checked)",
    )


def check_display(parts: Parts) -> Check:
    """Push the full pattern; a dummy display must then hold exactly that frame."""
    wiring = parts.pinmap.display
    where = f"{wiring.controller} at 0x{wiring.i2c_address:02X} on I2C bus {wiring.i2c_port}"
    frame = pattern_image("full")
    try:
        parts.display.display(frame)
    except Exception as problem:  # luma raises its own errors, I2C raises OSError
        return Check("display", False, f"{where}: {problem}: check I2C (i2cdetect -y {wiring.i2c_port}) and wiring")
    shown = getattr(parts.display, "image", None)
    if shown is not None and shown.tobytes() != frame.tobytes():
        return Check("display", False, f"{where}: the frame pushed is not the frame shown")
    return Check("display", True, f"{where}: test pattern shown (every pixel lit: look for dark ones)")


def check_buzzer(parts: Parts, clock: Callable[[], float], sleep: Callable[[float], None]) -> Check:
    """Play every sound to its end; on mock pins, the buzzer pin must have sounded for each."""
    wiring = parts.pinmap.buzzer
    where = f"GPIO{wiring.pin} ({wiring.kind})"
    pin = parts.mock_factory.pin(wiring.pin) if parts.mock_factory is not None else None
    silent = []
    try:
        for sound in SOUNDS:
            parts.buzzer.play(sound, clock())
            if pin is not None and not (pin.state or getattr(pin, "frequency", None)):
                silent.append(sound)
            while (deadline := parts.buzzer.next_deadline()) is not None:
                sleep(max(0.0, deadline - clock()))
                parts.buzzer.advance(max(clock(), deadline))
    except Exception as problem:  # a GPIO error mid-melody
        return Check("buzzer", False, f"{where}: {problem}: check the pin map and its wiring")
    if silent:
        return Check("buzzer", False, f"{where}: the pin stayed silent for {', '.join(silent)}")
    return Check("buzzer", True, f"{where}: played {', '.join(SOUNDS)}")


def check_readers(
    driver: PartsDriver, test: SelfTest, clock: Callable[[], float], sleep: Callable[[float], None]
) -> None:
    """Poll the readers until each answers or `READER_SECONDS` pass (their status goes to `test`)."""
    assert driver.parts is not None
    until = clock() + READER_SECONDS
    while clock() < until and any(check.online is not True for check in test.readers.values()):
        driver.poll_readers(clock())
        driver.process(clock())
        sleep(POLL_EVERY)


def report(
    test: SelfTest, checks: list[Check], waited: float, pins: Mapping[str, int] | None = None
) -> tuple[list[Check], list[str]]:
    """The report's lines for readers and buttons, and what failed (with what to check)."""
    lines = list(checks)
    failures = [f"{check.part}: {check.detail}" for check in checks if check.ok is False]
    for name, check in test.readers.items():
        card = f", last card {check.last_uid.hex()}" if check.last_uid is not None else ""
        if check.online:
            lines.append(Check(f"reader {name}", True, (check.message or f"answers on {check.port}") + card))
        else:
            message = check.message or f"reader {name}: no answer on {check.port}: is its switch on HSU?"
            lines.append(Check(f"reader {name}", False, message))
            failures.append(message)
    for button in test.buttons:
        kinds = sorted(test.seen[button])
        if kinds:
            lines.append(Check(f"button {button}", True, "pressed: " + ", ".join(kinds)))
        elif waited > 0:
            gpio = f"GPIO{pins[button]}" if pins and button in pins else "its GPIO"
            detail = f"not pressed in {waited:g} s: check it goes between {gpio} and GND"
            lines.append(Check(f"button {button}", False, detail))
            failures.append(f"button {button}: {detail}")
        else:
            lines.append(
                Check(f"button {button}", None, "not pressed (no one to press it: run in a terminal with --seconds 20)")
            )
    return lines, failures


def main(args: argparse.Namespace) -> int:
    """`gravebox selftest`: open the parts, check each, wait for the buttons, print a report.

    Exit status 0 when every part answered, 1 otherwise (the report says what to check).
    """
    from box.config import DEFAULT_CONFIG, load_config
    from box.hardware import HardwareError, is_raspberry_pi, open_parts
    from box.pinmap import default_pinmap_path, load_pinmap

    simulated = bool(getattr(args, "fake", False)) or not is_raspberry_pi()
    config = load_config(getattr(args, "config", None) or DEFAULT_CONFIG)
    pinmap_path = getattr(args, "pinmap", None) or config.pinmap or default_pinmap_path()
    pinmap = load_pinmap(pinmap_path)
    seconds = getattr(args, "seconds", None)
    if seconds is None:
        seconds = 20.0 if not simulated and sys.stdin.isatty() else 0.0
    if seconds < 0:
        print("gravebox selftest: --seconds must be 0 or more", file=sys.stderr)
        return 2
    if simulated:
        from box.ports.nfc.simchip import register_url_handler

        register_url_handler()
        virtual = VirtualTime()
        clock, sleep = virtual.clock, virtual.sleep
    else:
        clock, sleep = time.monotonic, time.sleep
    print(f"Gravebox self-test on {'simulated' if simulated else 'the real'} parts (pin map {pinmap_path})")
    test = SelfTest(dict(pinmap.readers), now=clock(), sound_every=SOUND_EVERY)
    driver = PartsDriver(test, clock)
    try:
        parts = open_parts(pinmap, driver.enqueue, clock, simulated=simulated)
    except HardwareError as problem:
        print(f"FAIL: {problem}")
        return 1
    driver.attach(parts)
    try:
        checks = [check_display(parts), check_buzzer(parts, clock, sleep)]
        check_readers(driver, test, clock, sleep)
        for message in test.take_messages():
            log.info("%s", message)
        if seconds > 0:
            wait_for_buttons(driver, test, seconds, clock, sleep, simulated)
    finally:
        driver.stop_threads()
        parts.close()
    if driver.display_error is not None and checks[0].ok:
        checks[0] = Check("display", False, f"display failed during the test: {driver.display_error}")
    lines, failures = report(test, checks, seconds, pinmap.buttons)
    for check in lines:
        print(check.line())
    if failures:
        print(f"{len(failures)} part(s) to check:")
        for failure in failures:
            print(f"  - {failure}")
        return 1
    print("Every part answered.")
    return 0


def wait_for_buttons(
    driver: PartsDriver,
    test: SelfTest,
    seconds: float,
    clock: Callable[[], float],
    sleep: Callable[[float], None],
    simulated: bool,
) -> None:
    """Show the self-test screen and wait until every button was pressed, a long BACK, or the time is up."""
    names = ", ".join(button.upper() for button in test.buttons)
    print(
        f"Press each button ({names}), short and long, and tap a card on each reader ({seconds:g} s; hold BACK to end)"
    )
    test.opened = test.next_sound_at = clock()  # patterns and sounds start now
    test.next_sound_at += test.pattern_seconds
    if not simulated:
        driver.start_threads()
    until = clock() + seconds
    while clock() < until and not test.closed and any(not kinds for kinds in test.seen.values()):
        now = clock()
        if simulated:
            driver.poll_readers(now)
        driver.process(now)
        for message in test.take_messages():
            print(f"  {message}", flush=True)
        sleep(max(POLL_EVERY / 10, min(driver.next_wake(now), until) - clock()))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gravebox selftest", description="Check every part of the box.")
    parser.add_argument("--config", type=Path, help="settings file (default /etc/gravebox/config.toml)")
    parser.add_argument("--verbose", "-v", action="store_true", help="log more")
    add_arguments(parser)
    return parser


if __name__ == "__main__":
    from box.errors import FileProblem

    arguments = build_parser().parse_args()
    logging.basicConfig(level=logging.DEBUG if arguments.verbose else logging.WARNING)
    try:
        sys.exit(main(arguments))
    except FileProblem as problem:
        print(f"gravebox: {problem}", file=sys.stderr)
        sys.exit(2)
