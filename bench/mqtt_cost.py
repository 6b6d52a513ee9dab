"""MQTT's cost to the box: the box process's peak RSS and CPU over three scripted games, with MQTT
off, on with a broker, and on with the broker down (issue: within 5% of off).

Each run is a fresh process playing the same three scripts (Dead Set, Deadlines, Dead Fellas, each
to its game over) on the simulated box, with its control socket served and followed as on a Pi:
a stand-in for the phone page's process subscribes in every mode (the service always has it).
With MQTT on, `gravebox mqtt` follows the socket as its own process, as its unit runs it on a box
(the box does not wait for it: on virtual time the games outrun it, and the events it could not
see are counted in its status line), publishing to Debian's mosquitto on a loopback port, or to a
port where nothing listens. The figures are the box
process's own (getrusage RUSAGE_SELF); the MQTT process's are given apart. Modes alternate,
`--rounds` times. Peak RSS is compared on the medians; CPU on the least of each mode's runs (on a
shared machine other work only ever adds to a run's CPU time), the medians given beside.

Time on a shared machine varies by 20% from run to run, more than the effect sought: with
``--instructions`` the box's instructions for the games are counted too (valgrind's callgrind, as
bench/instructions.py does), the figure that settles it.

Run from the repository root: ``python bench/mqtt_cost.py [--rounds 3] [--instructions]``. Prints JSON.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchlib import emit

REPO = Path(__file__).resolve().parent.parent
SCRIPTS = [
    REPO / "tests/scenarios/dead-set/win-mid-scoring.script",
    REPO / "tests/scenarios/deadlines/classic.script",
    REPO / "tests/scenarios/dead-fellas/win.script",
]
GOAL = 5.0  # percent: the box with MQTT on within 5% of off
PAGE = """
import sys
from pathlib import Path
from box.links.client import ControlClient
for _ in ControlClient(Path(sys.argv[1])).subscribe():
    pass
"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def child(mode: str, port: int, games: int = len(SCRIPTS)) -> None:
    """One run in this fresh process: the first `games` of the three games with MQTT `mode` (off, on,
    down); figures as JSON."""
    from box.links.control import ControlServer
    from box.sim.script import run_script

    with tempfile.TemporaryDirectory(prefix="gravebox-bench-") as scratch:
        path = Path(scratch) / "run" / "control.sock"
        control = ControlServer(path, lambda command: None)
        control.start()
        followers = [subprocess.Popen([sys.executable, "-c", PAGE, str(path)], cwd=REPO)]
        if mode != "off":  # as its unit starts it: nothing of it in this process
            followers.append(subprocess.Popen(
                [sys.executable, "-m", "box", "mqtt", "--socket", str(path), "--mqtt", f"127.0.0.1:{port}",
                 "--config", str(Path(scratch) / "none.toml")], cwd=REPO, stderr=subprocess.DEVNULL))
        deadline = time.monotonic() + 30
        while control.subscribers < len(followers):  # each follows the box before the games start
            assert time.monotonic() < deadline, "a follower did not subscribe"
            time.sleep(0.05)
        start, wall = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
        events = 0
        for number, script in enumerate(SCRIPTS[:games]):
            world, _ = run_script(script, Path(scratch) / f"state{number}", seed=1, control=control)
            world.bus.flush()
            world.advance(0.0)
            events += world.loop.link.numbered if world.loop.link is not None else 0
            world.close()
        end, wall = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter() - wall
        status = control.mqtt_line
        for follower in reversed(followers):
            follower.terminate()
            follower.wait()
        control.stop()
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)  # the page's and the MQTT process's
    print(json.dumps({
        "mode": mode,
        "box_peak_rss_mb": round(end.ru_maxrss / 1024, 2),
        "box_cpu_s": round(end.ru_utime + end.ru_stime - start.ru_utime - start.ru_stime, 3),
        "wall_s": round(wall, 2),
        "events": events,
        "mqtt_or_paho_or_ssl_in_the_box": sorted(m for m in sys.modules if m.split(".")[0] in ("paho", "ssl")
                                                 or m.startswith("box.links.mqtt")),
        "children_cpu_s": round(usage.ru_utime + usage.ru_stime, 3),
        "mqtt_status": status,
    }))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--instructions", action="store_true",
                        help="also count the box's instructions for the games under valgrind (minutes)")
    parser.add_argument("--child", nargs=2, metavar=("MODE", "PORT"), help=argparse.SUPPRESS)
    parser.add_argument("--games", type=int, default=len(SCRIPTS), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], int(args.child[1]), args.games)
        return
    mosquitto = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
    port = free_port()
    broker = subprocess.Popen([mosquitto, "-p", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) \
        if Path(mosquitto).exists() else None
    modes = ["off", "on", "down"] if broker is not None else ["off", "down"]
    runs: dict[str, list[dict[str, Any]]] = {mode: [] for mode in modes}
    try:
        for _ in range(args.rounds):
            for mode in modes:
                where = free_port() if mode == "down" else port
                out = subprocess.run([sys.executable, __file__, "--child", mode, str(where)], capture_output=True,
                                     text=True, check=True, cwd=REPO)
                runs[mode].append(json.loads(out.stdout.strip().splitlines()[-1]))
        counted = instructions(modes, port) if args.instructions else None
    finally:
        if broker is not None:
            broker.terminate()
            broker.wait()
    medians = {mode: {key: statistics.median(run[key] for run in results)
                      for key in ("box_peak_rss_mb", "box_cpu_s", "children_cpu_s")} for mode, results in runs.items()}
    least = {mode: min(run["box_cpu_s"] for run in results) for mode, results in runs.items()}
    figures: dict[str, Any] = {"scripts": [str(s.relative_to(REPO)) for s in SCRIPTS], "rounds": args.rounds,
                               "goal_percent": GOAL, "median": medians, "least_box_cpu_s": least, "runs": runs}
    for mode in modes[1:]:
        rss = 100 * (medians[mode]["box_peak_rss_mb"] / medians["off"]["box_peak_rss_mb"] - 1)
        cpu = 100 * (least[mode] / least["off"] - 1)
        cpu_median = 100 * (medians[mode]["box_cpu_s"] / medians["off"]["box_cpu_s"] - 1)
        figures[f"{mode}_vs_off"] = {"rss_percent": round(rss, 1), "cpu_percent": round(cpu, 1),
                                     "cpu_percent_of_medians": round(cpu_median, 1),
                                     "within_goal": abs(rss) <= GOAL and cpu <= GOAL}
    if counted is not None:  # the count settles the CPU side: the time's noise is larger than the goal
        figures["box_instructions_for_the_games"] = counted
        for mode in modes[1:]:
            judged = figures[f"{mode}_vs_off"]
            judged["instructions_percent"] = round(100 * (counted[mode] / counted["off"] - 1), 1)
            judged["within_goal"] = abs(judged["rss_percent"]) <= GOAL and judged["instructions_percent"] <= GOAL
    emit("mqtt_cost", figures)


def instructions(modes: list[str], port: int) -> dict[str, int] | None:
    """The box process's instructions for the three games in each mode (valgrind's callgrind: the
    same whatever else the machine does): a run with the games less one without (the set-up cancels
    out). Under callgrind the box runs some 50 times slower: its followers keep up as at a human pace."""
    from instructions import count, valgrind

    if valgrind() is None:
        return None
    counted = {}
    with tempfile.TemporaryDirectory(prefix="gravebox-bench-") as scratch:
        for mode in modes:
            where = str(free_port() if mode == "down" else port)
            runs = [count([sys.executable, __file__, "--child", mode, where, "--games", str(games)], Path(scratch))
                    for games in (0, len(SCRIPTS))]
            counted[mode] = runs[1] - runs[0]
    return counted


if __name__ == "__main__":
    main()
