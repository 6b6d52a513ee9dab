"""The paged drivers: luma's exact bytes for a whole frame, only the change after it, the panel's RAM right."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from luma.oled.device import sh1106, ssd1306
from PIL import Image, ImageDraw

from box.games.base import View
from box.ports.display import open_oled
from box.ports.panel import DRIVERS, PagedSH1106, PagedSSD1306, changed_columns, pack_pages, windows
from box.screens.render import render

LUMA = {"ssd1306": ssd1306, "sh1106": sh1106}


class Capture:
    """A serial interface that keeps every command and data write, as luma's I2C one would send them."""

    def __init__(self) -> None:
        self.writes: list[tuple[str, tuple[int, ...]]] = []

    def command(self, *cmd: int) -> None:
        self.writes.append(("command", tuple(cmd)))

    def data(self, data: list[int]) -> None:
        assert isinstance(data, list), "luma's I2C interface prepends its control byte to a list"
        self.writes.append(("data", tuple(data)))

    def cleanup(self) -> None:
        pass


class PanelRam(Capture):
    """A controller's display RAM, filled by the commands and data it is sent.

    SSD1306 in horizontal addressing mode: COLUMNADDR (0x21) and PAGEADDR (0x22) set a window that
    data fills left to right, page by page. SH1106: 0xB0+page, then the column's low and high
    nibbles (0x0L, 0x1H); data fills the page from there, its 132 columns shown from the third.
    """

    def __init__(self, controller: str) -> None:
        super().__init__()
        self.controller = controller
        self.ram = [bytearray(132) for _ in range(8)]
        self.window = (0, 127, 0, 7)
        self.column = self.page = 0

    def command(self, *cmd: int) -> None:
        super().command(*cmd)
        if self.controller == "ssd1306":
            if cmd[:1] == (0x21,) and len(cmd) == 6 and cmd[3] == 0x22:
                self.window = (cmd[1], cmd[2], cmd[4], cmd[5])
                self.column, self.page = cmd[1], cmd[4]
        elif len(cmd) == 3 and cmd[0] & 0xF0 == 0xB0 and cmd[1] < 0x10 and cmd[2] & 0xF0 == 0x10:
            self.page, self.column = cmd[0] & 0x0F, (cmd[2] & 0x0F) << 4 | cmd[1]

    def data(self, data: list[int]) -> None:
        super().data(data)
        for value in data:
            if self.controller == "ssd1306":
                left, right, top, bottom = self.window
                self.ram[self.page][self.column] = value
                self.column += 1
                if self.column > right:
                    self.column, self.page = left, self.page + 1 if self.page < bottom else top
            else:
                assert self.column < 132, "an SH1106 page does not wrap"
                self.ram[self.page][self.column] = value
                self.column += 1

    def shown(self) -> bytes:
        start = 0 if self.controller == "ssd1306" else 2
        return b"".join(bytes(page[start : start + 128]) for page in self.ram)


def noise(rng: random.Random) -> Image.Image:
    return Image.frombytes("1", (128, 64), rng.randbytes(1024))


@pytest.mark.parametrize("controller", ["ssd1306", "sh1106"])
def test_a_whole_frame_is_exactly_the_bytes_luma_sends_for_a_thousand_random_frames(controller):
    theirs, ours = Capture(), Capture()
    luma_device, paged = LUMA[controller](theirs), DRIVERS[controller](ours)
    assert theirs.writes == ours.writes, "the same set-up and first blank frame"
    rng = random.Random(28)
    frames = [Image.new("1", (128, 64), 0), Image.new("1", (128, 64), 1), render(View("Menu", ("a", "b"), 1))]
    frames += [noise(rng) for _ in range(1000 - len(frames))]
    for image in frames:
        theirs.writes.clear()
        ours.writes.clear()
        luma_device.display(image)
        paged.forget()
        paged.display(image)
        assert ours.writes == theirs.writes


def test_packing_gives_the_controllers_byte_order():
    image = Image.new("1", (128, 64), 0)
    image.putpixel((0, 0), 1)  # page 0, column 0, bit 0
    image.putpixel((5, 15), 1)  # page 1, column 5, bit 7
    image.putpixel((127, 63), 1)  # page 7, column 127, bit 7
    pages = pack_pages(image)
    assert len(pages) == 1024
    assert {index: value for index, value in enumerate(pages) if value} == {0: 0x01, 128 + 5: 0x80, 1023: 0x80}


def test_changed_columns_finds_the_first_and_last_difference():
    assert changed_columns(bytes(128), bytes(128)) is None
    assert changed_columns(bytes(128), bytes(127) + b"\x01") == (127, 127)
    assert changed_columns(b"\x80" + bytes(127), bytes(128)) == (0, 0)
    assert changed_columns(bytes(128), bytes(3) + b"\x10" + bytes(60) + b"\x02" + bytes(63)) == (3, 64)


def test_neighbouring_changed_pages_share_a_window_unless_it_would_resend_more_than_a_window_costs():
    old = bytes(1024)
    new = bytearray(old)
    new[1 * 128 + 4 : 1 * 128 + 101] = new[2 * 128 + 4 : 2 * 128 + 101] = b"\x01" * 97  # pages 1 and 2, same columns
    new[6 * 128 : 7 * 128] = b"\xff" * 128  # page 6, whole; pages 3-5 unchanged between
    assert windows(old, bytes(new), 128) == [(1, 2, 4, 100), (6, 6, 0, 127)]
    corners = bytearray(old)
    corners[1 * 128 + 4] = corners[2 * 128 + 100] = 1  # one window would resend 192 unchanged bytes
    assert windows(old, bytes(corners), 128) == [(1, 1, 4, 4), (2, 2, 100, 100)]
    assert windows(old, old, 128) == []


def test_an_unknown_panel_gets_one_window_over_it_all():
    assert windows(None, bytes(1024), 128) == [(0, 7, 0, 127)]


@pytest.mark.parametrize("controller", ["ssd1306", "sh1106"])
def test_a_moving_cursor_sends_two_or_three_pages_and_under_half_the_panel(controller):
    panel = DRIVERS[controller](PanelRam(controller))
    lines = ("Deadlines", "Dead Set", "Dead Fellas", "Deck of Death", "Settings")
    panel.display(render(View("Gravebox", lines, cursor=0)))
    for cursor in (1, 2, 3, 4, 3):
        before, ram = panel.sent_bytes, panel._serial_interface
        ram.writes.clear()
        image = render(View("Gravebox", lines, cursor=cursor))
        panel.display(image)
        pages_written = {window for window in _pages_addressed(controller, ram.writes)}
        assert 2 <= len(pages_written) <= 3
        assert panel.sent_bytes - before <= 512
        assert ram.shown() == pack_pages(image)


def _pages_addressed(controller: str, writes: list[tuple[str, tuple[int, ...]]]) -> set[int]:
    pages: set[int] = set()
    for kind, values in writes:
        if kind != "command":
            continue
        if controller == "ssd1306":
            pages |= set(range(values[4], values[5] + 1))
        else:
            pages.add(values[0] & 0x0F)
    return pages


def _edit(image: Image.Image, box: tuple[int, int, int, int], fill: int) -> Image.Image:
    edited = image.copy()
    left, top, right, bottom = box
    ImageDraw.Draw(edited).rectangle((min(left, right), min(top, bottom), max(left, right), max(top, bottom)), fill=fill)
    return edited


edits = st.lists(
    st.tuples(
        st.tuples(st.integers(0, 127), st.integers(0, 63), st.integers(0, 127), st.integers(0, 63)),
        st.integers(0, 1),
    ),
    min_size=1,
    max_size=12,
)


@pytest.mark.parametrize("controller", ["ssd1306", "sh1106"])
@settings(max_examples=60, deadline=None)
@given(changes=edits)
def test_after_every_frame_the_panel_holds_exactly_that_frame_and_nothing_unchanged_was_sent(controller, changes):
    ram = PanelRam(controller)
    panel = DRIVERS[controller](ram)
    image = Image.new("1", (128, 64), 0)
    for box, fill in changes:
        old = pack_pages(image)
        image = _edit(image, box, fill)
        before = panel.sent_bytes
        panel.display(image)
        new = pack_pages(image)
        assert ram.shown() == new
        changed = sum(a != b for a, b in zip(old, new, strict=True))
        assert (panel.sent_bytes == before) == (changed == 0), "an unchanged frame sends nothing"
        assert panel.sent_bytes - before <= 1024


@pytest.mark.parametrize("controller", ["ssd1306", "sh1106"])
def test_a_newer_frame_stops_a_send_between_transactions_and_the_next_send_finishes_the_panel(controller):
    ram = PanelRam(controller)
    panel = DRIVERS[controller](ram)
    striped = Image.new("1", (128, 64), 0)
    for top in (0, 24, 48):  # three separate bands of changed pages
        ImageDraw.Draw(striped).rectangle((0, top, 127, top + 7), fill=1)
    asked = []

    def newer_after_one() -> bool:
        asked.append(True)
        return len(asked) > 1

    before = panel.transactions
    assert panel.send_changes(striped, superseded=newer_after_one) is False
    assert panel.transactions == before + 1, "one band went out, then the newer frame stopped it"
    assert ram.shown() != pack_pages(striped)
    newest = _edit(striped, (10, 10, 20, 20), 1)
    assert panel.send_changes(newest, superseded=lambda: False) is True
    assert ram.shown() == pack_pages(newest)


@pytest.mark.parametrize("controller", ["ssd1306", "sh1106"])
def test_forget_sends_the_whole_frame_again(controller):
    ram = PanelRam(controller)
    panel = DRIVERS[controller](ram)
    image = render(View("Title", ("one",)))
    panel.display(image)
    before = panel.sent_bytes
    panel.display(image)
    assert panel.sent_bytes == before
    panel.forget()
    panel.display(image)
    assert panel.sent_bytes - before == 1024


def test_the_sh1106_addresses_each_page_from_its_first_changed_column_past_its_offset():
    ram = PanelRam("sh1106")
    panel = PagedSH1106(ram)
    ram.writes.clear()
    image = Image.new("1", (128, 64), 0)
    image.putpixel((20, 9), 1)  # page 1, column 20: RAM column 22 (0x16)
    panel.display(image)
    assert ram.writes == [("command", (0xB1, 0x06, 0x11)), ("data", (0x02,))]


def test_the_ssd1306_sets_one_window_for_one_changed_byte():
    ram = PanelRam("ssd1306")
    panel = PagedSSD1306(ram)
    ram.writes.clear()
    image = Image.new("1", (128, 64), 0)
    image.putpixel((20, 9), 1)
    panel.display(image)
    assert ram.writes == [("command", (0x21, 20, 20, 0x22, 1, 1)), ("data", (0x02,))]


@pytest.mark.parametrize("controller", ["ssd1306", "sh1106"])
def test_open_oled_gives_the_paged_driver(controller):
    device = open_oled(controller, 1, 0x3C, serial=Capture())
    assert isinstance(device, LUMA[controller]) and isinstance(device, DRIVERS[controller])


frame_pairs = st.tuples(st.binary(min_size=1024, max_size=1024), st.binary(min_size=1024, max_size=1024), st.data())


@pytest.mark.parametrize("controller", ["ssd1306", "sh1106"])
@settings(max_examples=80, deadline=None)
@given(pair=frame_pairs)
def test_the_spans_sent_between_two_random_frames_leave_the_controllers_ram_exactly_the_new_frame(controller, pair):
    first, noise_bytes, data = pair
    # the second frame: the first with a random band of rows and columns replaced (or all of it)
    top = data.draw(st.integers(0, 63))
    bottom = data.draw(st.integers(top, 63))
    left = data.draw(st.integers(0, 127))
    right = data.draw(st.integers(left, 127))
    old = Image.frombytes("1", (128, 64), first)
    new = old.copy()
    new.paste(Image.frombytes("1", (128, 64), noise_bytes).crop((left, top, right + 1, bottom + 1)), (left, top))
    ram = PanelRam(controller)
    panel = DRIVERS[controller](ram)
    panel.display(old)
    assert ram.shown() == pack_pages(old)
    before = panel.sent_bytes
    panel.display(new)
    assert ram.shown() == pack_pages(new), "the spans sent make the RAM the new frame, byte for byte"
    old_pages, new_pages = pack_pages(old), pack_pages(new)
    changed = [page for page in range(8) if old_pages[page * 128 : (page + 1) * 128] != new_pages[page * 128 : (page + 1) * 128]]
    assert panel.sent_bytes - before <= len(changed) * 128, "never more than the changed pages"
