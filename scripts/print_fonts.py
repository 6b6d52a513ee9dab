"""Write box/printing/fonts/: DejaVu Sans and DejaVu Sans Bold cut down to the scripts the cards use.

`gravebox print` embeds these in every PDF. They are Debian's fonts-dejavu-core files
(/usr/share/fonts/truetype/dejavu), kept to Latin (with its extensions), Greek, Cyrillic and the
common signs, their hinting dropped: about a tenth of the full fonts. The licence (the Bitstream
Vera licence with DejaVu's public-domain changes) allows this; it is copied beside them as LICENSE.

Run from the repository root, once after a change here: ``.venv/bin/python scripts/print_fonts.py``
(apt-get install fonts-dejavu-core first; fontTools comes with fpdf2).
"""

from __future__ import annotations

import gzip
import shutil
import sys
from pathlib import Path

from fontTools import subset

REPO = Path(__file__).resolve().parent.parent
TARGET = REPO / "box" / "printing" / "fonts"
SOURCE = Path("/usr/share/fonts/truetype/dejavu")
LICENCE = Path("/usr/share/doc/fonts-dejavu-core/copyright")
FONTS = ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf")
KEPT = (  # Unicode blocks, first and last code point
    (0x0020, 0x007E),  # Basic Latin
    (0x00A0, 0x024F),  # Latin-1 Supplement, Latin Extended-A and -B
    (0x0250, 0x02FF),  # IPA, spacing modifier letters (ʻokina)
    (0x0370, 0x03FF),  # Greek and Coptic
    (0x0400, 0x052F),  # Cyrillic and its supplement
    (0x1E00, 0x1EFF),  # Latin Extended Additional (Vietnamese, Welsh)
    (0x1F00, 0x1FFF),  # Greek Extended (polytonic)
    (0x2000, 0x206F),  # general punctuation
    (0x20A0, 0x20CF),  # currency signs
    (0x2100, 0x214F),  # letterlike symbols (№, ™)
    (0x2190, 0x21FF),  # arrows
    (0x2200, 0x22FF),  # mathematical operators (−, ≥, ×)
    (0x25A0, 0x25FF),  # geometric shapes
    (0x2600, 0x266F),  # a few symbols (♪)
    (0xFB00, 0xFB06),  # Latin ligatures
    (0xFFFD, 0xFFFD),  # the replacement character
)


def main() -> None:
    missing = [name for name in FONTS if not (SOURCE / name).exists()]
    if missing:
        sys.exit(f"{SOURCE}: {', '.join(missing)} missing: apt-get install fonts-dejavu-core")
    TARGET.mkdir(exist_ok=True)
    codes = [code for first, last in KEPT for code in range(first, last + 1)]
    for name in FONTS:
        options = subset.Options()
        options.hinting = False
        options.layout_features = []  # fpdf2 places glyphs one by one: no kerning or shaping tables
        options.name_IDs = ["*"]
        options.notdef_outline = True
        font = subset.load_font(str(SOURCE / name), options)
        cutter = subset.Subsetter(options)
        cutter.populate(unicodes=codes)
        cutter.subset(font)
        subset.save_font(font, str(TARGET / name), options)
        print(f"{TARGET / name}: {(TARGET / name).stat().st_size // 1024} KiB")
    text = LICENCE.read_bytes()
    if text[:2] == b"\x1f\x8b":
        text = gzip.decompress(text)
    (TARGET / "LICENSE").write_bytes(text)
    shutil.copymode(LICENCE, TARGET / "LICENSE")


if __name__ == "__main__":
    main()
