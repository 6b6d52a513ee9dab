"""The two tools available from any screen: the dice and the shot timer.

Both are plain objects driven by explicit times, so tests run them on a fake
clock. The dice take their randomness from a source given to them: the
operating system's (`random.SystemRandom`) on a box, a seeded generator or a script's
`dice A B` in the simulator.

>>> DiceCup.seeded(1).throw()
(2, 5)
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING

from box.base.timer import ShotTimer
from box.events import ChugTimed, TimerDone
from box.games.base import View
from box.screens.protocol import BaseScreen
from box.words import PressKind, Sound

if TYPE_CHECKING:
    from box.screens.protocol import Host
    from box.storage.journal import Journal

Dice = tuple[int, int]


_OS_RANDOM = random.SystemRandom()  # what `secrets` uses, without its hmac/OpenSSL imports at start


def fair_die() -> int:
    """One die from the OS's random source (`os.urandom`); `randint` rejects instead of taking a modulo."""
    return _OS_RANDOM.randint(1, 6)


class DiceCup:
    """Throws two dice: queued results first (a script's `dice A B`), else the random source."""

    def __init__(self, die: Callable[[], int] = fair_die):
        self.die = die
        self.queued: deque[Dice] = deque()

    @classmethod
    def seeded(cls, seed: int) -> DiceCup:
        generator = random.Random(seed)
        return cls(lambda: generator.randint(1, 6))

    def queue(self, a: int, b: int) -> None:
        if not (1 <= a <= 6 and 1 <= b <= 6):
            raise ValueError(f"dice must be 1 to 6, not {a} {b}")
        self.queued.append((a, b))

    def throw(self) -> Dice:
        return self.queued.popleft() if self.queued else (self.die(), self.die())


class TimerScreen(BaseScreen):
    """The shot timer's screens: choose, set the countdown, run it, or time a chug.

    A finished chug's time goes to `on_chug` (the Box journals the best); BACK leaves.

    >>> chugs = []
    >>> screen = TimerScreen(ShotTimer(), on_chug=lambda seconds, now: chugs.append(seconds))
    >>> screen.press("down", PressKind.SHORT, 0.0); screen.press("ok", PressKind.SHORT, 0.0)  # the chug stopwatch
    >>> screen.press("ok", PressKind.SHORT, 4.25); chugs
    [4.25]
    """

    name = "timer"
    STEP = 5  # seconds per UP/DOWN when setting the countdown
    LONGEST = 600
    REFRESH = 0.1  # a running timer redraws ten times a second

    def __init__(self, timer: ShotTimer, on_chug: Callable[[float, float], None] | None = None):
        super().__init__()
        self.timer = timer
        self.on_chug = on_chug
        self.mode = "choose"  # choose, set, countdown, stopwatch
        self.cursor = 0
        self.seconds = 30

    def press(self, button: str, kind: PressKind, now: float) -> None:
        if self.mode == "choose":
            if button in ("up", "down"):
                self.cursor = 1 - self.cursor
            elif button == "back":
                self.closed = True
            elif button == "ok" and self.cursor == 0:
                self.mode = "set"
            elif button == "ok":
                self.start_chug(now)
        elif self.mode == "set":
            if button in ("up", "down"):
                step = self.STEP if button == "up" else -self.STEP
                self.seconds = min(max(self.seconds + step, self.STEP), self.LONGEST)
            elif button == "ok":
                self.start_countdown(self.seconds, now)
            elif button == "back":
                self.mode = "choose"
        elif self.mode == "countdown":
            if button in ("ok", "back"):
                self.timer.stop(now)
                self.mode, self.closed = "set", button == "back"
        elif button == "ok" and self.timer.state == "stopwatch":
            chug = self.timer.stop(now)
            if chug is not None and self.on_chug is not None:
                self.on_chug(chug, now)
        elif button == "ok":
            self.timer.start_stopwatch(now)
        elif button == "back":
            self.timer.stop(now, keep=False)  # walking away is not a chug
            self.closed = True

    def start_chug(self, now: float) -> None:
        self.mode = "stopwatch"
        self.timer.start_stopwatch(now)

    def start_countdown(self, seconds: int, now: float) -> None:
        self.mode, self.seconds = "countdown", seconds
        self.timer.start_countdown(seconds, now)

    def running(self) -> bool:
        return self.timer.state in ("countdown", "stopwatch")

    def next_deadline(self, now: float) -> float | None:
        return now + self.REFRESH if self.running() else None

    def view(self, now: float) -> View:
        timer = self.timer
        best = f"Best chug: {timer.best_chug:.2f} s" if timer.best_chug is not None else "Best chug: -"
        if self.mode == "choose":
            return View("Shot timer", (f"Countdown {self.seconds} s", "Chug stopwatch", best), self.cursor)
        if self.mode == "set":
            return View("Countdown", (f"< {self.seconds} s >", "UP/DOWN: 5 s steps", "OK: start"))
        if self.mode == "countdown":
            if timer.state == "done":
                return View("Countdown", ("", "OK: again  BACK: close"), big="TIME!")
            return View("Countdown", ("seconds left", "OK: again  BACK: close"), big=f"{timer.remaining(now):.1f}")
        state = "running" if timer.state == "stopwatch" else "OK: start"
        return View("Chug stopwatch", (f"{timer.running_time(now):6.2f} s", state, best))


class ShotTimerTool:
    """The box's one shot timer: opened by a long ROLL or a game's step; the best chug kept in the journal.

    One part of the Box (box/core/service.py): it lets the timer's time pass (its ticks and end are
    sounds, its end and each chug are events).
    """

    JOURNAL_KEY = "best_chug"

    def __init__(self, journal: Journal, host: Host):
        self.journal, self.host = journal, host
        self.timer = ShotTimer(best_chug=journal.get(self.JOURNAL_KEY, kind=(int, float)))

    def open(self) -> TimerScreen:
        screen = TimerScreen(self.timer, on_chug=self.chugged)
        self.host.push(screen)
        return screen

    def chugged(self, seconds: float, now: float) -> None:
        """A chug timed: the best kept (journaled), the time said."""
        best = self.journal.get(self.JOURNAL_KEY, kind=(int, float))
        self.journal.put(self.JOURNAL_KEY, self.timer.best_chug)
        self.host.say(f"Chug: {seconds:.2f} s", now)
        self.host.play(Sound.END)
        self.host.publish(ChugTimed(seconds, best is None or seconds < best))

    def advance(self, now: float) -> None:
        for sound in self.timer.advance(now):
            self.host.play(sound)
            if sound == Sound.END:
                self.host.publish(TimerDone(self.timer.duration))

    def next_deadline(self) -> float | None:
        return self.timer.next_deadline()
