"""MQTT's cost to the box: the box process's peak RSS and CPU over three scripted games, with MQTT
off, on with a broker, and on with the broker down (issue: within 5% of off).

Each run is a fresh process playing the same three scripts (Dead Set, Deadlines, Dead Fellas, each
to its game over) on the simulated box, with its control socket served and followed as on a Pi:
a stand-in for the phone page's process subscribes in every mode (the service always has it).
With MQTT on, `gravebox mqtt` follows the socket as its own process (the child the simulator's
`--mqtt` starts; the box waits for it to take each event, as a script does), publishing to
Debian's mosquitto on a loopback port, or to a port where nothing listens. The figures are the box
process's own (getrusage RUSAGE_SELF); the MQTT process's are given apart. Modes alternate,
`--rounds` times. Peak RSS is compared on the medians; CPU on the least of each mode's runs (on a
shared machine other work only ever adds to a run's CPU time), the medians given beside.

Run from the repository root: ``python bench/mqtt_cost.py [--rounds 3]``. Prints JSON.
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
from box.control_client import ControlClient
for _ in ControlClient(Path(sys.argv[1])).subscribe():
    pass
"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def child(mode: str, port: int) -> None:
    """One run in this fresh process: the three games with MQTT `mode` (off, on, down); figures as JSON."""
    from box.control import ControlServer
    from box.sim.script import run_script

    with tempfile.TemporaryDirectory(prefix="gravebox-bench-") as scratch:
        path = Path(scratch) / "run" / "control.sock"
        mqtt_child = None
        if mode == "off":
            control = ControlServer(path, lambda command: None)
        else:
            from box.mqtt import MqttChild, PacedControl

            mqtt_child = MqttChild(path, ["--mqtt", f"127.0.0.1:{port}", "--config", str(Path(scratch) / "none.toml")],
                                   acks=True)
            control = PacedControl(path, mqtt_child)
        control.start()
        page = subprocess.Popen([sys.executable, "-c", PAGE, str(path)], cwd=REPO)
        if mqtt_child is not None:
            mqtt_child.start()
            assert mqtt_child.wait_subscribed(), "the MQTT process did not follow the box"
        start, wall = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
        events = 0
        for number, script in enumerate(SCRIPTS):
            world, _ = run_script(script, Path(scratch) / f"state{number}", seed=1, control=control)
            world.bus.flush()
            world.advance(0.0)
            if world.loop.link is not None:
                events += world.loop.link.numbered
                numbered = [e for e in world.loop.link.recent if "seq" in e]
                if mqtt_child is not None and numbered:
                    assert mqtt_child.wait_seen(numbered[-1]["run"], numbered[-1]["seq"])
            world.close()
        end, wall = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter() - wall
        status = mqtt_child.stop() if mqtt_child is not None else None
        page.terminate()
        page.wait()
        control.stop()
        mqtt_usage = resource.getrusage(resource.RUSAGE_CHILDREN)  # the page's and the MQTT process's
    print(json.dumps({
        "mode": mode,
        "box_peak_rss_mb": round(end.ru_maxrss / 1024, 2),
        "box_cpu_s": round(end.ru_utime + end.ru_stime - start.ru_utime - start.ru_stime, 3),
        "wall_s": round(wall, 2),
        "events": events,
        "paho_or_ssl_in_the_box": sorted(m for m in sys.modules if m.split(".")[0] in ("paho", "ssl")),
        "children_cpu_s": round(mqtt_usage.ru_utime + mqtt_usage.ru_stime, 3),
        "mqtt_status": status,
    }))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--child", nargs=2, metavar=("MODE", "PORT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], int(args.child[1]))
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
    emit("mqtt_cost", figures)


if __name__ == "__main__":
    main()
