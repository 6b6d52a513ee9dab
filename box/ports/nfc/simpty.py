"""Simulated PN532s behind pseudo-terminals, so the driver talks to them through real tty file descriptors.

A reader opened on a pty's path (``/dev/pts/N``) uses pyserial's own POSIX port, with its real
``select`` and ``read`` system calls, as on a Pi's UART; the chips answer from the server's side.
Run in its own process (as the benchmarks do) or on a thread (as the tests do)::

    python -m box.ports.nfc.simpty left middle right

prints one JSON line ``{"left": "/dev/pts/5", ...}``, then takes one command a line on stdin,
``place NAME UIDHEX [GAME CARD]`` (a bare tag, or an NTAG213 carrying that card's record) or
``lift NAME``, until stdin ends. Each chip hears the host only at its own HSU rate (115200 after
power-up, another after SetSerialBaudRate): the host's rate is read from the pty's settings, which
pyserial sets. With ``--baud RATE`` first, the line is paced: each answer goes out when the bytes
of the command before it and its own would have crossed a UART at the chip's rate (10 bits a byte),
a chip at a real line's pace, where a pty by itself passes bytes at once; RATE is the fastest the
line carries (above it the bytes are garbled, and the driver falls back to 115200).

>>> import threading
>>> from box.ports.nfc.reader import Pn532Reader
>>> chips = PtyChips(["doc"])
>>> server = threading.Thread(target=chips.serve, daemon=True); server.start()
>>> reader = Pn532Reader("doc", chips.paths["doc"])
>>> reader.poll(now=0.0)[0].online
True
>>> reader.close(); chips.close(); server.join(5)
"""

from __future__ import annotations

import json
import os
import select
import sys
import termios
import time
import tty
from collections.abc import Iterable

from box.ports.nfc.commands import SERIAL_RATES
from box.ports.nfc.simchip import SimNtag, SimulatedPn532

SPEEDS = {getattr(termios, f"B{rate}"): rate for rate in SERIAL_RATES if hasattr(termios, f"B{rate}")}
"""termios' speed constants, by the rate they stand for (1288000 has none: a pty cannot be set to it)."""


def host_rate(fd: int) -> int:
    """The rate the host's end of a pty is set to (a pty pair shares its settings)."""
    return SPEEDS.get(termios.tcgetattr(fd)[4], 0)


class PtyChips:
    """One :class:`SimulatedPn532` per name, each on the far side of its own pty; :meth:`serve` answers them."""

    def __init__(self, names: Iterable[str], baud: int | None = None) -> None:
        self.baud = baud
        self.owed: dict[int, int] = {}  # master fd -> bytes received since the last answer (paced lines)
        self.chips: dict[str, SimulatedPn532] = {}
        self.paths: dict[str, str] = {}
        self._ends: dict[int, tuple[SimulatedPn532, int, int]] = {}  # master fd -> chip, connection, slave fd
        for name in names:
            master, slave = os.openpty()
            tty.setraw(slave)  # no echo, no line editing: bytes pass as they are, as on a UART
            chip = SimulatedPn532(name)
            if baud:
                chip.fastest_rate = baud
            self.chips[name], self.paths[name] = chip, os.ttyname(slave)
            self._ends[master] = (chip, chip.connect(), slave)  # the slave stays open: no hang-up between opens
        self._wake_read, self._wake_write = os.pipe()

    def place(self, name: str, uid: bytes) -> None:
        """Lay a card on a chip (its answer goes out at once if the driver waits for one)."""
        self.chips[name].place(uid)
        os.write(self._wake_write, b"p")

    def lift(self, name: str) -> None:
        self.chips[name].lift()

    def close(self) -> None:
        """End :meth:`serve` and close the ptys."""
        os.write(self._wake_write, b"q")

    def serve(self, control: int | None = None) -> None:
        """Answer the chips' lines until :meth:`close` (or end of the ``control`` fd's command lines)."""
        watched = [*self._ends, self._wake_read, *([] if control is None else [control])]
        pending = b""
        try:
            while True:
                ready, _, _ = select.select(watched, [], [])
                for fd in ready:
                    if fd == self._wake_read:
                        if b"q" in os.read(self._wake_read, 64):
                            return
                    elif fd == control:
                        data = os.read(control, 4096)
                        if not data:
                            return
                        *lines, pending = (pending + data).split(b"\n")
                        for line in lines:
                            self._command(line.decode().split())
                    else:
                        chip, connection, _ = self._ends[fd]
                        try:
                            data = os.read(fd, 4096)
                        except OSError:
                            continue  # no side has the slave open for a moment
                        self.owed[fd] = self.owed.get(fd, 0) + len(data)
                        chip.set_host_rate(host_rate(fd))
                        chip.receive(connection, data)
                for master, (chip, connection, _) in self._ends.items():
                    answer = chip.send(connection, 65536)
                    if answer:
                        if self.baud:
                            time.sleep((self.owed.pop(master, 0) + len(answer)) * 10 / chip.rate)
                        os.write(master, answer)
        finally:
            for master, (_, _, slave) in self._ends.items():
                os.close(master)
                os.close(slave)
            os.close(self._wake_read)
            os.close(self._wake_write)

    def _command(self, words: list[str]) -> None:
        if words[:1] == ["place"] and len(words) == 3:
            self.chips[words[1]].place(bytes.fromhex(words[2]))
        elif words[:1] == ["place"] and len(words) == 5:
            self.chips[words[1]].place(SimNtag(bytes.fromhex(words[2]), card=(words[3], words[4])))
        elif words[:1] == ["lift"] and len(words) == 2:
            self.chips[words[1]].lift()
        elif words:
            print(f"simpty: unknown command {' '.join(words)!r}", file=sys.stderr)


def main(args: list[str]) -> None:
    """Serve the named chips in this process (``--baud RATE`` first: at that line's pace); print their
    paths as one JSON line."""
    baud = int(args[1]) if args[:1] == ["--baud"] and len(args) > 1 else None
    names = args[2:] if baud is not None else args
    chips = PtyChips(names or ["left", "middle", "right"], baud)
    print(json.dumps(chips.paths), flush=True)
    chips.serve(control=sys.stdin.fileno())


if __name__ == "__main__":
    main(sys.argv[1:])
