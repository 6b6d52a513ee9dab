"""A tap on the real serial path: the PN532 driver and pyserial on a pty, the chip in another process
answering at its line's pace, at the rate the driver set it to (460800 baud) and, side by side, at 115200.

``box.ports.nfc.simpty --baud 460800`` serves a simulated PN532 on a pseudo-terminal in its own
process and sends each answer when the command's bytes and its own would have crossed the UART
at the chip's rate (10 bits a byte). This process opens it as the box does (``open_serial``:
pyserial's POSIX port, its ``select`` and ``read`` calls, 115200 baud), the driver asks the chip
for 460800 (SetSerialBaudRate; the chip answers only at its own rate) and polls it as a reader's
cycle does: InListPassiveTarget, the tag's record read through InDataExchange when the readers do
not know the tag (the InRelease of the card found goes at the next cycle, not before its event).
The same taps then run with the driver left at 115200 (``rate=115200``), the figures side by side.
For each tap it counts the bytes both ways on the line, the wall time of the poll that found
the card (the UART's pace included), and this process's CPU for it (``time.process_time``: the
chip's process is not counted). Two kinds of tap: a tag laid for the first time (its record
read) and the same tag laid again (known, box/ports/nfc/reader.py's `KnownRecords`).

What it leaves out: the chip's own RF time to the tag (an NTAG READ is ~1–2 ms over the air on a
PN532; the simulated chip answers at once), the loop, the render and the panel's bus (see
bench/instructions.py and bench/input_latency.py), and the kernel's tty latency on a Pi's UART.
A tap the reader never reports is a failure, never a figure.

Run from the repository root: ``python bench/tap_uart.py [--taps 30]``. Prints JSON.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchlib import emit, percentile
from startup import environment

from box.ports.nfc.reader import BAUD_RATE, FAST_RATE

CARD = ("deck-of-death", "dd177")
KNOWN_UART_GOAL_MS = 2.0  # a known tag's bytes on the line, at the rate the driver sets
SETTLE = 0.01  # seconds between polls while the chip's process takes a place or lift command
POLLS = 100  # polls a place or a lift may take to be seen before the bench fails


class Counted:
    """A serial port whose bytes are counted both ways (everything else is the port's own)."""

    def __init__(self, port: Any) -> None:
        self.port, self.bytes = port, 0

    def write(self, data: bytes) -> int | None:
        self.bytes += len(data)
        return self.port.write(data)

    def read(self, size: int = 1) -> bytes:
        data = self.port.read(size)
        self.bytes += len(data)
        return data

    @property
    def baudrate(self) -> int:
        return int(self.port.baudrate)

    @baudrate.setter
    def baudrate(self, rate: int) -> None:
        self.port.baudrate = rate

    def __getattr__(self, name: str) -> Any:
        return getattr(self.port, name)


def taps(count: int, rate: int) -> dict[str, Any]:
    """``count`` taps of each kind with the driver asking for ``rate``."""
    from box.messages import CardLifted, CardPlaced
    from box.ports.nfc.reader import Pn532Reader, open_serial

    chips = subprocess.Popen(
        [sys.executable, "-m", "box.ports.nfc.simpty", "--baud", str(FAST_RATE), "bench"],
        env=environment(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    assert chips.stdin is not None and chips.stdout is not None
    opened: list[Counted] = []

    def open_port(path: str) -> Any:
        opened.append(Counted(open_serial(path)))
        return opened[-1]

    def say(line: str) -> None:
        chips.stdin.write(line + "\n")  # type: ignore[union-attr]
        chips.stdin.flush()  # type: ignore[union-attr]

    try:
        path = json.loads(chips.stdout.readline())["bench"]
        reader = Pn532Reader("bench", path, open_port=open_port, rate=rate)
        [status] = reader.poll(time.monotonic())
        if not status.online or reader.rate != rate or opened[-1].baudrate != rate:
            raise SystemExit(f"the reader did not come online at {rate} baud: {status.message}")
        figures: dict[str, Any] = {}
        for kind in ("first", "known"):
            wall, cpu, sent = [], [], []
            for n in range(count):
                uid = bytes.fromhex(f"04{n:012x}") if kind == "first" else bytes.fromhex("04ffffffffff01")
                say(f"place bench {uid.hex()} {CARD[0]} {CARD[1]}")
                for _ in range(POLLS):  # the poll that finds the card is the one measured
                    line = opened[-1]
                    before, started, ticks = line.bytes, time.perf_counter(), time.process_time()
                    events = reader.poll(time.monotonic())
                    if events:
                        break
                    time.sleep(SETTLE)
                wall.append((time.perf_counter() - started) * 1000)
                cpu.append((time.process_time() - ticks) * 1000)
                sent.append(line.bytes - before)
                if [type(e) for e in events] != [CardPlaced] or events[0].card != CARD:
                    raise SystemExit(f"a {kind} tap was not reported as the card: {events}")
                say("lift bench")
                for _ in range(POLLS):
                    if any(isinstance(e, CardLifted) for e in reader.poll(time.monotonic())):
                        break
                    time.sleep(SETTLE)
                else:
                    raise SystemExit("the card's lift was not reported")
            if kind == "known":
                wall, cpu, sent = wall[1:], cpu[1:], sent[1:]  # its first lay read the record
            figures[kind] = {
                "taps": len(wall),
                "uart_bytes": {"p50": percentile(sent, 50), "worst": max(sent)},
                "uart_ms": round(percentile(sent, 50) * 10 / rate * 1000, 2),
                "uart_ms_worst": round(max(sent) * 10 / rate * 1000, 2),
                "wall_ms": {"p50": round(percentile(wall, 50), 2), "p99": round(percentile(wall, 99), 2)},
                "cpu_ms_this_process": {"p50": round(percentile(cpu, 50), 3), "p99": round(percentile(cpu, 99), 3)},
            }
        reader.close()
    finally:
        chips.stdin.close()
        chips.wait(10)
    return {**figures, "baud": rate}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--taps", type=int, default=30, help="taps of each kind (default 30)")
    args = parser.parse_args(argv)
    fast, slow = taps(args.taps, FAST_RATE), taps(args.taps, BAUD_RATE)
    known = fast["known"]["uart_ms_worst"]
    return emit("tap_uart", {
        **fast,
        "at_115200": slow,
        "goal_known_uart_ms": KNOWN_UART_GOAL_MS,
        "meets_target": known <= KNOWN_UART_GOAL_MS,
        "target": f"a known tag's tap ≤ {KNOWN_UART_GOAL_MS:g} ms of UART at the rate the driver sets ({FAST_RATE} baud)",
    })


if __name__ == "__main__":
    main()
