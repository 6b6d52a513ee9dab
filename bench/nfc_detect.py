"""Three simulated readers watched by ReaderThreads: tap-to-event latency and idle CPU.

Run from the repository root: ``python bench/nfc_detect.py [--trials 60] [--idle 10]``.
Prints JSON. Every card laid is an NTAG213 carrying a card record, so the time measured runs
from the card laid to its CardPlaced event naming the card (the record read included). The
simulated chip answers at once: the latency is the schedule and the Python work, and
``record_wire_ms`` adds what the record's READs cost on a real line at 115200 baud; on a Pi
add the chip's RF time too (5-30 ms a poll, verify on a Pi).
"""

from __future__ import annotations

import argparse
import json
import queue
import random
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from box.ports.nfc.codec import ACK, CHIP_TO_HOST, encode_command, encode_frame
from box.ports.nfc.commands import READ_SIZE, Command, read_params
from box.ports.nfc.reader import CardLifted, CardPlaced, Pn532Reader, ReaderEvent, ReaderStatus, ReaderThread
from box.ports.nfc.simchip import SimNtag, sim_chip

READERS = ("left", "middle", "right")
TARGET_MS = 100.0
"""The detection target: a card laid is an event within 100 ms, worst case."""
SECONDS_PER_BYTE = 10 / 115200
READ_BYTES = (
    len(encode_command(Command.IN_DATA_EXCHANGE, read_params(3)))
    + len(ACK)
    + len(encode_frame(CHIP_TO_HOST, bytes([Command.IN_DATA_EXCHANGE.response_code, 0]) + bytes(READ_SIZE)))
)
"""Bytes on the line for one NTAG READ through InDataExchange: command, ACK, 16-byte answer."""


def wait_for(events: queue.Queue[tuple[float, ReaderEvent]], wanted: ReaderEvent) -> float:
    """When ``wanted`` arrived (other events are skipped)."""
    while True:
        at, event = events.get(timeout=5)
        if event == wanted:
            return at


def wait_for_card(events: queue.Queue[tuple[float, ReaderEvent]], reader: str, card: tuple[str, str]) -> float:
    """When the placement naming ``card`` on ``reader`` arrived."""
    while True:
        at, event = events.get(timeout=5)
        if isinstance(event, CardPlaced) and event.reader == reader and event.card == card:
            return at


def main(argv: list[str] | None = None) -> dict[str, object]:
    """Run the benchmark and print (and return) its figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--trials", type=int, default=60, help="cards laid (default 60)")
    parser.add_argument("--idle", type=float, default=10.0, help="idle seconds measured (default 10)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)

    events: queue.Queue[tuple[float, ReaderEvent]] = queue.Queue()
    chips = {name: sim_chip(f"bench-{name}") for name in READERS}
    threads = [
        ReaderThread(Pn532Reader(name, f"pn532sim://bench-{name}"), lambda e: events.put((time.monotonic(), e)))
        for name in READERS
    ]
    for thread in threads:
        thread.start()
    ready: set[str] = set()
    while ready != set(READERS):
        _, event = events.get(timeout=5)
        if isinstance(event, ReaderStatus) and event.online:
            ready.add(event.reader)

    polls_before = sum(chip.commands[Command.IN_LIST_PASSIVE_TARGET] for chip in chips.values())
    cpu_before, wall_before = time.process_time(), time.monotonic()
    threading.Event().wait(args.idle)
    idle_cpu, idle_wall = time.process_time() - cpu_before, time.monotonic() - wall_before
    idle_polls = sum(chip.commands[Command.IN_LIST_PASSIVE_TARGET] for chip in chips.values()) - polls_before

    rng = random.Random(args.seed)
    latencies, reads = [], []
    for trial in range(args.trials):
        name, uid = rng.choice(READERS), b"\x04" + rng.randbytes(6)
        card = (rng.choice(("dead-set", "deadlines", "dead-fellas", "deck-of-death")), f"c{trial:03d}")
        tag = SimNtag(uid, card=card)
        threading.Event().wait(rng.uniform(0.0, 0.1))
        exchanges_before = chips[name].commands[Command.IN_DATA_EXCHANGE]
        laid = time.monotonic()
        chips[name].place(tag)
        latencies.append(wait_for_card(events, name, card) - laid)
        reads.append(chips[name].commands[Command.IN_DATA_EXCHANGE] - exchanges_before)
        chips[name].lift()
        wait_for(events, CardLifted(name, uid))
    for thread in threads:
        thread.stop()

    latencies_ms = sorted(1000 * latency for latency in latencies)
    figures = {
        "readers": len(READERS),
        "interval_s": threads[0].interval,
        "trials": args.trials,
        "detect_ms": {
            "worst": round(latencies_ms[-1], 1),
            "p50": round(statistics.median(latencies_ms), 1),
            "p99": round(latencies_ms[min(len(latencies_ms) - 1, int(0.99 * len(latencies_ms)))], 1),
        },
        "record_reads_per_tap": max(reads),
        "record_wire_ms": round(1000 * max(reads) * READ_BYTES * SECONDS_PER_BYTE, 1),
        "worst_with_wire_ms": round(latencies_ms[-1] + 1000 * max(reads) * READ_BYTES * SECONDS_PER_BYTE, 1),
        "target_ms": TARGET_MS,
        "idle": {
            "seconds": round(idle_wall, 2),
            "cpu_percent_of_one_core": round(100 * idle_cpu / idle_wall, 2),
            "polls_per_second": round(idle_polls / idle_wall, 1),
            "cpu_us_per_poll": round(1e6 * idle_cpu / max(1, idle_polls), 1),
        },
    }
    print(json.dumps(figures, indent=2))
    return figures


if __name__ == "__main__":
    main()
