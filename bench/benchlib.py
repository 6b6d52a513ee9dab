"""Small helpers shared by the benchmarks: percentiles, the machine, JSON output.

Every benchmark prints one JSON object: ``{"benchmark": NAME, "machine": {...}, ...figures}``.
"""

from __future__ import annotations

import json
import math
import os
import platform
import statistics
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def percentile(values: Sequence[float], q: float) -> float:
    """The nearest-rank ``q`` percentile (0-100) of ``values``."""
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


def summary_ms(values_ns: Sequence[int]) -> dict[str, float]:
    """p50, p99, worst and mean of nanosecond durations, in milliseconds."""
    ms = [value / 1e6 for value in values_ns]
    return {
        "p50": round(percentile(ms, 50), 3),
        "p99": round(percentile(ms, 99), 3),
        "worst": round(max(ms), 3),
        "mean": round(statistics.fmean(ms), 3),
    }


def filesystem_of(path: Path) -> str:
    """The filesystem type holding ``path`` (from /proc/mounts), e.g. ext4 or tmpfs."""
    best, kind = "", "unknown"
    resolved = str(path.resolve())
    try:
        lines = Path("/proc/mounts").read_text().splitlines()
    except OSError:
        return kind
    for line in lines:
        fields = line.split()
        inside = len(fields) >= 3 and (resolved == fields[1] or resolved.startswith(fields[1].rstrip("/") + "/"))
        if inside and len(fields[1]) >= len(best):  # the deepest (and, at a tie, the last) mount wins
            best, kind = fields[1], fields[2]
    return kind


def machine() -> dict[str, Any]:
    """What the figures ran on: CPU, cores, memory, OS, Python."""
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith(("model name", "Model")):
                model = line.split(":", 1)[1].strip()
    except OSError:
        pass
    memory_mb = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                memory_mb = int(line.split()[1]) // 1024
    except OSError:
        pass
    return {
        "cpu": model,
        "cores": os.cpu_count(),
        "memory_mb": memory_mb,
        "arch": platform.machine(),
        "kernel": platform.release(),
        "python": platform.python_version(),
    }


def as_installed() -> None:
    """The dataclasses' code kept as install.sh keeps it (box/files/classcode.py), before a start is
    timed or counted: a start never pays for the first one's compiling and writing."""
    import subprocess
    import sys

    command = "from box.cli.service import keep_class_code; keep_class_code()"
    subprocess.run([sys.executable, "-c", command], cwd=ROOT, check=True)


def emit(name: str, figures: dict[str, Any]) -> dict[str, Any]:
    """Print one benchmark's figures as a single JSON line and return them."""
    result = {"benchmark": name, "machine": machine(), **figures}
    print(json.dumps(result), flush=True)
    return result
