"""Soak: 10,000 random steps per game on virtual time, fixed seed (bench/soak.py runs longer ones).

Presses, holds, taps of known, unknown, other games' and repeated cards, cards
left lying, rolls, undo, abandoned games, unplugged readers, line garbage and
power cuts. After every step: no exception, the session's actions are exactly
the journal's, the game's own invariants hold (its property tests' checks), the
dump is JSON and a quiescent power cut changed nothing. Memory stays flat.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from bench.soak import game_check, soak
from box.games import GAMES

STEPS = 10_000
SEED = 20240611


@pytest.mark.slow
@pytest.mark.parametrize("game", list(GAMES))
def test_ten_thousand_random_steps(game: str, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    assert game_check(game) is not None, f"{game}: its property tests' invariant check is missing"
    caplog.set_level(logging.ERROR)  # unplugged readers warn on every power cut: expected here
    report = soak(game, STEPS, SEED, tmp_path)
    print(report.as_json())  # figures for docs/reliability.md (pytest -s)
    assert report.steps == STEPS
    assert report.actions_lost == 0
    assert report.accepted >= 300, f"only {report.accepted} actions accepted: the soak hardly played"
    assert report.power_cuts >= 100 and report.power_cuts_compared >= 50
    assert report.faults >= 100 and report.bad_inputs >= 500
    assert report.games_started >= 2
    first, *_, last = report.objects
    assert last - first < 0.05 * first, f"live objects grew from {first} to {last}: {report.objects}"
    errors = [record for record in caplog.records if record.levelno >= logging.ERROR]
    assert not errors, errors[0].getMessage()
