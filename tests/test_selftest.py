"""The self-test screen through its methods, and `gravebox selftest --fake` as a process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from box.games.base import BUTTONS
from box.screens.render import render
from box.screens.selftest import SOUNDS, SelfTest, pattern_image

ROOT = Path(__file__).resolve().parent.parent
READERS = {"left": "/dev/gravebox-left", "middle": "/dev/gravebox-middle", "right": "/dev/gravebox-right"}


def fresh(now: float = 0.0) -> SelfTest:
    return SelfTest(READERS, now=now, sound_every=2.0, pattern_seconds=3.0)


def test_each_button_shows_once_pressed_short_and_long():
    test = fresh()
    assert test.view(5.0).lines[0] == ".. .. .. .. .."
    test.press("up", "short", 5.0)
    assert test.view(5.0).lines[0] == "UP .. .. .. .."
    assert test.view(5.0).title == "Self-test: UP short"
    test.press("down", "long", 6.0)
    test.press("ok", "short", 6.5)
    test.press("ok", "long", 7.0)
    test.press("roll", "long", 7.5)
    assert test.view(7.5).lines[0] == "UP DN+ OK+ .. RL+"
    assert test.view(7.5).title == "Self-test: ROLL long"
    test.press("back", "short", 8.0)
    assert test.view(8.0).lines[0] == "UP DN+ OK+ BK RL+"
    assert not test.closed
    assert not [p for p in test.problems() if p.startswith("button")]


def test_a_held_button_shows_while_down():
    test = fresh()
    test.edge("roll", True, 4.0)
    assert test.view(4.0).title == "Held: RL"
    for button in ("back", "ok", "up", "down"):
        test.edge(button, True, 4.1)
    assert test.view(4.1).title == "Held: BK DN OK RL UP"  # all five fit the title
    for button in ("back", "ok", "up", "down"):
        test.edge(button, False, 4.1)
    test.edge("roll", False, 4.2)
    assert test.view(4.2).title == "Self-test: press all"


def test_unpressed_buttons_are_named_in_problems():
    test = fresh()
    test.press("up", "short", 1.0)
    assert [p for p in test.problems() if p.startswith("button")] == [
        f"button {b}: not pressed yet" for b in BUTTONS if b != "up"
    ]


def test_a_long_back_leaves_and_a_short_one_does_not():
    test = fresh()
    test.press("back", "short", 1.0)
    assert not test.closed
    test.press("back", "long", 2.0)
    assert test.closed


def test_bad_input_gets_a_clear_answer():
    test = fresh()
    with pytest.raises(ValueError, match="unknown button 'start'"):
        test.press("start", "short", 1.0)
    with pytest.raises(ValueError, match="press kind must be"):
        test.press("ok", "double", 1.0)
    with pytest.raises(ValueError, match="unknown reader 'top'"):
        test.tag("top", b"\x04\x01\x02\x03", None, 1.0)


def test_a_reader_that_goes_offline_is_named_with_its_port():
    test = fresh()
    for name, port in READERS.items():
        test.reader_status(name, True, f"reader {name}: ready on {port} (PN532 v1.6)", 0.5)
        test.tag(name, bytes.fromhex("04a1b2c3d4e5f6"), None, 1.0)
    assert not [p for p in test.problems() if p.startswith("reader")]
    message = "reader middle: no answer on /dev/gravebox-middle: is its switch on HSU?"
    test.reader_status("middle", False, message, 2.0)
    assert [p for p in test.problems() if p.startswith("reader")] == [message]
    assert test.view(4.0).lines[2] == "M OFF no answer on /dev/gravebox-middle: is its switch on HSU?"


def test_readers_show_their_last_uid_and_unknown_ones_are_named():
    test = fresh()
    test.reader_status("left", True, "reader left: ready", 0.5)
    test.tag("left", bytes.fromhex("04a1b2c3"), None, 1.0)
    lines = test.view(4.0).lines
    assert lines[1] == "L 04a1b2c3"
    assert lines[2] == "M waiting..."
    assert "reader middle: no answer yet on /dev/gravebox-middle: is it plugged in, its switch on HSU?" in (
        test.problems()
    )


def test_the_box_can_seed_reader_status():
    test = SelfTest(
        {"left": "", "right": ""}, now=0.0, offline={"right": "reader right: unplugged"}, assume_online=True
    )
    assert test.view(5.0).lines[1:3] == ("L ready: tap a card", "R OFF unplugged")


def test_sounds_cycle_through_every_sound_after_the_pattern():
    test = fresh()
    test.advance(2.9)
    assert test.take_sounds() == []
    assert test.next_deadline(2.9) == 3.0
    heard = []
    now = 3.0
    for _ in range(len(SOUNDS) + 2):
        test.advance(now)
        heard += test.take_sounds()
        now += 2.0
    assert heard == [*SOUNDS, *SOUNDS[:2]]
    assert test.view(now).lines[4] == f"Sound {SOUNDS[1]} 2/{len(SOUNDS)}"


def test_patterns_first_then_the_status_screen():
    test = fresh(now=10.0)
    assert test.image(10.0).getbbox() == (0, 0, 128, 64)  # every pixel lit
    grid = test.image(11.6)
    assert grid.tobytes() == pattern_image("grid").tobytes()
    assert test.image(13.0) is None
    rows = [any(grid.getpixel((x, y)) for x in range(128)) for y in range(64)]
    assert all(rows)  # every pixel row of the panel is exercised
    assert render(test.view(13.0)).size == (128, 64)


def test_idle_for_long_closes_it():
    test = fresh()
    test.press("ok", "short", 1.0)
    test.advance(300.0)
    assert not test.closed
    test.advance(301.0)
    assert test.closed


def test_the_box_loop_runs_it_on_simulated_parts(tmp_path):
    """Pins, the simulated PN532 and the dummy display: presses, a card and sounds reach the screen."""
    from box.sim.world import SimulatedBox
    from box.storage.pinmap import load_pinmap

    readers = dict(load_pinmap().readers)
    world = SimulatedBox(tmp_path, root=lambda tags: SelfTest(readers, now=0.0))
    test, parts = world.box.root, world.parts
    try:
        assert parts.display.image.getbbox() == (0, 0, 128, 64)  # the full pattern
        world.advance(4.0)
        world.press("roll", seconds=1.2)  # held past the long-press time
        world.put("right", bytes.fromhex("04a1b2c3"))
        view = test.view(world.now)
        assert view.title == "Self-test: ROLL long"
        assert view.lines[0] == ".. .. .. .. RL+"
        assert view.lines[3] == "R 04a1b2c3"
        assert parts.display.image.tobytes() == render(world.box.screen(world.now)).tobytes()
        assert test.sound is not None  # the sounds have begun, through the buzzer pin
        assert any(state.state for state in parts.mock_factory.pin(world.pinmap.buzzer.pin).states)
    finally:
        world.close()


def selftest(*args: str) -> subprocess.CompletedProcess[str]:
    """`gravebox selftest ARGS` in a child process, its output kept."""
    command = [sys.executable, "-m", "box.cli.main", "selftest", *args]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60)


def test_gravebox_selftest_fake_passes_and_names_each_part(tmp_path):
    result = selftest("--fake", "--config", str(tmp_path / "none.toml"))
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert "display        ok" in out
    assert "buzzer         ok" in out and "fanfare" in out
    for reader in READERS:
        assert f"reader {reader}: ready on pn532sim://{reader}" in out
    for button in BUTTONS:
        assert f"button {button}" in out and "not pressed" in out
    assert out.rstrip().endswith("Every part answered.")


def test_gravebox_selftest_fails_when_buttons_are_expected_and_never_pressed(tmp_path):
    result = selftest("--fake", "--seconds", "2", "--config", str(tmp_path / "none.toml"))
    assert result.returncode == 1
    assert "button roll: not pressed in 2 s: check it goes between GPIO24 and GND" in result.stdout


def test_gravebox_cli_selftest_when_wired(tmp_path):
    from box.cli import main as cli

    if "selftest" not in cli.COMMANDS:
        pytest.skip("gravebox selftest is not wired into box/cli/main.py yet")
    result = selftest("--fake")
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_press_title_fits_the_title_bar():
    test = fresh()
    for button in ("up", "down", "ok", "back", "roll"):
        for kind in ("short", "long", "repeat", "combo"):
            test.press(button, kind, now=5.0)
            assert len(test.view(5.0).title) <= 21, test.view(5.0).title
    test.press("roll", "repeat", now=6.0)
    assert test.view(6.0).title == "Self-test: RL repeat"


def test_a_reader_left_at_115200_says_why_in_the_report(tmp_path):
    """A line that garbles the PN532's fast rate: the reader is back at 115200 after a power cycle, and the report says so."""
    from box.sim.world import SimulatedBox
    from box.storage.pinmap import load_pinmap

    readers = dict(load_pinmap().readers)
    world = SimulatedBox(tmp_path, root=lambda tags: SelfTest(readers, now=0.0))
    test = world.box.root
    try:
        chip = world.chip("left")
        chip.fastest_rate = 115200
        chip.replug()  # the chip at power-up, on a line that carries no more than 115200
        world.parts.readers["left"].close()
        world.advance(2.0)
        assert "switch it off and on" in test.readers["left"].message  # it took 460800 and went deaf
        world.chip("left").replug()  # switched off and on (and watched again by the simulator)
        world.advance(2.0)
        check = test.readers["left"]
        assert check.online and check.message.endswith("(PN532 v1.6; 115200 baud: no answer at 460800, check its wiring)")
    finally:
        world.close()
