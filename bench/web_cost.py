"""The phone page's cost: the RSS of `gravebox web`, and the box's input latency with pages open.

1. RSS: plays a few scenario games into a fresh state directory (so History replays real games
   and Cards loads every deck), starts `gravebox web` in its own process as the service does,
   asks for every page `--rounds` times, then reads the process's VmRSS and VmHWM.
2. Latency: runs bench/input_latency.py's measurement twice, first as it is, then with the
   box's control socket attached to its loop (it publishes its state after every change),
   `gravebox web` subscribed to it, and `--pages` live pages (server-sent event streams, read by
   another process, as phones would) open on it. Each page's delay is the time from the box's
   publish to the page's event.

Run from the repository root: ``python bench/web_cost.py [--rounds 5] [--events 300] [--pages 10]``.
Prints JSON.
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
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchlib import ROOT, emit

TARGET_RSS_MB = 35.0
KINDS = ("card", "cursor", "button")  # bench/input_latency.py's inputs, each to its frame's last byte on the bus
TARGET_RATIO = 1.05  # the box with ten live pages against none: within 5%
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


def start_web(state_dir: Path, runtime: Path, port: int, answered: bool = True) -> subprocess.Popen[bytes]:
    """`gravebox web` in its own process; returns once it answers a page (`answered`), else once it
    listens (bench/history_scale.py: its first page is what is measured)."""
    command = [sys.executable, "-m", "box", "web", "--state-dir", str(state_dir), "--listen", f"127.0.0.1:{port}"]
    command += ["--runtime-dir", str(runtime)]
    environment = {**os.environ, "MALLOC_ARENA_MAX": "2"}  # as systemd/gravebox-web.service sets it
    process = subprocess.Popen(command, cwd=ROOT, stderr=subprocess.DEVNULL, env=environment)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if answered:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/box", timeout=1).read()
            else:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return process
        except OSError:
            time.sleep(0.05)
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


READER = r"""
import http.client, sys, threading, time
port, pages = int(sys.argv[1]), int(sys.argv[2])
lock = threading.Lock()
def read(n):
    connection = http.client.HTTPConnection("127.0.0.1", port)
    connection.request("GET", "/events")
    response = connection.getresponse()
    first = True
    for line in response:
        if line.startswith(b"data:"):
            if not first:  # the first event is the state at connection, not an answer to a change
                with lock:
                    sys.stdout.write(f"{n} {time.monotonic_ns()}\n")
                    sys.stdout.flush()
            first = False
for n in range(pages):
    threading.Thread(target=read, args=(n,), daemon=True).start()
sys.stdin.read()
"""


def latency(events: int, pages: int) -> dict[str, Any]:
    """Input to display without and with the page: the box's own figure and the pages' delay."""
    import threading

    import input_latency

    from box.links.control import ControlServer

    def measure(with_loop: Callable[[Any], None] | None = None) -> dict[str, Any]:
        """One run, with the box process's CPU seconds (every thread of it, none of the page's) per input."""
        with tempfile.TemporaryDirectory(prefix="gravebox-bench-") as scratch:
            cpu = time.process_time()
            figures = input_latency.run(events, 400.0, 1, Path(scratch), False, 0.040, with_loop)
            inputs = sum(figures[kind]["events"] for kind in KINDS)
            figures["box_cpu_ms_per_input"] = (time.process_time() - cpu) * 1000 / inputs
            return figures

    without = measure()
    published: list[int] = []
    with tempfile.TemporaryDirectory(prefix="gravebox-web-bench-") as scratch:
        runtime, state_dir = Path(scratch) / "run", Path(scratch) / "state"
        control = ControlServer(runtime / "control.sock", lambda command: None)
        publish = control.publish

        def timed_publish(*parts: dict[str, Any], events: Any = None) -> None:
            published.append(time.monotonic_ns())
            publish(*parts, events=events)

        control.publish = timed_publish  # type: ignore[method-assign]
        control.start()

        def attached(loop: Any) -> None:
            control.enqueue = loop.inbox.put
            loop.attach_control(control)

        state_dir.mkdir()
        port = free_port()
        web = start_web(state_dir, runtime, port)
        reader = subprocess.Popen(
            [sys.executable, "-c", READER, str(port), str(pages)], stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        received: list[tuple[int, int]] = []

        def collect() -> None:
            assert reader.stdout is not None
            for line in reader.stdout:
                page, at = line.split()
                received.append((int(page), int(at)))

        collector = threading.Thread(target=collect, daemon=True)
        collector.start()
        try:
            with_pages = measure(attached)
            web_kb = status_kb(web.pid, "VmHWM")
        finally:
            reader.kill()
            web.terminate()
            web.wait(10)
            control.stop()
    delays = []
    for _, at in received:
        before = [p for p in published if p <= at]
        if before:
            delays.append(at - before[-1])
    both = {}
    for kind in KINDS:
        p99_without, p99_with = without[kind]["to_bus_ms"]["p99"], with_pages[kind]["to_bus_ms"]["p99"]
        both[kind] = {
            "without_pages_ms": without[kind]["to_bus_ms"],
            "with_pages_ms": with_pages[kind]["to_bus_ms"],
            "p99_ratio": round(p99_with / p99_without, 3) if p99_without else None,
        }
    from benchlib import summary_ms

    worst_ratio = max(value["p99_ratio"] or 0 for value in both.values())
    cpu_without, cpu_with = without["box_cpu_ms_per_input"], with_pages["box_cpu_ms_per_input"]
    cpu_ratio = cpu_with / cpu_without
    return {
        "input_to_bus": both,
        "pages": pages,
        "page_events": len(received),
        "publish_to_page_ms": summary_ms(delays) if delays else None,
        "web_rss_peak_mb_with_pages": round(web_kb / 1024, 1),
        "target_ratio": TARGET_RATIO,
        "ratio_met": worst_ratio <= TARGET_RATIO,
        "box_cpu_ms_per_input": {"without_pages": round(cpu_without, 3), "with_pages": round(cpu_with, 3)},
        "box_cpu_ratio": round(cpu_ratio, 3),
        "cpu_ratio_met": cpu_ratio <= TARGET_RATIO,
        "target_page_ms": 200.0,
        "page_met": bool(delays) and summary_ms(delays)["p99"] <= 200.0,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="times each page is asked for")
    parser.add_argument("--events", type=int, default=300, help="taps, and as many presses, per latency run")
    parser.add_argument("--pages", type=int, default=10, help="live pages open during the second run")
    parser.add_argument("--only", choices=("rss", "latency"), help="one half only")
    args = parser.parse_args()
    figures: dict[str, Any] = {}
    if args.only != "latency":
        figures.update(rss(args.rounds))
    if args.only != "rss":
        figures.update(latency(args.events, args.pages))
    emit("web_cost", figures)
    met = [figures[key] for key in ("rss_met", "ratio_met", "cpu_ratio_met", "page_met") if key in figures]
    return 0 if all(met) else 1


if __name__ == "__main__":
    sys.exit(main())
