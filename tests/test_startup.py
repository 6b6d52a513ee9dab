"""What the box's start leaves out, and what it puts back (bench/startup.py measures the time)."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from box.cli.main import main
from box.screens.render import _font

REPO = Path(__file__).resolve().parent.parent

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
    # the dice use random.SystemRandom, not secrets (hmac, OpenSSL); the font is raw data, no PNG to decode
    unneeded = {"secrets", "hmac", "_hashlib", "argparse", "PIL.ImageFile", "PIL.PngImagePlugin", "PIL.JpegImagePlugin"}
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


def test_the_box_font_draws_exactly_what_pillows_own_bitmap_font_draws() -> None:
    pillows = getattr(ImageFont, "load_default_imagefont", ImageFont.load_default)()
    text = bytes(range(32, 256)).decode("latin-1")
    for line in (text[:40], text[40:80], text[80:120], text[120:160], text[160:200], text[200:]):
        assert _font().getbbox(line) == pillows.getbbox(line)
        drawn = []
        for font in (_font(), pillows):
            image = Image.new("1", (6 * len(line) + 4, 14), 0)
            ImageDraw.Draw(image).text((1, 1), line, font=font, fill=1)
            drawn.append(image.tobytes())
        assert drawn[0] == drawn[1] and any(drawn[0]), line


def test_raw_font_data_a_pillow_will_not_load_gives_pillows_own_copy_of_the_font(monkeypatch) -> None:
    from box.screens import font_data

    monkeypatch.setattr(font_data, "BITMAP", font_data.BITMAP[:100])  # not what this Pillow expects
    fallback = _font.__wrapped__()
    pillows = getattr(ImageFont, "load_default_imagefont", ImageFont.load_default)()
    assert fallback.getbbox("Wolfgang Amadeus") == pillows.getbbox("Wolfgang Amadeus")


def test_a_start_that_fails_leaves_the_garbage_collector_on(tmp_path: Path, capsys) -> None:
    pinmap = tmp_path / "pinmap.toml"
    pinmap.mkdir()  # a bad file: one line, exit status 2
    assert main(["run", "--fake", "--pinmap", str(pinmap), "--state-dir", str(tmp_path / "state")]) == 2
    assert "gravebox:" in capsys.readouterr().err
    assert gc.isenabled()
