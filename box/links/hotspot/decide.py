"""When the box's own Wi-Fi starts and stops: a pure function of what the network looked like and when.

- Off (the owner has not turned it on): stopped if it is up.
- The owner's network is there (a connection of the box's other than its own Wi-Fi), or a Wi-Fi
  network the box knows is in range again: stopped if up (NetworkManager then joins the known one).
- No network at all for `after` seconds, counted from the start at the earliest: started.

After a stop for a known network in range the wait starts again, so a network that is seen but
cannot be joined gives the box its own Wi-Fi back after `after` seconds, never a flapping one.

>>> decider = Decider(after=120.0, started=0.0)
>>> [decider.decide(Seen(t, online=False, known_in_range=False, up=False, wanted=True)) for t in (0.0, 60.0, 120.0)]
[None, None, 'start']
>>> decider.decide(Seen(300.0, online=False, known_in_range=True, up=True, wanted=True))
'stop'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Act = Literal["start", "stop"] | None


@dataclass(frozen=True)
class Seen:
    """One look at the network: when (monotonic seconds), and what NetworkManager said."""

    now: float
    online: bool  # a connection other than the box's own Wi-Fi is up
    known_in_range: bool  # a Wi-Fi network the box has a profile for is in range (a scan)
    up: bool  # the box's own Wi-Fi is up
    wanted: bool  # the owner turned it on (the settings, or the box menu)


class Decider:
    """Remembers since when the box has had no network; `decide` says what to do now, if anything."""

    def __init__(self, after: float, started: float):
        self.after = after
        self.offline_since: float | None = started  # counted from the start: a box just switched on waits

    def decide(self, seen: Seen) -> Act:
        if not seen.wanted:  # still counted: turned on after a long time without network, it starts at once
            if seen.online:
                self.offline_since = None
            elif self.offline_since is None:
                self.offline_since = seen.now
            return "stop" if seen.up else None
        if seen.online or (seen.up and seen.known_in_range):
            self.offline_since = None if seen.online else seen.now  # a known network seen: wait for it again
            return "stop" if seen.up else None
        if seen.up:
            return None
        if self.offline_since is None:
            self.offline_since = seen.now
        return "start" if seen.now - self.offline_since >= self.after else None
