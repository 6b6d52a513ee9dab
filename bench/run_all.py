"""Run every benchmark, each in a fresh process, and print one JSON object per benchmark (one per line).

    python bench/run_all.py            # the full run: about 3 minutes (60 s of it idle)
    python bench/run_all.py --quick    # fewer events and a 10 s idle, for a quick look
    python bench/run_all.py --only idle,memory --out figures.jsonl

The last line is a summary: which targets were met. The exit status is 0 when all were met.
Each script also runs alone (``python bench/<name>.py --help``).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from benchlib import emit, machine
from startup import environment

BENCH = Path(__file__).resolve().parent
DETECT_TARGET_MS = 100.0

# name -> (script, full-run arguments, quick-run arguments)
BENCHMARKS: dict[str, tuple[str, list[str], list[str]]] = {
    "input_to_frame": ("input_latency.py", ["--events", "1000"], ["--events", "200"]),
    "nfc_detect": ("nfc_detect.py", ["--trials", "200", "--idle", "2"], ["--trials", "40", "--idle", "1"]),
    "startup": ("startup.py", ["--runs", "7"], ["--runs", "3"]),
    "idle": ("idle.py", ["--seconds", "60"], ["--seconds", "10"]),
    "memory": ("memory.py", ["--inputs", "5000"], ["--inputs", "1500"]),
    "display_traffic": ("display_traffic.py", ["--inputs", "1000"], ["--inputs", "300"]),
}


def run(name: str, quick: bool) -> dict[str, Any]:
    """Run one benchmark script in a fresh interpreter; answer its figures."""
    script, full, short = BENCHMARKS[name]
    command = [sys.executable, str(BENCH / script), *(short if quick else full)]
    result = subprocess.run(command, env=environment(), capture_output=True, text=True)
    if result.returncode != 0:
        return {"benchmark": name, "error": result.stderr.strip().splitlines()[-1:], "meets_target": False}
    if name == "nfc_detect":  # the NFC engineer's script prints indented JSON of its own
        figures = json.loads(result.stdout)
        worst = figures["detect_ms"]["worst"]
        return {
            "benchmark": name,
            "machine": machine(),
            **figures,
            "meets_target": worst < DETECT_TARGET_MS,
            "target": f"worst card detection < {DETECT_TARGET_MS:.0f} ms with 3 readers polling",
        }
    return json.loads(result.stdout.strip().splitlines()[-1])


def met(figures: dict[str, Any]) -> bool:
    """Whether every target a benchmark reports was met."""
    verdicts = [figures.get("meets_target", True)]
    for value in figures.values():
        if isinstance(value, dict) and "meets_target" in value:
            verdicts.append(value["meets_target"])
    flat = []
    for verdict in verdicts:
        flat += verdict.values() if isinstance(verdict, dict) else [verdict]
    return all(flat)


def main(argv: list[str] | None = None) -> int:
    """Run the chosen benchmarks; print each one's JSON line and a summary line."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer events and a 10 s idle")
    parser.add_argument("--only", help=f"comma-separated subset of {', '.join(BENCHMARKS)}")
    parser.add_argument("--out", type=Path, help="also write the JSON lines to this file")
    args = parser.parse_args(argv)
    names = args.only.split(",") if args.only else list(BENCHMARKS)
    unknown = [name for name in names if name not in BENCHMARKS]
    if unknown:
        parser.error(f"unknown benchmark {unknown[0]!r}; choose from {', '.join(BENCHMARKS)}")
    lines = []
    verdicts = {}
    for name in names:
        figures = run(name, args.quick)
        print(json.dumps(figures), flush=True)
        lines.append(json.dumps(figures))
        verdicts[name] = met(figures)
    summary = emit("summary", {"quick": args.quick, "targets_met": verdicts, "all_met": all(verdicts.values())})
    lines.append(json.dumps(summary))
    if args.out:
        args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return 0 if summary["all_met"] else 1


if __name__ == "__main__":
    sys.exit(main())
