"""The phone page's cost: the RSS of `gravebox web` after every page has been served.

Plays a few scenario games into a fresh state directory (so History replays real games and
Cards loads every deck), starts `gravebox web` in its own process as the service does, asks
for every page `--rounds` times, then reads the process's VmRSS and VmHWM.

Run from the repository root: ``python bench/web_cost.py [--rounds 5]``. Prints JSON.
"""

from __future__ import annotations

import argparse
import logging
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from benchlib import ROOT, emit

TARGET_RSS_MB = 35.0
PAGES = ("/", "/history", "/players/Ann", "/roster", "/cards", "/box", "/pair", "/api/state", "/cards/tags.csv")
GAMES = (
    ("dead-set", "win-mid-scoring"),
    ("deadlines", "classic"),
    ("dead-fellas", "win"),
    ("deck-of-death", "enough-chaos"),
)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def status_kb(pid: int, key: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    raise KeyError(key)


def play_games(state_dir: Path) -> None:
    from box.sim.script import run_script

    logging.disable(logging.WARNING)  # each script's box resumes the last one's game with other decks
    scenarios = ROOT / "tests" / "scenarios"
    for game, script in GAMES:
        world, _ = run_script(scenarios / game / f"{script}.script", state_dir, scenarios / game / "decks", seed=1)
        world.parts.close()
        world.box.journal.close()


def start_web(state_dir: Path, runtime: Path, port: int) -> subprocess.Popen[bytes]:
    """`gravebox web` in its own process; returns once it answers."""
    command = [sys.executable, "-m", "box", "web", "--state-dir", str(state_dir), "--listen", f"127.0.0.1:{port}"]
    command += ["--runtime-dir", str(runtime)]
    environment = {**os.environ, "MALLOC_ARENA_MAX": "2"}  # as systemd/gravebox-web.service sets it
    process = subprocess.Popen(command, cwd=ROOT, stderr=subprocess.DEVNULL, env=environment)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/box", timeout=1).read()
            return process
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError("gravebox web did not answer in 30 s")


def rss(rounds: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="gravebox-web-bench-") as scratch:
        state_dir, runtime = Path(scratch) / "state", Path(scratch) / "run"
        play_games(state_dir)
        timings: list[float] = []
        figures = []
        for _ in range(2):  # a first start (every game replayed), then a restart (their figures remembered)
            port = free_port()
            process = start_web(state_dir, runtime, port)
            try:
                started_kb = status_kb(process.pid, "VmRSS")
                for _ in range(rounds):
                    for page in PAGES:
                        start = time.perf_counter()
                        urllib.request.urlopen(f"http://127.0.0.1:{port}{page}", timeout=10).read()
                        timings.append(time.perf_counter() - start)
                figures.append((started_kb, status_kb(process.pid, "VmRSS"), status_kb(process.pid, "VmHWM")))
            finally:
                process.terminate()
                process.wait(10)
    (started_kb, served_kb, peak_kb), (_, restarted_kb, restarted_peak_kb) = figures
    return {
        "rss_started_mb": round(started_kb / 1024, 1),
        "rss_served_mb": round(served_kb / 1024, 1),
        "rss_peak_mb": round(peak_kb / 1024, 1),
        "rss_served_after_restart_mb": round(restarted_kb / 1024, 1),
        "target_rss_mb": TARGET_RSS_MB,
        "rss_met": restarted_peak_kb / 1024 <= TARGET_RSS_MB,
        "pages_served": len(timings),
        "page_ms_worst": round(max(timings) * 1000, 1),
        "page_ms_mean": round(sum(timings) / len(timings) * 1000, 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="times each page is asked for")
    args = parser.parse_args()
    figures = rss(args.rounds)
    emit("web_cost", figures)
    return 0 if figures["rss_met"] else 1


if __name__ == "__main__":
    sys.exit(main())
