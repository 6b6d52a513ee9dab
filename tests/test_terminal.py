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
        os.write(controller, b"j\r")
        assert read_until(controller, b"draw", seen)
        os.write(controller, b"\r")  # drawn up to 7
        assert read_until(controller, b"ROLL", seen)
        seen.clear()
        os.write(controller, b"r")
        assert read_until(controller, b"dice:", seen)
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
