"""Sheets of cards: paper and card sizes, where each card's front and back go, crop marks, text.

Two ways to print a deck:

- **duplex** (both sides of the paper): a page of fronts, then a page of backs. The backs are
  the fronts' mirror across the sheet's middle (flip on the long edge), so a card's back lands
  behind its front.
- **fold** (one side only): landscape pages, the fronts left of a fold line in the middle and
  each back its front's mirror across it; fold, glue, cut.

>>> sheet = CardSheet.make("a4", "poker", "duplex")
>>> sheet.columns, sheet.rows, sheet.front(0), sheet.back(0)
(3, 3, (10.5, 16.5), (136.5, 16.5))
>>> CardSheet.make("a4", "poker", "duplex", offset=(1.0, -0.5)).back(0)  # the backs 1 mm right, 0.5 up
(135.5, 16.0)
>>> fold = CardSheet.make("letter", "bridge", "fold")
>>> fold.page, fold.per_page
((279.4, 215.9), 4)
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fpdf import FPDF

PAPERS = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}  # mm, portrait
CARD_SIZES = {"poker": (63.0, 88.0), "bridge": (57.15, 88.9)}  # mm: 2.5 x 3.5 in and 2.25 x 3.5 in
SIDES = ("duplex", "fold")
MIN_MARGIN = 6.0  # mm: room for the crop marks round the cards (3 x 3 bridge cards on letter leave 6.35)
MARK_GAP, MARK_LENGTH = 0.5, 3.0  # mm: a crop mark starts this far from the card's edge (or its bleed)
MIN_MARK = 1.5  # mm: a shorter mark is left out
SAFE_EDGE = 4.5  # mm of the paper's edge many printers cannot reach: no mark or heading there
BLEED = 3.0  # mm: a print shop's bleed (`gravebox print --bleed`)
NFC_DIAMETER = 25.0  # mm: a round NTAG sticker
FONT = "DejaVu Sans"  # embedded in every PDF: box/printing/fonts/, written by scripts/print_fonts.py
FONT_FILES = {"": "DejaVuSans.ttf", "B": "DejaVuSans-Bold.ttf"}
FONT_DIR = Path(__file__).resolve().parent / "fonts"

Colour = tuple[int, int, int]
BLACK: Colour = (0, 0, 0)
WHITE: Colour = (255, 255, 255)
GREY: Colour = (120, 120, 120)
LIGHT: Colour = (200, 200, 200)
ORANGE: Colour = (232, 110, 0)


@dataclass(frozen=True)
class CardSheet:
    """Where the cards of one page go: `front(slot)` and `back(slot)` are top-left corners in mm.

    With `bleed`, each card's background runs that far past the outer cuts (neighbours share a
    cut, their edges alike: white fronts, backs coloured to the edge); `offset` moves the backs
    (duplex), right and down as seen from the fronts, to make up for a printer that shifts them.
    """

    paper: str
    size: str
    sides: str
    page: tuple[float, float]  # width, height in mm, as the page is printed
    card: tuple[float, float]
    columns: int  # duplex: across the page; fold: across each half
    rows: int
    top: float  # the first row's top edge, mm
    bleed: float = 0.0
    offset: tuple[float, float] = (0.0, 0.0)

    @classmethod
    def make(
        cls, paper: str, size: str, sides: str, bleed: float = 0.0, offset: tuple[float, float] = (0.0, 0.0)
    ) -> CardSheet:
        """The sheet for a paper, a card size and a way to print; KeyError for an unknown one,
        ValueError when a bleed leaves no room for the marks (bridge cards on letter)."""
        width, height = PAPERS[paper]
        card_w, card_h = CARD_SIZES[size]
        if sides == "fold":
            width, height = height, width  # landscape: a front and its back side by side
            columns = math.floor((width / 2 - MIN_MARGIN) / card_w)
        elif sides == "duplex":
            columns = math.floor((width - 2 * MIN_MARGIN) / card_w)
        else:
            raise KeyError(sides)
        rows = math.floor((height - 2 * MIN_MARGIN) / card_h)
        top = (height - rows * card_h) / 2
        if top - bleed - MARK_GAP - MIN_MARK < SAFE_EDGE:  # no room for marks above and below: above only
            top = SAFE_EDGE + MIN_MARK + MARK_GAP + bleed  # (3 rows of poker cards and a bleed on letter)
        if top + rows * card_h > height - SAFE_EDGE:
            raise ValueError(
                f"{rows} rows of {size} cards and a {bleed:g} mm bleed leave no room for crop marks on {paper}"
            )
        offset = offset if sides == "duplex" else (0.0, 0.0)
        return cls(paper, size, sides, (width, height), (card_w, card_h), columns, rows, round(top, 3), bleed, offset)

    @property
    def per_page(self) -> int:
        """Cards on one page (duplex: one sheet's fronts; fold: fronts and backs)."""
        return self.columns * self.rows

    @property
    def orientation(self) -> str:
        return "L" if self.sides == "fold" else "P"

    def front(self, slot: int) -> tuple[float, float]:
        """The top-left corner of the front of the `slot`-th card of a page (left to right, top to bottom)."""
        column, row = slot % self.columns, slot // self.columns
        width, middle = self.card[0], self.page[0] / 2
        if self.sides == "fold":  # the fronts fill the left half, up to the fold
            x = middle - (self.columns - column) * width
        else:
            x = middle - self.columns * width / 2 + column * width
        return round(x, 3), round(self.top + row * self.card[1], 3)

    def back(self, slot: int) -> tuple[float, float]:
        """The back of the same card: its front mirrored across the page's middle (the duplex
        long-edge flip, or the fold), moved by the offset (seen from the front: mirrored in x)."""
        x, y = self.front(slot)
        return round(self.page[0] - x - self.card[0] - self.offset[0], 3), round(y + self.offset[1], 3)

    def cut_lines(self, backs: bool = False) -> tuple[list[float], list[float]]:
        """The x of every vertical cut and the y of every horizontal one (mm): of the fronts (and,
        folded, the backs beside them), or of a duplex page of backs."""
        slots = range(self.per_page)
        if backs and self.sides == "duplex":
            corners = [self.back(slot) for slot in slots]
        else:
            corners = [self.front(slot) for slot in slots]
            if self.sides == "fold":
                corners += [self.back(slot) for slot in slots]
        xs = sorted({x for x, _ in corners} | {round(x + self.card[0], 3) for x, _ in corners})
        ys = sorted({y for _, y in corners} | {round(y + self.card[1], 3) for _, y in corners})
        return xs, ys

    def marks(self, backs: bool = False) -> list[tuple[float, float, float, float]]:
        """The crop marks, as lines (x1, y1, x2, y2): on every cut line beyond the cards and their
        bleed, within the paper's printable area (SAFE_EDGE in); a side without room has none."""
        xs, ys = self.cut_lines(backs)
        width, height = self.page
        fold = width / 2 if self.sides == "fold" else None
        near, lines = self.bleed + MARK_GAP, []
        for start, room, way in (
            (ys[0] - near, ys[0] - near - SAFE_EDGE, -1),
            (ys[-1] + near, height - SAFE_EDGE - ys[-1] - near, 1),
        ):
            if room >= MIN_MARK:
                end = start + way * min(MARK_LENGTH, room)
                lines += [(x, start, x, end) for x in xs if fold is None or not math.isclose(x, fold)]
        for start, room, way in (
            (xs[0] - near, xs[0] - near - SAFE_EDGE, -1),
            (xs[-1] + near, width - SAFE_EDGE - xs[-1] - near, 1),
        ):
            if room >= MIN_MARK:
                end = start + way * min(MARK_LENGTH, room)
                lines += [(start, y, end, y) for y in ys]
        return [tuple(round(value, 3) for value in line) for line in lines]  # type: ignore[misc]


def new_document() -> FPDF:
    """An empty PDF in millimetres with no automatic page breaks, DejaVu Sans (regular, bold) embedded;
    its date fixed (the same file each time)."""
    import logging
    from datetime import datetime

    from fpdf import FPDF

    logging.getLogger("fontTools").setLevel(logging.WARNING)  # its font subsetting tells each step at INFO
    pdf = FPDF(unit="mm")
    for style, name in FONT_FILES.items():
        pdf.add_font(FONT, style, FONT_DIR / name)
    pdf.set_auto_page_break(False)
    pdf.set_margin(0)
    pdf.set_creation_date(datetime(2024, 1, 1, tzinfo=UTC))
    pdf.set_creator("gravebox print")
    return pdf


def crop_marks(pdf: FPDF, sheet: CardSheet, backs: bool = False) -> None:
    """The sheet's crop marks (see `CardSheet.marks`); the fold line dashed."""
    pdf.set_draw_color(*BLACK)
    pdf.set_line_width(0.2)
    for line in sheet.marks(backs):
        pdf.line(*line)
    if sheet.sides == "fold":
        _, ys = sheet.cut_lines()
        fold, top, bottom = sheet.page[0] / 2, ys[0], ys[-1]
        pdf.set_dash_pattern(dash=1.5, gap=1.5)
        pdf.line(fold, top - MARK_GAP - 2 * MARK_LENGTH, fold, top - MARK_GAP)
        pdf.line(fold, bottom + MARK_GAP, fold, bottom + MARK_GAP + 2 * MARK_LENGTH)
        pdf.set_dash_pattern()
        pdf.set_font(FONT, size=6)
        pdf.set_text_color(*GREY)
        centred(pdf, "fold", fold, bottom + MARK_GAP + 2 * MARK_LENGTH + 2.5)


def outline(pdf: FPDF, x: float, y: float, width: float, height: float) -> None:
    """A hairline round a card, a guide for scissors."""
    pdf.set_draw_color(*LIGHT)
    pdf.set_line_width(0.1)
    pdf.rect(x, y, width, height)


def nfc_spot(pdf: FPDF, centre_x: float, centre_y: float) -> None:
    """The marked spot for the NFC sticker: a dashed circle the sticker's size, `NFC` inside."""
    radius = NFC_DIAMETER / 2
    pdf.set_draw_color(*GREY)
    pdf.set_line_width(0.2)
    pdf.set_dash_pattern(dash=1.0, gap=1.0)
    pdf.circle(centre_x, centre_y, radius)
    pdf.set_dash_pattern()
    pdf.set_font(FONT, "B", 8)
    pdf.set_text_color(*LIGHT)
    centred(pdf, "NFC", centre_x, centre_y + 1)
    pdf.set_font(FONT, size=5)
    centred(pdf, "sticker here", centre_x, centre_y + 4)


# ----- text ---------------------------------------------------------------------------------------


def printable(text: str) -> str:
    """`text` as it prints: composed (NFC), so a letter and its accent are one glyph of the font.

    >>> printable("Paul Erdo\u030bs — “genius”") == "Paul Erdős — “genius”"
    True
    """
    return unicodedata.normalize("NFC", text)


@lru_cache(maxsize=1)
def _font_characters() -> frozenset[int]:
    """The code points every style of the print font draws."""
    from fontTools.ttLib import TTFont  # type: ignore[import-untyped]  # fpdf2's own dependency

    drawn = [set(TTFont(FONT_DIR / name)["cmap"].getBestCmap()) for name in FONT_FILES.values()]
    return frozenset(set.intersection(*drawn))


def unprintable(texts: Iterable[str]) -> str:
    """The characters of `texts` the print font lacks, each once ('' when it has them all).

    >>> unprintable(["Antonín Dvořák", "Łucja", "Дмитрий", "Νίκος"]), unprintable(["李小龍 Lee"])
    ('', '李小龍')
    """
    covered, missing = _font_characters(), dict[str, None]()
    for text in texts:
        for char in printable(text):
            if ord(char) not in covered and not char.isspace():
                missing[char] = None
    return "".join(missing)


def centred(pdf: FPDF, text: str, centre_x: float, baseline: float) -> None:
    """One line of `text` centred on `centre_x`, in the current font and colour."""
    text = printable(text)
    pdf.text(centre_x - pdf.get_string_width(text) / 2, baseline, text)


def wrap(pdf: FPDF, text: str, width: float) -> list[str]:
    """`text` broken into lines no wider than `width` in the current font (a long word is cut).

    >>> pdf = new_document(); pdf.set_font(FONT, size=10)
    >>> wrap(pdf, "Cancel the last whack, item or action card.", 30)
    ['Cancel the last', 'whack, item or', 'action card.']
    """
    lines: list[str] = []
    line = ""
    for word in printable(text).split():
        candidate = f"{line} {word}" if line else word
        if pdf.get_string_width(candidate) <= width:
            line = candidate
            continue
        if line:
            lines.append(line)
        *pieces, line = _cut(pdf, word, width)
        lines.extend(pieces)
    if line:
        lines.append(line)
    return lines


def _cut(pdf: FPDF, word: str, width: float) -> list[str]:
    """`word` cut into pieces no wider than `width` (a piece holds a letter at least), in one pass
    over its letters: a 100,000-letter word takes as long as 100,000 letters of words.

    >>> pdf = new_document(); pdf.set_font(FONT, size=10)
    >>> _cut(pdf, "Rumpelstiltskin", 20), _cut(pdf, "Ann", 20)
    (['Rumpelstil', 'tskin'], ['Ann'])
    """
    if pdf.get_string_width(word) <= width:
        return [word]
    pieces: list[str] = []
    start, used = 0, 0.0
    for at, char in enumerate(word):
        wide = pdf.get_string_width(char)
        if at > start and used + wide > width:
            pieces.append(word[start:at])
            start, used = at, 0.0
        used += wide
    pieces.append(word[start:])
    return pieces


def fitted(
    pdf: FPDF, text: str, width: float, most_lines: int, size: float, smallest: float = 6, style: str = ""
) -> list[str]:
    """Set the largest font size from `size` down to `smallest` at which `text` takes at most
    `most_lines` lines of `width`; answer the lines (at `smallest`, as many as it takes)."""
    while True:
        pdf.set_font(FONT, style, size)
        lines = wrap(pdf, text, width)
        if len(lines) <= most_lines or size <= smallest:
            return lines
        size = max(smallest, size - 0.5)


def block(pdf: FPDF, lines: Sequence[str], centre_x: float, top: float, leading: float) -> float:
    """Lines centred under `top`, `leading` mm apart; answers the baseline of the last."""
    baseline = top
    for number, line in enumerate(lines):
        baseline = top + number * leading
        centred(pdf, line, centre_x, baseline)
    return baseline


# ----- text with marked words (the orange words of a cause of death) ------------------------------

Run = tuple[str, bool]
"""A piece of text and whether it is marked."""


def wrap_runs(pdf: FPDF, runs: Sequence[Run], width: float) -> list[list[Run]]:
    """Runs of text broken into lines no wider than `width`; a word keeps each letter's mark.

    >>> pdf = new_document(); pdf.set_font(FONT, size=10)
    >>> wrap_runs(pdf, [("aplastic ", False), ("anaemia", True), (" from radiation", False)], 40)
    [[('aplastic ', False), ('anaemia ', True), ('from', False)], [('radiation', False)]]
    """
    words: list[list[Run]] = [[]]
    for text, marked in runs:
        for index, piece in enumerate(printable(text).split(" ")):
            if index > 0:
                words.append([])
            if piece:
                words[-1].append((piece, marked))
    lines: list[list[Run]] = []
    line: list[Run] = []
    for word in (word for word in words if word):
        candidate = [*line, (" ", False), *word] if line else list(word)
        if line and pdf.get_string_width("".join(text for text, _ in candidate)) > width:
            lines.append(line)
            candidate = list(word)
        line = candidate
    if line:
        lines.append(line)
    return [_joined(line) for line in lines]


def _joined(line: list[Run]) -> list[Run]:
    """Neighbouring runs with the same mark made one (a space takes its left neighbour's)."""
    joined: list[Run] = []
    for text, marked in line:
        if joined and (joined[-1][1] == marked or text == " "):
            joined[-1] = (joined[-1][0] + text, joined[-1][1])
        else:
            joined.append((text, marked))
    return joined


def draw_runs(pdf: FPDF, line: Sequence[Run], centre_x: float, baseline: float, colour: Colour, mark: Colour) -> None:
    """One line of runs centred on `centre_x`: marked runs in `mark`, the others in `colour`."""
    x = centre_x - pdf.get_string_width("".join(text for text, _ in line)) / 2
    for text, marked in line:
        pdf.set_text_color(*(mark if marked else colour))
        pdf.text(x, baseline, text)
        x += pdf.get_string_width(text)
