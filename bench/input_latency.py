"""Input to the panel: from the pin edge or the chip's answer to luma's ``display()`` of the new frame.

The real box on fakes, in real time: ``Box`` with a real journal file, ``open_parts(simulated=True)``
(gpiozero mock pins, three simulated PN532s watched by their reader threads) and ``BoxLoop.run`` on
its own thread with the monotonic clock, as ``gravebox run`` wires them, except the display: the
pusher drives the pin map's real luma driver (ssd1306 or sh1106, whose ``display`` packs the 8,192
pixels in Python, holding the GIL) over luma's ``noop`` interface, and each push then sleeps the I2C
time of one frame (``--bus-ms``, 23 ms at 400 kHz; the bus write releases the GIL), so the pusher
thread competes with the loop as it would on a Pi.

A Deck of Death game is played with inputs the game accepts, so each one is journaled: lay an
Immunity card on a reader (the picker opens), lift it, then press BACK (the picker closes). Each
input comes 40-60 ms after the one before (a very quick hand; ``--spacing-ms``), so a frame may
meet the previous one still on the bus. The clocks start where the input enters the machine:

- a card: when the simulated chip puts the first byte of its InListPassiveTarget answer on the
  line (the reader thread waits in its read for it);
- a button: just before the gpiozero mock pin's up edge is driven (BACK down, held 35 ms, up: the
  press counts on the up edge; it rests 35 ms between presses, past the 30 ms debounce);

and stop when luma's ``display()`` is called with the first frame pushed after that moment. The
floor, measured in the same run on the journal's file system: one SQLite commit with fsync, which
every accepted input waits for before its frame is drawn.
``--hog`` runs a busy process for the whole run (the other core taken, as by a CPU-heavy neighbour).

Run from the repository root: ``python bench/input_latency.py [--events 1000] [--hog]``. Prints JSON.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from benchlib import emit, filesystem_of, summary_ms

TARGET_P99_MS = 30.0
IMMUNITY_CARD = "dd177"  # Guardian Angel: a white card, playable in any phase
HOLD_S = 0.035  # BACK is held longer than the 30 ms debounce, so its up edge counts at once
JITTER_S = 0.020  # inputs come SPACING to SPACING + JITTER apart
TARGET_ANSWER = bytes([0xD5, 0x4B, 0x01])  # TFI, InListPassiveTarget's response code, one target


class BusModel:
    """A luma device whose ``display`` also takes the I2C time of a frame; it notes when each push began."""

    def __init__(self, device: Any, seconds: float):
        self.device = device
        self.seconds = seconds
        self.pushes = 0
        self.unchanged_pushes = 0
        self.driver_ns: list[int] = []  # luma's own work per push (pixel packing: holds the GIL)
        self.called_ns: list[int] = []
        self.pushed = threading.Condition()
        self._last: bytes | None = None

    def display(self, image: Any) -> None:
        start = time.perf_counter_ns()
        with self.pushed:
            self.called_ns.append(start)
            self.pushed.notify_all()
        data = image.tobytes()
        self.unchanged_pushes += data == self._last
        self._last = data
        self.device.display(image)
        self.driver_ns.append(time.perf_counter_ns() - start)
        self.pushes += 1
        time.sleep(self.seconds)

    def __getattr__(self, name: str) -> Any:
        """The rest of the device (contrast, show, hide: the screen care's panel commands) as it is."""
        return getattr(self.device, name)

    def first_push_after(self, since_ns: int, timeout: float = 2.0) -> int | None:
        """When ``display()`` was first called at or after ``since_ns`` (None: no push in time)."""
        with self.pushed:
            found = self.pushed.wait_for(lambda: self.called_ns and self.called_ns[-1] >= since_ns, timeout)
            if not found:
                return None
            return next(at for at in self.called_ns if at >= since_ns)


class Probe:
    """What crosses the loop's inbox, the chips' first answers, and the time spent in the journal."""

    def __init__(self) -> None:
        self.lifted = threading.Condition()
        self.lifts: dict[str, int] = {}
        self.answered_ns: int | None = None
        self.journal_ns = 0

    def wrap(self, loop: Any, chips: list[Any]) -> None:
        from box.ports.nfc.reader import CardLifted

        enqueue, append = loop.enqueue, loop.box.journal.append

        def watched_enqueue(event: Any) -> None:
            if isinstance(event, CardLifted):
                with self.lifted:
                    self.lifts[event.reader] = self.lifts.get(event.reader, 0) + 1
                    self.lifted.notify_all()
            enqueue(event)

        def timed_append(game: int, action: dict[str, Any]) -> int:
            start = time.perf_counter_ns()
            seq = append(game, action)
            self.journal_ns += time.perf_counter_ns() - start
            return seq

        for chip in chips:
            respond = chip._respond

            def stamped(frame: bytes, respond: Any = respond) -> None:
                if self.answered_ns is None and frame[5:8] == TARGET_ANSWER:
                    self.answered_ns = time.perf_counter_ns()
                respond(frame)

            chip._respond = stamped
        loop.enqueue = watched_enqueue
        loop.box.journal.append = timed_append

    def wait_lifted(self, reader: str, count: int) -> None:
        with self.lifted:
            if not self.lifted.wait_for(lambda: self.lifts.get(reader, 0) >= count, 5.0):
                raise RuntimeError(f"reader {reader}: the card was not seen lifted")


@contextmanager
def spinning(on: bool) -> Iterator[None]:
    """A process spinning on the other core while the block runs (when `on`), killed when it ends."""
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"]) if on else None
    try:
        yield
    finally:
        if busy is not None:
            busy.kill()
            busy.wait()


def run(events: int, bus_ms: float, seed: int, state_dir: Path, hog: bool, spacing: float) -> dict[str, Any]:
    """Play ``events`` taps and ``events`` presses against the real-time loop; return the figures."""
    from luma.core.interface.serial import noop
    from undo import commit_floor_ns

    from box.app import assemble
    from box.games import load_decks
    from box.pinmap import load_pinmap
    from box.ports.display import open_oled
    from box.ports.nfc.simchip import SimChips
    from box.service import Settings

    floor = summary_ms(commit_floor_ns(state_dir))
    simulated_chips = SimChips()
    app = assemble(
        load_pinmap(), time.monotonic, Settings(), state_dir, simulated=True, decks=load_decks(None), chips=simulated_chips
    )
    box, parts, loop, journal, tags = app.box, app.parts, app.loop, app.journal, app.box.tags
    wiring = parts.pinmap.display
    device = open_oled(wiring.controller, wiring.i2c_port, wiring.i2c_address, noop())
    bus = BusModel(device, bus_ms / 1000)
    parts.pusher.device = bus
    box.lobby.start_game("deck-of-death", time.monotonic(), players=4)
    names = tuple(parts.readers)
    chips = [simulated_chips.chip(name) for name in names]
    probe = Probe()
    probe.wrap(loop, chips)
    back = parts.mock_factory.pin(parts.pinmap.buttons["back"])

    with spinning(hog):  # the other core kept busy, if asked; the spinning process ends whatever happens
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
        samples: dict[str, list[tuple[int, int]]] = {"card": [], "button": []}
        missing = {"card": 0, "button": 0}
        history_before = box.session.count
        counters_before = (parts.pusher.submitted, bus.pushes)
        placed = dict.fromkeys(names, 0)
        wall = time.monotonic()

        def record(kind: str, since_ns: int | None, journal_before: int) -> None:
            pushed = None if since_ns is None else bus.first_push_after(since_ns)
            if pushed is None or since_ns is None:
                missing[kind] += 1
            else:
                samples[kind].append((pushed - since_ns, probe.journal_ns - journal_before))

        def pause_after(moment: float) -> None:
            time.sleep(max(0.0, moment + spacing + rng.uniform(0.0, JITTER_S) - time.monotonic()))

        released = time.monotonic()
        for n in range(events):
            name, chip = names[n % len(names)], chips[n % len(names)]
            probe.wait_lifted(name, placed[name])  # this reader's last card is gone: the next one is a tap
            pause_after(released)
            probe.answered_ns, journal_before = None, probe.journal_ns
            chip.place(uid)
            placed[name] += 1
            deadline = time.monotonic() + 2
            while probe.answered_ns is None and time.monotonic() < deadline:
                time.sleep(0.0005)  # the reader re-arms now and then (keepalive): its answer may come a moment later
            record("card", probe.answered_ns, journal_before)
            tapped = time.monotonic()
            chip.lift()
            pause_after(tapped)  # also past BACK's debounce since its last release
            back.drive_low()
            time.sleep(HOLD_S)
            journal_before, released = probe.journal_ns, time.monotonic()
            since = time.perf_counter_ns()
            back.drive_high()
            record("button", since, journal_before)
        wall = time.monotonic() - wall
        accepted = box.session.count - history_before
        time.sleep(0.2)  # let the pusher finish its last frame
        submitted, pushed = parts.pusher.submitted - counters_before[0], bus.pushes - counters_before[1]

        stop.set()
        loop.enqueue(None)  # wake the loop so it sees `stop`
        thread.join(5)
    parts.close()
    journal.close()

    figures: dict[str, Any] = {}
    for kind, rows in samples.items():
        latency, journaled = zip(*rows, strict=True)
        figures[kind] = {
            "events": len(rows),
            "no_frame": missing[kind],
            "to_display_ms": summary_ms(latency),
            "journal_ms": summary_ms(journaled),
            "meets_target": summary_ms(latency)["p99"] <= TARGET_P99_MS and not missing[kind],
        }
    every = [value for rows in samples.values() for value, _ in rows]
    return {
        **figures,
        "all_to_display_ms": summary_ms(every),
        "floor_commit_ms": floor,
        "cpu_hog_on_other_core": hog,
        "accepted_and_journaled": accepted,
        "frames_submitted": submitted,
        "frames_pushed": pushed,
        "unchanged_frames_pushed": bus.unchanged_pushes,
        "bus_ms_per_push": bus_ms,
        "input_spacing_ms": [round(1000 * spacing), round(1000 * (spacing + JITTER_S))],
        "rate_cap_gap_ms": round(1000 * parts.pusher.min_interval, 1),
        "display": f"luma {parts.pinmap.display.controller} on noop",
        "display_driver_ms_per_push": summary_ms(bus.driver_ns),
        "journal_fs": filesystem_of(state_dir),
        "wall_s": round(wall, 1),
        "target": f"p99 <= {TARGET_P99_MS:.0f} ms from the pin edge or the chip's answer to display()",
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Run the benchmark and print its figures as one JSON line."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--events", type=int, default=1000, help="taps, and as many presses (default 1000)")
    parser.add_argument("--bus-ms", type=float, default=23.0, help="I2C time of one frame push (default 23)")
    parser.add_argument("--state-dir", type=Path, help="where the journal goes (default: a temp dir)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--spacing-ms", type=float, default=40.0, help="least time between inputs (default 40)")
    parser.add_argument("--hog", action="store_true", help="keep the other core busy with a spinning process")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="gravebox-bench-", dir=args.state_dir) as scratch:
        figures = run(args.events, args.bus_ms, args.seed, Path(scratch), args.hog, args.spacing_ms / 1000)
    return emit("input_to_display_hog" if args.hog else "input_to_display", figures)


if __name__ == "__main__":
    main()
