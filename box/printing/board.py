"""The Deck of Death board to scale, as tiles to print and assemble, with a map of the tiles.

The board is what its file says (box/games/deck_of_death/cards.py reads it): the outer ring's
spaces numbered clockwise from the top, Start among them, each arrow space with an arrow to the
inner space it leads to, and the inner circle's ten spaces, each named as the box names it
(`7` on the outer ring, `Inner 3` inside). Every space holds a card, so a space is a card's
size and a little more: the board is drawn at full size (about a metre across for 36 spaces)
and cut into pages. The first page is the map: the board small, the tiles over it.

Tiles overlap: a tile's right and bottom strips are printed again on the next tile. Trim a
tile's margin on its left and top (the first column and row keep theirs), lay it over its
neighbour so the crosses in the strip meet, and tape.

>>> from box.games.deck_of_death.cards import parse_board
>>> rings = Rings(parse_board("outer = 36\\n[arrows]\\n3 = 0\\n9 = 0\\n15 = 0\\n21 = 0\\n27 = 0\\n", "b"), (63.0, 88.0))
>>> round(rings.outer_in), round(rings.size), tile_grid(rings, "a4")[:2]
(390, 991, (6, 4))
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from box.games.deck_of_death.cards import Board
from box.printing.layout import (
    BLACK,
    FONT,
    GREY,
    LIGHT,
    ORANGE,
    PAPERS,
    WHITE,
    Colour,
    centred,
    new_document,
    printable,
)

if TYPE_CHECKING:
    from fpdf import FPDF

SPACE_GAP = 5.0  # mm between neighbouring spaces, at a ring's inner edge
RING_ROOM = 8.0  # mm beyond a card's length across a ring
MIN_CIRCLE_GAP = 60.0  # mm between the inner circle and the outer ring, for the arrows
BOARD_MARGIN = 10.0  # mm round the board
PAGE_MARGIN = 8.0  # mm of a page left unprinted (what a printer cannot reach), trimmed when assembling
OVERLAP = 12.0  # mm a tile shares with its neighbour
SMALLEST_TEXT = 2.0  # pt: smaller labels (on the map) are left out
START_FILL: Colour = (225, 225, 225)
ARROW_FILL: Colour = (253, 226, 196)


@dataclass(frozen=True)
class Rings:
    """The board's geometry in mm: the rings' radii round the centre, spaces a card's size."""

    board: Board
    card: tuple[float, float]

    @property
    def inner_in(self) -> float:
        return self.board.inner * (self.card[0] + SPACE_GAP) / (2 * math.pi)

    @property
    def inner_out(self) -> float:
        return self.inner_in + self.card[1] + RING_ROOM

    @property
    def outer_in(self) -> float:
        return max(self.board.outer * (self.card[0] + SPACE_GAP) / (2 * math.pi), self.inner_out + MIN_CIRCLE_GAP)

    @property
    def outer_out(self) -> float:
        return self.outer_in + self.card[1] + RING_ROOM

    @property
    def size(self) -> float:
        """The board's width and height with its margin."""
        return 2 * (self.outer_out + BOARD_MARGIN)

    def point(self, radius: float, angle: float) -> tuple[float, float]:
        """A point at `radius` from the centre, `angle` radians clockwise from the top."""
        centre = self.size / 2
        return centre + radius * math.sin(angle), centre - radius * math.cos(angle)

    def angle(self, inner: bool, space: int) -> float:
        """The angle of a space's middle: space 0 at the top, numbers growing clockwise."""
        return 2 * math.pi * space / (self.board.inner if inner else self.board.outer)

    def sector(self, inner: bool, space: int) -> list[tuple[float, float]]:
        """A space's outline: an arc of the ring between its neighbours, a gap to each side."""
        low, high = (self.inner_in, self.inner_out) if inner else (self.outer_in, self.outer_out)
        count = self.board.inner if inner else self.board.outer
        middle, half = self.angle(inner, space), math.pi / count
        steps = 12

        def arc(radius: float) -> list[tuple[float, float]]:
            trim = SPACE_GAP / 2 / radius
            start, end = middle - half + trim, middle + half - trim
            return [self.point(radius, start + (end - start) * n / steps) for n in range(steps + 1)]

        return arc(high) + list(reversed(arc(low)))


@dataclass(frozen=True)
class View:
    """Board millimetres onto a page: page = offset + scale * board; `shown` the board's part on it."""

    scale: float
    offset: tuple[float, float]
    shown: tuple[float, float, float, float]  # left, top, right, bottom in board mm

    def at(self, x: float, y: float) -> tuple[float, float]:
        return self.offset[0] + self.scale * x, self.offset[1] + self.scale * y

    def shows(self, x: float, y: float) -> bool:
        left, top, right, bottom = self.shown
        return left <= x <= right and top <= y <= bottom


def space_name(inner: bool, space: int) -> str:
    """A space as the box's screens name it: `7` on the outer ring, `Inner 3` in the circle."""
    return f"Inner {space}" if inner else str(space)


def draw_board(pdf: FPDF, rings: Rings, view: View) -> None:
    """The board: both rings' spaces, Start, the arrows to the inner circle, every space's name."""
    board = rings.board
    pdf.set_line_width(0.5 * view.scale)
    for inner, count in ((False, board.outer), (True, board.inner)):
        for space in range(count):
            fill = WHITE
            if not inner and space == board.start:
                fill = START_FILL
            elif not inner and board.arrow_target(space) is not None:
                fill = ARROW_FILL
            pdf.set_fill_color(*fill)
            pdf.set_draw_color(*BLACK)
            pdf.polygon([view.at(*point) for point in rings.sector(inner, space)], style="DF")
    for arrow, target in board.arrows:
        draw_arrow(pdf, rings, view, arrow, target)
    for space in range(board.outer):
        label_outer(pdf, rings, view, space)
    for space in range(board.inner):
        angle = rings.angle(True, space)
        label(pdf, view, rings.point(rings.inner_out - 12, angle), space_name(True, space), 13, "B")
    centre = rings.size / 2
    label(pdf, view, (centre, centre - 6), "INNER CIRCLE", 11, "B")
    label(pdf, view, (centre, centre + 2), "leave it by rolling 1 + 1", 7)
    label(pdf, view, (centre, rings.size / 2 - rings.outer_in + 25), "play runs clockwise: 0, 1, 2 ...", 9)


def label_outer(pdf: FPDF, rings: Rings, view: View, space: int) -> None:
    """An outer space's number; Start's word; an arrow space's word and where it leads."""
    board = rings.board
    angle = rings.angle(False, space)
    label(pdf, view, rings.point(rings.outer_out - 14, angle), space_name(False, space), 22, "B")
    middle = rings.point((rings.outer_in + rings.outer_out) / 2, angle)
    if space == board.start:
        label(pdf, view, middle, "START", 16, "B")
    target = board.arrow_target(space)
    if target is not None:
        label(pdf, view, middle, "ARROW", 12, "B", ORANGE)
        label(pdf, view, (middle[0], middle[1] + 6), f"to {space_name(True, target)}", 10, "B", ORANGE)


def draw_arrow(pdf: FPDF, rings: Rings, view: View, arrow: int, target: int) -> None:
    """An arrow from an arrow space's inner edge to the inner space it leads to."""
    start = rings.point(rings.outer_in - 3, rings.angle(False, arrow))
    end = rings.point(rings.inner_out + 3, rings.angle(True, target))
    length = math.dist(start, end)
    along = ((end[0] - start[0]) / length, (end[1] - start[1]) / length)
    head, wide = 9.0, 4.5
    base = (end[0] - along[0] * head, end[1] - along[1] * head)
    across = (-along[1] * wide, along[0] * wide)
    pdf.set_draw_color(*ORANGE)
    pdf.set_fill_color(*ORANGE)
    pdf.set_line_width(1.4 * view.scale)
    pdf.line(*view.at(*start), *view.at(*base))
    corners = [end, (base[0] + across[0], base[1] + across[1]), (base[0] - across[0], base[1] - across[1])]
    pdf.polygon([view.at(*corner) for corner in corners], style="F")


def label(
    pdf: FPDF, view: View, where: tuple[float, float], text: str, size: float, style: str = "", ink: Colour = BLACK
) -> None:
    """Text centred on a board point, scaled with the board; left out off this page or too small to read."""
    if not view.shows(*where) or size * view.scale < SMALLEST_TEXT:
        return
    pdf.set_font(FONT, style, size * view.scale)
    pdf.set_text_color(*ink)
    x, y = view.at(*where)
    centred(pdf, text, x, y + size * view.scale * 0.35 * 0.35)


# ----- the pages ----------------------------------------------------------------------------------


def tile_grid(rings: Rings, paper: str) -> tuple[int, int, float, float]:
    """Columns and rows of tiles, and each tile's step across and down the board (mm)."""
    width, height = PAPERS[paper]
    step_x = width - 2 * PAGE_MARGIN - OVERLAP
    step_y = height - 2 * PAGE_MARGIN - OVERLAP
    columns = math.ceil((rings.size - OVERLAP) / step_x)
    rows = math.ceil((rings.size - OVERLAP) / step_y)
    return columns, rows, step_x, step_y


def tile_name(row: int, column: int) -> str:
    """`B3`: the row's letter, the column's number (from 1).

    >>> tile_name(0, 0), tile_name(1, 2)
    ('A1', 'B3')
    """
    return f"{chr(ord('A') + row)}{column + 1}"


def tiles(rings: Rings, paper: str) -> Iterator[tuple[int, int, View]]:
    """Each tile's row, column and view of the board, row by row; the board centred on them all."""
    columns, rows, step_x, step_y = tile_grid(rings, paper)
    width, height = PAPERS[paper]
    shift_x = (columns * step_x + OVERLAP - rings.size) / 2
    shift_y = (rows * step_y + OVERLAP - rings.size) / 2
    for row in range(rows):
        for column in range(columns):
            left, top = column * step_x - shift_x, row * step_y - shift_y
            shown = (left, top, left + width - 2 * PAGE_MARGIN, top + height - 2 * PAGE_MARGIN)
            yield row, column, View(1.0, (PAGE_MARGIN - left, PAGE_MARGIN - top), shown)


def render_board(board: Board, card: tuple[float, float], paper: str) -> bytes:
    """The board as a PDF: the map of the tiles, then every tile at full size.

    >>> from box.games import load_deck
    >>> pdf = render_board(load_deck("deck-of-death").board, (63.0, 88.0), "a4")
    >>> pdf.count(b"/Type /Page\\n")
    25
    """
    rings = Rings(board, card)
    pdf = new_document()
    pdf.set_title("Board: print and play")
    width, height = PAPERS[paper]
    columns, rows, _, _ = tile_grid(rings, paper)
    draw_map(pdf, rings, paper)
    for row, column, view in tiles(rings, paper):
        pdf.add_page(format=(width, height))
        left, top = PAGE_MARGIN, PAGE_MARGIN
        area_w, area_h = width - 2 * PAGE_MARGIN, height - 2 * PAGE_MARGIN
        with pdf.rect_clip(left, top, area_w, area_h):
            draw_board(pdf, rings, view)
        overlap_marks(pdf, paper, row, column, columns, rows)
        pdf.set_font(FONT, "B", 7)
        pdf.set_text_color(*GREY)
        where = f"row {chr(ord('A') + row)} of {rows}, column {column + 1} of {columns}"
        pdf.text(left, top - 2.5, printable(f"Tile {tile_name(row, column)} · {where} · full size"))
    return bytes(pdf.output())


def overlap_marks(pdf: FPDF, paper: str, row: int, column: int, columns: int, rows: int) -> None:
    """The tile's frame, its strips shared with the next tiles (dashed), and the crosses to align."""
    width, height = PAPERS[paper]
    left, top = PAGE_MARGIN, PAGE_MARGIN
    right, bottom = width - PAGE_MARGIN, height - PAGE_MARGIN
    pdf.set_draw_color(*GREY)
    pdf.set_line_width(0.2)
    pdf.rect(left, top, right - left, bottom - top)
    pdf.set_font(FONT, size=6)
    pdf.set_text_color(*GREY)
    pdf.set_dash_pattern(dash=2, gap=1.5)
    if column + 1 < columns:
        pdf.line(right - OVERLAP, top, right - OVERLAP, bottom)
    if row + 1 < rows:
        pdf.line(left, bottom - OVERLAP, right, bottom - OVERLAP)
    pdf.set_dash_pattern()
    if column + 1 < columns:
        pdf.text(right - OVERLAP + 1, bottom + 3, f"{tile_name(row, column + 1)} goes over this strip")
    if row + 1 < rows:
        pdf.text(left, bottom + 6, f"{tile_name(row + 1, column)} goes over the strip below the dashes")
    pdf.set_draw_color(*BLACK)
    for fraction in (0.3, 0.7):
        y = top + (bottom - top) * fraction
        if column > 0:
            cross(pdf, left + OVERLAP / 2, y)
        if column + 1 < columns:
            cross(pdf, right - OVERLAP / 2, y)
        x = left + (right - left) * fraction
        if row > 0:
            cross(pdf, x, top + OVERLAP / 2)
        if row + 1 < rows:
            cross(pdf, x, bottom - OVERLAP / 2)


def cross(pdf: FPDF, x: float, y: float, arm: float = 3.5) -> None:
    """A registration cross with a ring: the same board point on two tiles."""
    pdf.set_line_width(0.25)
    pdf.line(x - arm, y, x + arm, y)
    pdf.line(x, y - arm, x, y + arm)
    pdf.circle(x, y, arm / 2)


def draw_map(pdf: FPDF, rings: Rings, paper: str) -> None:
    """The first page: the whole board small, the tiles drawn over it with their names, how to build it."""
    width, height = PAPERS[paper]
    pdf.add_page(format=(width, height))
    columns, rows, step_x, step_y = tile_grid(rings, paper)
    extent_w, extent_h = columns * step_x + OVERLAP, rows * step_y + OVERLAP
    room = width - 2 * PAGE_MARGIN - 10
    scale = min(room / extent_w, (height * 0.62) / extent_h)
    left = (width - extent_w * scale) / 2
    top = 34.0
    shift_x, shift_y = (extent_w - rings.size) / 2, (extent_h - rings.size) / 2
    view = View(scale, (left + shift_x * scale, top + shift_y * scale), (0, 0, rings.size, rings.size))
    pdf.set_font(FONT, "B", 14)
    pdf.set_text_color(*BLACK)
    centred(pdf, "The board: map of the tiles", width / 2, 16)
    pdf.set_font(FONT, size=8)
    pdf.set_text_color(*GREY)
    size = f"{rings.size / 10:.0f} cm across"
    centred(
        pdf, f"{columns * rows} tiles, {rows} rows (A-{chr(ord('A') + rows - 1)}) of {columns}; {size}", width / 2, 23
    )
    draw_board(pdf, rings, view)
    pdf.set_line_width(0.3)
    for row in range(rows):
        for column in range(columns):
            x, y = left + column * step_x * scale, top + row * step_y * scale
            pdf.set_draw_color(*ORANGE)
            pdf.rect(x, y, (step_x + OVERLAP) * scale, (step_y + OVERLAP) * scale)
            pdf.set_font(FONT, "B", 10)
            pdf.set_text_color(*ORANGE)
            pdf.text(x + 1.5, y + 5, tile_name(row, column))
    steps = (
        "1. Print every page at 100 % (no 'fit to page'); the first tile's frame should measure "
        f"{width - 2 * PAGE_MARGIN:.0f} x {height - 2 * PAGE_MARGIN:.0f} mm.",
        "2. Trim each tile's margin on its left and top, except the tiles of column 1 (left) and row A (top).",
        "3. Lay each tile over its neighbours' dashed strips so the crosses meet; tape from behind.",
        "4. The spaces are named as the box names them: the outer ring 0, 1, 2 ... clockwise, the circle Inner 0-9.",
    )
    pdf.set_font(FONT, size=7.5)
    pdf.set_text_color(*BLACK)
    baseline = top + extent_h * scale + 9
    for step in steps:
        pdf.text(PAGE_MARGIN + 4, baseline, printable(step))
        baseline += 4.5
    pdf.set_draw_color(*LIGHT)
