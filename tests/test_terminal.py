"""The terminal simulator, played through a real pseudo-terminal as a person would."""

import os
import select
import subprocess
import sys
import textwrap
import time
from types import SimpleNamespace

import pytest

from box.sim.terminal import braille


def read_until(fd: int, marker: bytes, seen: bytearray, timeout: float = 20.0) -> bool:
    """Read the terminal's output until `marker` shows up (or the timeout passes)."""
    deadline = time.monotonic() + timeout
    while marker not in seen:
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            try:
                seen.extend(os.read(fd, 65536))
            except OSError:
                return marker in seen
    return True


@pytest.mark.skipif(sys.platform != "linux", reason="uses a Linux pseudo-terminal")
def test_a_person_can_start_a_game_and_roll_in_the_terminal(tmp_path):
    controller, terminal = os.openpty()
    env = {**os.environ, "TERM": "xterm", "LINES": "40", "COLUMNS": "120", "HOME": str(tmp_path)}
    process = subprocess.Popen(
        [sys.executable, "-m", "box", "sim", "--state-dir", str(tmp_path / "state"), "--seed", "3"],
        stdin=terminal,
        stdout=terminal,
        stderr=subprocess.DEVNULL,
        env=env,
        close_fds=True,
    )
    os.close(terminal)
    seen = bytearray()
    try:
        assert read_until(controller, b"GRAVEBOX", seen), seen[-500:]
        os.write(controller, b"jjj\r")  # Deck of Death
        assert read_until(controller, b"Players", seen)
        os.write(controller, b"\r\r")  # 2 players, then START
        assert read_until(controller, b"START", seen)
        os.write(controller, b"jjj\r")  # past the options to START
        assert read_until(controller, b"draw", seen)
        os.write(controller, b"\r")  # drawn up to 7
        assert read_until(controller, b"ROLL", seen)
        seen.clear()
        os.write(controller, b"r")
        assert read_until(controller, b"dice ", seen)
        os.write(controller, b"q")
        assert process.wait(timeout=20) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(controller)


@pytest.mark.skipif(sys.platform != "linux", reason="uses a Linux pseudo-terminal")
def test_saving_tags_to_the_stick_leaves_the_drawing_whole_and_ctrl_l_redraws(tmp_path):
    """stderr on the terminal, as a person has it: the stick's log line goes to the log file."""
    controller, terminal = os.openpty()
    env = {**os.environ, "TERM": "xterm", "LINES": "24", "COLUMNS": "80", "HOME": str(tmp_path)}
    state = tmp_path / "state"
    process = subprocess.Popen(
        [sys.executable, "-m", "box", "sim", "--state-dir", str(state)],
        stdin=terminal,
        stdout=terminal,
        stderr=terminal,
        env=env,
        close_fds=True,
    )
    os.close(terminal)
    seen = bytearray()
    try:
        assert read_until(controller, b"GRAVEBOX", seen), seen[-500:]
        seen.clear()
        os.write(controller, b"jjjjjjj\r\r")  # down to USB stick, OK, OK on "Save tags to USB"
        assert read_until(controller, b"tags saved on STICK", seen)
        assert b"INFO" not in seen and b"box.core.tagtransfer" not in seen  # no log line in the drawing
        seen.clear()
        os.write(controller, b"\x0c")  # Ctrl-L
        assert read_until(controller, b"\x1b[2J", seen)  # the terminal cleared and drawn again
        assert read_until(controller, b"game: -", seen)
        os.write(controller, b"q")
        assert read_until(controller, b"gravebox-sim.log", seen)  # where the log is, said after quitting
        assert process.wait(timeout=20) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(controller)
    assert "INFO box.core.tagtransfer: USB save: " in (state / "gravebox-sim.log").read_text(encoding="utf-8")


def test_braille_packs_two_by_four_pixels_a_character():
    from PIL import Image

    image = Image.new("1", (4, 4))
    image.putpixel((0, 0), 1)
    image.putpixel((3, 3), 1)
    assert braille(image) == [chr(0x2801) + chr(0x2880)]


class FakeScreen:
    """A curses window without curses: its size, and what was drawn on it (text and attributes)."""

    def __init__(self, width: int, height: int):
        self.size = (height, width)
        self.cells: dict[int, tuple[str, int]] = {}
        self.cleared = 0

    def getmaxyx(self):
        return self.size

    def erase(self):
        self.cells = {}

    def clear(self):
        self.erase()
        self.cleared += 1

    def addstr(self, y, x, text, attributes=0):
        self.cells[y] = (text, attributes)

    def refresh(self):
        pass


@pytest.fixture
def terminal_80x24(tmp_path):
    from box.sim.terminal import Terminal
    from box.sim.world import SimulatedBox

    world = SimulatedBox(state_dir=tmp_path / "state", seed=2)
    terminal = Terminal(world, FakeScreen(80, 24))
    yield terminal
    world.parts.close()
    world.box.journal.close()


def screen_of(terminal, width=80, height=24):
    from box.sim.terminal import layout

    return layout(width, height, *terminal.parts(width, height))


def test_in_80_by_24_the_notice_status_and_last_reply_are_all_on_screen(terminal_80x24):
    terminal = terminal_80x24
    terminal.command("start deadlines players=2")
    terminal.command("tap middle Mozart")  # a name's last word, in any case
    lines = screen_of(terminal)
    assert len(lines) == 24 and all(len(line) < 80 for line in lines)
    text = "\n".join(lines)
    assert "game: deadlines  player: -" in text and "♪ click" in text  # the starting cards: nobody's turn
    assert ":tap middle Mozart  -> ok" in text
    notice = terminal.world.box.screen(terminal.world.now).notice
    assert notice and f"[{notice}]" in text
    terminal.command("tap middle curie")
    text = " ".join(screen_of(terminal))  # a long reply takes the spare line too
    assert "2 deadlines cards match 'curie': Marie Curie, Pierre Curie; say more" in text
    terminal.command("press ROLL")  # buttons in any case; ROLL outside the game's dice: the free dice
    assert "♪ dice" in "\n".join(screen_of(terminal))


def test_cards_lists_in_columns_and_pages(terminal_80x24):
    terminal = terminal_80x24
    terminal.command("start deadlines players=2")
    terminal.command("cards")
    assert len(terminal.pages) > 2  # the whole deck does not fit one 80x24 page
    first = screen_of(terminal)
    assert "page 1/" in "\n".join(first)
    assert "Albert Einstein (dl001)" in first[0] and "  " in first[0].strip()  # two columns or more
    terminal.turn_page(ord(" "))
    assert terminal.page == 1 and screen_of(terminal) != first
    terminal.turn_page(ord("x"))  # any other key closes the listing
    assert not terminal.pages
    terminal.command("cards curie")
    assert [line.strip() for line in terminal.pages[0]] == ["Marie Curie (dl003)    Pierre Curie (dl120)"]


def test_a_small_terminal_shows_the_screen_as_text():
    from box.sim.terminal import layout

    lines = layout(50, 10, ["x" * 66] * 18, ["Deadlines", ">Birth"], ["[Right!]", "status", "reply"], "keys")
    assert lines == ["Deadlines", ">Birth", "[Right!]", "status", "reply", "", "", "", "", "keys"]


def test_the_text_line_at_80_by_24_says_what_the_oled_says_pairing_code_included(terminal_80x24):
    from box.links.control import ControlCommand

    terminal, world = terminal_80x24, terminal_80x24.world
    assert screen_of(terminal)[18].startswith("GRAVEBOX | >Deadlines · Dead Set")  # the menu around its cursor
    world.loop.enqueue(ControlCommand("show-code", {"code": "482913", "seconds": 120}))
    world.advance(0.1)
    assert screen_of(terminal)[18] == "Pair a phone | Type on the phone: · 482 913 · BACK: hide"
    world.press("back")
    terminal.command("hold roll 1.2")  # the shot timer
    terminal.command("press ok")  # a countdown: its seconds are drawn big
    terminal.command("press ok")
    terminal.command("wait 2")
    line = screen_of(terminal)[18]
    assert line.startswith("Countdown | ") and "seconds left" in line
    assert any(char.isdigit() for char in line.split("|")[1].split("·")[0])  # the big seconds, as text


def test_a_long_oled_text_takes_a_second_line_unless_the_reply_needs_it():
    from box.sim.terminal import layout

    text = ["Death match", " Ann vs Bob", ">Year of death: 1756", " UP/DOWN: a year", " OK: guess", " BACK: no"]
    lines = layout(80, 24, ["#" * 66] * 18, text, ["", "status", "ok"], "keys")
    assert lines[18:20] == [
        "Death match | Ann vs Bob · >Year of death: 1756 · UP/DOWN: a year · OK: guess",
        "BACK: no",
    ]
    long_reply = "a reply long enough to need the second line of the terminal, " * 2
    lines = layout(80, 24, ["#" * 66] * 18, text, ["", "status", long_reply], "keys")
    assert lines[18] == "Death match | Ann vs Bob · >Year of death: 1756 · UP/DOWN: a year · …"  # one line
    assert lines[21:23] == textwrap.wrap(long_reply, 79)[:2]


def test_dimmed_and_dark_screens_are_drawn_as_such(terminal_80x24):
    import curses

    from box.base.care import BLANK_AFTER, DIM_AFTER

    terminal, world = terminal_80x24, terminal_80x24.world
    lit = screen_of(terminal)
    assert "screen" not in lit[20] and lit[0] == "┌" + "─" * 64 + "┐"
    world.advance(DIM_AFTER + 1)
    dimmed = screen_of(terminal)
    assert dimmed[0].startswith("┌─ dimmed ─") and len(dimmed[0]) == len(lit[0])
    assert dimmed[1:17] == lit[1:17] and dimmed[18] == lit[18]  # the same picture and text, dimly lit
    assert "screen dimmed" in dimmed[20]
    terminal.draw()
    attributes = {y: attributes for y, (_, attributes) in terminal.screen.cells.items()}
    assert {attributes[y] for y in range(18)} == {curses.A_DIM} and attributes[18] == curses.A_NORMAL
    world.advance(BLANK_AFTER - DIM_AFTER)
    dark = screen_of(terminal)
    assert dark[0].startswith("┌─ dark ─") and set("".join(dark[1:17])) == {"│", "⠀"}  # nothing lit
    assert dark[18] == "Screen dark | a button or a card wakes it" and "screen dark" in dark[20]
    world.press("down")  # wakes it
    assert screen_of(terminal)[:19] == lit[:19] and "screen" not in screen_of(terminal)[20]


def test_ctrl_l_draws_everything_again_and_q_quits(terminal_80x24):
    from box.sim.terminal import CTRL_L

    terminal = terminal_80x24
    assert terminal.key(CTRL_L) and terminal.screen.cleared == 1
    assert terminal.key(ord("j")) and screen_of(terminal)[18].startswith("GRAVEBOX | Deadlines · >Dead Set")
    assert terminal.key(ord("q")) is False


def test_the_first_line_gives_the_phone_pages_address(tmp_path):
    from box.sim.terminal import Terminal
    from box.sim.world import SimulatedBox

    world = SimulatedBox(state_dir=tmp_path / "state", seed=2)
    try:
        terminal = Terminal(world, FakeScreen(80, 24), page="http://127.0.0.1:8080/")
        assert "The phone page: http://127.0.0.1:8080/" in " ".join(screen_of(terminal)[20:23])
        assert "phone page" not in " ".join(screen_of(Terminal(world, FakeScreen(80, 24)))[20:23])
    finally:
        world.close()


def test_sim_hands_the_page_it_serves_to_the_terminal(tmp_path, monkeypatch, capsys):
    import box.sim.terminal
    from box.cli import main as cli

    class Served:
        url = "http://127.0.0.1:8765/"

        def start(self, state_dir, decks_dir):
            return SimpleNamespace(path=tmp_path / "page.sock")

    given = {}
    monkeypatch.setattr(box.sim.terminal, "play_in_terminal", lambda *args, **kwargs: given.update(kwargs) or 0)
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    args = cli.build_parser("sim").parse_args(["sim", "--state-dir", str(tmp_path)])
    _, settings = cli.settings_from(args)
    assert cli.simulate_with(args, settings, Served(), None) == 0 and given["page"] == "http://127.0.0.1:8765/"
    assert settings.page == "http://127.0.0.1:8765/", "the box menu's Phone page shows the page served"
    assert cli.simulate_with(args, settings, None, None) == 0 and given["page"].startswith("off (gravebox sim --web")
    own = given["control"].path  # without a page, a control socket of its own, said (docs/mqtt.md needs it)
    said = capsys.readouterr().err
    assert f"the simulator's control socket is {tmp_path / 'page.sock'}" in said
    assert f"the simulator's control socket is {own}" in said and own.name == "control.sock"


def test_log_lines_go_to_the_state_folders_file_and_never_to_the_terminal(tmp_path, capsys):
    import logging
    import warnings

    from box.sim.logfile import LOG_FILE, logging_to_file

    root, log = logging.getLogger(), logging.getLogger("box.parts.stick")
    to_terminal = logging.StreamHandler(sys.stderr)  # what `gravebox`'s basicConfig gives the root
    root.addHandler(to_terminal)
    try:
        with logging_to_file(tmp_path) as path:
            assert path == tmp_path / LOG_FILE and to_terminal not in root.handlers
            log.warning("tag map not saved: disk full")
            warnings.warn("a library's warning", UserWarning, stacklevel=1)
            print("Traceback (most recent call last):\nZeroDivisionError", file=sys.stderr)  # a thread's, say
        assert to_terminal in root.handlers  # as before, after
        log.warning("after the terminal")
    finally:
        root.removeHandler(to_terminal)
    written = path.read_text(encoding="utf-8")
    assert "WARNING box.parts.stick: tag map not saved: disk full" in written
    assert "a library's warning" in written and "ZeroDivisionError" in written
    assert "after the terminal" not in written
    terminal = capsys.readouterr().err
    assert "disk full" not in terminal and "ZeroDivisionError" not in terminal and "after the terminal" in terminal


def test_the_log_is_bounded_in_size(tmp_path, monkeypatch):
    import logging

    import box.sim.logfile as logfile

    monkeypatch.setattr(logfile, "MAX_BYTES", 2000)
    with logfile.logging_to_file(tmp_path) as path:
        for n in range(500):  # about 40 kB of log
            logging.getLogger("box.soak").warning("line %d of a long session", n)
    files = sorted(tmp_path.iterdir())
    assert [file.name for file in files] == [logfile.LOG_FILE, *(f"{logfile.LOG_FILE}.{n}" for n in (1, 2))]
    assert all(file.stat().st_size <= 2000 for file in files)
    assert "line 499 " in path.read_text(encoding="utf-8")


def test_the_log_cannot_be_written_says_so_in_one_line(tmp_path):
    from box.errors import FileProblem
    from box.sim.logfile import LOG_FILE, logging_to_file

    (tmp_path / LOG_FILE).mkdir()  # a folder where the log should be
    with pytest.raises(FileProblem, match="cannot write the simulator's log"), logging_to_file(tmp_path):
        pass
