"""What the box's start leaves out, and what it puts back (bench/startup.py measures the time)."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageFont

from box.cli.main import main
from box.screens.glyphs import BitmapFont
from box.screens.render import _font
from box.words import SHOWN, unshown

REPO = Path(__file__).resolve().parent.parent
FIXED_6X9 = Path("/usr/share/fonts/X11/misc/6x9.pcf.gz")  # the source of box/screens/font_data.py

FIRST_FRAME = """
import sys
import box.core.app
from box.games.base import View
from box.screens.render import render
frame = render(View("Gravebox", ("Deck of Death", "Dead Set")))
print(frame.getbbox() is not None, " ".join(sorted(sys.modules)))
"""


def test_the_box_and_its_first_frame_load_no_module_the_start_does_not_need() -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    run = subprocess.run([sys.executable, "-c", FIRST_FRAME], env=env, capture_output=True, text=True, check=True)
    drawn, *modules = run.stdout.split()
    assert drawn == "True" and "box.screens.font_data" in modules  # the frame has text on it, in the box's font
    # the dice use random.SystemRandom, not secrets (hmac, OpenSSL); the font is raw data, no PNG to
    # decode, drawn without Pillow's font machinery
    unneeded = {"secrets", "hmac", "_hashlib", "argparse", "PIL.ImageFile", "PIL.PngImagePlugin", "PIL.JpegImagePlugin"}
    unneeded |= {"PIL.ImageFont", "PIL.ImageDraw"}
    assert not set(modules) & unneeded


A_FAKE_BOX_UP = """
import sys, tempfile, time
from pathlib import Path
from box.core.app import assemble
from box.storage.pinmap import load_pinmap
from box.base.settings import Settings
app = assemble(load_pinmap(), time.monotonic, Settings(), Path(tempfile.mkdtemp()), simulated=True)
app.loop.process(time.monotonic())  # the first frame: what the box shows at READY
print(app.loop.renders, " ".join(sorted(sys.modules)))
import queue
from box.ports.nfc.reader import start_readers
events = queue.SimpleQueue()
readers = start_readers(app.parts.readers.values(), events.put)
online = sorted(events.get(timeout=10).reader for _ in app.parts.readers)
print(" ".join(online), "ndef" in sys.modules and "box.ports.nfc.tagio" in sys.modules)
readers.stop()
app.close()
"""


def test_a_box_put_together_on_fakes_leaves_the_tag_io_and_the_simulated_chips_to_the_reader_threads() -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    run = subprocess.run([sys.executable, "-c", A_FAKE_BOX_UP], env=env, capture_output=True, text=True, check=True)
    at_ready, with_readers = run.stdout.splitlines()
    renders, *modules = at_ready.split()
    assert int(renders) == 1 and "box.messages" in modules
    # the reader's driver (its frames and commands), reading and writing a tag's record (the NTAG
    # model, ndeflib) and the simulated chips come with the reader threads, after READY
    later = {"box.ports.nfc.reader", "box.ports.nfc.codec", "box.ports.nfc.commands"}
    later |= {"box.ports.nfc.tagio", "box.ports.nfc.ntag", "box.ports.nfc.simchip", "ndef"}
    assert not set(modules) & later
    *online, tag_io_loaded = with_readers.split()
    assert online == ["left", "middle", "right"] and tag_io_loaded == "True"  # each thread loads it as it starts


def test_the_box_font_draws_exactly_what_the_x11_6x9_font_draws() -> None:
    if not FIXED_6X9.exists():
        pytest.skip(f"{FIXED_6X9} is missing (Debian's xfonts-base)")
    fixed = ImageFont.truetype(str(FIXED_6X9), 9)
    text = "".join(chr(code) for first, last in SHOWN for code in range(first, last + 1))
    assert len(text) > 900
    for start in range(0, len(text), 40):
        line = text[start : start + 40]
        image = Image.new("1", (6 * len(line), 9), 0)
        ImageDraw.Draw(image).text((0, 0), line, font=fixed, fill=1)
        assert _font().mask(line).convert("1").tobytes() == image.tobytes(), line


def test_the_box_font_draws_latin_greek_and_cyrillic_and_marks_what_it_lacks() -> None:
    assert unshown("Antonín Dvořák Łucja Ștefan Ђорђе Дмитрий Олена Ґанна Νίκος Σοφία") == ""
    assert unshown("李小龍 Lee שלום") == "李小龍שלום"
    assert _font().mask("李").tobytes() == _font().mask("?").tobytes()  # drawn as a question mark


def test_font_data_of_another_size_is_refused() -> None:
    from box.screens import font_data

    with pytest.raises(ValueError, match="bytes"):
        BitmapFont(font_data.GLYPHS[:-9], font_data.SIZE)


def test_a_start_that_fails_leaves_the_garbage_collector_on(tmp_path: Path, capsys) -> None:
    pinmap = tmp_path / "pinmap.toml"
    pinmap.mkdir()  # a bad file: one line, exit status 2
    assert main(["run", "--fake", "--pinmap", str(pinmap), "--state-dir", str(tmp_path / "state")]) == 2
    assert "gravebox:" in capsys.readouterr().err
    assert gc.isenabled()
