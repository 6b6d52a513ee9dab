"""The Deck of Death board to scale, as pieces to cut out and lay on the table, with a map.

The board is what its file says (box/games/deck_of_death/cards.py reads it): the outer ring's
spaces numbered clockwise from the top, Start among them, each arrow space saying which inner
space it leads to, and the inner circle's ten spaces, each named as the box names it (`7` on the
outer ring, `Inner 3` inside). Every space holds a card, so a space is a card's size and a little
more: 36 outer spaces make a ring about a metre across. Only the rings are printed, each cut into
pieces of a few spaces that fill a page: laid in a circle in order, the outer pieces make the
ring, the inner ones the circle in its middle; between them is the table. The first page is the
map: the whole board small, its pieces named, the arrows routed round the inner circle.

>>> from box.games.deck_of_death.cards import parse_board
>>> rings = Rings(parse_board("outer = 36\\n[arrows]\\n3 = 0\\n9 = 0\\n15 = 0\\n21 = 0\\n27 = 0\\n", "b"), (63.0, 88.0))
>>> round(rings.outer_in), round(rings.size), [(piece.name, piece.count) for piece in pieces(rings, "a4")][::6]
(390, 991, [('Outer 1', 3), ('Outer 7', 3), ('Inner 1', 2)])
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from box.games.deck_of_death.cards import Board
from box.printing.layout import (
    BLACK,
    FONT,
    GREY,
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
PAGE_MARGIN = 8.0  # mm of a page left unprinted (what a printer cannot reach)
HEADING_ROOM = 10.0  # mm at a page's top for its heading
CUT_MARGIN = 2.0  # mm of paper kept round a piece's spaces, inside its cutting line
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
    """Board millimetres onto a page: page = offset + scale * board, then turned `turn` radians
    anticlockwise round `pivot` (a piece of the ring lies level); `shown` the board's part on it."""

    scale: float
    offset: tuple[float, float]
    shown: tuple[float, float, float, float]  # left, top, right, bottom in board mm
    turn: float = 0.0
    pivot: tuple[float, float] = (0.0, 0.0)

    def at(self, x: float, y: float) -> tuple[float, float]:
        x, y = self.offset[0] + self.scale * x, self.offset[1] + self.scale * y
        if not self.turn:
            return x, y
        dx, dy, cos, sin = x - self.pivot[0], y - self.pivot[1], math.cos(self.turn), math.sin(self.turn)
        return self.pivot[0] + dx * cos + dy * sin, self.pivot[1] - dx * sin + dy * cos

    def shows(self, x: float, y: float) -> bool:
        left, top, right, bottom = self.shown
        return left <= x <= right and top <= y <= bottom


def space_name(inner: bool, space: int) -> str:
    """A space as the box's screens name it: `7` on the outer ring, `Inner 3` in the circle."""
    return f"Inner {space}" if inner else str(space)


def draw_board(pdf: FPDF, rings: Rings, view: View, piece: Piece | None = None) -> None:
    """The board (or one piece of it): the rings' spaces, Start, every space's name; the whole board
    has the arrows to the inner circle and the words in its middle."""
    board = rings.board
    pdf.set_line_width(0.5 * view.scale)
    for inner, count in ((False, board.outer), (True, board.inner)):
        for space in range(count):
            if piece is not None and (piece.inner != inner or space not in piece.spaces):
                continue
            fill = WHITE
            if not inner and space == board.start:
                fill = START_FILL
            elif not inner and board.arrow_target(space) is not None:
                fill = ARROW_FILL
            pdf.set_fill_color(*fill)
            pdf.set_draw_color(*BLACK)
            pdf.polygon([view.at(*point) for point in rings.sector(inner, space)], style="DF")
    if piece is None:
        for arrow, target in board.arrows:
            draw_arrow(pdf, rings, view, arrow, target)
    for space in range(board.outer):
        if piece is None or (not piece.inner and space in piece.spaces):
            label_outer(pdf, rings, view, space)
    for space in range(board.inner):
        if piece is None or (piece.inner and space in piece.spaces):
            angle = rings.angle(True, space)
            label(pdf, view, rings.point(rings.inner_out - 12, angle), space_name(True, space), 13, "B")
    if piece is not None:
        return
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
        label(pdf, view, middle, f"to {space_name(True, target)}", 10, "B", ORANGE, drop=6)


def arrow_path(rings: Rings, arrow: int, target: int) -> list[tuple[float, float]]:
    """An arrow's way from an arrow space's inner edge to the inner space it leads to: in towards
    the circle, round it the short way (never across it and its names), then in to the space."""
    start, end = rings.angle(False, arrow), rings.angle(True, target)
    turn = (end - start + math.pi) % (2 * math.pi) - math.pi
    road = rings.inner_out + 14
    steps = max(1, round(abs(turn) / 0.05))
    path = [rings.point(rings.outer_in - 3, start)]
    path += [rings.point(road, start + turn * n / steps) for n in range(steps + 1)]
    return [*path, rings.point(rings.inner_out + 3, end)]


def draw_arrow(pdf: FPDF, rings: Rings, view: View, arrow: int, target: int) -> None:
    """An arrow along `arrow_path`, its head at the inner space."""
    path = arrow_path(rings, arrow, target)
    *way, last, end = path
    length = math.dist(last, end)
    along = ((end[0] - last[0]) / length, (end[1] - last[1]) / length)
    head, wide = min(9.0, length), 4.5
    base = (end[0] - along[0] * head, end[1] - along[1] * head)
    across = (-along[1] * wide, along[0] * wide)
    pdf.set_draw_color(*ORANGE)
    pdf.set_fill_color(*ORANGE)
    pdf.set_line_width(1.4 * view.scale)
    pdf.polyline([view.at(*point) for point in (*way, last, base)])
    corners = [end, (base[0] + across[0], base[1] + across[1]), (base[0] - across[0], base[1] - across[1])]
    pdf.polygon([view.at(*corner) for corner in corners], style="F")


def label(
    pdf: FPDF,
    view: View,
    where: tuple[float, float],
    text: str,
    size: float,
    style: str = "",
    ink: Colour = BLACK,
    drop: float = 0.0,
) -> None:
    """Text centred on a board point (or `drop` board mm below it on the page), upright, scaled with
    the board; left out off this page or too small to read."""
    if not view.shows(*where) or size * view.scale < SMALLEST_TEXT:
        return
    pdf.set_font(FONT, style, size * view.scale)
    pdf.set_text_color(*ink)
    x, y = view.at(*where)
    centred(pdf, text, x, y + (drop + size * 0.35 * 0.35) * view.scale)


# ----- the pages ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Piece:
    """A piece of a ring to cut out: `count` spaces from `first`, clockwise."""

    inner: bool
    first: int
    count: int
    name: str

    @property
    def spaces(self) -> range:
        return range(self.first, self.first + self.count)


def _room(paper: str) -> tuple[float, float]:
    """The width and height a landscape page leaves for a piece (mm)."""
    width, height = PAPERS[paper]
    return height - 2 * PAGE_MARGIN, width - 2 * PAGE_MARGIN - HEADING_ROOM


def _extent(rings: Rings, inner: bool, count: int) -> tuple[float, float]:
    """The width and height of a piece of `count` spaces lying level (its middle at the top), mm."""
    low, high = (rings.inner_in, rings.inner_out) if inner else (rings.outer_in, rings.outer_out)
    low, high = low - CUT_MARGIN, high + CUT_MARGIN
    half = math.pi * count / (rings.board.inner if inner else rings.board.outer)
    if half >= math.pi / 2:
        return 2 * high, high - low * math.cos(half) if half < math.pi else 2 * high
    return 2 * high * math.sin(half), high - low * math.cos(half)


def pieces(rings: Rings, paper: str) -> list[Piece]:
    """Each ring cut into pieces of as many spaces as a page holds: the outer ring's from space 0,
    then the inner circle's."""
    found: list[Piece] = []
    room_w, room_h = _room(paper)
    for inner, total, word in ((False, rings.board.outer, "Outer"), (True, rings.board.inner, "Inner")):
        most = 1
        while most < total and all(a <= b for a, b in zip(_extent(rings, inner, most + 1), (room_w, room_h))):
            most += 1
        count = math.ceil(total / most)
        size = math.ceil(total / count)  # pieces alike in size: 36 spaces in 12 of 3, not 11 of 3 and one of 3
        for number, first in enumerate(range(0, total, size), start=1):
            found.append(Piece(inner, first, min(size, total - first), f"{word} {number}"))
    return found


def piece_view(rings: Rings, piece: Piece, paper: str) -> View:
    """The board turned so that `piece` lies level in the middle of a landscape page, at full size."""
    width, height = PAPERS[paper]
    total = rings.board.inner if piece.inner else rings.board.outer
    middle = 2 * math.pi * (piece.first + (piece.count - 1) / 2) / total
    low, high = (rings.inner_in, rings.inner_out) if piece.inner else (rings.outer_in, rings.outer_out)
    half = math.pi * piece.count / total
    across = (high + CUT_MARGIN + (low - CUT_MARGIN) * math.cos(min(half, math.pi / 2))) / 2
    pivot = (height / 2, PAGE_MARGIN + HEADING_ROOM + (width - 2 * PAGE_MARGIN - HEADING_ROOM) / 2)
    x, y = rings.point(across, middle)
    return View(1.0, (pivot[0] - x, pivot[1] - y), (0, 0, rings.size, rings.size), middle, pivot)


def cut_line(pdf: FPDF, rings: Rings, view: View, piece: Piece) -> None:
    """The line to cut a piece out along: round its spaces, CUT_MARGIN clear of them."""
    low, high = (rings.inner_in, rings.inner_out) if piece.inner else (rings.outer_in, rings.outer_out)
    total = rings.board.inner if piece.inner else rings.board.outer
    start, end = 2 * math.pi * (piece.first - 0.5) / total, 2 * math.pi * (piece.first + piece.count - 0.5) / total
    steps = 12 * piece.count
    arc = [start + (end - start) * n / steps for n in range(steps + 1)]
    outline = [rings.point(high + CUT_MARGIN, a) for a in arc] + [rings.point(low - CUT_MARGIN, a) for a in reversed(arc)]
    pdf.set_draw_color(*GREY)
    pdf.set_line_width(0.3)
    pdf.set_dash_pattern(dash=2, gap=1.5)
    pdf.polygon([view.at(*point) for point in outline])
    pdf.set_dash_pattern()


def render_board(board: Board, card: tuple[float, float], paper: str) -> bytes:
    """The board as a PDF: the map, then every piece of the rings at full size, a page each.

    >>> from box.games import load_deck
    >>> pdf = render_board(load_deck("deck-of-death").board, (63.0, 88.0), "a4")
    >>> pdf.count(b"/Type /Page\\n")
    18
    """
    rings = Rings(board, card)
    pdf = new_document()
    pdf.set_title("Board: print and play")
    width, height = PAPERS[paper]
    cut = pieces(rings, paper)
    draw_map(pdf, rings, paper, cut)
    for piece in cut:
        pdf.add_page(orientation="L", format=(width, height))
        view = piece_view(rings, piece, paper)
        draw_board(pdf, rings, view, piece)
        cut_line(pdf, rings, view, piece)
        pdf.set_font(FONT, "B", 8)
        pdf.set_text_color(*GREY)
        ring = "the inner circle" if piece.inner else "the outer ring"
        spaces = [space_name(piece.inner, space) for space in piece.spaces]
        said = f"{piece.name} of {len(cut)} pieces: {ring}, spaces {spaces[0]} to {spaces[-1]}, full size"
        pdf.text(PAGE_MARGIN, PAGE_MARGIN + 4, printable(f"{said} · cut along the dashes"))
    return bytes(pdf.output())


def draw_map(pdf: FPDF, rings: Rings, paper: str, cut: list[Piece]) -> None:
    """The first page: the whole board small, its pieces named on it, how to lay them."""
    width, height = PAPERS[paper]
    pdf.add_page(format=(width, height))
    scale = min(width - 2 * PAGE_MARGIN - 10, height * 0.62) / rings.size
    left, top = (width - rings.size * scale) / 2, 30.0
    view = View(scale, (left, top), (0, 0, rings.size, rings.size))
    pdf.set_font(FONT, "B", 14)
    pdf.set_text_color(*BLACK)
    centred(pdf, "The board: map of its pieces", width / 2, 16)
    pdf.set_font(FONT, size=8)
    pdf.set_text_color(*GREY)
    outer = sum(not piece.inner for piece in cut)
    centred(
        pdf,
        f"{len(cut)} pieces: the outer ring in {outer}, the inner circle in {len(cut) - outer}; "
        f"{rings.size / 10:.0f} cm across as laid out",
        width / 2,
        23,
    )
    draw_board(pdf, rings, view)
    pdf.set_text_color(*ORANGE)
    pdf.set_font(FONT, "B", 6)
    for piece in cut:
        total = rings.board.inner if piece.inner else rings.board.outer
        low, high = (rings.inner_in, rings.inner_out) if piece.inner else (rings.outer_in, rings.outer_out)
        edge = 2 * math.pi * (piece.first - 0.5) / total
        pdf.set_draw_color(*ORANGE)
        pdf.set_line_width(0.4)
        pdf.line(*view.at(*rings.point(low - 4, edge)), *view.at(*rings.point(high + 4, edge)))
        middle = 2 * math.pi * (piece.first + (piece.count - 1) / 2) / total
        x, y = view.at(*rings.point(high + 6 if not piece.inner else low - 6, middle))
        centred(pdf, piece.name.replace("Outer ", "O").replace("Inner ", "I"), x, y + 1)
    steps = (
        "1. Print every page at 100 % (no 'fit to page'): a space is a card's size.",
        "2. Cut each piece out along its dashed line.",
        f"3. Lay the outer ring's pieces in a circle in order, O1 at the top (Start), O2 clockwise after it ... O{outer}.",
        "4. Lay the inner circle's pieces I1 ... in the middle the same way; the space between is the table.",
        "5. The spaces are named as the box names them: the outer ring 0, 1, 2 ... clockwise, the circle Inner 0-9.",
        "   An arrow space says which inner space it leads to (on the map, its arrow runs round the circle).",
    )
    pdf.set_font(FONT, size=7.5)
    pdf.set_text_color(*BLACK)
    baseline = top + rings.size * scale + 9
    for step in steps:
        pdf.text(PAGE_MARGIN + 4, baseline, printable(step))
        baseline += 4.5
