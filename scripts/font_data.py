"""Write box/screens/font_data.py and the SHOWN ranges of box/words.py from the X11 "6x9" fixed font.

The OLED's font is misc-fixed 6x9 (public domain), from Debian's xfonts-base
(/usr/share/fonts/X11/misc/6x9.pcf.gz). This script keeps every glyph it draws below U+2800
(Latin with its extensions, Greek, Cyrillic, punctuation, arrows, box drawing), not the
combining marks, controls or Braille, as raw 6x9 bitmaps, and writes which characters those
are into box/words.py, so the box's name codecs refuse what the screen cannot show.

Run from the repository root, once after a change here: ``.venv/bin/python scripts/font_data.py``
(apt-get install xfonts-base first). tests/test_startup.py checks the data against the font.
"""

from __future__ import annotations

import base64
import gzip
import re
import struct
import sys
import textwrap
import unicodedata
import zlib
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

REPO = Path(__file__).resolve().parent.parent
TARGET = REPO / "box" / "screens" / "font_data.py"
WORDS = REPO / "box" / "words.py"
SOURCE = Path("/usr/share/fonts/X11/misc/6x9.pcf.gz")
WIDTH, HEIGHT = 6, 9
LEFT_OUT = {"Mn", "Me", "Cc", "Cf", "Zl", "Zp", "Co", "Cs"}  # combining marks, controls, format signs
LAST = 0x27FF  # Braille and the rest above it stay out
EXTRA = (0xFB01, 0xFB02)  # the fi and fl ligatures
ENCODINGS = 1 << 5  # PCF_BDF_ENCODINGS: which code points the font has
SHOWN_BLOCK = re.compile(r"(# SHOWN: written by scripts/font_data.py\n)SHOWN = \(.*?\n\)\n", re.S)

HEADER = '''"""The OLED's font, X11 misc-fixed 6x9 (public domain, Debian's xfonts-base): written by scripts/font_data.py.

GLYPHS holds 9 bytes a character (a row each, the 6 pixels in its high bits), for the characters
of box.words.SHOWN in their order; zlib only keeps this file small.
"""

import base64
import zlib

'''


def code_points(path: Path) -> set[int]:
    """The code points a PCF font file has glyphs for (its BDF encodings table)."""
    data = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
    if data[:4] != b"\x01fcp":
        raise SystemExit(f"{path}: not a PCF font")
    (tables,) = struct.unpack_from("<i", data, 4)
    for table in range(tables):
        kind, _, _, offset = struct.unpack_from("<iiii", data, 8 + 16 * table)
        if kind == ENCODINGS:
            (layout,) = struct.unpack_from("<i", data, offset)
            order = ">" if layout & 4 else "<"
            low2, high2, low1, high1, _ = struct.unpack_from(order + "5h", data, offset + 4)
            span = high2 - low2 + 1
            count = span * (high1 - low1 + 1)
            glyphs = struct.unpack_from(f"{order}{count}H", data, offset + 14)
            return {(low1 + at // span) * 256 + low2 + at % span for at, glyph in enumerate(glyphs) if glyph != 0xFFFF}
    raise SystemExit(f"{path}: no encodings table")


def kept(codes: set[int]) -> list[int]:
    """The code points the box keeps: printable left-to-right ones below LAST, and the EXTRA."""
    return sorted(
        code for code in codes
        if (code <= LAST or code in EXTRA) and code >= 0x20 and unicodedata.category(chr(code)) not in LEFT_OUT
        and unicodedata.bidirectional(chr(code)) not in ("R", "AL")  # the screen writes left to right only
    )


def runs(codes: list[int]) -> list[tuple[int, int]]:
    """Consecutive code points as (first, last) pairs."""
    found: list[tuple[int, int]] = []
    for code in codes:
        if found and found[-1][1] == code - 1:
            found[-1] = (found[-1][0], code)
        else:
            found.append((code, code))
    return found


def glyph(font: ImageFont.FreeTypeFont, char: str) -> bytes:
    """One character's 6x9 bitmap, a byte a row, as FreeType draws the font's strike."""
    if font.getlength(char) != WIDTH:
        raise SystemExit(f"U+{ord(char):04X} is {font.getlength(char)} px wide, not {WIDTH}")
    image = Image.new("1", (WIDTH, HEIGHT), 0)
    ImageDraw.Draw(image).text((0, 0), char, font=font, fill=1)
    return image.tobytes()


def literal(name: str, data: bytes) -> str:
    text = base64.b64encode(zlib.compress(data, 9)).decode()
    lines = "\n".join(textwrap.wrap(text, 100))
    return f'{name} = zlib.decompress(base64.b64decode(\n    b"""\n{lines}\n"""\n))\n'


def shown_block(pairs: list[tuple[int, int]]) -> str:
    items = [f"(0x{first:04X}, 0x{last:04X})" for first, last in pairs]
    body = textwrap.fill(", ".join(items), 100, initial_indent="    ", subsequent_indent="    ")
    return f"SHOWN = (\n{body},\n)\n"


def main() -> None:
    if not SOURCE.exists():
        sys.exit(f"{SOURCE} is missing: apt-get install xfonts-base")
    codes = kept(code_points(SOURCE))
    font = ImageFont.truetype(str(SOURCE), HEIGHT)
    glyphs = b"".join(glyph(font, chr(code)) for code in codes)
    TARGET.write_text(HEADER + f"SIZE = {(WIDTH, HEIGHT)!r}\n" + literal("GLYPHS", glyphs), encoding="utf-8")
    words = WORDS.read_text(encoding="utf-8")
    if not SHOWN_BLOCK.search(words):
        sys.exit(f"{WORDS}: no SHOWN block to rewrite")
    WORDS.write_text(SHOWN_BLOCK.sub(lambda m: m.group(1) + shown_block(runs(codes)), words), encoding="utf-8")
    print(f"wrote {TARGET} ({len(codes)} characters) and the SHOWN ranges of {WORDS}")


if __name__ == "__main__":
    main()
