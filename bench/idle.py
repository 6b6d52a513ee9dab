"""Idle cost: CPU time and wake-ups of an idle ``gravebox run --fake`` whose readers are on real ttys.

Three simulated PN532s are served on pseudo-terminals by another process (``box.ports.nfc.simpty``);
the box (``bench/idle_box.py``: ``gravebox run --fake`` with each reader opened on its pty) talks to
them through pyserial's POSIX port, with the ``select`` and ``read`` system calls it makes on a Pi's
UART. After READY=1, the three readers online and a settling second, CPU time (per thread from
``/proc/PID/task/*/schedstat`` in nanoseconds, cross-checked with ``/proc/PID/stat`` ticks) and
wake-ups of the box's process are read over ``--seconds`` (default 60): a wake-up is a thread that
slept (it gave up the CPU: a voluntary context switch) and was woken. The involuntary switches, a
running thread preempted by another process on a busy machine, are reported beside them
(``preempted_per_s``): they are this machine's load, not the box's doing. The chips' process is not counted. Peak RSS (VmHWM) is read at the end.

The floor, measured over the same seconds in another process: one thread waking at the poll rate
(20 Hz, ``Event.wait(0.05)``), the least a polling reader costs before it does any work.

Run from the repository root: ``python bench/idle.py [--seconds 60]``. Prints JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchlib import ROOT, emit
from startup import RunningBox, environment

TARGET_PERCENT, TARGET_WAKEUPS = 0.2, 20.0
READERS = ("left", "middle", "right")
POLL_RATE = 20.0
FLOOR = f"""
import threading, time
stop = time.monotonic() + float(input())
event = threading.Event()
def wake():
    while time.monotonic() < stop:
        event.wait({1 / POLL_RATE})
thread = threading.Thread(target=wake)
thread.start(); thread.join()
"""


def threads(pid: int) -> dict[int, tuple[int, int, int]]:
    """Each thread's (CPU ns, wake-ups, preemptions) so far: its voluntary and involuntary context switches."""
    found = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            cpu_ns = int((task / "schedstat").read_text().split()[0])
            status = (task / "status").read_text().splitlines()
        except (OSError, ValueError):
            continue  # a thread that just ended
        switches = {line.split(":")[0]: int(line.split()[1]) for line in status if "ctxt_switches:" in line}
        found[int(task.name)] = (cpu_ns, switches["voluntary_ctxt_switches"], switches["nonvoluntary_ctxt_switches"])
    return found


def process_ticks(pid: int) -> int:
    """utime + stime of the whole process, in clock ticks."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # fields 14 and 15 of proc(5), counted after the name


def peak_rss_mb(pid: int) -> float:
    """VmHWM of the process, in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return round(int(line.split()[1]) / 1024, 1)
    return 0.0


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Run the benchmark and print its figures as one JSON line."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=60.0, help="idle seconds measured (default 60)")
    args = parser.parse_args(argv)
    chips = subprocess.Popen(
        [sys.executable, "-m", "box.ports.nfc.simpty", *READERS],
        env=environment(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert chips.stdout is not None and chips.stdin is not None
    paths = json.loads(chips.stdout.readline())
    command = [sys.executable, str(ROOT / "bench" / "idle_box.py"), json.dumps(paths)]
    with tempfile.TemporaryDirectory(prefix="gravebox-bench-") as scratch:
        running = RunningBox(command, Path(scratch))
        time.sleep(1.0)  # the readers come online, the first notices are drawn
        pid = running.pid
        floor = subprocess.Popen([sys.executable, "-c", FLOOR], stdin=subprocess.PIPE, text=True)
        assert floor.stdin is not None
        floor.stdin.write(f"{args.seconds}\n")
        floor.stdin.flush()
        floor_before = threads(floor.pid)
        before, ticks_before, wall = threads(pid), process_ticks(pid), time.monotonic()
        time.sleep(args.seconds)
        after, ticks_after, wall = threads(pid), process_ticks(pid), time.monotonic() - wall
        floor_after = threads(floor.pid)
        peak = peak_rss_mb(pid)
        log = running.stop()
        floor.wait()
    chips.stdin.close()
    chips.wait(10)
    per_thread = []
    for tid, (cpu_ns, woken, preempted) in after.items():
        cpu_before, woken_before, preempted_before = before.get(tid, (0, 0, 0))
        per_thread.append(
            {
                "cpu_percent": round(100 * (cpu_ns - cpu_before) / 1e9 / wall, 3),
                "wakeups_per_s": round((woken - woken_before) / wall, 1),
                "preempted_per_s": round((preempted - preempted_before) / wall, 1),
                "main": tid == pid,
            }
        )
    per_thread.sort(key=lambda t: -t["cpu_percent"])
    cpu_percent = round(100 * sum((ns - before.get(tid, (0, 0, 0))[0]) for tid, (ns, _, _) in after.items()) / 1e9 / wall, 3)
    ticks_percent = round(100 * (ticks_after - ticks_before) / os.sysconf("SC_CLK_TCK") / wall, 2)
    online = log.count(": ready on /dev/pts/")
    floor_cpu = sum(ns - floor_before.get(tid, (0, 0, 0))[0] for tid, (ns, _, _) in floor_after.items())
    floor_switches = sum(n - floor_before.get(tid, (0, 0, 0))[1] for tid, (_, n, _) in floor_after.items())
    wakeups = round(sum(t["wakeups_per_s"] for t in per_thread), 1)
    preempted = round(sum(t["preempted_per_s"] for t in per_thread), 1)
    return emit(
        "idle",
        {
            "seconds": round(wall, 1),
            "readers": "on ptys, chips in another process",
            "readers_online": online,
            "cpu_percent_of_one_core": cpu_percent,
            "cpu_percent_from_ticks": ticks_percent,
            "wakeups_per_s": wakeups,
            "preempted_per_s": preempted,
            "threads": per_thread,
            "floor_one_thread_at_poll_rate": {
                "cpu_percent_of_one_core": round(100 * floor_cpu / 1e9 / wall, 3),
                "wakeups_per_s": round(floor_switches / wall, 1),
            },
            "peak_rss_mb": peak,
            "meets_target": cpu_percent <= TARGET_PERCENT and wakeups <= TARGET_WAKEUPS and online == len(READERS),
            "target": f"<= {TARGET_PERCENT}% of one core and <= {TARGET_WAKEUPS:.0f} wake-ups/s with 3 readers on ttys",
        },
    )


if __name__ == "__main__":
    main()
