"""The OLED: opening the luma device, and pushing frames off the input path.

A whole frame is 1 KiB on the I2C bus (about 23 ms at 400 kHz, 90 ms at 100 kHz), so the
service never sends it directly: it `submit`s each rendered image to a `FramePusher`, which keeps
only the latest one, pushes it only when it differs from what the panel already shows, caps the
rate (a short gap after the end of each push, so a new frame waits at most for the push on the
bus and that gap), and rides out I2C errors. The real panel is a paged driver
(box/ports/panel.py): it sends only the pages that changed, and stops between two of them when a
newer frame is waiting, which then goes out at once. A `PusherThread` does the pushing in the
background; the simulator's script mode calls `push_due` itself on virtual time.

>>> from PIL import Image
>>> pusher = FramePusher(open_dummy(), min_interval=0.05, clock=lambda: 0.0)
>>> pusher.submit(Image.new("1", (128, 64), 1))
>>> pusher.push_due(now=0.0), pusher.push_due(now=1.0)
(True, False)
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from PIL import Image

    from box.ports import FramePort

from box.words import CONTROLLERS, SCREEN_HEIGHT, SCREEN_WIDTH

log = logging.getLogger(__name__)

WIDTH, HEIGHT = SCREEN_WIDTH, SCREEN_HEIGHT  # the panel, in pixels


class DisplayUnavailable(RuntimeError):
    """The OLED cannot be opened; the message says what to check."""


_exit_hook_lock = threading.Lock()


def without_exit_hook(build: Callable[[], Any]) -> Any:
    """Build a luma device without the `atexit` hook luma registers for each one.

    That hook holds the device for the life of the process, so every device ever
    built (a reopen after an I2C error, each simulated box) would stay in memory.
    The box releases its devices itself with `release`.
    """
    import atexit

    with _exit_hook_lock:
        register = atexit.register
        atexit.register = lambda hook, *args, **kwargs: hook  # type: ignore[assignment]
        try:
            return build()
        finally:
            atexit.register = register


def release(device: Any, blank: bool = True) -> None:
    """Let go of a device's bus handle; never raises.

    With `blank` (the box stopping or powering off) the panel is switched off first, so no
    frame stays lit for hours on a box nobody watches. A reopen after an I2C error passes
    `blank=False`: that device is already gone.
    """
    interface = getattr(device, "_serial_interface", None)
    try:
        if blank:
            device.hide()
        if interface is not None:
            interface.cleanup()
    except Exception as error:  # a dead bus may fail to close; whoever releases goes on
        log.debug("closing the OLED's bus failed: %s", error)


def open_oled(controller: str, i2c_port: int, i2c_address: int, serial: Any = None) -> Any:
    """The luma device for a 128x64 `controller` ("ssd1306" or "sh1106") on I2C.

    luma's own exit hook is left out (`without_exit_hook`); the box switches the
    panel off itself when it stops or powers off (`release`), so no frame burns in
    on a box left plugged in. `persist` stays off to match.

    `serial` replaces the I2C interface (luma's `noop()` in tests).
    """
    if controller not in CONTROLLERS:
        raise ValueError(f"OLED controller must be one of {', '.join(CONTROLLERS)}, not {controller!r}")
    from luma.core.error import Error as LumaError
    from luma.core.interface.serial import i2c

    from box.ports.panel import DRIVERS

    where = f"OLED {controller} on I2C bus {i2c_port} at address 0x{i2c_address:02X}"
    try:
        interface = serial if serial is not None else i2c(port=i2c_port, address=i2c_address)
        device = without_exit_hook(lambda: DRIVERS[controller](interface, width=WIDTH, height=HEIGHT))
    except (LumaError, OSError) as error:
        raise DisplayUnavailable(
            f"{where}: {error}. Check that I2C is enabled (dtparam=i2c_arm=on, /dev/i2c-{i2c_port} exists), "
            f"that `i2cdetect -y {i2c_port}` shows the panel (0x3C or 0x3D: set display.i2c_address), "
            "and the wiring: SDA on GPIO2 (pin 3), SCL on GPIO3 (pin 5), VCC 3.3 V, GND."
        ) from error
    device.persist = False
    return device


def open_dummy() -> Any:
    """luma's dummy device: keeps the last frame in `.image`, for the simulator and tests."""
    from luma.core.device import dummy

    return without_exit_hook(lambda: dummy(width=WIDTH, height=HEIGHT, mode="1"))


class FramePusher:
    """Pushes the latest submitted frame to a luma device: only changed frames, at a capped rate.

    `submit` is cheap and never touches the bus. `push_due(now)` does the work
    and answers whether it pushed. An I2C error (luma's `DeviceNotFoundError`,
    an `OSError`, or a reopen failing with `DisplayUnavailable`), or any other error of the
    driver (logged with its traceback: a bug, yet the pusher thread must not die of it), is logged once, the frame stays pending and is retried
    `retry_after` seconds later (through `reopen()`, when given, which builds a
    fresh device: a panel that lost power needs its init sequence again; the old
    device's bus handle is closed first).
    `min_interval` is the gap after the end of a push (not its start): a frame waits at most
    for the push on the bus and that gap, and the bus is never kept busy without rest.
    With a paged driver (one with `send_changes` and `forget`, box/ports/panel.py) only the
    changed pages go out, and a frame replaced by a newer one while it was being sent stops
    between two of its transactions (the newer goes out at once, from what the panel then holds);
    after a bus error, a reopen or the panel switched on again the next frame goes out whole.
    Counters: `submitted`, `pushed`, `skipped_unchanged`, `superseded` (frames replaced before
    they were sent, or while).
    """

    def __init__(
        self,
        device: Any,
        min_interval: float = 0.01,  # the gap after each push: <= 30 frames/s at 400 kHz, ~10 at 100 kHz
        clock: Callable[[], float] = time.monotonic,
        retry_after: float = 1.0,
        reopen: Callable[[], Any] | None = None,
    ):
        from luma.core.error import DeviceNotFoundError

        self.device = device
        self.min_interval = min_interval
        self.clock = clock
        self.retry_after = retry_after
        self.reopen = reopen
        self.submitted = self.pushed = self.skipped_unchanged = self.superseded = 0
        self.wake = threading.Event()  # set by `submit`; `PusherThread` waits on it
        self._bus_errors = (DeviceNotFoundError, OSError, DisplayUnavailable)
        self._lock = threading.Lock()
        self._pending: Image.Image | None = None
        self._shown: bytes | None = None  # the bytes of the last frame the panel took; None: not known
        self._shown_image: Image.Image | None = None  # that frame
        self._not_before = float("-inf")  # rate cap or retry backoff
        self._failing = False
        self._resend_whole = False  # the panel may not hold what was sent (a bus error, a wake)
        self._panel: tuple[int, bool] | None = None  # wanted (contrast, on); None: the panel's own
        self._panel_applied: tuple[int, bool] | None = None

    def submit(self, image: Image.Image) -> None:
        """Offer a frame (replacing any frame not yet pushed). Never blocks on the bus."""
        with self._lock:
            if self._pending is not None:
                self.superseded += 1
            self._pending = image
            self.submitted += 1
        self.wake.set()

    def set_panel(self, contrast: int, on: bool) -> None:
        """Ask for the panel's contrast (0..255) and on/off state; sent with the next push.

        Every bus access stays on the pushing side (the pusher thread on a real box), and a
        reopened panel gets the same settings again.
        """
        if not 0 <= contrast <= 255:
            raise ValueError(f"contrast must be 0..255, not {contrast}")
        with self._lock:
            self._panel = (contrast, on)
        self.wake.set()

    @property
    def panel(self) -> tuple[int, bool] | None:
        """The (contrast, on) the panel last took; None before any was sent."""
        return self._panel_applied

    def push_due(self, now: float) -> bool:
        """Push the pending frame if the rate cap or backoff allows and it changed; True if pushed."""
        if now < self._not_before:
            return False
        return self._push(now)

    def flush(self) -> bool:
        """Push the pending frame now, whatever the rate cap (at shutdown: the last frame must show)."""
        return self._push(self.clock())

    def next_deadline(self) -> float | None:
        """When `push_due` next has work (a past time means now), or None with nothing pending."""
        with self._lock:
            idle = self._pending is None and self._panel in (None, self._panel_applied)
            return None if idle else self._not_before

    def _push(self, now: float) -> bool:
        with self._lock:
            frame, panel = self._pending, self._panel
        panel_due = panel is not None and panel != self._panel_applied
        if panel_due and panel is not None and panel[1] and self._panel_applied is not None and not self._panel_applied[1]:
            self._shown, self._resend_whole = None, True  # switched on again: the whole frame, whatever it kept
        if frame is None and self._shown is None and self._shown_image is not None:
            frame = self._shown_image  # the panel may not hold the last frame: it goes again
        if frame is None and not panel_due:
            return False
        data = frame.tobytes() if frame is not None else None
        if frame is not None and data == self._shown and not panel_due:
            self._taken(frame)
            self.skipped_unchanged += 1
            return False
        started = self.clock()
        sent = True
        try:
            if self._failing and self.reopen is not None:
                release(self.device, blank=False)  # else every retry leaks a file descriptor
                self.device = self.reopen()
                self._panel_applied = None  # a fresh panel starts with its own defaults
                panel_due = panel is not None
            if panel_due and panel is not None:
                contrast, on = panel
                self.device.contrast(contrast)
                if on:
                    self.device.show()
                else:
                    self.device.hide()
                self._panel_applied = panel
            if frame is not None and data != self._shown:
                sent = self._send(frame)
        except Exception as error:  # the bus, or a driver's own fault: either way the game goes on
            if not self._failing:
                unexpected = not isinstance(error, self._bus_errors)
                log.warning(
                    "OLED push failed (%s); retrying every %.1f s, the game goes on",
                    error, self.retry_after, exc_info=unexpected,
                )
                self._failing = True
            self._shown, self._resend_whole = None, True
            self._not_before = now + self.retry_after
            return False
        if self._failing:
            log.info("OLED is back")
            self._failing = False
        if frame is None:
            return False
        if data != self._shown and not sent:  # a newer frame stopped it part-way: that one goes out now
            self._shown = None  # (`submit` counted it as superseded)
            self._not_before = now
            return False
        self._taken(frame)
        if data == self._shown:
            self.skipped_unchanged += 1
            return False
        self._shown, self._shown_image = data, frame
        self.pushed += 1
        self._not_before = now + (self.clock() - started) + self.min_interval  # the gap starts as the bus frees
        return True

    def _send(self, frame: Image.Image) -> bool:
        """Send `frame`; False when a paged driver stopped because a newer frame was submitted."""
        device, whole = self.device, self._resend_whole
        self._resend_whole = False
        if not hasattr(device, "send_changes"):  # luma's own drivers and its dummy send it all anyway
            device.display(frame)
            return True
        if whole:
            device.forget()
        return bool(device.send_changes(frame, superseded=lambda: self._replaced(frame)))

    def _replaced(self, frame: Image.Image) -> bool:
        """Whether a frame newer than `frame` waits (one reference read: no lock needed)."""
        pending = self._pending
        return pending is not None and pending is not frame

    def _taken(self, frame: Image.Image) -> None:
        """Drop `frame` from pending unless a newer one was submitted meanwhile."""
        with self._lock:
            if self._pending is frame:
                self._pending = None


class PusherThread:
    """Runs a `FramePusher` (any `FramePort`) in the background: wakes on `submit`, sleeps out the rate cap.

    `start()` it like a thread; `stop()` ends it and then flushes the last frame.
    """

    def __init__(self, pusher: FramePort):
        self.pusher = pusher
        self._stopping = False
        self._thread = threading.Thread(target=self._run, name="oled-pusher", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def _run(self) -> None:
        pusher = self.pusher
        while not self._stopping:
            deadline = pusher.next_deadline()
            timeout = None if deadline is None else deadline - pusher.clock()
            if timeout is None or timeout > 0:
                pusher.wake.wait(timeout)
            pusher.wake.clear()
            if not self._stopping:
                pusher.push_due(pusher.clock())

    def stop(self, timeout: float = 2.0) -> None:
        """Stop the thread (waiting up to `timeout` seconds), then push whatever is pending."""
        self._stopping = True
        self.pusher.wake.set()
        self._thread.join(timeout)
        self.pusher.flush()
