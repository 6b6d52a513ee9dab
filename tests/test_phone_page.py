"""The box menu's *Phone page*: the page's address on the OLED, as a QR code a phone's camera reads and as text."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pytest
import segno
from PIL import Image

from box.cli.main import settings_from
from box.parts.phone import PhonePage, page_address
from box.sim.world import SimulatedBox

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def world(tmp_path: Path):
    world = SimulatedBox(state_dir=tmp_path / "state", seed=1)
    yield world
    world.close()


def read_qr(image: Image.Image) -> tuple[list[list[int]], int, int]:
    """The modules of the QR code drawn lit on the panel's left (1: dark), its pixels a module and its
    quiet zone in modules, read from the pixels alone: the lit square, then the top-left finder's dark run."""
    left = image.crop((0, 0, 64, 64))
    x0, y0 = 0, next(y for y in range(64) if left.getpixel((0, y)))  # the lit square starts at the left edge
    x1 = next((x for x in range(64) if not left.getpixel((x, y0))), 64)  # its top row is quiet zone, all lit
    y1 = y0 + x1
    row = next(y for y in range(y0, y1) if any(not left.getpixel((x, y)) for x in range(x0, x1)))
    first = next(x for x in range(x0, x1) if not left.getpixel((x, row)))
    run = next(x for x in range(first, x1) if left.getpixel((x, row))) - first
    scale, quiet = run // 7, first - x0  # a finder pattern is 7 modules wide
    count = (x1 - x0 - 2 * quiet) // scale
    modules = [
        [int(not left.getpixel((first + scale * i + scale // 2, row + scale * j + scale // 2))) for i in range(count)]
        for j in range(count)
    ]
    return modules, scale, quiet // scale


def test_the_box_menu_shows_where_the_page_is_as_a_qr_code_and_as_text(world: SimulatedBox) -> None:
    world.press("back", seconds=1.2)  # the box menu: Nothing to undo, Pair a phone, Phone page, Sound, Back
    world.press("down")
    world.press("down")
    world.press("ok")
    address = page_address()
    assert world.dump()["screen"] == "phone-page" and world.dump()["phone_page"] == address
    modules, scale, quiet = read_qr(world.parts.display.image)
    expected = segno.make_qr(address, error="l", boost_error=True)
    assert modules == [list(row) for row in expected.matrix], "the panel carries the address's code"
    assert not expected.is_micro and len(modules) <= 29 and scale == 2 and quiet >= 1  # version 3 at most, 2 px
    view = world.box.screen(world.now)
    host = address.removeprefix("http://").removesuffix("/")
    assert view.title == "Phone page" and host in "".join(view.lines), "a text front end shows the address"
    world.press("back")
    assert world.dump()["screen"] == "menu"


def test_a_long_address_still_fits_the_panel_one_pixel_a_module() -> None:
    address = page_address("0.0.0.0:8080", ("the-gravebox-in-the-back-room.example.home",))
    image = PhonePage(address).image(0.0)
    modules, scale, quiet = read_qr(image)
    assert modules == [list(row) for row in segno.make_qr(address, error="l", boost_error=True).matrix]
    assert scale == 1 and quiet >= 1 and image.size == (128, 64)


def test_the_address_comes_from_the_settings_web_section(tmp_path: Path) -> None:
    config = tmp_path / "gravebox.toml"
    config.write_text('[web]\nlisten = "0.0.0.0:9000"\nhosts = ["gravebox.home"]\n', encoding="utf-8")
    _, settings = settings_from(argparse.Namespace(config=config, decks=None))
    assert settings.page == "http://gravebox.home:9000/"
    config.write_text('[web]\nlisten = "192.168.1.20:80"\n', encoding="utf-8")
    assert settings_from(argparse.Namespace(config=config, decks=None))[1].page == "http://192.168.1.20/"


QR_LATER = """
import sys, tempfile, time
from pathlib import Path
from box.core.app import assemble
from box.storage.pinmap import load_pinmap
from box.base.settings import Settings
app = assemble(load_pinmap(), time.monotonic, Settings(), Path(tempfile.mkdtemp()), simulated=True)
app.loop.process(time.monotonic())
print("segno" in sys.modules)
app.box.phone.show_page(0.0)
app.loop.process(time.monotonic())
print("segno" in sys.modules)
app.close()
"""


def test_the_qr_library_loads_when_the_screen_opens_never_at_the_start() -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    run = subprocess.run([sys.executable, "-c", QR_LATER], env=env, capture_output=True, text=True, check=True)
    assert run.stdout.split() == ["False", "True"]


def test_the_simulator_says_where_its_page_is_or_how_to_serve_one(tmp_path: Path) -> None:
    from box.cli.main import page_of
    from box.web.thread import Beside

    assert page_of(Beside("127.0.0.1", 9000)) == "http://127.0.0.1:9000/"
    assert page_of(Beside("0.0.0.0", 8080)) == page_address() and page_address().endswith(".local:8080/")
    assert page_of(None).startswith("off (gravebox sim --web")
    world = SimulatedBox(state_dir=tmp_path / "state", page="http://127.0.0.1:9000/")
    try:
        world.box.phone.show_page(world.now)
        assert world.dump()["phone_page"] == "http://127.0.0.1:9000/", "the box menu's screen shows the page served"
    finally:
        world.close()
