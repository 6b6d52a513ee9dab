"""Display traffic: frames rendered, submitted and pushed per input, and never a render or a push of an unchanged frame.

A ``SimulatedBox`` (virtual time, the real ``FramePusher`` with its 20 frames/s cap in front of
luma's dummy device) plays a scripted Deck of Death session (bench/dod_player.py, seeded). The
device is wrapped to compare each pushed frame with the one before it. Counters are read around
every input, so the figures say how many frames each kind of input costs on the I2C bus (a dice
throw animates; a refused press only redraws its notice).

Run from the repository root: ``python bench/display_traffic.py [--inputs 1000]``. Prints JSON.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

import dod_player
from benchlib import emit


class CountingDevice:
    """Wraps luma's dummy device: counts pushes and pushes of a frame equal to the previous one."""

    def __init__(self, device: Any):
        self.device = device
        self.pushes = 0
        self.unchanged = 0
        self._last: bytes | None = None

    def display(self, image: Any) -> None:
        data = image.tobytes()
        self.unchanged += data == self._last
        self._last = data
        self.pushes += 1
        self.device.display(image)


def kind_of(name: str) -> str:
    """The input kind reported: tap, roll, long press or press."""
    if name.startswith("tap"):
        return "tap"
    if name.startswith("long"):
        return "long press"
    return "roll" if name == "roll" else "press"


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Run the benchmark and print its figures as one JSON line."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--inputs", type=int, default=1000, help="inputs played (default 1000)")
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="gravebox-bench-") as scratch:
        world = dod_player.start(Path(scratch), args.seed)
        pusher = world.parts.pusher
        device = pusher.device = CountingDevice(pusher.device)
        player = dod_player.Player(world, args.seed)
        start = (pusher.submitted, device.pushes, pusher.skipped_unchanged, world.loop.renders)
        per_kind: dict[str, list[int]] = defaultdict(list)
        history = world.box.session.count
        refused_pushes: list[int] = []
        for _ in range(args.inputs):
            before, accepted_before = device.pushes, world.box.session.count
            name = player.step()
            pushes = device.pushes - before
            per_kind[kind_of(name)].append(pushes)
            if world.box.session.count == accepted_before:
                refused_pushes.append(pushes)
        submitted = pusher.submitted - start[0]
        pushed = device.pushes - start[1]
        skipped = pusher.skipped_unchanged - start[2]
        renders = world.loop.renders - start[3]
        accepted = world.box.session.count - history
        world.parts.close()
        world.box.journal.close()
    return emit(
        "display_traffic",
        {
            "inputs": args.inputs,
            "accepted": accepted,
            "renders": renders,
            "frames_submitted": submitted,
            "frames_pushed": pushed,
            "pushes_per_input": round(pushed / args.inputs, 2),
            "pushes_per_input_by_kind": {
                kind: {"inputs": len(values), "mean": round(statistics.fmean(values), 2), "max": max(values)}
                for kind, values in sorted(per_kind.items())
            },
            "pushes_per_refused_input": round(statistics.fmean(refused_pushes), 2) if refused_pushes else None,
            "skipped_unchanged_by_pusher": skipped,
            "unchanged_frames_pushed": device.unchanged,
            "renders_per_input": round(renders / args.inputs, 2),
            "meets_target": device.unchanged == 0 and skipped == 0,
            "target": "no push of an unchanged frame, and no render of one (the pusher found none to skip)",
        },
    )


if __name__ == "__main__":
    main()
