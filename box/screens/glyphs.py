"""The OLED's font: X11 misc-fixed 6x9 (public domain), its glyphs kept raw in box/screens/font_data.py.

Every character is 6 pixels wide; a line of text becomes a one-bit mask (`Image.frombytes`, a
public Pillow call) that `draw` pastes. Which characters it has is box.words.SHOWN: Latin with
its extensions, Greek, Cyrillic and common signs.

>>> font = BitmapFont.load()
>>> font.getlength("Łucja"), font.has("Ж"), font.has("李")
(30, True, False)
>>> font.mask("Ab").size
(12, 9)
"""

from __future__ import annotations

from bisect import bisect_right
from typing import TYPE_CHECKING

from box.words import SHOWN

if TYPE_CHECKING:
    from PIL import Image


class BitmapFont:
    """A fixed-width bitmap font over the ranges of SHOWN: 'height' bytes a glyph, a row each."""

    def __init__(self, glyphs: bytes, size: tuple[int, int], ranges: tuple[tuple[int, int], ...] = SHOWN) -> None:
        self.width, self.height = size
        self._glyphs = glyphs
        self._firsts = tuple(first for first, _ in ranges)
        self._lasts = tuple(last for _, last in ranges)
        self._starts: list[int] = []  # the index of each range's first glyph
        count = 0
        for first, last in ranges:
            self._starts.append(count)
            count += last - first + 1
        if len(glyphs) != count * self.height:
            raise ValueError(f"the font data holds {len(glyphs)} bytes, not {count * self.height}")

    @classmethod
    def load(cls) -> BitmapFont:
        """The box's font, from box/screens/font_data.py."""
        from box.screens import font_data

        return cls(font_data.GLYPHS, font_data.SIZE)

    def _index(self, char: str) -> int | None:
        code = ord(char)
        at = bisect_right(self._firsts, code) - 1
        if at < 0 or code > self._lasts[at]:
            return None
        return self._starts[at] + code - self._firsts[at]

    def has(self, char: str) -> bool:
        """Whether the font draws `char`."""
        return self._index(char) is not None

    def getlength(self, text: str) -> int:
        """How many pixels wide `text` is (as Pillow's fonts answer it)."""
        return self.width * len(text)

    def mask(self, text: str) -> Image.Image:
        """`text` as a one-bit image, lit where the glyphs are (a character it lacks: '?')."""
        from PIL import Image

        height, shift = self.height, 8 - self.width
        fallback = self._index("?") or 0
        indices = [self._index(char) for char in text]
        rows = [0] * height
        for index in indices:
            start = (fallback if index is None else index) * height
            for row in range(height):
                rows[row] = (rows[row] << self.width) | (self._glyphs[start + row] >> shift)
        bits = self.width * len(text)
        pad = -bits % 8
        size = (bits + pad) // 8
        data = b"".join((row << pad).to_bytes(size, "big") for row in rows)
        return Image.frombytes("1", (max(bits, 1), height), data if bits else bytes(height))

    def draw(self, image: Image.Image, xy: tuple[int, int], text: str, fill: int = 1) -> None:
        """`text` on `image` with its glyph cells' top left corner at `xy`, in `fill` (0 or 1)."""
        if text:
            image.paste(fill, xy, self.mask(text))
