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
>>> fold = CardSheet.make("letter", "bridge", "fold")
>>> fold.page, fold.per_page
((279.4, 215.9), 4)
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fpdf import FPDF

PAPERS = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}  # mm, portrait
CARD_SIZES = {"poker": (63.0, 88.0), "bridge": (57.15, 88.9)}  # mm: 2.5 x 3.5 in and 2.25 x 3.5 in
SIDES = ("duplex", "fold")
MIN_MARGIN = 6.0  # mm: room for the crop marks round the cards (3 x 3 bridge cards on letter leave 6.35)
MARK_GAP, MARK_LENGTH = 1.0, 3.0  # mm: a crop mark starts this far from the card's edge
NFC_DIAMETER = 25.0  # mm: a round NTAG sticker

Colour = tuple[int, int, int]
BLACK: Colour = (0, 0, 0)
WHITE: Colour = (255, 255, 255)
GREY: Colour = (120, 120, 120)
LIGHT: Colour = (200, 200, 200)
ORANGE: Colour = (232, 110, 0)


@dataclass(frozen=True)
class CardSheet:
    """Where the cards of one page go: `front(slot)` and `back(slot)` are top-left corners in mm."""

    paper: str
    size: str
    sides: str
    page: tuple[float, float]  # width, height in mm, as the page is printed
    card: tuple[float, float]
    columns: int  # duplex: across the page; fold: across each half
    rows: int

    @classmethod
    def make(cls, paper: str, size: str, sides: str) -> CardSheet:
        """The sheet for a paper, a card size and a way to print; KeyError for an unknown one."""
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
        return cls(paper, size, sides, (width, height), (card_w, card_h), columns, rows)

    @property
    def per_page(self) -> int:
        """Cards on one page (duplex: one sheet's fronts; fold: fronts and backs)."""
        return self.columns * self.rows

    @property
    def orientation(self) -> str:
        return "L" if self.sides == "fold" else "P"

    @property
    def top(self) -> float:
        return round((self.page[1] - self.rows * self.card[1]) / 2, 3)

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
        long-edge flip, or the fold)."""
        x, y = self.front(slot)
        return round(self.page[0] - x - self.card[0], 3), y

    def cut_lines(self) -> tuple[list[float], list[float]]:
        """The x of every vertical cut and the y of every horizontal one (mm)."""
        corners = [self.front(slot) for slot in range(self.per_page)]
        if self.sides == "fold":
            corners += [self.back(slot) for slot in range(self.per_page)]
        xs = sorted({x for x, _ in corners} | {round(x + self.card[0], 3) for x, _ in corners})
        ys = sorted({y for _, y in corners} | {round(y + self.card[1], 3) for _, y in corners})
        return xs, ys


def new_document() -> FPDF:
    """An empty PDF in millimetres with no automatic page breaks; its date fixed (the same file each time)."""
    from datetime import datetime

    from fpdf import FPDF

    pdf = FPDF(unit="mm")
    pdf.set_auto_page_break(False)
    pdf.set_margin(0)
    pdf.set_creation_date(datetime(2024, 1, 1, tzinfo=UTC))
    pdf.set_creator("gravebox print")
    return pdf


def crop_marks(pdf: FPDF, sheet: CardSheet) -> None:
    """Short lines in the margins on every cut line, clear of the cards; the fold line dashed."""
    xs, ys = sheet.cut_lines()
    left, right, top, bottom = xs[0], xs[-1], ys[0], ys[-1]
    pdf.set_draw_color(*BLACK)
    pdf.set_line_width(0.2)
    fold = sheet.page[0] / 2 if sheet.sides == "fold" else None
    for x in xs:
        if fold is not None and math.isclose(x, fold):
            continue
        pdf.line(x, top - MARK_GAP - MARK_LENGTH, x, top - MARK_GAP)
        pdf.line(x, bottom + MARK_GAP, x, bottom + MARK_GAP + MARK_LENGTH)
    for y in ys:
        pdf.line(left - MARK_GAP - MARK_LENGTH, y, left - MARK_GAP, y)
        pdf.line(right + MARK_GAP, y, right + MARK_GAP + MARK_LENGTH, y)
    if fold is not None:
        pdf.set_dash_pattern(dash=1.5, gap=1.5)
        pdf.line(fold, top - MARK_GAP - 2 * MARK_LENGTH, fold, top - MARK_GAP)
        pdf.line(fold, bottom + MARK_GAP, fold, bottom + MARK_GAP + 2 * MARK_LENGTH)
        pdf.set_dash_pattern()
        pdf.set_font("Helvetica", size=6)
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
    pdf.set_font("Helvetica", "B", 8)
    pdf.set_text_color(*LIGHT)
    centred(pdf, "NFC", centre_x, centre_y + 1)
    pdf.set_font("Helvetica", size=5)
    centred(pdf, "sticker here", centre_x, centre_y + 4)


# ----- text ---------------------------------------------------------------------------------------

_PLAIN = {"‘": "'", "’": "'", "“": '"', "”": '"', "–": "-", "—": "-", "…": "...", "→": "->", "•": "*"}


def printable(text: str) -> str:
    """`text` in the PDF's built-in fonts (Latin-1): other letters lose their accents, others become '?'.

    >>> printable("Paul Erdős — “genius”"), printable("Zoë"), printable("名")
    ('Paul Erdos - "genius"', 'Zoë', '?')
    """
    if all(ord(c) < 256 for c in text):
        return text
    out = []
    for char in text:
        if ord(char) < 256:
            out.append(char)
        elif char in _PLAIN:
            out.append(_PLAIN[char])
        else:
            base = "".join(c for c in unicodedata.normalize("NFKD", char) if not unicodedata.combining(c))
            out.append(base if base and all(ord(c) < 256 for c in base) else "?")
    return "".join(out)


def centred(pdf: FPDF, text: str, centre_x: float, baseline: float) -> None:
    """One line of `text` centred on `centre_x`, in the current font and colour."""
    text = printable(text)
    pdf.text(centre_x - pdf.get_string_width(text) / 2, baseline, text)


def wrap(pdf: FPDF, text: str, width: float) -> list[str]:
    """`text` broken into lines no wider than `width` in the current font (a long word is cut).

    >>> pdf = new_document(); pdf.set_font("Helvetica", size=10)
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
        while pdf.get_string_width(word) > width and len(word) > 1:
            cut = max(1, max(n for n in range(1, len(word) + 1) if pdf.get_string_width(word[:n]) <= width or n == 1))
            lines.append(word[:cut])
            word = word[cut:]
        line = word
    if line:
        lines.append(line)
    return lines


def fitted(
    pdf: FPDF, text: str, width: float, most_lines: int, size: float, smallest: float = 6, style: str = ""
) -> list[str]:
    """Set the largest font size from `size` down to `smallest` at which `text` takes at most
    `most_lines` lines of `width`; answer the lines (at `smallest`, as many as it takes)."""
    while True:
        pdf.set_font("Helvetica", style, size)
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

    >>> pdf = new_document(); pdf.set_font("Helvetica", size=10)
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
