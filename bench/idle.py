"""Idle cost: CPU time of an idle ``gravebox run --fake`` with its three readers polling the simulated chips.

The box is spawned as in ``bench/startup.py``: ``gravebox run --fake``, whose three reader threads
poll simulated PN532s that run inside the same process (the log must show the three online). After READY=1
and a settling second, CPU time (utime+stime, per thread from ``/proc/PID/task/*/schedstat`` in
nanoseconds, cross-checked with ``/proc/PID/stat`` ticks) and wake-ups (context switches) are
read over ``--seconds`` (default 60). A busy loop would show as a thread near 100% or with
thousands of wake-ups a second. Peak RSS (VmHWM) of the process is read at the end.

Run from the repository root: ``python bench/idle.py [--seconds 60]``. Prints JSON.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from benchlib import emit
from startup import GRAVEBOX, RunningBox

TARGET_PERCENT = 2.0
READERS = 3


def threads(pid: int) -> dict[int, tuple[int, int]]:
    """Each thread's (CPU ns, context switches) so far."""
    found = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            cpu_ns = int((task / "schedstat").read_text().split()[0])
            status = (task / "status").read_text().splitlines()
        except (OSError, ValueError):
            continue  # a thread that just ended
        switches = sum(int(line.split()[1]) for line in status if "ctxt_switches:" in line)
        found[int(task.name)] = (cpu_ns, switches)
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
    with tempfile.TemporaryDirectory(prefix="gravebox-bench-") as scratch:
        running = RunningBox(GRAVEBOX, Path(scratch))
        time.sleep(1.0)  # the readers come online, the first notices are drawn
        pid = running.pid
        before, ticks_before, wall = threads(pid), process_ticks(pid), time.monotonic()
        time.sleep(args.seconds)
        after, ticks_after, wall = threads(pid), process_ticks(pid), time.monotonic() - wall
        peak = peak_rss_mb(pid)
        log = running.stop()
    per_thread = []
    for tid, (cpu_ns, switches) in after.items():
        cpu_before, switches_before = before.get(tid, (0, 0))
        per_thread.append(
            {
                "cpu_percent": round(100 * (cpu_ns - cpu_before) / 1e9 / wall, 3),
                "wakeups_per_s": round((switches - switches_before) / wall, 1),
                "main": tid == pid,
            }
        )
    per_thread.sort(key=lambda t: -t["cpu_percent"])
    cpu_percent = round(100 * sum((ns - before.get(tid, (0, 0))[0]) for tid, (ns, _) in after.items()) / 1e9 / wall, 3)
    ticks_percent = round(100 * (ticks_after - ticks_before) / os.sysconf("SC_CLK_TCK") / wall, 2)
    online = log.count(": ready on ")
    return emit(
        "idle",
        {
            "seconds": round(wall, 1),
            "readers_online": online,
            "cpu_percent_of_one_core": cpu_percent,
            "cpu_percent_from_ticks": ticks_percent,
            "wakeups_per_s": round(sum(t["wakeups_per_s"] for t in per_thread), 1),
            "threads": per_thread,
            "peak_rss_mb": peak,
            "meets_target": cpu_percent < TARGET_PERCENT and online == READERS,
            "target": f"< {TARGET_PERCENT}% of one core with {READERS} readers polling",
        },
    )


if __name__ == "__main__":
    main()
