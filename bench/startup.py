"""Start-up: process start to sd_notify READY=1 on fakes, against the libraries' own import time.

``gravebox run --fake --state-dir TMP`` is spawned under a fake ``NOTIFY_SOCKET`` (a unix datagram
socket bound in a temp dir) and timed from just before the spawn to the READY=1 datagram, then
stopped with SIGTERM. READY=1 is honest: the journal opened and judged, the parts opened, the
game resumed and the first frame rendered. It is timed on a new journal, on one holding a
40,000-action game to resume, on one holding six weeks of finished games, and on a year of them
(720 finished games, 1.08 million actions, 64 MB: bench/journals.py), each against the fresh READY;
each journal is copied and put out of the page cache first (`cold`), as after a boot.
The baseline is the libraries as the box uses them, ``python -c "import gpiozero, serial,
sqlite3, PIL.Image, luma.core.device, luma.oled.device"`` (spawn to exit); the old baseline
``import PIL, gpiozero, serial, luma.oled`` (whose ``import PIL`` and ``luma.oled`` load almost
nothing) is printed beside it, and ``python -c pass`` is the floor of any start. Runs interleave
in a shuffled order, one untimed warm-up round, median of ``--runs``; the dataclasses' code is kept
first, as install.sh keeps it on a box (box/files/classcode.py).

The box command is ``python -m box run --fake`` (what the ``gravebox`` script runs; the repository
on PYTHONPATH, so a fresh clone needs no install). ``gravebox --help`` is timed the same way
(spawn to exit), next to a bare ``python -c pass`` and to the imports the box really makes
(``PIL.Image``, ``gpiozero.pins.mock``, ``luma.core.device``...: the baseline's ``import PIL``
loads almost nothing).

Run from the repository root: ``python bench/startup.py [--runs 7]``. Prints JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchlib import ROOT, as_installed, emit

TARGET_RATIO, TARGET_LONG_GAME_RATIO, TARGET_HELP_MS = 1.2, 1.15, 150.0
TARGET_YEAR_RATIO = 1.15  # READY after a year of games (64 MB) / a fresh READY
OLD_BASELINE = [sys.executable, "-c", "import PIL, gpiozero, serial, luma.oled"]
LIBRARIES_AS_USED = [  # the baseline: what the box really loads from its libraries
    sys.executable,
    "-c",
    "import gpiozero, serial, sqlite3, PIL.Image, luma.core.device, luma.oled.device",
]
GRAVEBOX = [sys.executable, "-m", "box"]


DROPPED = ("NOTIFY_SOCKET", "WATCHDOG_USEC", "INVOCATION_ID", "PYTHONDONTWRITEBYTECODE")
PYCACHE = Path(tempfile.gettempdir()) / "gravebox-bench-pycache"


def environment(**extra: str) -> dict[str, str]:
    """The environment for a child: the repository importable, no systemd leftovers.

    Byte code is cached (as pip does on an installed box) under a temp prefix, so the source
    tree gets no __pycache__ and a PYTHONDONTWRITEBYTECODE=1 shell does not make every start
    compile the whole box (that would double its start-up).
    """
    env = {k: v for k, v in os.environ.items() if k not in DROPPED}
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["PYTHONPYCACHEPREFIX"] = str(PYCACHE)
    env.update(extra)
    return env


def cold(path: Path) -> None:
    """Put `path` out of the page cache (written to disk first), as a journal is when a box boots:
    READY then reads from the disk what it needs of it (only this file's pages go: nothing of other work's)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


class RunningBox:
    """``gravebox run --fake`` spawned under a fake NOTIFY_SOCKET; ``ready_s`` is spawn to READY=1."""

    def __init__(self, command: list[str], scratch: Path, timeout: float = 30.0, journal: str | None = None):
        state = scratch / "state"
        shutil.rmtree(state, ignore_errors=True)
        if journal is not None:
            from journals import copy_to

            cold(copy_to(journal, state))
        path = scratch / "notify.sock"
        path.unlink(missing_ok=True)
        self.socket = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.socket.bind(str(path))
        self.socket.settimeout(timeout)
        self.log = (scratch / "stderr.log").open("w+b")
        start = time.perf_counter()
        self.process = subprocess.Popen(
            [*command, "run", "--fake", "--state-dir", str(state)],
            cwd=scratch,
            env=environment(NOTIFY_SOCKET=str(path)),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=self.log,
        )
        self.messages: list[str] = []
        while "READY=1" not in self.messages:
            self.messages += self.socket.recv(4096).decode().split("\n")
        self.ready_s = time.perf_counter() - start
        self.pid = self.process.pid

    def stop(self) -> str:
        """SIGTERM, wait, and answer what the box logged."""
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.socket.close()
        self.log.seek(0)
        text = self.log.read().decode(errors="replace")
        self.log.close()
        return text


def spawn_to_exit(command: list[str], cwd: Path) -> float:
    """Seconds from spawn to exit of ``command`` (which must succeed)."""
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, env=environment(), stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def journal_open_ms(actions: int, scratch: Path) -> float:
    """Median ms of ``Journal.open_or_recover`` (which checks every row) on a journal of ``actions`` actions."""
    from box.storage.journal import Journal

    path = scratch / f"journal-{actions}.db"
    journal = Journal(path)
    game = journal.start_game("deck-of-death", ["Ann", "Bob", "Cid"], {}, None)
    journal.db.execute("BEGIN")  # one commit for the fixture, not one fsync per action
    for n in range(actions):
        journal.append(game, {"t": "press", "b": ("up", "down", "ok")[n % 3], "l": False})
    journal.db.execute("COMMIT")
    journal.close()
    times = []
    for _ in range(3):
        start = time.perf_counter()
        opened, _ = Journal.open_or_recover(path)
        times.append(time.perf_counter() - start)
        opened.close()
    return round(1000 * statistics.median(times), 1)


def run_phases(cwd: Path) -> str:
    """One fresh run of bench/startup_phases.py: its JSON line."""
    command = [sys.executable, str(ROOT / "bench" / "startup_phases.py")]
    return subprocess.run(command, cwd=cwd, env=environment(), capture_output=True, text=True, check=True).stdout


def ready_time(command: list[str], scratch: Path, journal: str | None = None) -> float:
    """Spawn-to-READY seconds of one box (stopped right after), on a new journal or a copy of a bench one."""
    running = RunningBox(command, scratch, journal=journal)
    running.stop()
    return running.ready_s


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Run the benchmark and print its figures as one JSON line."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=7, help="timed runs of each command (default 7)")
    args = parser.parse_args(argv)
    help_command = [*GRAVEBOX, "--help"]
    installed = Path(sys.executable).with_name("gravebox")
    names = ("old_baseline", "baseline", "python", "help", "ready", "ready_long_game", "ready_weeks", "ready_year")
    times: dict[str, list[float]] = {name: [] for name in names}
    if installed.exists():
        times["help_installed"] = []
    as_installed()
    with tempfile.TemporaryDirectory(prefix="gravebox-bench-") as name:
        scratch = Path(name)
        measures: dict[str, Callable[[], float]] = {
            "old_baseline": lambda: spawn_to_exit(OLD_BASELINE, scratch),
            "baseline": lambda: spawn_to_exit(LIBRARIES_AS_USED, scratch),
            "python": lambda: spawn_to_exit([sys.executable, "-c", "pass"], scratch),
            "help": lambda: spawn_to_exit(help_command, scratch),
            "ready": lambda: ready_time(GRAVEBOX, scratch),
            "ready_long_game": lambda: ready_time(GRAVEBOX, scratch, journal="long-game"),
            "ready_weeks": lambda: ready_time(GRAVEBOX, scratch, journal="weeks"),
            "ready_year": lambda: ready_time(GRAVEBOX, scratch, journal="year"),
        }
        if installed.exists():
            measures["help_installed"] = lambda: spawn_to_exit([str(installed), "--help"], scratch)
        order = random.Random(1)
        for run in range(args.runs + 1):  # run 0 warms the caches (and writes the .pyc files)
            names = list(measures)
            order.shuffle(names)  # no command always runs first, after the previous box's exit
            for name in names:
                value = measures[name]()
                if run:
                    times[name].append(value)
        phases = [json.loads(run_phases(scratch)) for _ in range(args.runs)]
        journal_open = {str(actions): journal_open_ms(actions, scratch) for actions in (0, 10_000, 50_000)}
    median_ms = {key: round(1000 * statistics.median(values), 1) for key, values in times.items()}
    ratio = round(median_ms["ready"] / median_ms["baseline"], 2)
    long_ratio = round(median_ms["ready_long_game"] / median_ms["ready"], 2)
    weeks_ratio = round(median_ms["ready_weeks"] / median_ms["ready"], 2)
    year_ratio = round(median_ms["ready_year"] / median_ms["ready"], 2)
    help_ms = max(median_ms["help"], median_ms.get("help_installed", 0.0))
    return emit(
        "startup",
        {
            "runs": args.runs,
            "median_ms": {
                "baseline_import": median_ms["baseline"],
                "old_baseline_import": median_ms["old_baseline"],
                "python_bare": median_ms["python"],
                "ready_run_fake": median_ms["ready"],
                "ready_after_long_game": median_ms["ready_long_game"],
                "ready_after_weeks_of_games": median_ms["ready_weeks"],
                "ready_after_a_year_of_games": median_ms["ready_year"],
                "help": median_ms["help"],
                **({"help_installed_script": median_ms["help_installed"]} if installed.exists() else {}),
            },
            "ready_ratio_to_baseline": ratio,
            "ready_ratio_to_old_baseline": round(median_ms["ready"] / median_ms["old_baseline"], 2),
            "ready_after_long_game_ratio": long_ratio,
            "ready_after_weeks_ratio": weeks_ratio,
            "ready_after_year_ratio": year_ratio,
            "journal_open_ms_by_actions": journal_open,
            "phases_median_ms": {key: statistics.median(run[key] for run in phases) for key in phases[0]},
            "meets_target": {
                "ratio": ratio <= TARGET_RATIO,
                "long_game": long_ratio <= TARGET_LONG_GAME_RATIO,
                "year": year_ratio <= TARGET_YEAR_RATIO,
                "help": help_ms < TARGET_HELP_MS,
            },
            "target": (
                f"ready / baseline <= {TARGET_RATIO}; ready after a long game / fresh ready"
                f" <= {TARGET_LONG_GAME_RATIO}; ready after a year of games (64 MB) / fresh ready <= {TARGET_YEAR_RATIO};"
                f" --help < {TARGET_HELP_MS:.0f} ms"
                " (after weeks of games: reported, as the issue asks, with no target of its own)"
            ),
        },
    )


if __name__ == "__main__":
    main()
