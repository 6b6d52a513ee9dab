"""Input to frame: from a card UID or a button edge to the new frame handed to the display.

The real box on fakes, in real time: ``Box`` with a real journal file, ``open_parts(simulated=True)``
(gpiozero mock pins, luma's dummy display, three simulated PN532s polled by their ``ReaderThread``s)
and ``BoxLoop.run`` on its own thread with the monotonic clock, exactly as ``gravebox run`` wires
them, except the display: the pusher drives the pin map's real luma driver (ssd1306 or sh1106, whose
``display`` packs the 8,192 pixels in Python, holding the GIL) over luma's ``noop`` interface, and
each push then sleeps the I2C time of one frame (``--bus-ms``, 23 ms at 400 kHz; the bus write
releases the GIL), so the pusher thread competes with the loop as it would on a Pi.

A Deck of Death game is played with inputs the game accepts, so each one is journaled:
tap an Immunity card (a ``CardPlaced`` as the reader thread enqueues it: the picker opens), then
press BACK (down edge, 35 ms hold, up edge: the press counts on the up edge; the picker closes;
BACK rests 35 ms between presses, as a finger does, so no edge falls in the 30 ms debounce). The
latency runs from ``loop.enqueue(event)`` to ``pusher.submit(frame)``; ``Journal.append`` and
``render`` are timed inside the same runs.

Run from the repository root: ``python bench/input_latency.py [--events 1000]``. Prints JSON.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from benchlib import emit, filesystem_of, summary_ms

TARGET_P50_MS, TARGET_P99_MS = 3.0, 10.0
IMMUNITY_CARD = "dd177"  # Guardian Angel: a white card, playable in any phase
HOLD_S = 0.035  # BACK is held longer than the 30 ms debounce, so its up edge counts at once
GAP_S = 0.035  # and rests as long between presses (an edge inside the debounce waits for its end)


class BusModel:
    """A luma device whose ``display`` also takes the I2C time of a frame (sleeping, like a bus wait)."""

    def __init__(self, device: Any, seconds: float):
        self.device = device
        self.seconds = seconds
        self.pushes = 0
        self.unchanged_pushes = 0
        self.driver_ns: list[int] = []  # luma's own work per push (pixel packing: holds the GIL)
        self._last: bytes | None = None

    def display(self, image: Any) -> None:
        data = image.tobytes()
        self.unchanged_pushes += data == self._last
        self._last = data
        start = time.perf_counter_ns()
        self.device.display(image)
        self.driver_ns.append(time.perf_counter_ns() - start)
        self.pushes += 1
        time.sleep(self.seconds)


class Probe:
    """Timestamps of ``submit`` and running totals of journal and render time, filled by the loop thread."""

    def __init__(self) -> None:
        self.frame = threading.Event()
        self.submitted_at = 0
        self.journal_ns = 0
        self.journal_calls = 0
        self.render_ns = 0

    def wrap(self, loop: Any) -> None:
        import box.screens

        pusher, journal = loop.parts.pusher, loop.box.journal
        submit, append, render = pusher.submit, journal.append, box.screens.render

        def timed_submit(image: Any) -> None:
            self.submitted_at = time.perf_counter_ns()
            submit(image)
            self.frame.set()

        def timed_append(game: int, action: dict[str, Any]) -> int:
            start = time.perf_counter_ns()
            seq = append(game, action)
            self.journal_ns += time.perf_counter_ns() - start
            self.journal_calls += 1
            return seq

        def timed_render(view: Any) -> Any:
            start = time.perf_counter_ns()
            image = render(view)
            self.render_ns += time.perf_counter_ns() - start
            return image

        pusher.submit = timed_submit
        journal.append = timed_append
        box.screens.render = timed_render  # BoxLoop.refresh imports it at each call


def measure(loop: Any, probe: Probe, event: Any) -> tuple[int, int, int] | None:
    """Enqueue ``event``; answer (latency, journal, render) in ns, or None when no frame came."""
    probe.frame.clear()
    journal_before, render_before = probe.journal_ns, probe.render_ns
    start = time.perf_counter_ns()
    loop.enqueue(event)
    if not probe.frame.wait(2.0):
        return None
    return probe.submitted_at - start, probe.journal_ns - journal_before, probe.render_ns - render_before


def run(events: int, bus_ms: float, seed: int, state_dir: Path, dummy: bool = False) -> dict[str, Any]:
    """Play ``events`` taps and ``events`` presses against the real-time loop; return the figures."""
    from luma.core.interface.serial import noop

    from box.hardware import open_parts
    from box.journal import Journal
    from box.loop import BoxLoop
    from box.pinmap import load_pinmap
    from box.ports.buttons import Edge
    from box.ports.display import open_oled
    from box.ports.nfc.reader import CardPlaced
    from box.ports.nfc.simchip import forget_sim_chips, register_url_handler
    from box.service import Box, Settings
    from box.sim.world import load_decks
    from box.tags import TagMap
    from box.tools import DiceCup

    register_url_handler()
    forget_sim_chips()
    decks = load_decks(None)
    journal = Journal(state_dir / "journal.db")
    tags = TagMap.simulated(decks.values())
    box = Box(journal, tags, DiceCup(), Settings(), decks=dict(decks))
    holder: dict[str, BoxLoop] = {}
    parts = open_parts(load_pinmap(), lambda event: holder["loop"].enqueue(event), time.monotonic, simulated=True)
    loop = holder["loop"] = BoxLoop(box, parts, time.monotonic)
    wiring = parts.pinmap.display
    device = parts.display if dummy else open_oled(wiring.controller, wiring.i2c_port, wiring.i2c_address, noop())
    bus = BusModel(device, bus_ms / 1000)
    parts.pusher.device = bus
    box.start_game("deck-of-death", time.monotonic(), players=4)
    probe = Probe()
    probe.wrap(loop)

    stop = threading.Event()
    thread = threading.Thread(target=loop.run, args=(stop, lambda: None), name="box-loop", daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not all(reader.online for reader in parts.readers.values()):
        if time.monotonic() > deadline:
            raise RuntimeError("the simulated readers did not come online")
        time.sleep(0.01)
    time.sleep(3.5)  # let the "Reader ... back" notices expire: no frame then comes by itself

    uid = tags.uid_of("deck-of-death", IMMUNITY_CARD)
    assert uid is not None
    rng = random.Random(seed)
    samples: dict[str, list[tuple[int, int, int]]] = {"card": [], "button": []}
    missing = {"card": 0, "button": 0}
    history_before = len(box.session.history)
    counters_before = (parts.pusher.submitted, bus.pushes)
    wall = time.monotonic()

    def record(kind: str, sample: tuple[int, int, int] | None) -> None:
        if sample is None:
            missing[kind] += 1
        else:
            samples[kind].append(sample)

    released = time.monotonic()
    for _ in range(events):
        time.sleep(rng.uniform(0.0, 0.005))
        record("card", measure(loop, probe, CardPlaced(rng.choice(tuple(parts.readers)), uid)))
        time.sleep(max(0.0, released + GAP_S - time.monotonic()))  # BACK rests past its debounce first
        loop.enqueue(Edge("back", True, time.monotonic()))
        time.sleep(HOLD_S)
        released = time.monotonic()
        record("button", measure(loop, probe, Edge("back", False, released)))
    wall = time.monotonic() - wall
    accepted = len(box.session.history) - history_before
    time.sleep(0.2)  # let the pusher finish its last frame
    submitted, pushed = parts.pusher.submitted - counters_before[0], bus.pushes - counters_before[1]
    journal_calls = probe.journal_calls

    stop.set()
    loop.enqueue(object())  # wake the loop so it sees `stop`
    thread.join(5)
    parts.close()
    journal.close()

    figures: dict[str, Any] = {}
    for kind, rows in samples.items():
        latency, journaled, rendered = zip(*rows, strict=True)
        figures[kind] = {
            "events": len(rows),
            "no_frame": missing[kind],
            "latency_ms": summary_ms(latency),
            "journal_ms": summary_ms(journaled),
            "render_ms": summary_ms(rendered),
            "latency_without_journal_ms": summary_ms([total - journal for total, journal in zip(latency, journaled)]),
            "journal_share": round(sum(journaled) / sum(latency), 3),
            "meets_target": summary_ms(latency)["p50"] < TARGET_P50_MS and summary_ms(latency)["p99"] < TARGET_P99_MS,
        }
    return {
        **figures,
        "accepted_and_journaled": accepted,
        "journal_appends": journal_calls,
        "frames_submitted": submitted,
        "frames_pushed": pushed,
        "unchanged_frames_pushed": bus.unchanged_pushes,
        "bus_ms_per_push": bus_ms,
        "display": "luma dummy" if dummy else f"luma {parts.pinmap.display.controller} on noop",
        "display_driver_ms_per_push": summary_ms(bus.driver_ns),
        "journal_fs": filesystem_of(state_dir),
        "wall_s": round(wall, 1),
        "target": f"p50 < {TARGET_P50_MS} ms, p99 < {TARGET_P99_MS} ms",
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Run the benchmark and print its figures as one JSON line."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--events", type=int, default=1000, help="taps, and as many presses (default 1000)")
    parser.add_argument("--bus-ms", type=float, default=23.0, help="I2C time of one frame push (default 23)")
    parser.add_argument("--state-dir", type=Path, help="where the journal goes (default: a temp dir)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--dummy", action="store_true", help="push to luma's dummy device, not the real driver")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="gravebox-bench-", dir=args.state_dir) as scratch:
        figures = run(args.events, args.bus_ms, args.seed, Path(scratch), args.dummy)
    return emit("input_to_frame", figures)


if __name__ == "__main__":
    main()
