"""Tell systemd how the service is doing (sd_notify), in a few lines and without a package.

The unit is ``Type=notify`` with ``WatchdogSec=``: systemd waits for ``READY=1`` before it calls
the box started, and kills and restarts it when ``WATCHDOG=1`` stops arriving.

Rule for callers: send ``WATCHDOG=1`` from the **main loop only**, never from a helper thread.
A thread would keep pinging while the main loop hangs, and the watchdog would never fire.
:class:`WatchdogPinger` is the one object the main loop needs: call ``tick()`` every pass.

Outside systemd (``$NOTIFY_SOCKET`` unset: tests, ``gravebox sim``) every call is a cheap no-op.

>>> import os
>>> os.environ.pop("NOTIFY_SOCKET", None) and None
>>> ready()
False
"""

from __future__ import annotations

import logging
import os
import socket
import time
from collections.abc import Callable

from box.words import digits_value

log = logging.getLogger(__name__)


def notify(message: str) -> bool:
    """Send one sd_notify message; True if it was sent, False when not under systemd or on error.

    A socket error is logged as a warning (never swallowed silently) and reported as False.
    """
    path = os.environ.get("NOTIFY_SOCKET")
    if not path:
        return False
    # An abstract socket is written "@name" and addressed with a leading NUL byte.
    address = "\0" + path[1:] if path.startswith("@") else path
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            sock.connect(address)
            sock.sendall(message.encode())
    except OSError as error:
        log.warning("sd_notify %r to %s failed: %s", message, path, error)
        return False
    return True


def ready() -> bool:
    """Tell systemd that start-up is done (hardware opened, first screen drawn)."""
    return notify("READY=1")


def watchdog() -> bool:
    """Ping the watchdog. Call from the main loop only (see the module docstring)."""
    return notify("WATCHDOG=1")


def status(text: str) -> bool:
    """Show a one-line status in ``systemctl status gravebox``."""
    return notify("STATUS=" + text.replace("\n", " "))


def stopping() -> bool:
    """Tell systemd that a clean shutdown has begun."""
    return notify("STOPPING=1")


def watchdog_interval() -> float | None:
    """Seconds between pings: half of ``$WATCHDOG_USEC``, or None when there is no watchdog.

    >>> os.environ["WATCHDOG_USEC"] = "20000000"
    >>> watchdog_interval()
    10.0
    >>> del os.environ["WATCHDOG_USEC"]
    >>> watchdog_interval() is None
    True
    """
    usec = digits_value(os.environ.get("WATCHDOG_USEC"))
    pid = os.environ.get("WATCHDOG_PID", "")
    if not usec or (pid and pid != str(os.getpid())):
        return None  # no watchdog, or it watches another process
    return usec / 2_000_000


class WatchdogPinger:
    """Rate-limited watchdog pings for the main loop: ``tick()`` every pass, it pings when due.

    The clock is injectable so the timing is testable without sleeping.

    >>> os.environ["WATCHDOG_USEC"] = "2000000"
    >>> pinger = WatchdogPinger(clock=lambda: 5.0)
    >>> pinger.interval
    1.0
    >>> del os.environ["WATCHDOG_USEC"]
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.interval = watchdog_interval()
        self._clock = clock
        self._last: float | None = None

    def due_in(self) -> float | None:
        """Seconds until the next ping is due (0: now), None without a watchdog: how long the loop
        may sleep, so that a ping is never one sleep late."""
        if self.interval is None:
            return None
        return 0.0 if self._last is None else max(0.0, self._last + self.interval - self._clock())

    def tick(self) -> bool:
        """Ping if the interval has passed since the last ping; True if a ping was sent."""
        if self.interval is None:
            return False
        now = self._clock()
        if self._last is not None and now - self._last < self.interval:
            return False
        self._last = now
        return watchdog()
