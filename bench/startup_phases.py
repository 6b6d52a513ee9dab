"""Where ``gravebox run --fake`` spends its start-up: the steps of ``box.cli.main.run_box``, timed one by one.

Meant to run in a fresh process (``bench/startup.py`` spawns it); prints one JSON object of
milliseconds per step, in the order ``run_box`` takes them, up to the first frame (READY=1
follows it at once). ``--journal PATH`` starts it on a copy of that journal (a game to resume). The box is put together as the service does it, by the composition root
``box.core.app.assemble`` with the garbage collector paused as ``run_box`` pauses it; the parts'
and the journal's shares of ``assemble`` are timed inside it.
"""

from __future__ import annotations

import gc
import json
import queue
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

    import box.cli.main  # the command's own module (argparse, logging)

    mark("import box.cli.main")
    gc.disable()  # as run_box does until the box is up
    import box.core.app
    import box.core.hardware
    from box.cli.service import default_pinmap  # what run_box imports for the box's service
    from box.storage.journal import enter_state_directory
    from box.storage.pinmap import load_pinmap

    mark("import box.core.app (the box's modules)")
    inside: dict[str, float] = {}

    def timed(name: str, function):  # type: ignore[no-untyped-def]
        def call(*args, **kwargs):  # type: ignore[no-untyped-def]
            start = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                inside[name] = round(1000 * (time.perf_counter() - start), 1)

        return call

    open_parts = timed("assemble: open_parts (imports gpiozero's mock pins, luma, PIL.Image)", box.core.hardware.open_parts)
    box.core.app.Journal.open_or_recover = timed("assemble: Journal.open_or_recover (new file)", box.core.app.Journal.open_or_recover)
    with tempfile.TemporaryDirectory(prefix="gravebox-bench-") as scratch:
        if "--journal" in sys.argv:  # a journal to resume (bench/instructions.py: the long game)
            import shutil

            shutil.copyfile(sys.argv[sys.argv.index("--journal") + 1], Path(scratch) / "journal.db")
        args = box.cli.main.build_parser("run").parse_args(["run", "--fake", "--state-dir", scratch])
        mark("the command line (argparse)")
        config, settings = box.cli.main.settings_from(args)
        pinmap = load_pinmap(config.pinmap or default_pinmap())
        state_dir = enter_state_directory(Path(scratch))
        mark("settings and pin map (TOML)")
        inbox: queue.SimpleQueue[object] = queue.SimpleQueue()
        parts = open_parts(pinmap, inbox.put, time.monotonic, simulated=True)  # as assemble opens them
        app = box.core.app.assemble(pinmap, time.monotonic, settings, state_dir, True, parts=parts, inbox=inbox)
        gc.freeze()
        gc.enable()
        mark("assemble (parts, journal, tag map, Box, loop)")
        app.loop.process(time.monotonic())
        mark("first pass + render")
        app.close()
    figures = {name: round(1000 * (at - marks[i][1]), 1) for i, (name, at) in enumerate(marks[1:])}
    figures.update(inside)
    figures["total_in_process"] = round(1000 * (marks[-1][1] - START), 1)
    print(json.dumps(figures))
    return figures


if __name__ == "__main__":
    main()
