"""The shot timer: a countdown with ticks in its last seconds, and a stopwatch that remembers the best chug.

A plain object driven by explicit times (tests run it on a fake clock), below the screens that
show it (box/screens/tools.py) and the phone page that reads it back from the journal.

>>> timer = ShotTimer()
>>> timer.start_countdown(10, now=100.0)
>>> timer.advance(105.5)
['tick']
>>> timer.remaining(105.5)
4.5
>>> timer.advance(110.0)
['tick', 'tick', 'tick', 'tick', 'end']
"""

from __future__ import annotations

from dataclasses import dataclass

from box.words import Sound


@dataclass
class ShotTimer:
    """A countdown with ticks in its last seconds and a stopwatch that remembers the best chug.

    States: idle, countdown, stopwatch, done (a countdown that reached zero).
    """

    state: str = "idle"
    duration: float = 30.0
    started: float = 0.0
    ends: float = 0.0
    elapsed: float = 0.0
    best_chug: float | None = None
    next_tick: float | None = None

    TICKS = 5

    def start_countdown(self, seconds: float, now: float) -> None:
        self.state, self.duration, self.started, self.ends = "countdown", seconds, now, now + seconds
        self.next_tick = max(now, self.ends - self.TICKS)

    def start_stopwatch(self, now: float) -> None:
        self.state, self.started, self.elapsed, self.next_tick = "stopwatch", now, 0.0, None

    def stop(self, now: float, keep: bool = True) -> float | None:
        """Stop whatever runs; a stopped stopwatch returns its time and, if `keep`, keeps the best."""
        if self.state == "stopwatch":
            self.elapsed = round(now - self.started, 2)
            self.state = "idle"
            if keep and (self.best_chug is None or self.elapsed < self.best_chug):
                self.best_chug = self.elapsed
            return self.elapsed if keep else None
        self.state, self.next_tick = "idle", None
        return None

    def remaining(self, now: float) -> float:
        if self.state == "countdown":
            return max(0.0, round(self.ends - now, 2))
        return 0.0

    def running_time(self, now: float) -> float:
        return round(now - self.started, 2) if self.state == "stopwatch" else self.elapsed

    def advance(self, now: float) -> list[Sound]:
        """Sounds due by `now`: a tick for each of the last seconds, then the end."""
        sounds: list[Sound] = []
        if self.state != "countdown":
            return sounds
        while self.next_tick is not None and self.next_tick <= now and self.next_tick < self.ends:
            sounds.append(Sound.TICK)
            self.next_tick += 1.0
        if now >= self.ends:
            sounds.append(Sound.END)
            self.state, self.next_tick = "done", None
        return sounds

    def next_deadline(self) -> float | None:
        if self.state != "countdown":
            return None
        return min(self.next_tick, self.ends) if self.next_tick is not None else self.ends

    def dump(self, now: float) -> dict[str, object]:
        return {
            "state": self.state,
            "duration": self.duration,
            "remaining": self.remaining(now),
            "elapsed": self.running_time(now),
            "best_chug": self.best_chug,
        }
