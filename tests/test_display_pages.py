"""The pusher with a paged driver: only changed pages, a replaced frame dropped mid-send, whole after an error or a wake."""

from __future__ import annotations

from luma.core.error import DeviceNotFoundError
from PIL import Image, ImageDraw

from box.games.base import View
from box.ports.display import FramePusher
from box.ports.panel import PagedSSD1306, pack_pages
from box.screens.render import render
from tests.test_display_panel import PanelRam

LINES = ("Deadlines", "Dead Set", "Dead Fellas", "Deck of Death", "Settings")


def menu(cursor: int) -> Image.Image:
    return render(View("Gravebox", LINES, cursor=cursor))


class Bus(PanelRam):
    """The panel's RAM on a bus that can fail, and that runs `during` after its n-th data write."""

    def __init__(self) -> None:
        super().__init__("ssd1306")
        self.fail = False
        self.data_writes = 0
        self.during: tuple[int, object] | None = None

    def data(self, data: list[int]) -> None:
        if self.fail:
            raise DeviceNotFoundError("I2C device not found on address: 0x3C")
        super().data(data)
        self.data_writes += 1
        if self.during is not None and self.data_writes == self.during[0]:
            self.during[1]()  # type: ignore[operator]


def paged() -> tuple[PagedSSD1306, Bus]:
    bus = Bus()
    return PagedSSD1306(bus), bus


def test_a_cursor_move_sends_only_its_pages():
    panel, bus = paged()
    pusher = FramePusher(panel, clock=lambda: 0.0)
    pusher.submit(menu(0))
    assert pusher.push_due(0.0) is True
    before = panel.sent_bytes
    pusher.submit(menu(1))
    assert pusher.push_due(1.0) is True
    assert 0 < panel.sent_bytes - before <= 3 * 128
    assert bus.shown() == pack_pages(menu(1))


def test_a_frame_replaced_while_it_was_being_sent_stops_and_the_newest_goes_out_at_once():
    panel, bus = paged()
    pusher = FramePusher(panel, min_interval=0.5, clock=lambda: 0.0)
    first = Image.new("1", (128, 64), 0)
    for top in (0, 24, 48):  # three bands far apart: three windows
        ImageDraw.Draw(first).rectangle((0, top, 127, top + 7), fill=1)
    newest = menu(2)
    bus.during = (bus.data_writes + 1, lambda: pusher.submit(newest))  # a tap's frame arrives after the first band
    pusher.submit(first)
    assert pusher.push_due(0.0) is False, "the replaced frame did not finish"
    assert pusher.superseded == 1 and pusher.pushed == 0
    assert pusher.next_deadline() == 0.0, "no rate-cap gap before the newest"
    assert pusher.push_due(0.0) is True
    assert bus.shown() == pack_pages(newest)
    assert (pusher.pushed, pusher.superseded) == (1, 1)


def test_a_frame_replaced_before_it_was_sent_is_counted_and_never_sent():
    panel, _ = paged()
    pusher = FramePusher(panel, clock=lambda: 0.0)
    pusher.submit(menu(0))
    pusher.submit(menu(1))
    assert pusher.push_due(0.0) is True
    assert (pusher.superseded, pusher.pushed) == (1, 1)


def test_after_a_bus_error_the_whole_frame_goes_out():
    panel, bus = paged()
    pusher = FramePusher(panel, clock=lambda: 0.0, retry_after=1.0)
    pusher.submit(menu(0))
    pusher.push_due(0.0)
    bus.fail = True
    pusher.submit(menu(1))
    assert pusher.push_due(1.0) is False
    bus.fail = False
    before = panel.sent_bytes
    assert pusher.push_due(2.0) is True
    assert panel.sent_bytes - before == 1024 and bus.shown() == pack_pages(menu(1))


def test_switching_the_panel_on_again_sends_the_whole_frame_even_when_it_did_not_change():
    panel, bus = paged()
    pusher = FramePusher(panel, clock=lambda: 0.0)
    pusher.set_panel(160, on=True)
    pusher.submit(menu(0))
    assert pusher.push_due(0.0) is True
    pusher.set_panel(20, on=False)
    assert pusher.push_due(1.0) is False
    before = panel.sent_bytes
    bus.ram[3][:] = bytes(132)  # whatever a sleeping panel kept
    pusher.set_panel(160, on=True)
    assert pusher.push_due(2.0) is True
    assert panel.sent_bytes - before == 1024 and bus.shown() == pack_pages(menu(0))
    dimmed_and_back = panel.sent_bytes
    pusher.set_panel(20, on=True)
    pusher.push_due(3.0)
    pusher.set_panel(160, on=True)
    pusher.push_due(4.0)
    assert panel.sent_bytes == dimmed_and_back, "a dimmed panel kept its frame: only the contrast goes"
