"""pyserial URL handler for ``pn532sim://NAME``: a serial port wired to a simulated PN532.

pyserial finds this module as ``protocol_pn532sim`` in ``serial.protocol_handler_packages``
(importing :mod:`box.ports.nfc.simchip` registers the package). The chip comes from the
port's ``chips`` (a `SimChips`, set by its `opener`), else from the standalone set. Reads return what the chip
has sent, possibly ``b""``; only a read while the chip waits for a card waits (up to the
port's timeout, or until :meth:`Serial.cancel_read`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from serial import PortNotOpenError, SerialBase, SerialException

from box.ports.nfc.simchip import STANDALONE, URL_SCHEME, SimChips, SimulatedPn532

if TYPE_CHECKING:
    from typing_extensions import Buffer  # collections.abc.Buffer from Python 3.12


class Serial(SerialBase):
    """A pyserial port whose other end is the :class:`SimulatedPn532` named in the URL."""

    chips: SimChips = STANDALONE
    """Where the chip named in the URL is found: a `SimChips` sets itself here (its `opener`)."""

    def open(self) -> None:
        """Connect to the chip named in the URL; SerialException when it is unplugged."""
        if self.is_open:
            raise SerialException("Port is already open.")
        parts = urlsplit(self.port or "")
        if parts.scheme != URL_SCHEME or not parts.netloc:
            raise SerialException(f"expected {URL_SCHEME}://NAME, not {self.port!r}")
        self._chip: SimulatedPn532 = self.chips.chip(parts.netloc)
        self._connection = self._chip.connect()
        self.is_open = True
        self._chip.set_host_rate(self.baudrate)

    def close(self) -> None:
        """Close the port (the chip stays as it is)."""
        self.is_open = False

    def _checked_connection(self) -> int:
        if not self.is_open:
            raise PortNotOpenError()
        return self._connection

    @property
    def in_waiting(self) -> int:
        """Bytes the chip has sent that are not read yet."""
        return self._chip.waiting(self._checked_connection())

    def read(self, size: int = 1) -> bytes:
        """Up to ``size`` bytes the chip sent (``b""`` when it sent nothing, or not in time)."""
        return self._chip.send(self._checked_connection(), size, self.timeout)

    def cancel_read(self) -> None:
        """End a read that waits for a card, from another thread."""
        self._chip.cancel_read()

    def write(self, data: Buffer) -> int:
        """Hand bytes to the chip, which answers before this returns."""
        sent = bytes(data)
        self._chip.receive(self._checked_connection(), sent)
        return len(sent)

    def reset_input_buffer(self) -> None:
        """Drop what the chip sent and the host has not read."""
        self._chip.discard_output(self._checked_connection())

    def reset_output_buffer(self) -> None:
        """Nothing to drop: writes reach the chip at once."""

    def _reconfigure_port(self, *args: object) -> None:
        """Tell the chip the port's rate (a chip at another rate hears garbage); the rest means nothing here."""
        if self.is_open:
            self._chip.set_host_rate(self.baudrate)

    def _update_rts_state(self) -> None:
        """RTS is not wired on a PN532 board."""

    def _update_dtr_state(self) -> None:
        """DTR is not wired on a PN532 board."""

    def _update_break_state(self) -> None:
        """A break means nothing to the simulated chip."""
