"""Memory: peak RSS over one uninterrupted Deck of Death session of 50,000 inputs on the simulated box.

A fresh process builds a ``SimulatedBox`` (the real Box, journal file, press detector, PN532 driver
and simulated chips, luma's dummy display; virtual time), starts a 6-player Deck of Death game and
plays ``--inputs`` random but sensible inputs (bench/dod_player.py) in one game that never ends.
Peak RSS is ``getrusage(RUSAGE_SELF).ru_maxrss``; it is read right after the game started and
every ``--every`` inputs, so the growth between the first and the last reading shows whether a
longer night would keep climbing. gpiozero's mock pins keep a
record of every state change (buttons, buzzer) for ever; that share of the growth exists only on
fakes and is reported apart.

Run from the repository root: ``python bench/memory.py [--inputs 5000]``. Prints JSON.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchlib import emit

TARGET_MB = 40.0
FLAT_MB = 2.0  # growth allowed after the first reading (5,000 inputs): 0.05 MB per 1,000 inputs over 45,000


def max_rss_mb() -> float:
    """This process's peak RSS so far, in MB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def mock_pin_history(factory: Any) -> tuple[int, float]:
    """How many state records gpiozero's mock pins keep (every change, forever: fakes only) and their MB."""
    records, size = 0, 0
    for pin in factory.pins.values():
        states = getattr(pin, "states", [])
        records += len(states)
        size += sys.getsizeof(states) + sum(
            sys.getsizeof(state) + sum(sys.getsizeof(field) for field in state) for state in states
        )
    return records, size / 2**20


def child(inputs: int, seed: int, every: int) -> None:
    """Play the session in this (fresh) process and print its figures as JSON."""
    import dod_player

    with tempfile.TemporaryDirectory(prefix="gravebox-bench-") as scratch:
        start = time.perf_counter()
        world = dod_player.start(Path(scratch), seed)
        at_start = max_rss_mb()
        player = dod_player.Player(world, seed)
        readings = {}
        for played in range(every, inputs + every, every):
            player.play(min(every, inputs - len(readings) * every))
            readings[str(min(played, inputs))] = round(max_rss_mb(), 1)
        peak = max_rss_mb()
        first = next(iter(readings.values()))
        records, record_mb = mock_pin_history(world.parts.mock_factory)
        figures = {
            "inputs": dict(player.inputs),
            "accepted_actions": world.box.session.count,
            "peak_rss_mb_after_inputs": readings,
            "growth_mb_after_first_reading": round(peak - first, 1),
            "virtual_hours": round(world.now / 3600, 2),
            "journal_kb": round((Path(scratch) / "journal.db").stat().st_size / 1024),
            "rss_at_game_start_mb": round(at_start, 1),
            "peak_rss_mb": round(peak, 1),
            "growth_mb_per_1000_inputs": round(1000 * (peak - at_start) / inputs, 2),
            "mock_pin_history": {"records": records, "mb": round(record_mb, 2)},
            "wall_s": round(time.perf_counter() - start, 1),
        }
        world.parts.close()
        world.box.journal.close()
    print(json.dumps(figures))


def spawn(arguments: list[str]) -> dict[str, Any]:
    """Run this script's child mode in a fresh interpreter and answer its figures."""
    from startup import environment

    command = [sys.executable, str(Path(__file__).resolve()), "--child", *arguments]
    result = subprocess.run(command, env=environment(), capture_output=True, text=True, check=True)
    return json.loads(result.stdout.strip().splitlines()[-1])


def baseline_rss_mb() -> float:
    """Peak RSS of a bare interpreter that imports the box's libraries, for scale."""
    from startup import LIBRARIES_AS_USED, environment

    code = LIBRARIES_AS_USED[2] + "; import resource; print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"
    result = subprocess.run([sys.executable, "-c", code], env=environment(), capture_output=True, text=True, check=True)
    return round(int(result.stdout) / 1024, 1)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Run the benchmark in a fresh process and print its figures as one JSON line."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--inputs", type=int, default=50_000, help="inputs played (default 50000)")
    parser.add_argument("--every", type=int, default=5_000, help="inputs between RSS readings (default 5000)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.inputs, args.seed, args.every)
        return {}
    figures = spawn(["--inputs", str(args.inputs), "--seed", str(args.seed), "--every", str(args.every)])
    figures["libraries_only_rss_mb"] = baseline_rss_mb()
    flat = figures["growth_mb_after_first_reading"] <= FLAT_MB
    figures["meets_target"] = figures["peak_rss_mb"] <= TARGET_MB and flat
    figures["target"] = f"peak RSS <= {TARGET_MB:.0f} MB, at most {FLAT_MB:.0f} MB above the first reading"
    return emit("memory", figures)


if __name__ == "__main__":
    main()
