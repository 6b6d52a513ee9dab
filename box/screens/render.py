"""Pure rendering of what the OLED shows: a `View` in, a 128x64 one-bit image out.

Layout (the 6x9 bitmap font of box/screens/glyphs.py, 6 px a character, 21 to a line, the title's too):
a 9-pixel inverted title bar and a dark pixel row, then six 9-pixel rows: up
to five text lines (the `cursor` line inverted) and the `notice` on the bottom row
(two rows when it needs them and the lines leave them free). Only free text scrolls: a
line the view marks `scrolling` (and the selected line) too long for its row moves
through it as a marquee, and so does a notice too long for the rows it has. With `dice`
set, two dice with pips replace the lines; with `big` set, that text is drawn large over
the first four rows. `to_text` turns any image into terminal text for the simulator.

>>> from box.games.base import View
>>> image = render(View(title="Hi", lines=("Ada",)))
>>> image.size, image.mode
((128, 64), '1')
>>> for row in to_text(image).splitlines()[:8]:
...     print(row[:12].rstrip())
██▀██▀███▀██
██ ▀▀ ██▀▀██
██ ██ ███ ██
██▄██▄██▄▄▄█
▀▀▀▀▀▀▀▀▀▀▀▀
   ▄       ▄
 ▄▀ ▀▄   ▄▄█
 █▀▀▀█  █  █
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

from box.screens.glyphs import BitmapFont
from box.words import SCREEN_HEIGHT, SCREEN_WIDTH, TEXT_LINES

if TYPE_CHECKING:
    from PIL import Image

    from box.games.base import View

TITLE_HEIGHT = 10  # where the rows start: the lit bar and a dark pixel row under it
TITLE_BAR = 9  # the lit title bar; the row below it stays dark, so a highlighted first line stands apart
ROW_HEIGHT = 9
WIDTH, HEIGHT = SCREEN_WIDTH, SCREEN_HEIGHT
ROWS = (HEIGHT - TITLE_HEIGHT) // ROW_HEIGHT  # 6
MAX_LINES = TEXT_LINES
MARGIN = 1
TITLE_MARGIN = 1  # the title's 21 characters leave a lit column at each end of the bar
NOTICE_ROWS = 2  # the most rows a notice takes
MARQUEE_REST = 1.0  # seconds a scrolled line rests at its start and at its end
MARQUEE_STEP = 0.3  # seconds a character
BIG_ROWS = 4  # rows a big number takes (the lines go under it)
BIG_SCALE = 5  # at most this many pixels a font pixel
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


@lru_cache(maxsize=1)
def _font() -> BitmapFont:
    """The OLED's font: X11 misc-fixed 6x9 (Latin, Greek, Cyrillic), loaded once."""
    return BitmapFont.load()


def _blank() -> Image.Image:
    from PIL import Image

    return Image.new("1", (WIDTH, HEIGHT), 0)


def _printable(text: str) -> str:
    """`text` in the font's characters: "Erdős", "Дмитрий" stay, a letter it lacks loses its
    accent where that gives one it has, other signs become "?".

    >>> _printable("Erdős → Νίκος, Ǹ 李")
    'Erdős → Νίκος, N ?'
    """
    if text.isascii() and text.isprintable():  # the font has every printable ASCII character
        return text
    font = _font()
    text = unicodedata.normalize("NFC", text)
    if all(font.has(char) for char in text):
        return text
    kept = []
    for char in text:
        if not font.has(char):
            char = "".join(c for c in unicodedata.normalize("NFKD", char) if font.has(c)) or "?"
        kept.append(char)
    return "".join(kept)


def _fit(text: str, width: int) -> str:
    """The longest start of `text` that fits `width` pixels (every character is as wide)."""
    return _printable(text)[: width // _font().width]


def _wrap(text: str, width: int) -> list[str]:
    """`text` wrapped at spaces onto rows of `width` pixels (a word too long for a row stays whole)."""
    lines: list[str] = []
    for word in _printable(text).split():
        joined = f"{lines[-1]} {word}" if lines else word
        if lines and _font().getlength(joined) <= width:
            lines[-1] = joined
        else:
            lines.append(word)
    return lines


def _text_row(image: Image.Image, top: int, text: str, inverted: bool = False) -> None:
    """One row of text whose 9-pixel band starts at `top` (the font's cell is the band)."""
    if inverted:
        image.paste(1, (0, top, WIDTH, top + ROW_HEIGHT))
    _font().draw(image, (MARGIN, top), _fit(text, WIDTH - 2 * MARGIN), fill=0 if inverted else 1)


def _title_bar(image: Image.Image, title: str) -> None:
    image.paste(1, (0, 0, WIDTH, TITLE_BAR))
    _font().draw(image, (TITLE_MARGIN, 0), _fit(title, WIDTH - 2 * TITLE_MARGIN), fill=0)


def _row_top(row: int) -> int:
    return TITLE_HEIGHT + row * ROW_HEIGHT


def notice_rows(view: View) -> list[str]:
    """The rows the notice takes: wrapped onto two when it needs them and the lines leave them,
    else one row, which scrolls when the notice is too long for it.

    >>> from box.games.base import View
    >>> notice_rows(View("t", ("a",), notice="Ann places Einstein: wrong, a penalty"))
    ['Ann places Einstein:', 'wrong, a penalty']
    >>> notice_rows(View("t", ("a", "b", "c", "d", "e"), notice="Ann places Einstein: wrong, a penalty"))
    ['Ann places Einstein: wrong, a penalty']
    """
    if not view.notice:
        return []
    wrapped = _wrap(view.notice, WIDTH - 2 * MARGIN)
    shown = 0 if view.dice else min(MAX_LINES, len(view.lines) + (BIG_ROWS if view.big else 0))
    if len(wrapped) <= min(NOTICE_ROWS, ROWS - shown) and all(not _overflow(row) for row in wrapped):
        return wrapped
    return [_printable(view.notice)]


def line_rows(view: View) -> int:
    """How many of the view's lines the screen shows: the rows the big text and the notice leave."""
    return max(0, min(MAX_LINES, ROWS - len(notice_rows(view))) - (BIG_ROWS if view.big else 0))


def scrolling_texts(view: View) -> dict[int, str]:
    """The texts that may scroll, by row: the lines the view marks `scrolling`, the selected line and
    a notice on one row (what does not overflow its row stands still)."""
    texts: dict[int, str] = {}
    notice = notice_rows(view)
    if len(notice) == 1:
        texts[ROWS - 1] = notice[0]
    if view.dice:
        return texts
    first_row = BIG_ROWS if view.big else 0
    first, visible = _first_line(view), line_rows(view)
    for index, text in enumerate(view.lines[first : first + visible], start=first):
        if index == view.cursor or index in view.scrolling:
            texts[first_row + index - first] = text
    return texts


def _first_line(view: View) -> int:
    """The first line shown: the top one, or as far down as keeps the cursor line on screen."""
    return 0 if view.cursor is None else max(0, view.cursor - line_rows(view) + 1)


def render(view: View, elapsed: float = 0.0) -> Image.Image:
    """The screen for `view`: title bar, lines (or dice, or a big number), and the notice at the bottom.

    `elapsed` is how long the view has been on show: a scrolling text too long for its row
    moves by it (see `marquee_start`), so the loop redraws at `next_scroll`.
    """
    image = _blank()
    _title_bar(image, view.title)
    moving = scrolling_texts(view)
    notice = notice_rows(view)
    for offset, text in enumerate(notice):
        row = ROWS - len(notice) + offset
        _text_row(image, _row_top(row), text[marquee_start(text, elapsed) :] if row in moving else text)
    if view.dice:
        bottom = _row_top(ROWS - len(notice))
        _draw_dice(image, view.dice, top=TITLE_HEIGHT, bottom=bottom)
        return image
    first_row = 0
    if view.big:
        _draw_big(image, view.big, top=TITLE_HEIGHT, bottom=_row_top(BIG_ROWS))
        first_row = BIG_ROWS
    first = _first_line(view)
    for row, text in enumerate(view.lines[first : first + line_rows(view)], start=first_row):
        if row in moving:
            text = _printable(text)[marquee_start(text, elapsed) :]
        _text_row(image, _row_top(row), text, inverted=first + row - first_row == view.cursor)
    return image


@lru_cache(maxsize=64)
def _overflow(text: str) -> int:
    """How many characters `text` has beyond one row (0 when it fits); kept, as the loop asks each pass."""
    text = _printable(text)
    return len(text) - len(_fit(text, WIDTH - 2 * MARGIN))


def marquee_start(text: str, elapsed: float) -> int:
    """Where a selected line too long for a row starts after `elapsed` seconds on show.

    It rests MARQUEE_REST s at its start, then moves one character every MARQUEE_STEP s to its
    end, rests there, and starts over.

    >>> long = "Life span: Wolfgang Amadeus Mozart"
    >>> [marquee_start(long, t) for t in (0.0, 0.99, 1.0, 1.3, 5.0, 5.9)], marquee_start("Short", 9.0)
    ([0, 0, 1, 2, 13, 0], 0)
    """
    extra = _overflow(text)
    if not extra:
        return 0
    moving = elapsed % _period(extra) - MARQUEE_REST
    return 0 if moving < 0 else min(extra, int(moving / MARQUEE_STEP + 1e-9) + 1)


def _period(extra: int) -> float:
    return 2 * MARQUEE_REST + extra * MARQUEE_STEP


def marquee_starts(view: View, elapsed: float) -> tuple[int, ...]:
    """Where each scrolling text of `view` starts after `elapsed` seconds (what the panel shows of them).

    >>> from box.games.base import View
    >>> view = View("t", ("Life span: Wolfgang Amadeus Mozart", "Short"), scrolling=(0, 1))
    >>> marquee_starts(view, 0.0), marquee_starts(view, 1.3)
    ((0, 0), (2, 0))
    """
    return tuple(marquee_start(text, elapsed) for text in scrolling_texts(view).values())


def next_scroll(view: View, elapsed: float) -> float | None:
    """Seconds from now until a scrolling text of `view` moves, or None when nothing scrolls.

    >>> from box.games.base import View
    >>> view = View("t", ("Life span: Wolfgang Amadeus Mozart",), cursor=0)
    >>> next_scroll(view, 0.0), next_scroll(view, 1.1), next_scroll(view, 5.0)  # resting, moving, resting
    (1.0, 0.2, 0.9)
    >>> next_scroll(View("t", ("Short",), cursor=0), 0.0) is None
    True
    """
    waits = [wait for text in scrolling_texts(view).values() if (wait := _next_move(text, elapsed)) is not None]
    return min(waits, default=None)


def _next_move(text: str, elapsed: float) -> float | None:
    """Seconds from now until the marquee of `text` moves, or None when it fits its row."""
    extra = _overflow(text)
    if not extra:
        return None
    period = _period(extra)
    at = elapsed % period
    if at < MARQUEE_REST:
        return round(MARQUEE_REST - at, 6)
    steps = int((at - MARQUEE_REST) / MARQUEE_STEP + 1e-9) + 1
    if steps >= extra:  # resting at the end
        return round(period - at, 6)
    return round(MARQUEE_REST + steps * MARQUEE_STEP - at, 6)


def _draw_big(image: Image.Image, text: str, top: int, bottom: int) -> None:
    """`text` (a number, "TIME!") in the font scaled up as far as it fits the band [top, bottom), centred."""
    from PIL import Image

    small = _font().mask(_printable(text))
    box = small.getbbox()
    if box is None:
        return
    small = small.crop(box)
    scale = max(1, min(BIG_SCALE, (WIDTH - 2 * MARGIN) // small.width, (bottom - top - 2) // small.height))
    big = small.resize((small.width * scale, small.height * scale), Image.Resampling.NEAREST)
    image.paste(1, ((WIDTH - big.width) // 2, (top + bottom - big.height) // 2), mask=big)


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
    image = _blank()
    _title_bar(image, title)
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
    _title_bar(image, title)
    count = f"{done}/{total}"
    bar_right = WIDTH - 1 - MARGIN - int(_font().getlength(count)) - 3
    bar_top = TITLE_HEIGHT + 2
    draw.rectangle((MARGIN, bar_top, bar_right, bar_top + 6), outline=1)
    filled = 0 if total <= 0 else round((bar_right - MARGIN - 2) * min(done, total) / total)
    if filled:
        draw.rectangle((MARGIN + 1, bar_top + 1, MARGIN + 1 + filled, bar_top + 5), fill=1)
    _font().draw(image, (bar_right + 3, bar_top - 1), count)
    for row, text in enumerate(lines[: ROWS - 1]):
        _text_row(image, _row_top(row + 1), text)
    return image


def render_beside(picture: Image.Image, lines: Sequence[str]) -> Image.Image:
    """A picture (a QR code) on the panel's left, centred in height, and up to seven rows of text beside it.

    >>> from PIL import Image
    >>> render_beside(Image.new("1", (58, 58), 1), ("Phone page",)).getpixel((0, 3))
    1
    """
    image = _blank()
    image.paste(picture, (0, (HEIGHT - picture.height) // 2))
    left = picture.width + 2
    for row, text in enumerate(lines[: HEIGHT // ROW_HEIGHT]):
        _font().draw(image, (left, row * ROW_HEIGHT + 1), _fit(text, WIDTH - left))
    return image


def to_text(image: Image.Image) -> str:
    """The image as terminal text: two pixel rows per character, with ▀ ▄ █ and space.

    >>> from PIL import Image
    >>> to_text(Image.new("1", (3, 2), 1))
    '███'
    """
    pixels = image.convert("1").load()
    assert pixels is not None  # a converted image has its pixels in memory
    width, height = image.size
    glyphs = {(False, False): " ", (True, False): "▀", (False, True): "▄", (True, True): "█"}
    rows = []
    for y in range(0, height, 2):
        rows.append(
            "".join(glyphs[bool(pixels[x, y]), y + 1 < height and bool(pixels[x, y + 1])] for x in range(width))
        )
    return "\n".join(rows)
