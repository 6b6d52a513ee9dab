"""Where ``gravebox run --fake`` spends its start-up: the steps of ``box.cli.run_box``, timed one by one.

Meant to run in a fresh process (``bench/startup.py`` spawns it); prints one JSON object of
milliseconds per step, in the order ``run_box`` takes them, up to the first frame (READY=1
follows it at once).
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

START = time.perf_counter()
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main() -> dict[str, float]:
    """Run the steps and print their times."""
    marks: list[tuple[str, float]] = [("interpreter", START)]

    def mark(name: str) -> None:
        marks.append((name, time.perf_counter()))

    import box.cli  # the command's own module

    mark("import box.cli")
    from box.games import load_decks
    from box.hardware import open_parts
    from box.journal import Journal
    from box.loop import BoxLoop
    from box.pinmap import default_pinmap_path, load_pinmap
    from box.service import Box, Settings
    from box.tags import TagMap
    from box.tools import DiceCup

    mark("import the box's modules")
    pinmap = load_pinmap(default_pinmap_path())
    mark("load_pinmap")
    with tempfile.TemporaryDirectory(prefix="gravebox-bench-") as scratch:
        journal, damaged = Journal.open_or_recover(Path(scratch) / "journal.db")
        mark("Journal.open_or_recover (new file)")
        tags = TagMap.simulated(lambda: load_decks(None).values())
        mark("TagMap.simulated (fakes only; the decks are parsed at the first tap)")
        box = Box(journal, tags, DiceCup(), Settings(), damaged=damaged)
        mark("Box()")
        parts = open_parts(pinmap, lambda event: None, time.monotonic, simulated=True)
        mark("open_parts (imports gpiozero, luma, PIL.Image)")
        loop = BoxLoop(box, parts, time.monotonic)
        loop.process(time.monotonic())
        mark("first process + render")
        parts.close()
        journal.close()
    figures = {name: round(1000 * (at - marks[i][1]), 1) for i, (name, at) in enumerate(marks[1:])}
    figures["total_in_process"] = round(1000 * (marks[-1][1] - START), 1)
    print(json.dumps(figures))
    return figures


if __name__ == "__main__":
    main()
