"""Power cuts: a game played with a restart after every step ends exactly as without them.

Two simulated boxes play the same steps on virtual time: one straight through,
one with a power cut (`restart`: process state dropped, journal kept) after
every step. After each cut the journaled part of the dump (`bench.soak.stable`:
all keys but notice, screen, timer and readers_offline, plus the best chug) must
equal the uninterrupted box's at the same step.

A cut is made only where it cannot change what the next inputs mean: no overlay
open (box menu, shot timer, a free roll's dice), no running timer, no card lying
on a reader. Those are on-screen and in-hand state, never journaled
(docs/reliability.md says why); a cut there is covered by the soak and the kill test.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.soak import RandomPlayer, quiescent, stable
from box.games import GAMES
from box.sim.script import Command, ScriptRunner, parse_script
from box.sim.world import SimulatedBox

SCENARIOS = Path(__file__).parent / "scenarios"
SCRIPTS = sorted(SCENARIOS.glob("*/*.script"))


def close(world: SimulatedBox) -> None:
    world.parts.close()
    world.box.journal.close()


Played = list[tuple[list[str], bool, dict[str, Any]]]


def record_game(game: str, seed: int, steps: int, state_dir: Path) -> tuple[Played, int]:
    """Play a random game straight through: each step's lines, whether a cut may follow, the stable dump.

    Also answers how many actions the journal took.
    """
    world = SimulatedBox(state_dir=state_dir, seed=seed)
    player = RandomPlayer(game, random.Random(seed), faults=False, tidy=True)
    runner = ScriptRunner(world, f"{game}:{seed}")
    played = []
    try:
        for _ in range(steps):
            lines = player.step(world)
            runner.run(parse_script("\n".join(lines), runner.path))
            played.append((lines, quiescent(world), stable(world.dump())))
        journaled = world.box.journal.db.execute("SELECT COUNT(*) FROM actions").fetchone()[0]
    finally:
        close(world)
    return played, journaled


def replay_with_cuts(played: Played, seed: int, state_dir: Path, cut_at: set[int] | None = None) -> int:
    """Replay the steps with a power cut after each allowed one (or those in `cut_at`); return the cuts."""
    world = SimulatedBox(state_dir=state_dir, seed=seed)
    runner = ScriptRunner(world, "with cuts")
    cuts = 0
    try:
        for number, (lines, may_cut, expected) in enumerate(played):
            runner.run(parse_script("\n".join(lines), runner.path))
            if may_cut and (cut_at is None or number in cut_at):
                world.restart()
                cuts += 1
                assert stable(world.dump()) == expected, f"step {number} {lines}: the power cut changed the game"
        assert stable(world.dump()) == played[-1][2]
    finally:
        close(world)
    return cuts


@pytest.mark.parametrize("game", list(GAMES))
def test_a_power_cut_after_every_step_changes_nothing(game: str, tmp_path: Path) -> None:
    played, journaled = record_game(game, seed=11, steps=250, state_dir=tmp_path / "straight")
    assert played[-1][2]["game"] == game
    assert journaled >= 20, "the random game hardly moved: nothing to lose"
    cuts = replay_with_cuts(played, seed=11, state_dir=tmp_path / "cut")
    assert cuts >= 0.95 * len(played), f"only {cuts} of {len(played)} steps were followed by a cut"


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(game=st.sampled_from(list(GAMES)), seed=st.integers(0, 2**16), data=st.data())
def test_power_cuts_at_random_steps_change_nothing(game: str, seed: int, data: st.DataObject, tmp_path_factory) -> None:
    root = tmp_path_factory.mktemp("cuts")
    played, _ = record_game(game, seed, steps=60, state_dir=root / "straight")
    cut_at = data.draw(st.sets(st.integers(0, len(played) - 1)))
    replay_with_cuts(played, seed, root / "cut", cut_at)


def script_commands(script: Path) -> list[Command]:
    return parse_script(script.read_text(encoding="utf-8"), str(script))


@pytest.mark.parametrize("script", SCRIPTS, ids=[f"{p.parent.name}/{p.stem}" for p in SCRIPTS])
def test_every_scenario_survives_a_power_cut_after_every_command(script: Path, tmp_path: Path) -> None:
    decks = script.parent / "decks"
    decks_dir = decks if decks.is_dir() else None
    commands = [c for c in script_commands(script) if c.verb != "expect"]
    # One box at a time: the simulated chips are per process (pn532sim://left is one chip).
    straight = SimulatedBox(state_dir=tmp_path / "straight", decks_dir=decks_dir, seed=1)
    played: Played = []
    try:
        runner = ScriptRunner(straight, str(script))
        for command in commands:
            runner.run([command])
            played.append(
                (
                    [f"{command.verb} {' '.join(command.words)}"],
                    command.verb != "restart" and quiescent(straight),
                    stable(straight.dump()),
                )
            )
    finally:
        close(straight)
    cut = SimulatedBox(state_dir=tmp_path / "cut", decks_dir=decks_dir, seed=1)
    cuts = 0
    try:
        runner = ScriptRunner(cut, str(script))
        for command, (_, may_cut, expected) in zip(commands, played, strict=True):
            runner.run([command])
            if may_cut:
                cut.restart()
                cuts += 1
                assert stable(cut.dump()) == expected, f"{script.name}:{command.line}: changed by a power cut"
        assert stable(cut.dump()) == played[-1][2]
        assert cuts > 0, "no moment for a power cut"
    finally:
        close(cut)
