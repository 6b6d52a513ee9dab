"""Pure rendering of what the OLED shows: a `View` in, a 128x64 one-bit image out.

Layout (Pillow's default bitmap font, 6 px a character, 21 to a line):
a 10-pixel inverted title bar, then six 9-pixel rows: up to five text lines
(the `cursor` line inverted) and the `notice` on the bottom row (two rows when
it needs them). With `dice` set, two dice with pips replace the lines.
`to_text` turns any image into terminal text for the simulator.

>>> from box.games.base import View
>>> image = render(View(title="Hi", lines=("Ada",)))
>>> image.size, image.mode
((128, 64), '1')
>>> for row in to_text(image).splitlines()[:8]:
...     print(row[:12].rstrip())
██████████▀▀
██  █  ▄▀▀▀▀
██  ▄  ███
██  █  ▀▀▀
████████████
 ▄▄▄▄    ▀██
  █▀█  ▄█▀██
 ██▀██ ██ ██
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from box.ports.display import HEIGHT, WIDTH

if TYPE_CHECKING:
    from PIL import Image

    from box.games.base import View

TITLE_HEIGHT = 10
ROW_HEIGHT = 9
ROWS = (HEIGHT - TITLE_HEIGHT) // ROW_HEIGHT  # 6
MAX_LINES = 5
TEXT_RISE = 2  # the bitmap font leaves 2 blank rows above capitals: draw that much higher
MARGIN = 1
ROLL_FRAMES = 8  # phases of the tumbling-dice animation, see `render_dice_frame`
FRAME_DIE = 28  # a tumbling die is smaller: turned 45 degrees and hopping it still clears the title bar
PIPS = {  # pip centres on a 3x3 grid (column, row) for each face
    1: ((1, 1),),
    2: ((0, 0), (2, 2)),
    3: ((0, 0), (1, 1), (2, 2)),
    4: ((0, 0), (2, 0), (0, 2), (2, 2)),
    5: ((0, 0), (2, 0), (1, 1), (0, 2), (2, 2)),
    6: ((0, 0), (2, 0), (0, 1), (2, 1), (0, 2), (2, 2)),
}
# Punctuation outside the font's Latin-1 with a close stand-in; other letters lose their accents.
_PLAIN = str.maketrans({"‘": "'", "’": "'", "“": '"', "”": '"', "–": "-", "—": "-", "…": "..."})


@lru_cache(maxsize=1)
def _font() -> Any:
    """Pillow's built-in bitmap font (the classic 6x11 one, in every Pillow version)."""
    from PIL import ImageFont

    return getattr(ImageFont, "load_default_imagefont", ImageFont.load_default)()


def _blank() -> Image.Image:
    from PIL import Image

    return Image.new("1", (WIDTH, HEIGHT), 0)


def _printable(text: str) -> str:
    """`text` in the font's Latin-1: "Zoë" stays, "Erdős" becomes "Erdos", unknown signs "?".

    >>> _printable("Erdős → Zoë’s")
    "Erdos ? Zoë's"
    """
    text = text.translate(_PLAIN)
    kept = []
    for char in text:
        if ord(char) > 0xFF:
            char = "".join(c for c in unicodedata.normalize("NFKD", char) if ord(c) <= 0xFF) or "?"
        kept.append(char)
    return "".join(kept)


def _fit(text: str, width: int) -> str:
    """The longest start of `text` that fits `width` pixels."""
    text = _printable(text)
    while text and _font().getlength(text) > width:
        text = text[:-1]
    return text


def _wrap(text: str, width: int, rows: int) -> list[str]:
    """`text` wrapped at spaces onto at most `rows` rows of `width` pixels (the rest is cut)."""
    lines: list[str] = []
    for word in _printable(text).split():
        joined = f"{lines[-1]} {word}" if lines else word
        if lines and _font().getlength(joined) <= width:
            lines[-1] = joined
        else:
            lines.append(word)
    return [_fit(line, width) for line in lines[:rows]]


def _text_row(draw: Any, top: int, text: str, inverted: bool = False) -> None:
    """One row of text whose 9-pixel band starts at `top`."""
    if inverted:
        draw.rectangle((0, top, WIDTH - 1, top + ROW_HEIGHT - 1), fill=1)
    draw.text((MARGIN, top - TEXT_RISE), _fit(text, WIDTH - 2 * MARGIN), font=_font(), fill=0 if inverted else 1)


def _title_bar(draw: Any, title: str) -> None:
    draw.rectangle((0, 0, WIDTH - 1, TITLE_HEIGHT - 1), fill=1)
    draw.text((2, 1 - TEXT_RISE), _fit(title, WIDTH - 4), font=_font(), fill=0)


def _row_top(row: int) -> int:
    return TITLE_HEIGHT + row * ROW_HEIGHT


def render(view: View) -> Image.Image:
    """The screen for `view`: title bar, lines or dice, and the notice at the bottom."""
    from PIL import ImageDraw

    image = _blank()
    draw = ImageDraw.Draw(image)
    _title_bar(draw, view.title)
    notice = _wrap(view.notice, WIDTH - 2 * MARGIN, rows=2)
    for offset, text in enumerate(notice):
        _text_row(draw, _row_top(ROWS - len(notice) + offset), text)
    if view.dice:
        bottom = _row_top(ROWS - len(notice))
        _draw_dice(image, view.dice, top=TITLE_HEIGHT, bottom=bottom)
        return image
    visible = min(MAX_LINES, ROWS - len(notice))
    first = 0 if view.cursor is None else max(0, view.cursor - visible + 1)  # keep the cursor line on screen
    for row, text in enumerate(view.lines[first : first + visible]):
        _text_row(draw, _row_top(row), text, inverted=first + row == view.cursor)
    return image


def _die(face: int, size: int) -> Image.Image:
    """One die, `size` pixels square: a rounded outline and `face` round pips."""
    from PIL import Image, ImageDraw

    if face not in PIPS:
        raise ValueError(f"a die shows 1 to 6, not {face!r}")
    die = Image.new("1", (size, size), 0)
    draw = ImageDraw.Draw(die)
    draw.rounded_rectangle((0, 0, size - 1, size - 1), radius=max(2, size // 8), outline=1, fill=0)
    radius = max(1, size // 11)
    for column, row in PIPS[face]:
        x, y = (size - 1) * (column + 1) / 4, (size - 1) * (row + 1) / 4
        draw.ellipse((x - radius, y - radius, x + radius, y + radius), fill=1)
    return die


def _draw_dice(
    image: Image.Image,
    dice: tuple[int, int],
    top: int,
    bottom: int,
    size: int | None = None,
    angles: tuple[float, float] = (0, 0),
    lifts: tuple[int, int] = (0, 0),
) -> None:
    """Two dice centred in the left and right halves of the band [top, bottom), raised by `lifts`."""
    size = size or min(40, bottom - top - 4)
    for index, (face, angle, lift) in enumerate(zip(dice, angles, lifts, strict=True)):
        die = _die(face, size)
        if angle:
            die = die.rotate(angle, expand=True, fillcolor=0)
        centre_x = WIDTH // 4 + index * WIDTH // 2
        centre_y = (top + bottom) // 2 - lift
        image.paste(1, (centre_x - die.width // 2, centre_y - die.height // 2), mask=die)


def render_dice_frame(a: int, b: int, phase: int, title: str = "Rolling...") -> Image.Image:
    """Frame `phase` (0..ROLL_FRAMES-1) of the tumbling dice showing faces `a` and `b`.

    The dice spin in opposite directions and hop; the service shows a few frames
    with random faces, then `render` with the thrown dice.

    >>> [render_dice_frame(3, 4, phase).size for phase in range(2)]
    [(128, 64), (128, 64)]
    """
    from PIL import ImageDraw

    image = _blank()
    _title_bar(ImageDraw.Draw(image), title)
    step = phase % ROLL_FRAMES
    angle = 360 * step / ROLL_FRAMES
    hop = (0, 5, 8, 9, 8, 5, 2, 0)[step]
    _draw_dice(image, (a, b), TITLE_HEIGHT + 12, HEIGHT, size=FRAME_DIE, angles=(angle, -angle), lifts=(hop, 9 - hop))
    return image


def render_progress(title: str, done: int, total: int, lines: Sequence[str] = ()) -> Image.Image:
    """A progress screen (card enrolment): title, a bar with "done/total", up to four lines below.

    >>> render_progress("Enrol Dead Set", 3, 108, ("Tap: Ada Lovelace",)).size
    (128, 64)
    """
    from PIL import ImageDraw

    image = _blank()
    draw = ImageDraw.Draw(image)
    _title_bar(draw, title)
    count = f"{done}/{total}"
    bar_right = WIDTH - 1 - MARGIN - int(_font().getlength(count)) - 3
    bar_top = TITLE_HEIGHT + 2
    draw.rectangle((MARGIN, bar_top, bar_right, bar_top + 6), outline=1)
    filled = 0 if total <= 0 else round((bar_right - MARGIN - 2) * min(done, total) / total)
    if filled:
        draw.rectangle((MARGIN + 1, bar_top + 1, MARGIN + 1 + filled, bar_top + 5), fill=1)
    draw.text((bar_right + 3, bar_top - 1 - TEXT_RISE), count, font=_font(), fill=1)
    for row, text in enumerate(lines[: ROWS - 1]):
        _text_row(draw, _row_top(row + 1), text)
    return image


def to_text(image: Image.Image) -> str:
    """The image as terminal text: two pixel rows per character, with ▀ ▄ █ and space.

    >>> from PIL import Image
    >>> to_text(Image.new("1", (3, 2), 1))
    '███'
    """
    pixels = image.convert("1").load()
    width, height = image.size
    glyphs = {(False, False): " ", (True, False): "▀", (False, True): "▄", (True, True): "█"}
    rows = []
    for y in range(0, height, 2):
        rows.append(
            "".join(glyphs[bool(pixels[x, y]), y + 1 < height and bool(pixels[x, y + 1])] for x in range(width))
        )
    return "\n".join(rows)
