"""`gravebox selftest`: is every button, reader, the display and the buzzer wired right?

The command puts a box together (box/core/app.py) with the self-test screen (box/screens/selftest.py)
as its root, on the real parts or, off a Pi and with `--fake`, on the simulator's. It first
checks the display (a full test pattern) and the buzzer (every sound), then runs the box's
one loop (real time on a Pi, the simulator's virtual time on fakes) until each reader has
answered, then, given `--seconds`, until every button was pressed. It prints a report and
exits 0 when every part answered, 1 otherwise (the report says what to check).
"""

from __future__ import annotations

import argparse
import logging
import sys
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from box.core.hardware import Parts
from box.screens.selftest import SOUNDS, SelfTest, pattern_image
from box.storage.pinmap import PinMap

log = logging.getLogger(__name__)

READER_SECONDS = 3.0  # how long the command waits for each reader to answer


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
    """`gravebox selftest [--fake] [--seconds N]`: check each part, print a report."""
    from box.core.hardware import HardwareError, is_raspberry_pi
    from box.storage.config import DEFAULT_CONFIG, load_config
    from box.storage.pinmap import default_pinmap_path, load_pinmap

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
    print(f"Gravebox self-test on {'simulated' if simulated else 'the real'} parts (pin map {pinmap_path})")
    try:
        runner = SimulatedRun(pinmap) if simulated else RealRun(pinmap)
    except HardwareError as problem:
        print(f"FAIL: {problem}")
        return 1
    test = runner.test
    try:
        checks = [check_display(runner.parts), check_buzzer(runner.parts, runner.clock, runner.sleep)]
        runner.run_until(lambda: all(check.online is True for check in test.readers.values()), READER_SECONDS)
        for message in test.take_messages():
            log.info("%s", message)
        if seconds > 0:
            names = ", ".join(button.upper() for button in test.buttons)
            print(
                f"Press each button ({names}), short and long, and tap a card on each reader"
                f" ({seconds:g} s; hold BACK to end)"
            )
            now = runner.clock()
            test.opened, test.next_sound_at = now, now + test.pattern_seconds  # patterns and sounds start now
            runner.run_until(lambda: all(test.seen.values()), seconds, report=print_messages(test))
    finally:
        runner.close()
    lines, failures = report(test, checks, seconds, pinmap.buttons)
    keep_report(getattr(args, "state_dir", None), lines, simulated)
    for check in lines:
        print(check.line())
    if failures:
        print(f"{len(failures)} part(s) to check:")
        for failure in failures:
            print(f"  - {failure}")
        return 1
    print("Every part answered.")
    return 0


def keep_report(state_dir: Path | None, lines: list[Check], simulated: bool) -> None:
    """Save the report as selftest.json in the state directory, for the phone page's Box page."""
    import json

    from box.storage.journal import state_directory
    from box.storage.roster import write_atomically

    folder = state_dir or state_directory()
    report = {
        "when": time.strftime("%Y-%m-%d %H:%M") + (" (simulated parts)" if simulated else ""),
        "checks": [{"part": c.part, "ok": c.ok, "detail": c.detail} for c in lines],
    }
    try:
        if folder.is_dir():
            write_atomically(folder / "selftest.json", json.dumps(report, indent=1))
    except OSError as problem:
        log.warning("self-test report not kept in %s: %s", folder, problem)


def print_messages(test: SelfTest) -> Callable[[], None]:
    def show() -> None:
        for message in test.take_messages():
            print(f"  {message}", flush=True)

    return show


class SimulatedRun:
    """The self-test on the simulator's parts and virtual time."""

    def __init__(self, pinmap: PinMap) -> None:
        import tempfile

        from box.sim.world import SimulatedBox

        self.scratch = tempfile.TemporaryDirectory(prefix="gravebox-selftest-")
        self.world = SimulatedBox(
            Path(self.scratch.name), pinmap=pinmap, root=lambda tags: SelfTest(dict(pinmap.readers), now=0.0)
        )
        self.parts = self.world.parts
        test = self.world.box.root
        assert isinstance(test, SelfTest)
        self.test = test

    def clock(self) -> float:
        return self.world.now

    def sleep(self, seconds: float) -> None:
        self.world.now += max(0.0, seconds)

    def run_until(self, done: Callable[[], bool], seconds: float, report: Callable[[], None] | None = None) -> None:
        until = self.world.now + seconds
        while self.world.now < until and not done() and not self.world.box.finished:
            self.world.advance(min(0.1, until - self.world.now))
            if report is not None:
                report()

    def close(self) -> None:
        self.world.close()
        self.scratch.cleanup()


class RealRun:
    """The self-test on the box's own parts, in real time, on the same loop as a game night."""

    def __init__(self, pinmap: PinMap) -> None:
        from box.base.settings import Settings
        from box.core.app import assemble

        self.app = assemble(
            pinmap,
            time.monotonic,
            Settings(),
            None,
            simulated=False,
            root=lambda tags: SelfTest(dict(pinmap.readers), now=time.monotonic()),
        )
        self.parts = self.app.parts
        test = self.app.box.root
        assert isinstance(test, SelfTest)
        self.test = test
        self.clock, self.sleep = time.monotonic, time.sleep

    def run_until(self, done: Callable[[], bool], seconds: float, report: Callable[[], None] | None = None) -> None:
        stop = threading.Event()

        def after_pass() -> None:
            if report is not None:
                report()
            if done():
                stop.set()

        self.app.loop.run(stop, until=time.monotonic() + seconds, after_pass=after_pass)

    def close(self) -> None:
        self.app.close()
