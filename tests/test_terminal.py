"""The terminal simulator, played through a real pseudo-terminal as a person would."""

import os
import select
import subprocess
import sys
import time

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


def test_braille_packs_two_by_four_pixels_a_character():
    from PIL import Image

    image = Image.new("1", (4, 4))
    image.putpixel((0, 0), 1)
    image.putpixel((3, 3), 1)
    assert braille(image) == [chr(0x2801) + chr(0x2880)]


class FakeScreen:
    """Only the size: the terminal's layout is composed without curses."""

    def __init__(self, width: int, height: int):
        self.size = (height, width)

    def getmaxyx(self):
        return self.size


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
