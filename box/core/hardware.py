"""Open the box's parts, real or simulated, from the pin map.

Real parts use gpiozero with an explicitly chosen pin library (lgpio, as on
Raspberry Pi OS Bookworm; RPi.GPIO from rpi-lgpio as a second real choice),
luma.oled over I2C and the PN532 readers on their serial ports. Simulated
parts are the libraries' own fakes: gpiozero's MockFactory, luma's dummy
device and the simulated PN532 behind pyserial. A real box never falls back to
fakes: a part that cannot be opened is a `HardwareError` that says which part,
which pin or port, and what to check.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from box.storage.pinmap import PinMap

if TYPE_CHECKING:
    from box.ports import ButtonsPort, BuzzerPort, FramePort, ReaderPort
    from box.ports.buttons import Edge
    from box.ports.nfc.simchip import SimChips

log = logging.getLogger(__name__)


class HardwareError(RuntimeError):
    """A part of a real box that cannot be opened; the message says what to check."""


def is_raspberry_pi() -> bool:
    """True on a Raspberry Pi (by its device-tree model string)."""
    try:
        return "Raspberry Pi" in Path("/proc/device-tree/model").read_text(errors="replace")
    except OSError:
        return False


def real_pin_factory() -> Any:
    """The GPIO library for a real box, chosen explicitly; never the mock."""
    problems = []
    try:
        from gpiozero.pins.lgpio import LGPIOFactory

        return LGPIOFactory()
    except Exception as problem:  # lgpio raises its own error types when the chip is absent
        problems.append(f"lgpio: {problem}")
    try:
        from gpiozero.pins.rpigpio import RPiGPIOFactory

        return RPiGPIOFactory()
    except Exception as problem:
        problems.append(f"RPi.GPIO: {problem}")
    raise HardwareError(
        "GPIO: no pin library could open the GPIO chip ("
        + "; ".join(problems)
        + "): install python3-lgpio (sudo apt install python3-lgpio) and check the user is in the gpio group"
    )


@dataclass
class Parts:
    """The opened parts, each behind its port (box/ports/__init__.py). `mock_factory` is set when
    the GPIO is simulated; `closers` run in reverse order at `close`, after the readers made.

    The readers are made at their first use (`readers`): the service's loop asks for them after
    READY, to watch them, so the start does not import the reader's driver. Each opens its port
    on its own thread anyway.
    """

    pinmap: PinMap
    buttons: ButtonsPort
    buzzer: BuzzerPort
    display: Any  # the luma device (luma.core.device.device): real, or luma's dummy (its last frame in `.image`)
    pusher: FramePort
    make_readers: Callable[[], Mapping[str, ReaderPort]]
    mock_factory: Any = None
    closers: list[Callable[[], None]] = field(default_factory=list)
    _readers: Mapping[str, ReaderPort] | None = field(default=None, init=False, repr=False)
    _readers_lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    @property
    def readers(self) -> Mapping[str, ReaderPort]:
        """The readers, made at the first call, once, whichever thread asks first."""
        with self._readers_lock:
            if self._readers is None:
                self._readers = self.make_readers()
            return self._readers

    def close_readers(self) -> None:
        for reader in (self._readers or {}).values():  # only those made
            reader.close()

    def forget_pin_history(self) -> None:
        """Simulated pins record every change they see: drop that record (it only grows)."""
        if self.mock_factory is not None:
            for pin in self.mock_factory.pins.values():
                pin.clear_states()

    def close(self) -> None:
        for close in (self.close_readers, *reversed(self.closers)):
            try:
                close()
            except Exception as problem:  # closing must go on for every part
                log.warning("closing a part failed: %s", problem)


def open_parts(
    pinmap: PinMap,
    on_edge: Callable[[Edge], None],
    clock: Callable[[], float],
    simulated: bool,
    chips: SimChips | None = None,
) -> Parts:
    """Open buttons, buzzer, display and readers; simulated parts when `simulated` (the readers
    wired to `chips`, the simulator's chips, made here when not given)."""
    from box.ports.buttons import GpioButtons
    from box.ports.buzzer import BeepOutput, BuzzerPlayer, TonalOutput
    from box.ports.display import FramePusher, open_dummy, open_oled, release

    mock_factory = None
    if simulated:
        from gpiozero.pins.mock import MockFactory, MockPWMPin

        factory = mock_factory = MockFactory(pin_class=MockPWMPin)
    else:
        factory = real_pin_factory()
    closers: list[Callable[[], None]] = []
    try:
        buttons = GpioButtons(pinmap.buttons, factory, on_edge, clock)
        closers.append(buttons.close)
        output_class = TonalOutput if pinmap.buzzer.kind == "passive" else BeepOutput
        try:
            output = output_class(pinmap.buzzer.pin, factory)
        except Exception as problem:
            raise HardwareError(f"buzzer on GPIO{pinmap.buzzer.pin}: {problem}: check the pin map") from problem
        buzzer = BuzzerPlayer(output)
        closers.append(buzzer.close)
        wiring = pinmap.display
        if simulated:
            display = open_dummy()
            pusher = FramePusher(display, clock=clock)
        else:

            def reopen() -> Any:  # a panel that lost power needs its start-up commands again
                return open_oled(wiring.controller, wiring.i2c_port, wiring.i2c_address)

            display = reopen()
            pusher = FramePusher(display, clock=clock, reopen=reopen)
        closers.append(lambda: release(pusher.device))  # the device the pusher holds now (a reopen replaces it)
    except HardwareError:
        for close in reversed(closers):
            close()
        raise
    except Exception as problem:
        for close in reversed(closers):
            close()
        raise HardwareError(str(problem)) from problem
    if factory is not None:
        closers.append(factory.close)
    opener = (chips.opener() if chips is not None else simulated_opener()) if simulated else None
    return Parts(pinmap, buttons, buzzer, display, pusher, partial(make_readers, pinmap, opener), mock_factory, closers)


def make_readers(pinmap: PinMap, opener: Callable[[str], Any] | None) -> dict[str, ReaderPort]:
    """The pin map's readers: on `opener`'s simulated chips (``pn532sim://NAME``), else on their serial
    ports; they share what they know of the tags' records (box/ports/nfc/reader.py's `KnownRecords`)."""
    from box.ports.nfc.reader import BAUD_RATE, KnownRecords, Pn532Reader

    known = KnownRecords()  # a tag's record, read once on any reader, is known to them all
    rate = pinmap.baudrate  # asked of each chip once it answers at BAUD_RATE, its rate at power-up
    if opener is None:
        opener = serial_opener(BAUD_RATE)
        return {name: Pn532Reader(name, port, open_port=opener, known=known, rate=rate) for name, port in pinmap.readers.items()}
    return {name: Pn532Reader(name, f"pn532sim://{name}", open_port=opener, known=known, rate=rate) for name in pinmap.readers}


def simulated_opener() -> Callable[[str], Any]:
    """Open ``pn532sim://`` ports on one set of simulated chips, made when the first reader opens
    its port: the simulator's module (with the NTAG model) is imported on a reader's thread, after
    READY, not by the start."""
    lock = threading.Lock()
    made: list[SimChips] = []

    def open_port(url: str) -> Any:
        from box.ports.nfc.simchip import SimChips

        with lock:
            if not made:
                made.append(SimChips())
        return made[0].opener()(url)

    return open_port


def serial_opener(baudrate: int) -> Callable[[str], Any]:
    """Open a reader's serial device at `baudrate` (a PN532's 115200 at power-up: its driver then asks
    it for the pin map's rate), with a short read timeout.

    Exclusive: a second program (a self-test beside the running service) is refused the port
    instead of sharing it and garbling both; the reader reports it as in use.
    """

    def open_port(port: str) -> Any:
        import serial

        return serial.serial_for_url(port, baudrate=baudrate, timeout=0.02, write_timeout=0.2, exclusive=True)

    return open_port
