"""What the box's start leaves out, and what it puts back (bench/startup.py measures the time)."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
from pathlib import Path

from box.cli import main

REPO = Path(__file__).resolve().parent.parent

FIRST_FRAME = """
import sys
import box.app
from box.games.base import View
from box.screens import render
render(View("Gravebox", ("Deck of Death", "Dead Set")))
print(" ".join(sorted(sys.modules)))
"""


def test_the_box_and_its_first_frame_load_no_module_the_start_does_not_need() -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    run = subprocess.run([sys.executable, "-c", FIRST_FRAME], env=env, capture_output=True, text=True, check=True)
    modules = set(run.stdout.split())
    assert "PIL.PngImagePlugin" in modules  # the font was loaded: the frame was really drawn
    # the dice use random.SystemRandom, not secrets (hmac, OpenSSL); the font needs only the PNG reader
    unneeded = {"secrets", "hmac", "_hashlib", "argparse", "PIL.JpegImagePlugin", "PIL.GifImagePlugin"}
    assert not modules & unneeded


def test_a_start_that_fails_leaves_the_garbage_collector_on(tmp_path: Path, capsys) -> None:
    pinmap = tmp_path / "pinmap.toml"
    pinmap.mkdir()  # a bad file: one line, exit status 2
    assert main(["run", "--fake", "--pinmap", str(pinmap), "--state-dir", str(tmp_path / "state")]) == 2
    assert "gravebox:" in capsys.readouterr().err
    assert gc.isenabled()
