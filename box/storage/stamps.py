"""How the journal and the history write a date, and the names of the clock it came from
(box/base/wallclock.py decides which clock that is).

>>> stamp_time("2026-12-03 21:00:07") - stamp_time("2026-12-03 21:00"), stamp_time("soon")
(7.0, None)
"""

from __future__ import annotations

import time

NETWORK, PHONE, UNSYNCHRONISED = "network", "phone", "unsynchronised"
STAMP = "%Y-%m-%d %H:%M:%S"  # local time, to the second
MINUTES = "%Y-%m-%d %H:%M"  # how they wrote it before: to the minute (older journals and history lines)


def stamp_time(written: str) -> float | None:
    """Seconds since the epoch of a date as the journal wrote it, to the second or (older) to the
    minute; None for anything else."""
    for form in (STAMP, MINUTES):
        try:
            return time.mktime(time.strptime(written, form))
        except ValueError:
            continue
    return None
