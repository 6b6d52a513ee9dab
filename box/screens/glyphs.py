"""The OLED's font: X11 misc-fixed 6x9 (public domain), its glyphs kept raw in box/screens/font_data.py.

Every character is 6 pixels wide; a line of text becomes a mask (`Image.frombytes` and
`transpose`, public Pillow calls) that `draw` pastes. The masks of the last MASKS texts are kept:
the same lines come back screen after screen (names, choices, hints), and making a mask costs
~100,000 instructions (Pillow's decoder and transpose), a look-up next to nothing. Which characters it has is box.words.SHOWN: Latin with
its extensions, Greek, Cyrillic and common signs.

>>> font = BitmapFont.load()
>>> font.getlength("Łucja"), font.has("Ж"), font.has("李")
(30, True, False)
>>> font.mask("Ab").size
(12, 9)
"""

from __future__ import annotations

from bisect import bisect_right
from collections import OrderedDict
from typing import TYPE_CHECKING

from box.words import SHOWN

if TYPE_CHECKING:
    from PIL import Image

MASKS = 64  # the texts whose masks are kept (~2 KB each: a screen's lines, a picker's choices)


class BitmapFont:
    """A fixed-width bitmap font over the ranges of SHOWN: 'height' bytes a glyph, a row each."""

    def __init__(self, glyphs: bytes, size: tuple[int, int], ranges: tuple[tuple[int, int], ...] = SHOWN) -> None:
        self.width, self.height = size
        self._glyphs = glyphs
        self._firsts = tuple(first for first, _ in ranges)
        self._lasts = tuple(last for _, last in ranges)
        self._starts: list[int] = []  # the index of each range's first glyph
        self._cells: dict[str, bytes] = {}  # the glyphs drawn so far, on their side (see `_cell`)
        self._masks: OrderedDict[str, Image.Image] = OrderedDict()  # the newest texts' masks (see `mask`)
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
        return char in self._cells or self._index(char) is not None

    def getlength(self, text: str) -> int:
        """How many pixels wide `text` is (as Pillow's fonts answer it)."""
        return self.width * len(text)

    def _cell(self, char: str) -> bytes:
        """`char`'s glyph turned on its side (a row of bytes a column, 0 or 255), made once: a
        line's cells stacked are the line on its side, which one `transpose` sets upright."""
        cell = self._cells.get(char)
        if cell is None:
            index = self._index(char)
            if index is None:
                return self._cell("?")
            rows = self._glyphs[index * self.height : (index + 1) * self.height]
            cell = bytes(
                255 if row >> (7 - column) & 1 else 0 for column in range(self.width) for row in rows
            )
            self._cells[char] = cell
        return cell

    def mask(self, text: str) -> Image.Image:
        """`text` as a mode "L" mask, 255 where the glyphs are lit (a character it lacks: '?'); shared:
        never draw on it."""
        mask = self._masks.get(text)
        if mask is not None:
            self._masks.move_to_end(text)
            return mask
        from PIL import Image

        if not text:
            return Image.new("L", (0, self.height))
        side = Image.frombytes("L", (self.height, self.width * len(text)), b"".join(map(self._cell, text)))
        mask = self._masks[text] = side.transpose(Image.Transpose.TRANSPOSE)
        if len(self._masks) > MASKS:
            self._masks.popitem(last=False)
        return mask

    def draw(self, image: Image.Image, xy: tuple[int, int], text: str, fill: int = 1) -> None:
        """`text` on `image` with its glyph cells' top left corner at `xy`, in `fill` (0 or 1)."""
        if text:
            image.paste(fill, xy, self.mask(text))
