"""The benchmarks: the summary names every headline figure with its target and floor; the latency bench runs a few events."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"


def test_the_summary_has_every_headline_figure_even_when_no_benchmark_ran(monkeypatch) -> None:
    monkeypatch.syspath_prepend(str(BENCH))
    run_all = importlib.import_module("run_all")
    summary = run_all.headline({})
    wanted = {
        "ready_ratio",
        "ready_after_long_game_ratio",
        "undo_ms_long_game",
        "idle_cpu_pct_tty",
        "wakeups_per_s",
        "input_to_display_p99_ms",
        "rss_mb_50k",
        "press_to_bus_p99_ms",
        "tap_to_bus_p99_ms",
        "cursor_to_bus_p99_ms",
        "packing_ms_per_frame",
    }
    assert wanted <= set(summary)
    projected = summary["zero2w_projection"]
    for name in ("press", "tap", "undo", "undo_crossing_a_checkpoint", "ready_fresh", "ready_after_long_game", "idle_second"):
        assert {"instructions", "zero2w", "goal"} <= set(projected[name])
    for name in wanted:
        assert {"now", "target", "floor"} <= set(summary[name]) and summary[name]["target"] > 0
    sys.modules.pop("run_all", None)


def test_the_summary_reads_a_figure_and_its_floor(monkeypatch) -> None:
    monkeypatch.syspath_prepend(str(BENCH))
    run_all = importlib.import_module("run_all")
    idle = {"cpu_percent_of_one_core": 0.05, "floor_one_thread_at_poll_rate": {"cpu_percent_of_one_core": 0.25}}
    figure = run_all.headline({"idle": idle})["idle_cpu_pct_tty"]
    assert (figure["now"], figure["floor"], figure["ratio_to_floor"]) == (0.05, 0.25, 0.2)
    sys.modules.pop("run_all", None)


def test_the_latency_bench_still_runs_the_box_as_the_service_wires_it(tmp_path: Path) -> None:
    """A few events through the real wiring: a bench that the box outgrew fails here, not in a 10-minute run."""
    import json
    import subprocess

    script = BENCH / "input_latency.py"
    run = subprocess.run(
        [sys.executable, str(script), "--events", "4", "--state-dir", str(tmp_path)],
        capture_output=True, text=True, timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr
    figures = json.loads(run.stdout.splitlines()[-1])
    assert figures["card"]["no_frame"] == figures["cursor"]["no_frame"] == figures["button"]["no_frame"] == 0
    assert figures["accepted_and_journaled"] == 12  # a tap, a cursor move and a press, four times
    assert figures["cursor"]["bus_bytes"]["worst"] < 1024 // 2, "a cursor move sends less than half the panel"


def test_a_count_that_is_no_measurement_never_meets_its_goal(monkeypatch) -> None:
    """An overflowed counter, a base run that counted more than the repeated one, or nothing counted: a failure."""
    monkeypatch.syspath_prepend(str(BENCH))
    instructions = importlib.import_module("instructions")
    for base, more in ((10_000_000, 10_000_000 - 2_149_432_533), (5_000_000, 5_000_000), (0, 0)):
        row = instructions.scenario_row("history_page", base, more, 1)
        assert row["meets_goal"] is False and row["instructions"] is None and row["error"]
    assert instructions.scenario_row("press", 10_000_000, 12_400_000, 1, wired=[400])["meets_goal"] is True
    tap = instructions.scenario_row("tap", 0, 4_000_000, 1, toggled=True, wired=[700], serial=[[39, 460800]])
    assert tap["meets_goal"] is True and tap["zero2w_total_ms"][0] == pytest.approx(6.7 + 15.8 + 0.85 + instructions.SD_FSYNC_MS, abs=0.1)
    assert instructions.scenario_row("tap", 0, 4_000_000, 1, toggled=True, wired=[880], serial=[[65, 115200]])["meets_goal"] is False
    assert instructions.scenario_row("tap", 0, 4_000_000, 1, toggled=True, wired=[700])["meets_goal"] is False  # no line seen
    assert instructions.scenario_row("tap", 0, 4_000_000, 1, toggled=True)["meets_goal"] is False  # no bus bytes seen
    assert instructions.scenario_row("idle_second", 0, 4_000_000, 1)["meets_goal"] is False  # a whole process: never 0
    run_all = importlib.import_module("run_all")
    summary = run_all.headline({"instructions": {"history_page": row}})
    assert summary["zero2w_projection"]["history_page_1000_games"]["meets_goal"] is False
    assert not run_all.met({"benchmark": "memory", "error": ["KeyError: 'failed'"]})
    sys.modules.pop("run_all", None)
    sys.modules.pop("instructions", None)


def test_the_deck_of_death_player_has_a_move_for_every_phase_and_plays_through_a_failed_card(
    monkeypatch, tmp_path: Path
) -> None:
    """bench/memory.py and bench/display_traffic.py play it for thousands of inputs: no phase may stop them."""
    from box.games.deck_of_death.state import Phase

    monkeypatch.syspath_prepend(str(BENCH))
    dod_player = importlib.import_module("dod_player")
    assert {phase.value for phase in Phase} - set(dod_player.BY_PHASE) == {"over"}  # long OK is never pressed
    world = dod_player.start(tmp_path, seed=0)
    try:
        player, phases = dod_player.Player(world, seed=0), set()
        for _ in range(400):
            phases.add(world.box.session.state.phase)
            player.step()
        assert Phase.FAILED in phases
    finally:
        world.close()
        sys.modules.pop("dod_player", None)
