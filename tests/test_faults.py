"""Faults: unplugged and babbling readers, a failing OLED, damaged journals and bad files.

Everything runs on the simulated box on virtual time, except the bad-file checks,
which go through the `gravebox` command in a subprocess (exit status 2, one line).
"""

from __future__ import annotations

import logging
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from luma.core.error import DeviceNotFoundError

from box.ports.display import DisplayUnavailable, FramePusher
from box.sim.world import SimulatedBox
from box.storage.journal import Journal

REPO = Path(__file__).resolve().parent.parent
FUNCTION_SCOPED = [HealthCheck.function_scoped_fixture]


@pytest.fixture
def world(tmp_path: Path):
    box = SimulatedBox(state_dir=tmp_path / "state", seed=3)
    yield box
    box.parts.close()
    box.box.journal.close()


def start_dead_set(world: SimulatedBox) -> None:
    world.box.lobby.start_game("dead-set", world.now, players=3)
    world.advance(5.0)  # the start notice goes


def tap(world: SimulatedBox, reader: str, card: str) -> None:
    world.put(reader, world.uid_for(card))
    world.lift(reader)


def first_cards(world: SimulatedBox, count: int) -> list[str]:
    return list(world.decks["dead-set"].cards)[:count]


# ----- readers -----------------------------------------------------------------------------


@settings(max_examples=15, deadline=None, suppress_health_check=FUNCTION_SCOPED)
@given(reader=st.sampled_from(["left", "middle", "right"]), away=st.floats(0.6, 600.0))
def test_an_unplugged_reader_is_named_the_game_goes_on_and_it_is_back_within_two_seconds(
    tmp_path_factory, reader: str, away: float
) -> None:
    world = SimulatedBox(state_dir=tmp_path_factory.mktemp("unplug"), seed=3)
    try:
        start_dead_set(world)
        others = [r for r in ("left", "middle", "right") if r != reader]
        card_a, card_b = first_cards(world, 2)
        world.chip(reader).unplug()
        world.advance(0.5)
        assert world.dump()["readers_offline"] == [reader]
        notice = world.box.screen(world.now).notice
        assert f"reader {reader}" in notice and f"pn532sim://{reader}" in notice, notice
        tap(world, others[0], card_a)  # the game goes on with the others
        assert world.dump()["actions"] == 1
        world.advance(max(0.0, away - 1.1))
        assert f"reader {reader}" in world.box.screen(world.now).notice, "the screen forgot the unplugged reader"
        world.chip(reader).replug()
        plugged = world.now
        while reader in world.dump()["readers_offline"]:
            world.advance(0.05)
            assert world.now - plugged <= 2.0, f"reader {reader} not back {world.now - plugged:.2f} s after replug"
        tap(world, reader, card_b)
        assert world.dump()["actions"] == 2
    finally:
        world.parts.close()
        world.box.journal.close()


@settings(max_examples=40, deadline=None, suppress_health_check=FUNCTION_SCOPED)
@given(noise=st.lists(st.binary(min_size=1, max_size=80), min_size=1, max_size=6), with_card=st.booleans())
def test_garbage_on_the_line_never_yields_a_card(world: SimulatedBox, noise: list[bytes], with_card: bool) -> None:
    placed: list[bytes] = []
    original = world.box.card_placed
    world.box.card_placed = lambda reader, uid, now, lying=False, record=None: (
        placed.append(uid),
        original(reader, uid, now, lying, record),
    )[-1]
    uid = world.uid_for(first_cards(world, 1)[0])
    chip = world.chip("middle")
    if with_card:
        chip.place(uid)
        world.advance(0.3)
    before = list(placed)
    for chunk in noise:
        chip.garbage(chunk)
        world.advance(0.2)
    world.advance(2.0)
    assert placed == before, f"garbage made a card: {placed[len(before) :]}"
    assert all(seen == uid for seen in placed)
    assert "Unknown card" not in world.box.notices.text
    chip.lift()
    world.advance(0.5)


def test_a_card_left_lying_on_a_reader_is_one_tap(world: SimulatedBox) -> None:
    start_dead_set(world)
    world.put("left", world.uid_for(first_cards(world, 1)[0]))
    world.advance(600.0)
    assert world.dump()["actions"] == 1
    world.lift("left")
    world.advance(5.0)
    assert world.dump()["actions"] == 1


def test_a_reader_that_never_answers_at_start_up_is_named_and_the_box_starts_without_it(
    world: SimulatedBox, caplog: pytest.LogCaptureFixture
) -> None:
    start_dead_set(world)
    world.chip("left").silent = True  # its switch is not on HSU
    with caplog.at_level(logging.WARNING):
        world.restart()
        world.advance(1.0)
    assert world.dump()["readers_offline"] == ["left"]
    notice = world.box.screen(world.now).notice
    assert "reader left" in notice and "pn532sim://left" in notice, notice
    assert any("reader left" in r.getMessage() and "pn532sim://left" in r.getMessage() for r in caplog.records)
    tap(world, "middle", first_cards(world, 1)[0])
    assert world.dump()["actions"] == 1
    world.advance(10.0)
    assert world.box.screen(world.now).notice == "! reader left off"


# ----- display -------------------------------------------------------------------------------


class FailingPanel:
    """Wraps the simulated OLED; its I2C bus fails while `failing`."""

    def __init__(self, panel):
        self.panel = panel
        self.failing = True
        self.attempts = 0

    def display(self, image) -> None:
        self.attempts += 1
        if self.failing:
            raise DeviceNotFoundError("I2C device not found on address: 0x3C")
        self.panel.display(image)

    @property
    def image(self):
        return self.panel.image


def test_an_i2c_error_mid_game_is_retried_and_the_game_and_its_sounds_go_on(world: SimulatedBox) -> None:
    from box.screens.render import render

    start_dead_set(world)
    panel = FailingPanel(world.parts.display)
    world.parts.pusher.device = panel
    played: list[str] = []
    original = world.parts.buzzer.play
    world.parts.buzzer.play = lambda sound, now: (played.append(sound), original(sound, now))[-1]
    buzzer_pin = world.parts.mock_factory.pin(world.pinmap.buzzer.pin)
    pin_changes = len(buzzer_pin.states)
    card = first_cards(world, 1)[0]
    tap(world, "left", card)
    world.put("left", bytes.fromhex("04deadbeef0001"))  # an unknown card: the error sound
    world.lift("left")
    world.advance(3.0)
    assert world.dump()["actions"] == 1, "the game stopped with the display"
    assert played, "no sound while the display failed"
    assert len(buzzer_pin.states) > pin_changes, "the buzzer pin never moved"
    assert panel.attempts >= 3, "the push was not retried"
    panel.failing = False
    world.advance(1.5)
    assert panel.image.tobytes() == render(world.box.screen(world.now)).tobytes(), "the panel never caught up"


def test_a_reopen_that_fails_is_retried_and_closes_the_old_bus_handle() -> None:
    """A panel still unplugged makes `open_oled` raise DisplayUnavailable: retry, never end the pusher."""
    from luma.core.device import dummy
    from PIL import Image

    class Bus:
        def __init__(self) -> None:
            self.closed = 0

        def cleanup(self) -> None:
            self.closed += 1

    class Panel(dummy):
        def __init__(self, failures: int):
            super().__init__(width=128, height=64, mode="1")
            self.failures, self._serial_interface = failures, Bus()

        def display(self, image) -> None:
            if self.failures:
                self.failures -= 1
                raise DeviceNotFoundError("I2C device not found")
            super().display(image)

    broken, fresh = Panel(failures=99), Panel(failures=0)
    attempts = iter([DisplayUnavailable("OLED still unplugged"), fresh])

    def reopen():
        outcome = next(attempts)
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    pusher = FramePusher(broken, retry_after=1.0, reopen=reopen, clock=lambda: 0.0)
    image = Image.new("1", (128, 64), 1)
    pusher.submit(image)
    assert pusher.push_due(0.0) is False
    assert pusher.push_due(1.0) is False  # the reopen failed: still retrying
    assert pusher.push_due(2.0) is True
    assert fresh.image.tobytes() == image.tobytes()
    assert broken._serial_interface.closed >= 1, "the failed device's bus handle was not closed before the reopen"


# ----- damaged journals --------------------------------------------------------------------------


def played_journal(state_dir: Path) -> Path:
    """A journal holding a game with a few actions, closed as after a clean stop."""
    world = SimulatedBox(state_dir=state_dir, seed=3)
    start_dead_set(world)
    for card in first_cards(world, 3):
        tap(world, "left", card)
    world.parts.close()
    world.box.journal.close()
    Journal(state_dir / "journal.db").close()  # checkpoint: everything in the main file
    return state_dir / "journal.db"


def boot_after(state_dir: Path) -> SimulatedBox:
    world = SimulatedBox(state_dir=state_dir, seed=3)
    world.advance(0.5)
    return world


@pytest.mark.parametrize(
    "damage",
    ["truncated", "zeroed-page", "not-sqlite", "empty", "bad-row"],
)
def test_a_damaged_journal_is_kept_reported_and_a_new_game_offered(
    tmp_path: Path, damage: str, caplog: pytest.LogCaptureFixture
) -> None:
    path = played_journal(tmp_path / "state")
    data = path.read_bytes()
    if damage == "truncated":
        damaged = data[: len(data) // 2 + 100]
    elif damage == "zeroed-page":
        damaged = data[:4096] + bytes(4096) + data[8192:]
    elif damage == "not-sqlite":
        damaged = b"this is not a journal\n" * 100
    elif damage == "empty":
        damaged = data[:50]
    else:
        with sqlite3.connect(path) as db:
            db.execute("UPDATE actions SET action = '{broken' WHERE seq = 2")
        damaged = path.read_bytes()
    path.write_bytes(damaged)
    with caplog.at_level(logging.ERROR):
        world = boot_after(path.parent)
    try:
        assert world.box.screen(world.now).notice == "Journal damaged: copy kept. New game."
        assert any("journal damaged" in record.getMessage() for record in caplog.records)
        kept = sorted(path.parent.glob("journal.db.bad-*"))
        assert kept and kept[0].read_bytes() == damaged, "the bad file was not kept as it was"
        assert world.dump()["game"] is None and world.dump()["screen"] == "menu"
        start_dead_set(world)
        tap(world, "left", first_cards(world, 1)[0])
        world.restart()  # the next boot is clean: no crash loop, no second alarm
        assert world.dump()["actions"] == 1
        assert "damaged" not in world.box.screen(world.now).notice
    finally:
        world.parts.close()
        world.box.journal.close()


@settings(max_examples=25, deadline=None, suppress_health_check=FUNCTION_SCOPED)
@given(flips=st.lists(st.tuples(st.floats(0, 1, exclude_max=True), st.integers(1, 255)), min_size=1, max_size=8))
def test_a_journal_with_random_damaged_bytes_never_stops_the_box(
    tmp_path_factory, flips: list[tuple[float, int]]
) -> None:
    """Whatever bytes a bad SD card flips: the box boots, plays and boots again."""
    state_dir = tmp_path_factory.mktemp("flips")
    path = played_journal(state_dir)
    data = bytearray(path.read_bytes())
    for where, xor in flips:
        data[int(where * len(data))] ^= xor
    path.write_bytes(bytes(data))
    world = boot_after(state_dir)
    try:
        if world.box.session is None:
            start_dead_set(world)
        for card in first_cards(world, 6):
            tap(world, "middle", card)
        world.press("ok")
        world.restart()
        world.advance(0.5)
        assert world.box.session is not None
    finally:
        world.parts.close()
        world.box.journal.close()


# ----- bad files through the gravebox command ---------------------------------------------------


def gravebox(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run the `gravebox` command (the installed script, else `python -m box`)."""
    script = Path(sys.executable).parent / "gravebox"
    command = [str(script)] if script.exists() else [sys.executable, "-m", "box"]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("NOTIFY_SOCKET", None)
    return subprocess.run([*command, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=60)


def one_line_error(result: subprocess.CompletedProcess[str], *parts: str) -> None:
    assert result.returncode == 2, (result.returncode, result.stderr)
    assert "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    for part in parts:
        assert part in lines[0], (part, lines[0])


@pytest.fixture
def script(tmp_path: Path) -> Path:
    path = tmp_path / "game.script"
    path.write_text("start dead-set players=2\npress ok\nexpect game == dead-set\n", encoding="utf-8")
    return path


def test_a_bad_deck_is_one_line_with_file_line_and_field(tmp_path: Path, script: Path) -> None:
    decks = tmp_path / "decks"
    decks.mkdir()
    lines = (REPO / "box/decks/dead-set.csv").read_text(encoding="utf-8").splitlines()
    row = next(n for n, line in enumerate(lines) if line.startswith("ds0"))
    lines[row] = lines[row].rsplit(",", 1)[0] + ",old"
    (decks / "dead-set.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = gravebox("sim", "--script", str(script), "--decks", str(decks), cwd=tmp_path)
    one_line_error(result, "dead-set.csv", f":{row + 1}:", "age")


def test_a_bad_board_is_one_line_with_file_line_and_field(tmp_path: Path, script: Path) -> None:
    decks = tmp_path / "decks"
    decks.mkdir()
    shutil.copy(REPO / "box/decks/deck-of-death.csv", decks / "deck-of-death.csv")
    board = (REPO / "box/decks/deck-of-death.toml").read_text(encoding="utf-8").splitlines()
    row = next(n for n, line in enumerate(board) if line.startswith("outer"))
    board[row] = 'outer = "many"'
    (decks / "deck-of-death.toml").write_text("\n".join(board) + "\n", encoding="utf-8")
    script.write_text("start deck-of-death players=2\nexpect game == deck-of-death\n", encoding="utf-8")
    result = gravebox("sim", "--script", str(script), "--decks", str(decks), cwd=tmp_path)
    one_line_error(result, "deck-of-death.toml", f":{row + 1}:", "outer")


def test_a_bad_pin_map_is_one_line_with_file_line_and_field(tmp_path: Path) -> None:
    lines = (REPO / "wiring/pinmap.toml").read_text(encoding="utf-8").splitlines()
    row = next(n for n, line in enumerate(lines) if line.startswith("down ="))
    lines[row] = "down = 17"  # the same pin as UP
    pinmap = tmp_path / "pinmap.toml"
    pinmap.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = gravebox("run", "--fake", "--pinmap", str(pinmap), "--state-dir", str(tmp_path / "s"), cwd=tmp_path)
    one_line_error(result, f"pinmap.toml:{row + 1}:", "buttons.down")


def test_a_bad_config_is_one_line_with_file_line_and_field(tmp_path: Path, script: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[box]\nnames = ["Ann", "Ann"]\n', encoding="utf-8")
    result = gravebox("sim", "--script", str(script), "--config", str(config), cwd=tmp_path)
    one_line_error(result, "config.toml:2:", "box.names")
    config.write_text("[box\nnames = 3\n", encoding="utf-8")
    result = gravebox("run", "--fake", "--config", str(config), "--state-dir", str(tmp_path / "s"), cwd=tmp_path)
    one_line_error(result, "config.toml:1:")
