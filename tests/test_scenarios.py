"""Every scripted scenario under tests/scenarios/ plays through the real simulator.

A scenario folder's `decks/` (if any) replaces the built-in decks for its scripts.
"""

from pathlib import Path

import pytest

from box.sim.script import run_script

SCENARIOS = Path(__file__).parent / "scenarios"
SCRIPTS = sorted(SCENARIOS.glob("*/*.script"))


@pytest.mark.parametrize("script", SCRIPTS, ids=[f"{p.parent.name}/{p.stem}" for p in SCRIPTS])
def test_scenario(script: Path, tmp_path: Path):
    decks = script.parent / "decks"
    world, runner = run_script(script, tmp_path / "state", decks if decks.is_dir() else None, seed=1)
    try:
        assert runner.expects > 0, f"{script.name} checks nothing"
    finally:
        world.parts.close()
        world.box.journal.close()
