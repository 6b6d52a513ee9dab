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


def events_threads() -> list[str]:
    import threading

    return [t.name for t in threading.enumerate() if t.name.startswith(("events-", "usb-")) and t.is_alive()]


@pytest.mark.parametrize("passes", [True, False])
def test_a_script_closes_its_box_before_its_folder_goes(passes: bool, tmp_path: Path, monkeypatch, capsys) -> None:
    """The state folder (a temporary one) is removed only once nothing writes there: the box and
    its subscribers (the history) closed; a passing script exits 0, a failing one 1."""
    import tempfile

    from box.cli.main import main

    script = SCENARIOS / "dead-set" / "bust.script"
    if not passes:
        script = tmp_path / "fails.script"
        script.write_text((SCENARIOS / "dead-set" / "bust.script").read_text() + "\nexpect screen == nowhere\n")
        (tmp_path / "decks").symlink_to(SCENARIOS / "dead-set" / "decks")
    alive_at_cleanup: list[list[str]] = []
    real = tempfile.TemporaryDirectory.cleanup

    def cleanup(self: tempfile.TemporaryDirectory) -> None:
        alive_at_cleanup.append(events_threads())
        real(self)

    monkeypatch.setattr(tempfile.TemporaryDirectory, "cleanup", cleanup)
    before = events_threads()
    code = main(["sim", "--script", str(script), "--seed", "1", "--config", "/nonexistent"])
    assert code == (0 if passes else 1), capsys.readouterr().err
    assert alive_at_cleanup and all(names == before for names in alive_at_cleanup), alive_at_cleanup
