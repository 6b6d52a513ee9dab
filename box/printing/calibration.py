"""The duplex calibration sheet: how far a printer shifts the backs, read off the paper in mm.

The front has three targets, each a scale across and a scale down; the back a cross behind each
target's zero (the long-edge flip, moved by the offset in use). Held against the light, front
towards you, the back's upright line crosses the scale across at the X to pass, its level line
the scale down at the Y: `gravebox print GAME --offset X,Y`. Print the sheet again with that
offset: the crosses then sit on the zeros.

>>> pdf = render_calibration("a4", (0.0, 0.0))
>>> pdf[:5], pdf.count(b"/Type /Page\\n")
(b'%PDF-', 2)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from box.printing.layout import BLACK, FONT, GREY, ORANGE, PAPERS, centred, new_document

if TYPE_CHECKING:
    from fpdf import FPDF

REACH = 5  # mm each way a scale reads
TICK = 0.5  # mm between ticks
MOST_OFFSET = 10.0  # mm: a larger offset is a misprint, not a printer's shift


def targets(paper: str) -> list[tuple[float, float]]:
    """Where the targets' zeros sit on the front: the middle, and above and below it."""
    width, height = PAPERS[paper]
    return [(width / 2, height * fraction) for fraction in (0.28, 0.5, 0.78)]


def scales(pdf: FPDF, x: float, y: float) -> None:
    """A scale across and a scale down crossing at (x, y); each mark names the offset it stands for."""
    pdf.set_draw_color(*BLACK)
    pdf.set_text_color(*BLACK)
    pdf.set_font(FONT, size=4.5)
    steps = round(REACH / TICK)
    for step in range(-steps, steps + 1):
        at = step * TICK
        whole = step % 2 == 0
        length = 3.0 if whole else 1.6
        pdf.set_line_width(0.12)
        pdf.line(x + at, y - length, x + at, y)  # the scale across: ticks above its line
        pdf.line(x - length, y + at, x, y + at)  # the scale down: ticks left of its line
        if whole and step:
            value = f"{-at:+.0f}"  # a back seen 2 mm right of the zero wants moving 2 mm left: -2
            centred(pdf, value, x + at, y - 4)
            pdf.text(x - 4.2 - pdf.get_string_width(value), y + at + 0.6, value)
    pdf.set_line_width(0.2)
    pdf.line(x - REACH, y, x + REACH, y)
    pdf.line(x, y - REACH, x, y + REACH)
    pdf.set_font(FONT, "B", 5)
    centred(pdf, "X", x + REACH + 2, y + 0.8)
    centred(pdf, "Y", x + 0.2, y + REACH + 3)


def render_calibration(paper: str, offset: tuple[float, float]) -> bytes:
    """The two pages of the calibration sheet for `paper`, the backs moved by `offset` (X right, Y down)."""
    width, height = PAPERS[paper]
    pdf = new_document()
    pdf.set_title("Duplex calibration")
    pdf.add_page(format=(width, height))
    pdf.set_font(FONT, "B", 13)
    pdf.set_text_color(*BLACK)
    centred(pdf, "Duplex calibration", width / 2, 20)
    pdf.set_font(FONT, size=8)
    steps = (
        "Print both pages on one sheet, both sides, flipped on the long edge, at 100 % (as you print the cards).",
        "Hold the sheet against a light, this side towards you: each cross from the back shows through.",
        "Its upright line crosses the scale across at X, its level line the scale down at Y (in mm).",
        "Print the cards with those numbers: gravebox print GAME -o FILE.pdf --offset X,Y",
        f"This sheet: --offset {offset[0]:g},{offset[1]:g}. With the right offset the crosses sit on the zeros.",
    )
    for number, step in enumerate(steps):
        centred(pdf, step, width / 2, 30 + number * 4.5)
    for x, y in targets(paper):
        scales(pdf, x, y)
    pdf.add_page(format=(width, height))
    pdf.set_draw_color(*ORANGE)
    pdf.set_line_width(0.15)
    for x, y in targets(paper):
        back_x, back_y = width - x - offset[0], y + offset[1]
        pdf.line(back_x, back_y - 2 * REACH, back_x, back_y + 2 * REACH)
        pdf.line(back_x - 2 * REACH, back_y, back_x + 2 * REACH, back_y)
    pdf.set_font(FONT, size=8)
    pdf.set_text_color(*GREY)
    centred(pdf, "Duplex calibration: the back (the crosses show through to the front's scales)", width / 2, 20)
    return bytes(pdf.output())
