"""Write box/screens/font_data.py: Pillow's built-in bitmap font as raw data, so the box loads it without Pillow's image readers.

Run from the repository root with the box's environment: ``.venv/bin/python scripts/font_data.py``.
tests/test_startup.py checks that the written font draws exactly what Pillow's own draws.
"""

from __future__ import annotations

import base64
import textwrap
import zlib
from pathlib import Path

from PIL import ImageFont

TARGET = Path(__file__).resolve().parent.parent / "box" / "font_data.py"

HEADER = '''"""Pillow's built-in bitmap font (the classic 6x11 one), as raw data: written by scripts/font_data.py.

Pillow keeps it as a PNG (`ImageFont.load_default_imagefont`); decoding that imports Pillow's PNG
reader and the four readers `Image.open` loads first (~4 ms of the box's start here). These are
the same metrics (a PILfont file) and the same glyph bitmap, raw (zlib only keeps this file small).
"""

import base64
import zlib

'''


def captured() -> tuple[bytes, str, tuple[int, int], bytes]:
    """The PILfont file and the glyph image Pillow loads its default bitmap font from."""
    got: dict[str, object] = {}
    load = ImageFont.ImageFont._load_pilfont_data

    def capture(self, file, image):  # type: ignore[no-untyped-def]
        got.update(pilfont=file.getvalue(), mode=image.mode, size=image.size, bitmap=image.tobytes())
        return load(self, file, image)

    ImageFont.ImageFont._load_pilfont_data = capture  # type: ignore[method-assign]
    try:
        getattr(ImageFont, "load_default_imagefont", ImageFont.load_default)()
    finally:
        ImageFont.ImageFont._load_pilfont_data = load  # type: ignore[method-assign]
    return got["pilfont"], got["mode"], got["size"], got["bitmap"]  # type: ignore[return-value]


def literal(name: str, data: bytes) -> str:
    text = base64.b64encode(zlib.compress(data, 9)).decode()
    lines = "\n".join(textwrap.wrap(text, 100))
    return f'{name} = zlib.decompress(base64.b64decode(\n    b"""\n{lines}\n"""\n))\n'


def main() -> None:
    pilfont, mode, size, bitmap = captured()
    body = f"MODE = {mode!r}\nSIZE = {size!r}\n" + literal("PILFONT", pilfont) + literal("BITMAP", bitmap)
    TARGET.write_text(HEADER + body, encoding="utf-8")
    print(f"wrote {TARGET}")


if __name__ == "__main__":
    main()
