"""When the service cannot start at all: the reason on the OLED, and the service stays up.

A bad settings file or pin map, a journal of a later version, storage that cannot be read:
restarting cannot mend those, and a crash loop ends in a dark box. Instead the service
opens only the display, shows the one-line reason there (wrapped), tells systemd it is
ready (with the reason as its status) and pings the watchdog until it is stopped. A fault
that may pass (the storage) is tried again every `retry` seconds.

What the panel says is drawn by `box.parts.notices.fault_view`, the same view a bad file flashes
while the box runs.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from box.links import sdnotify
from box.parts.notices import fault_view
from box.storage.pinmap import DisplayWiring

log = logging.getLogger(__name__)

PUSH_AGAIN = 60.0  # seconds: a panel that lost power gets the screen back within a minute
DEFAULT_DISPLAY = DisplayWiring(controller="ssd1306", i2c_port=1, i2c_address=0x3C)


def open_fault_display(wiring: DisplayWiring | None, simulated: bool) -> Any | None:
    """The panel alone (luma's dummy when simulated); None when it cannot be opened either."""
    from box.ports.display import open_dummy, open_oled

    try:
        if simulated:
            return open_dummy()
        wiring = wiring or DEFAULT_DISPLAY
        return open_oled(wiring.controller, wiring.i2c_port, wiring.i2c_address)
    except Exception as problem:  # no panel either: the reason is still in the log and the status
        log.error("the display cannot show the fault: %s", problem)
        return None


def stay_up_showing(
    reason: str,
    stop: threading.Event,
    display: Any | None,
    retry: Callable[[], bool] | None = None,
    every: float = 10.0,
    said: str | None = None,
) -> bool:
    """Show `reason`, be READY and ping the watchdog until `stop` is set, or until `retry()`
    (called every `every` seconds) returns True. Returns True when the fault went away.

    `said`: the reason in full for the log and `systemctl status` (a file by its whole path),
    where the panel shows the short `reason` (the file by its name).
    """
    from box.ports.display import release
    from box.screens.render import render

    log.error("cannot start: %s", said or reason)
    image = render(fault_view(reason))
    sdnotify.status(f"cannot start: {said or reason}")
    sdnotify.ready()
    interval = min(sdnotify.watchdog_interval() or PUSH_AGAIN, every if retry else PUSH_AGAIN)
    waited = PUSH_AGAIN
    try:
        while not stop.is_set():
            if display is not None and waited >= PUSH_AGAIN:
                try:
                    display.display(image)
                except Exception as problem:  # an I2C error: tried again at the next push
                    log.warning("the display did not take the fault screen: %s", problem)
                waited = 0.0
            sdnotify.watchdog()
            stop.wait(interval)
            waited += interval
            if retry is not None and not stop.is_set() and retry():
                return True
        sdnotify.stopping()
        return False
    finally:
        if display is not None:
            release(display, blank=stop.is_set())
