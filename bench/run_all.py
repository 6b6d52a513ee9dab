"""Run every benchmark, each in a fresh process, and print one JSON object per benchmark (one per line).

    python bench/run_all.py             # the full run: about 15 minutes here (60 s of it idle)
    python bench/run_all.py --summary   # the same, printing only the summary object below
    python bench/run_all.py --quick     # fewer events and a 10 s idle, for a quick look
    python bench/run_all.py --only idle,memory --out figures.jsonl

The last line is the summary: each headline figure as ``{"now": x, "target": y, "floor": z}``,
the floor measured in the same run (null where none applies), and which targets were met. The
exit status is 0 when all were met. Each script also runs alone (``python bench/<name>.py --help``).
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
    "input_to_display": ("input_latency.py", ["--events", "1000"], ["--events", "150"]),
    "input_to_display_hog": ("input_latency.py", ["--events", "1000", "--hog"], ["--events", "150", "--hog"]),
    "nfc_detect": ("nfc_detect.py", ["--trials", "100", "--idle", "2"], ["--trials", "30", "--idle", "1"]),
    "tap_uart": ("tap_uart.py", ["--taps", "30"], ["--taps", "10"]),
    "startup": ("startup.py", ["--runs", "7"], ["--runs", "3"]),
    "undo": ("undo.py", ["--undos", "200"], ["--undos", "50"]),
    "idle": ("idle.py", ["--seconds", "60"], ["--seconds", "10"]),
    "memory": ("memory.py", ["--inputs", "50000"], ["--inputs", "5000", "--every", "1000"]),
    "display_traffic": ("display_traffic.py", ["--inputs", "1000"], ["--inputs", "300"]),
    "instructions": ("instructions.py", [], ["--quick"]),
    "history_scale": ("history_scale.py", ["--rounds", "20"], ["--rounds", "5"]),
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
            "target": f"worst card detection < {DETECT_TARGET_MS:.0f} ms with 3 readers watched",
        }
    return json.loads(result.stdout.strip().splitlines()[-1])


def met(figures: dict[str, Any]) -> bool:
    """Whether every target a benchmark reports was met: never for one that failed or measured nothing."""
    if figures.get("error") or figures.get("skipped"):
        return False
    verdicts = [figures.get("meets_target", True)]
    for value in figures.values():
        if isinstance(value, dict) and "meets_target" in value:
            verdicts.append(value["meets_target"])
    flat = []
    for verdict in verdicts:
        flat += verdict.values() if isinstance(verdict, dict) else [verdict]
    return all(flat)


def figure(now: float | None, target: float, floor: float | None, **more: Any) -> dict[str, Any]:
    """One headline figure; ``ratio_to_floor`` when there is a floor."""
    ratio = None if now is None or not floor else round(now / floor, 2)
    return {"now": now, "target": target, "floor": floor, "ratio_to_floor": ratio, **more}


def headline(results: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The figures the summary reports, from whichever benchmarks ran (None where one did not)."""

    def get(name: str, *keys: str) -> Any:
        value: Any = results.get(name)
        for key in keys:
            if not isinstance(value, dict):
                return None
            value = value.get(key)
        return value

    ms = get("startup", "median_ms") or {}
    baseline = ms.get("baseline_import")
    python = ms.get("python_bare")
    p99s = [get("input_to_display", kind, "to_bus_ms", "p99") for kind in ("card", "button")]
    hog = [get("input_to_display_hog", kind, "to_bus_ms", "p99") for kind in ("card", "button")]

    def on_bus(kind: str) -> dict[str, Any]:
        return figure(
            get("input_to_display", kind, "to_bus_ms", "p99"),
            get("input_to_display", kind, "target_p99_ms") or {"card": 20.0, "cursor": 12.0, "button": 30.0}[kind],
            get("input_to_display", kind, "floor_ms"),
            bus_bytes_mean=get("input_to_display", kind, "bus_bytes", "mean"),
            bus_bytes_worst=get("input_to_display", kind, "bus_bytes", "worst"),
            floor_is="the frame's own bytes on the 400 kHz bus and one commit",
        )

    def zero2w(name: str, unit: str = "ms") -> dict[str, Any]:
        row = get("instructions", name) or {}
        projected = row.get("zero2w_total_ms") or row.get("zero2w_cpu_ms") or row.get("zero2w_ms")
        projected = projected or row.get("zero2w_pct_of_core")
        legs = {key: row[key] for key in ("zero2w_cpu_ms", "bus_ms", "wire_bytes", "uart_ms", "uart_bytes", "uart_baud", "fsync_ms_assumed") if key in row}
        return {
            "instructions": row.get("instructions"),
            "zero2w": projected,
            "unit": unit,
            **legs,
            "goal": row.get("goal"),
            "meets_goal": row.get("meets_goal"),
            **({"floor_instructions": row["floor_python_c_pass"]} if "floor_python_c_pass" in row else {}),
        }
    return {
        "ready_ratio": figure(
            get("startup", "ready_ratio_to_baseline"),
            1.2,
            round(python / baseline, 2) if python and baseline else None,
            ready_ms=ms.get("ready_run_fake"),
            baseline_ms=baseline,
            old_baseline_ms=ms.get("old_baseline_import"),
            floor_is="python -c pass / baseline",
        ),
        "ready_after_long_game_ratio": figure(
            get("startup", "ready_after_long_game_ratio"),
            1.15,
            None,
            ready_ms=ms.get("ready_after_long_game"),
            after_weeks_of_games_ratio=get("startup", "ready_after_weeks_ratio"),
        ),
        "ready_after_a_year_ratio": figure(
            get("startup", "ready_after_year_ratio"),
            1.15,
            None,
            ready_ms=ms.get("ready_after_a_year_of_games"),
            journal="720 finished games, 1.08 million actions, 64 MB",
        ),
        "undo_ms_long_game": figure(
            get("undo", "long-game", "undo_ms", "p50"),
            5.0,
            get("undo", "floor_commit_ms", "p50"),
            p99=get("undo", "long-game", "undo_ms", "p99"),
            floor_p99=get("undo", "floor_commit_ms", "p99"),
            weeks_of_games_p50=get("undo", "weeks", "undo_ms", "p50"),
            floor_is="one SQLite commit with fsync (median)",
        ),
        "idle_cpu_pct_tty": figure(
            get("idle", "cpu_percent_of_one_core"),
            0.2,
            get("idle", "floor_one_thread_at_poll_rate", "cpu_percent_of_one_core"),
            floor_is="one thread waking at the 20 Hz poll rate",
        ),
        "wakeups_per_s": figure(
            get("idle", "wakeups_per_s"),
            20.0,
            get("idle", "floor_one_thread_at_poll_rate", "wakeups_per_s"),
            floor_is="one thread waking at the 20 Hz poll rate",
        ),
        "input_to_display_p99_ms": figure(
            max(p99s) if None not in p99s else None,
            30.0,
            get("input_to_display", "floor_commit_ms", "p99"),
            card_p99=p99s[0],
            button_p99=p99s[1],
            with_cpu_hog=max(hog) if None not in hog else None,
            floor_is="one SQLite commit with fsync (p99)",
        ),
        "press_to_bus_p99_ms": on_bus("button"),
        "tap_to_bus_p99_ms": on_bus("card"),
        "cursor_to_bus_p99_ms": on_bus("cursor"),
        "packing_ms_per_frame": figure(
            get("input_to_display", "packing_ms_per_frame", "paged_driver"),
            0.05,
            get("input_to_display", "packing_ms_per_frame", "luma_loop"),
            floor_is="luma's own loop (what it replaced)",
        ),
        "zero2w_projection": {
            "conversion": get("instructions", "conversion"),
            "skipped": get("instructions", "skipped"),
            "press": zero2w("press"),
            "tap": zero2w("tap"),
            "press_followed": {**zero2w("press_followed"), "rise_pct": get("instructions", "press_followed", "rise_pct")},
            "tap_followed": {**zero2w("tap_followed"), "rise_pct": get("instructions", "tap_followed", "rise_pct")},
            "undo": zero2w("undo"),
            "undo_crossing_a_checkpoint": zero2w("undo_checkpoint"),
            "action": zero2w("action"),
            "action_writing_a_checkpoint": zero2w("action_checkpoint"),
            "ready_fresh": zero2w("ready_fresh"),
            "ready_after_long_game": zero2w("ready_long_game"),
            "idle_second": zero2w("idle_second", "% of a core"),
            "history_page_1000_games": zero2w("history_page"),
        },
        "rss_mb_50k": figure(
            get("memory", "peak_rss_mb"),
            40.0,
            get("memory", "libraries_only_rss_mb"),
            growth_mb=get("memory", "growth_mb_after_first_reading"),
            inputs=sum((get("memory", "inputs") or {}).values()) or None,
            floor_is="the libraries imported, nothing else",
        ),
        "card_detect_worst_ms": figure(get("nfc_detect", "detect_ms", "worst"), DETECT_TARGET_MS, None),
        "tap_uart_known_ms": figure(
            get("tap_uart", "known", "uart_ms_worst"),
            get("tap_uart", "goal_known_uart_ms") or 2.0,
            None,
            baud=get("tap_uart", "baud"),
            at_115200_known_ms=get("tap_uart", "at_115200", "known", "uart_ms_worst"),
            known_bytes=get("tap_uart", "known", "uart_bytes", "worst"),
            first_tap_uart_ms=get("tap_uart", "first", "uart_ms"),
            known_wall_p50_ms=get("tap_uart", "known", "wall_ms", "p50"),
            first_wall_p50_ms=get("tap_uart", "first", "wall_ms", "p50"),
            measured_is="the bytes of the poll that finds a tag, both ways on the pty, at the rate the driver set (10 bits a byte)",
        ),
        "history_page_p95_ms": figure(
            get("history_scale", "page_p95_ms", "now"),
            get("history_scale", "page_p95_ms", "goal") or 300.0,
            get("history_scale", "page_p95_ms", "floor"),
            games=get("history_scale", "finished_games"),
            actions_in_play=get("history_scale", "actions_in_play"),
            floor_is="the cheapest page (/pair: no journal read)",
        ),
        "history_first_view_after_upgrade_s": figure(
            get("history_scale", "first_view_after_upgrade_s", "now"),
            get("history_scale", "first_view_after_upgrade_s", "goal") or 3.0,
            None,
            read_model_built_s=get("history_scale", "after_upgrade", "read_model_built_s"),
        ),
        "web_rss_peak_mb": figure(
            get("history_scale", "web_rss_peak_mb", "now"),
            get("history_scale", "web_rss_peak_mb", "goal") or 45.0,
            get("history_scale", "web_rss_peak_mb", "floor"),
            floor_is="gravebox web started, no page asked",
        ),
    }


def main(argv: list[str] | None = None) -> int:
    """Run the chosen benchmarks; print each one's JSON line (unless --summary) and a summary line."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer events and a 10 s idle")
    parser.add_argument("--summary", action="store_true", help="print only the summary object")
    parser.add_argument("--only", help=f"comma-separated subset of {', '.join(BENCHMARKS)}")
    parser.add_argument("--out", type=Path, help="also write every JSON line to this file")
    args = parser.parse_args(argv)
    names = args.only.split(",") if args.only else list(BENCHMARKS)
    unknown = [name for name in names if name not in BENCHMARKS]
    if unknown:
        parser.error(f"unknown benchmark {unknown[0]!r}; choose from {', '.join(BENCHMARKS)}")
    lines, results, verdicts = [], {}, {}
    for name in names:
        figures = results[name] = run(name, args.quick)
        if not args.summary:
            print(json.dumps(figures), flush=True)
        lines.append(json.dumps(figures))
        verdicts[name] = met(figures)
    summary = {
        **headline(results),
        "quick": args.quick,
        "targets_met": verdicts,
        "all_met": all(verdicts.values()),
    }
    if args.summary:
        print(json.dumps({"benchmark": "summary", "machine": machine(), **summary}), flush=True)
    else:
        emit("summary", summary)
    lines.append(json.dumps({"benchmark": "summary", **summary}))
    if args.out:
        args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return 0 if summary["all_met"] else 1


if __name__ == "__main__":
    sys.exit(main())
