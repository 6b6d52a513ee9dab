"""The date the box writes on its games and history, and which clock it came from.

A Raspberry Pi has no battery clock: away from a network its system clock resumes from the last
time it was saved, so a game night at a friend's is dated days ago. The clock is `NETWORK` while
the system says it is synchronised (systemd-timesyncd's flag file, else the kernel's own state);
otherwise a paired phone that opens the page gives the box its time (`PHONE`: kept as an offset
from the system's clock, so it goes on with it); without one the date is the system's as it is
(`UNSYNCHRONISED`). The journal keeps the source beside each game's date.

>>> clock = WallClock(synchronised=lambda: False, system=lambda: 1_000_000.0)
>>> clock.source()
'unsynchronised'
>>> clock.set_from_phone(1_780_000_000_000), clock.source(), clock.now()
(True, 'phone', 1780000000.0)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from box.storage.stamps import NETWORK, PHONE, STAMP, UNSYNCHRONISED

SOURCES = (NETWORK, PHONE, UNSYNCHRONISED)
SYNC_FLAG = Path("/run/systemd/timesync/synchronized")
"""systemd-timesyncd touches it once the clock is synchronised (and it is gone after a reboot)."""
TIME_ERROR = 5  # adjtimex's answer for a clock that is not synchronised
EARLIEST, LATEST = 1_700_000_000_000, 4_102_444_800_000  # a phone's time in ms: November 2023 .. 2100
RECHECK = 60.0  # seconds between two looks at whether the system clock is synchronised
SAID = {
    NETWORK: "from the network (synchronised)",
    PHONE: "from a paired phone: the box's own clock is not synchronised",
    UNSYNCHRONISED: "not synchronised: the box dates games by its own clock until a paired phone opens this page",
}
"""Where the box's time comes from, in the owner's words (the phone page's Box)."""


def system_synchronised(flag: Path = SYNC_FLAG) -> bool:
    """Whether the system clock is synchronised: timesyncd's flag file, else the kernel's clock
    state (`adjtimex`, read only: a chrony or ntpd box has no flag file)."""
    if flag.exists():
        return True
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        state = libc.adjtimex(ctypes.create_string_buffer(512))  # a zeroed struct timex: modes 0, only read
    except (OSError, AttributeError):  # not Linux: nothing says it is
        return False
    return state not in (-1, TIME_ERROR)  # -1: not allowed to ask (a ProtectClock= sandbox): not known to be


class WallClock:
    """The box's date: the system's when synchronised, else a paired phone's, else the system's as it is.

    `synchronised` is looked at most every `RECHECK` seconds of `monotonic`."""

    def __init__(
        self,
        synchronised: Callable[[], bool] = system_synchronised,
        system: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
    ):
        self.synchronised, self.system, self.monotonic = synchronised, system, monotonic
        self.offset: float | None = None  # a phone's time minus the system's, once a phone gave it
        self._checked: tuple[float, bool] | None = None

    def _synchronised(self) -> bool:
        at = self.monotonic()
        if self._checked is None or at - self._checked[0] >= RECHECK:
            self._checked = (at, self.synchronised())
        return self._checked[1]

    def source(self) -> str:
        """Where the date comes from now: NETWORK, PHONE or UNSYNCHRONISED."""
        if self._synchronised():
            return NETWORK
        return PHONE if self.offset is not None else UNSYNCHRONISED

    def now(self) -> float:
        """Seconds since the epoch by the best clock the box has."""
        return self.system() + (self.offset if self.source() == PHONE and self.offset is not None else 0.0)

    def stamp(self) -> str:
        """The local date and time as the journal and the history write it ("2026-12-03 21:00:07")."""
        return time.strftime(STAMP, time.localtime(self.now()))

    def set_from_phone(self, epoch_ms: int) -> bool:
        """A paired phone's time (ms since the epoch); ValueError for one no phone has. False when the
        system clock is synchronised (the network's time is kept)."""
        if isinstance(epoch_ms, bool) or not isinstance(epoch_ms, int) or not EARLIEST <= epoch_ms <= LATEST:
            raise ValueError("not a phone's time")
        if self._synchronised():
            return False
        self.offset = epoch_ms / 1000 - self.system()
        return True

