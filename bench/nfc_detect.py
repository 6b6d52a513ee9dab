"""Three simulated readers polled by ReaderThreads: card detection latency and idle CPU.

Run from the repository root: ``python bench/nfc_detect.py [--trials 60] [--idle 10]``.
Prints JSON. The simulated chip answers at once, so the latency measured is the polling
schedule and the Python work; on a Pi add the wire and RF time of one poll (5-30 ms).
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

from box.ports.nfc.commands import Command
from box.ports.nfc.reader import CardLifted, CardPlaced, Pn532Reader, ReaderEvent, ReaderStatus, ReaderThread
from box.ports.nfc.simchip import sim_chip

READERS = ("left", "middle", "right")


def wait_for(events: queue.Queue[tuple[float, ReaderEvent]], wanted: ReaderEvent) -> float:
    """When ``wanted`` arrived (other events are skipped)."""
    while True:
        at, event = events.get(timeout=5)
        if event == wanted:
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
    latencies = []
    for _ in range(args.trials):
        name, uid = rng.choice(READERS), rng.randbytes(7)
        threading.Event().wait(rng.uniform(0.0, 0.1))
        laid = time.monotonic()
        chips[name].place(uid)
        latencies.append(wait_for(events, CardPlaced(name, uid)) - laid)
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
