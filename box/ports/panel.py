"""The OLED controllers' own memory: frames packed into pages by Pillow, and only changed pages sent.

An SSD1306 or SH1106 holds the picture as 8 *pages*, bands of 8 pixel rows: one byte per column
per page, its lowest bit the band's top row. luma's drivers pack the 8,192 pixels of a frame into
those 1,024 bytes with a Python loop (about half of one input's CPU on the pusher thread, holding
the interpreter lock) and send all of them on every `display()`: 23 ms on a 400 kHz I2C bus.

The drivers here are luma's own, with a different `display`:

- `pack_pages(image)` packs a frame with Pillow's C code (a transpose and `tobytes` in the
  least-significant-bit-first raw mode), exactly the bytes luma's loop makes;
- `send_changes(image, superseded)` sends only the bytes that differ from what the panel holds,
  in as few transactions as the controller allows: the SSD1306 takes an address window (columns
  and pages) and fills it in one write, so each run of changed pages is one window over its
  changed columns; the SH1106 has no window, so each changed page is addressed on its own, from
  its first changed column (its RAM is 132 columns wide; on most boards the panel starts at its third).
  Each page goes in its own data write, and before each it asks `superseded()`: it stops when a
  newer frame is waiting (which then waits for one page on the bus, not a frame); the panel then
  holds part of the old frame, which the next call sends over;
- `forget()` makes the next call send the whole frame (after a bus error, a wake, a new panel).

A cursor moving from one line to the next changes two or three pages: about a quarter of the
bytes, and its frame no longer waits behind a whole frame on the bus.

>>> from PIL import Image
>>> from luma.core.interface.serial import noop
>>> panel = PagedSSD1306(noop())  # its set-up sends a blank frame: 1,024 bytes
>>> white = Image.new("1", (128, 64), 1)
>>> panel.send_changes(white), panel.sent_bytes
(True, 2048)
>>> panel.send_changes(white), panel.sent_bytes  # nothing changed: nothing sent
(True, 2048)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from luma.oled.device import sh1106, ssd1306
from PIL import Image

if TYPE_CHECKING:
    Window = tuple[int, int, int, int]  # first page, last page, first column, last column (inclusive)

PAGE_ROWS = 8
WINDOW_COST = 10  # bytes a second window costs on I2C: the address-setting command and a data write's header


def pack_pages(image: Image.Image) -> bytes:
    """The controller's bytes of a mode-"1" frame: page by page, a byte per column, bit 0 on top.

    The transpose makes each of the frame's columns a row, which `tobytes` packs 8 pixels a
    byte, the top pixel in the lowest bit ("1;R"); column x's byte for page p is then at
    `x * pages + p`, and striding by the page count gathers each page.

    >>> pack_pages(Image.new("1", (128, 64), 1)) == bytes([0xFF]) * 1024
    True
    """
    pages = image.height // PAGE_ROWS
    columns = image.transpose(Image.Transpose.TRANSPOSE).tobytes("raw", "1;R")
    return b"".join([columns[page::pages] for page in range(pages)])


def changed_columns(old: bytes | bytearray, new: bytes) -> tuple[int, int] | None:
    """The first and last index where two equal-length byte strings differ; None when equal.

    Done on integers (C), not byte by byte: the XOR's highest set bit is the first difference,
    its lowest the last.

    >>> changed_columns(b"abcd", b"aXcY")
    (1, 3)
    """
    if old == new:
        return None
    diff = int.from_bytes(old, "big") ^ int.from_bytes(new, "big")
    size = len(new)
    first = size - (diff.bit_length() + 7) // 8
    last = size - 1 - ((diff & -diff).bit_length() - 1) // 8
    return first, last


def page_spans(held: bytes | bytearray | None, pages: bytes, width: int) -> list[Window | None]:
    """For each page, the span of columns that changed as a one-page window; None where nothing did."""
    count = len(pages) // width
    if held is None:
        return [(page, page, 0, width - 1) for page in range(count)]
    spans: list[Window | None] = []
    for page in range(count):
        start = page * width
        columns = changed_columns(held[start : start + width], pages[start : start + width])
        spans.append(None if columns is None else (page, page, *columns))
    return spans


def windows(held: bytes | bytearray | None, pages: bytes, width: int) -> list[Window]:
    """SSD1306 address windows covering every changed byte, for the fewest bytes on the bus.

    Neighbouring changed pages share a window over the union of their columns; a window joins
    the one before when the bytes it would resend (unchanged pages or columns in between) cost
    less than a second window's header. Unchanged frame: no window; unknown panel: one window
    over it all.
    """
    merged: list[Window] = []
    for span in page_spans(held, pages, width):
        if span is None:
            continue
        if merged:
            top, _, left, right = merged[-1]
            joined = (top, span[1], min(left, span[2]), max(right, span[3]))
            if area(joined) <= area(merged[-1]) + area(span) + WINDOW_COST:
                merged[-1] = joined
                continue
        merged.append(span)
    return merged


def area(window: Window) -> int:
    """The bytes a window sends."""
    top, bottom, left, right = window
    return (bottom - top + 1) * (right - left + 1)


class PagedPanel:
    """What both drivers add to luma's: what the panel holds, and sending only the change.

    Mixed in before luma's driver class, whose `__init__` sends the controller's set-up and a
    blank frame through this `display`. Counters: `sent_bytes` (frame bytes, without the
    commands), `transactions` (address settings, each followed by one data write).
    """

    _w: int
    _h: int
    held: bytearray | None
    sent_bytes: int
    transactions: int
    preprocess: Callable[[Image.Image], Image.Image]
    command: Callable[..., None]
    data: Callable[[Any], None]
    mode: str
    size: tuple[int, int]

    def _start_counting(self) -> None:
        self.held = None  # what the panel's RAM holds, in `pack_pages` order; None: not known
        self.sent_bytes = self.transactions = 0

    def forget(self) -> None:
        """Let the next frame go out whole: the panel may hold anything (a bus error, a wake)."""
        self.held = None

    def display(self, image: Image.Image) -> None:
        """luma's `display`: the frame's changed bytes to the panel."""
        self.send_changes(image)

    def send_changes(self, image: Image.Image, superseded: Callable[[], bool] | None = None) -> bool:
        """Send what differs from the panel's memory; False when `superseded()` stopped it part-way.

        A panel whose memory is known gets each page of a window in its own data write, so that
        a newer frame waits for one page at most (an I2C write costs two bytes of header); an
        unknown one gets the whole frame in one write, exactly as luma's `display` sends it.
        """
        assert image.mode == self.mode
        assert image.size == self.size
        pages = pack_pages(self.preprocess(image))
        held, width = self.held, self._w
        if held is None:
            self._send_whole(pages)
            self.held = bytearray(pages)
            return True
        for top, bottom, left, right in self._windows(held, pages):
            for page in range(top, bottom + 1):
                if superseded is not None and superseded():
                    return False
                if page == top:
                    self._address((top, bottom, left, right))
                    self.transactions += 1
                start, end = page * width + left, page * width + right + 1
                self._write(pages[start:end])
                held[start:end] = pages[start:end]
        return True

    def _write(self, data: bytes) -> None:
        self.data(list(data))  # a list, as luma sends it: its I2C interface prepends a control byte to it
        self.sent_bytes += len(data)

    def _send_whole(self, pages: bytes) -> None:
        raise NotImplementedError

    def _windows(self, held: bytearray, pages: bytes) -> list[Window]:
        raise NotImplementedError

    def _address(self, window: Window) -> None:
        raise NotImplementedError


class PagedSSD1306(PagedPanel, ssd1306):
    """luma's SSD1306 driver sending only changed bytes, one address window per run of changed pages."""

    def __init__(self, serial_interface: Any = None, width: int = 128, height: int = 64, **kwargs: Any):
        self._start_counting()
        super().__init__(serial_interface, width=width, height=height, **kwargs)
        del self._mask, self._offsets  # luma's per-pixel tables (16,384 list items), unused here

    def _send_whole(self, pages: bytes) -> None:
        self._address((0, self._pages - 1, 0, self._w - 1))
        self._write(pages)
        self.transactions += 1

    def _windows(self, held: bytearray, pages: bytes) -> list[Window]:
        return windows(held, pages, self._w)

    def _address(self, window: Window) -> None:
        top, bottom, left, right = window
        self.command(
            self._const.COLUMNADDR, self._colstart + left, self._colstart + right,
            self._const.PAGEADDR, top, bottom,
        )


class PagedSH1106(PagedPanel, sh1106):
    """luma's SH1106 driver sending only changed bytes: each changed page from its first changed column."""

    def __init__(self, serial_interface: Any = None, width: int = 128, height: int = 64, **kwargs: Any):
        self._start_counting()
        super().__init__(serial_interface, width=width, height=height, **kwargs)

    def _send_whole(self, pages: bytes) -> None:
        width = self._w
        for page in range(self._pages):  # luma's order: each page addressed, then written
            self._address((page, page, 0, width - 1))
            self._write(pages[page * width : (page + 1) * width])
        self.transactions += self._pages

    def _windows(self, held: bytearray, pages: bytes) -> list[Window]:
        return [span for span in page_spans(held, pages, self._w) if span is not None]

    def _address(self, window: Window) -> None:
        page, _, left, _ = window
        column = self._page_address_offset + left  # the panel's first column is the RAM's third on most boards
        self.command(0xB0 + page, column & 0x0F, 0x10 | column >> 4)


DRIVERS: dict[str, Callable[..., PagedPanel]] = {"ssd1306": PagedSSD1306, "sh1106": PagedSH1106}
