"""The duplex calibration sheet: how far a printer shifts the backs, read off the paper in mm.

The front has three targets, each a scale across and a scale down beside it; the back a long
cross behind each target's zero (the long-edge flip, moved by the offset in use). Held against the light, front
towards you, the back's upright line crosses the scale across at the X to pass, its level line
the scale down at the Y: `gravebox print GAME --offset=X,Y`. Print the sheet again with that
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
SCALE_GAP = 6.0  # mm from the scale across to the scale down
TICK = 0.5  # mm between ticks
MOST_OFFSET = 10.0  # mm: a larger offset is a misprint, not a printer's shift


def targets(paper: str) -> list[tuple[float, float]]:
    """Where the targets' zeros sit on the front: the middle, and above and below it."""
    width, height = PAPERS[paper]
    return [(width / 2, height * fraction) for fraction in (0.28, 0.5, 0.78)]


def scales(pdf: FPDF, x: float, y: float) -> None:
    """A scale across through (x, y), ticks above it, and a scale down beside it, its zero level
    with y; each labelled mark names the offset it stands for (every 2 mm; ticks every 0.5 mm)."""
    pdf.set_draw_color(*BLACK)
    pdf.set_text_color(*BLACK)
    pdf.set_font(FONT, size=4)
    down_x = x + REACH + SCALE_GAP
    steps = round(REACH / TICK)
    pdf.set_line_width(0.1)
    for step in range(-steps, steps + 1):
        at = step * TICK
        length = 3.0 if step % 4 == 0 else 2.0 if step % 2 == 0 else 1.2
        pdf.line(x + at, y - length, x + at, y)  # across: ticks above its line
        pdf.line(down_x, y + at, down_x + length, y + at)  # down: ticks right of its line
        if step % 4 == 0:
            value = f"{0.0 - at:g}"  # a back seen 2 mm right of the zero wants moving 2 mm left: -2
            centred(pdf, value, x + at, y - 4)
            pdf.text(down_x + 3.6, y + at + 0.5, value)
    pdf.set_line_width(0.2)
    pdf.line(x - REACH, y, x + REACH, y)
    pdf.line(down_x, y - REACH, down_x, y + REACH)
    pdf.set_font(FONT, "B", 6)
    centred(pdf, "X", x, y + 3.5)
    centred(pdf, "Y", down_x, y + REACH + 3)


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
        "Print the cards with those numbers: gravebox print GAME -o FILE.pdf --offset=X,Y",
        f"This sheet: --offset={offset[0]:g},{offset[1]:g}. With the right offset the crosses sit on the zeros.",
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
        pdf.line(back_x, back_y - 2 * REACH, back_x, back_y + 2 * REACH)  # crosses the scale across
        pdf.line(back_x - 2 * REACH, back_y, back_x + 3 * REACH + SCALE_GAP, back_y)  # and the scale down
    pdf.set_font(FONT, size=8)
    pdf.set_text_color(*GREY)
    centred(pdf, "Duplex calibration: the back (the crosses show through to the front's scales)", width / 2, 20)
    return bytes(pdf.output())
