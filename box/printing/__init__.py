"""Print and play: a game's cards and the Deck of Death board as PDF pages (`gravebox print`).

`order` is the printed order, which card enrolment follows too (it imports no PDF library);
`layout` places cards on sheets with crop marks and draws text; `cards` draws each side of a
card as its game shows it; `board` draws the board to scale as tiles to assemble. The PDF
library (fpdf2, the `print` extra) is imported by `layout` only, when a PDF is made.
"""
