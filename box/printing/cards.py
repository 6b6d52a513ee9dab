"""A game's cards as PDF pages: each side shows what the game shows on that side, nothing it hides.

Every game's deck prints through the same sheets (box/printing/layout.py) in the printed order
(box/decks/order.py); a game's `Design` draws its two sides:

- Deadlines: the name side (special cards framed in black), and the date side: born, died,
  the life span and, on a special card, the cause of death with its orange words;
- Dead Set: the name face, and the age back;
- Dead Fellas: the face (a Mook's or an item's hits as bullets, an item's slot, an action card's
  text), and the back of its deck, Mook or Mafia, which names no card (a recruit is secret);
- Deck of Death: the face (colour, tier or white effect, title, text), and the deck's back.

Each card carries its id and its place (`Sheet 3, card 5`, as enrolment shows it) in small print
on the side that gives nothing away; the NFC sticker's spot is marked on the side with room for it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, fields, is_dataclass
from typing import TYPE_CHECKING, Any

from box.decks.codec import Deck
from box.decks.order import place_label, printed_order
from box.errors import DeckError
from box.games import TITLES
from box.games.dead_fellas import cards as dead_fellas
from box.games.dead_set import cards as dead_set
from box.games.deadlines import cards as deadlines
from box.games.deck_of_death import cards as deck_of_death
from box.printing.layout import (
    BLACK,
    FONT,
    GREY,
    MARK_GAP,
    ORANGE,
    SAFE_EDGE,
    WHITE,
    CardSheet,
    Colour,
    Run,
    block,
    centred,
    crop_marks,
    draw_runs,
    fitted,
    new_document,
    nfc_spot,
    outline,
    printable,
    unprintable,
    wrap,
    wrap_runs,
)

if TYPE_CHECKING:
    from fpdf import FPDF

INSET = 3.5  # mm kept clear inside a card's edge (a duplex print may shift the back a little)
BAND = 8.0  # mm: the coloured band at the top of a side
LEADING = 0.45  # mm of line height per point of font size
DARK: Colour = (45, 45, 45)


@dataclass(frozen=True)
class Printed:
    """One card as it is printed: its id, name, the game's card data and its place in the print."""

    card_id: str
    name: str
    card: Any
    index: int  # in the printed order, from 0

    @property
    def small_print(self) -> str:
        return f"{self.card_id} · {place_label(self.index)}"


@dataclass(frozen=True)
class Area:
    """A card's rectangle on the page, in mm, and how far its background runs past it (the bleed)."""

    x: float
    y: float
    width: float
    height: float
    bleed: float = 0.0

    @property
    def middle(self) -> float:
        return self.x + self.width / 2

    @property
    def text_width(self) -> float:
        return self.width - 2 * INSET


Side = Callable[["FPDF", Area, Printed, str], None]
"""Draws one side of a card in its area; the last argument is the game's title."""


@dataclass(frozen=True)
class Design:
    """How a game's cards look: its front (the side the game shows first) and its back."""

    front: Side
    back: Side
    front_words: str  # what the pages of fronts hold, for their heading
    back_words: str


# ----- pieces every design uses -------------------------------------------------------------------


def band(pdf: FPDF, area: Area, fill: Colour, text: str, ink: Colour = WHITE) -> None:
    """The band across the top of a side, with its words."""
    pdf.set_fill_color(*fill)
    pdf.rect(area.x + INSET, area.y + INSET, area.text_width, BAND, style="F")
    if fill == WHITE:
        pdf.set_draw_color(*BLACK)
        pdf.set_line_width(0.3)
        pdf.rect(area.x + INSET, area.y + INSET, area.text_width, BAND)
    pdf.set_font(FONT, "B", 7)
    pdf.set_text_color(*ink)
    centred(pdf, text.upper(), area.middle, area.y + INSET + BAND / 2 + 1.2)


def frame(pdf: FPDF, area: Area, colour: Colour, width: float = 1.6) -> None:
    """A thick border just inside the safe area."""
    pdf.set_draw_color(*colour)
    pdf.set_line_width(width)
    half = width / 2
    pdf.rect(area.x + INSET - half, area.y + INSET - half, area.text_width + width, area.height - 2 * INSET + width)


def small_print(pdf: FPDF, area: Area, printed: Printed) -> None:
    """The card's id and place at the foot of the side."""
    pdf.set_font(FONT, size=5)
    pdf.set_text_color(*GREY)
    centred(pdf, printed.small_print, area.middle, area.y + area.height - INSET - 0.8)


def big_name(pdf: FPDF, area: Area, text: str, top: float, size: float = 16, most_lines: int = 3) -> float:
    """A name in bold, as large as fits in `most_lines` lines; answers the last baseline."""
    lines = fitted(pdf, text, area.text_width - 2, most_lines, size, smallest=8, style="B")
    pdf.set_text_color(*BLACK)
    return block(pdf, lines, area.middle, top, pdf.font_size_pt * LEADING)


def paragraph(pdf: FPDF, area: Area, text: str, top: float, size: float, most_lines: int) -> float:
    """Body text, centred, shrunk to fit `most_lines` lines; answers the last baseline."""
    lines = fitted(pdf, text, area.text_width - 2, most_lines, size, smallest=5.5)
    pdf.set_text_color(*BLACK)
    return block(pdf, lines, area.middle, top, pdf.font_size_pt * LEADING)


def labelled(pdf: FPDF, area: Area, label: str, value: str, top: float, size: float = 12) -> None:
    """A small grey label with its value under it in bold."""
    pdf.set_font(FONT, size=5.5)
    pdf.set_text_color(*GREY)
    centred(pdf, label.upper(), area.middle, top)
    pdf.set_font(FONT, "B", size)
    pdf.set_text_color(*BLACK)
    centred(pdf, value, area.middle, top + size * LEADING + 0.4)


def deck_back(pdf: FPDF, area: Area, colour: Colour, word: str, title: str) -> None:
    """A back that names no card: the deck's colour from the edge (and the bleed) to the safe area,
    the deck's word, the game's title, the sticker's spot: a cut a little off shows no white line."""
    pdf.set_fill_color(*colour)
    bleed = area.bleed
    pdf.rect(area.x - bleed, area.y - bleed, area.width + 2 * bleed, area.height + 2 * bleed, style="F")
    pdf.set_fill_color(*WHITE)
    pdf.rect(area.x + INSET, area.y + INSET, area.text_width, area.height - 2 * INSET, style="F")
    pdf.set_text_color(*colour)
    lines = fitted(pdf, word.upper(), area.text_width - 6, 2, 20, smallest=10, style="B")
    block(pdf, lines, area.middle, area.y + 20, pdf.font_size_pt * LEADING)
    pdf.set_font(FONT, "B", 7)
    pdf.set_text_color(*GREY)
    centred(pdf, title.upper(), area.middle, area.y + 32)
    nfc_spot(pdf, area.middle, area.y + area.height - INSET - 20)


# ----- Deadlines ----------------------------------------------------------------------------------


def _deadlines_band(pdf: FPDF, area: Area, person: deadlines.Person, title: str) -> None:
    if person.special:
        frame(pdf, area, BLACK)
        band(pdf, area, BLACK, f"{title} · special")
    else:
        band(pdf, area, DARK, title)


def deadlines_name_side(pdf: FPDF, area: Area, printed: Printed, title: str) -> None:
    """The name side: the name alone (a special card in its black frame), the sticker's spot."""
    person: deadlines.Person = printed.card
    _deadlines_band(pdf, area, person, title)
    big_name(pdf, area, printed.name, area.y + 24, size=17)
    nfc_spot(pdf, area.middle, area.y + area.height - INSET - 20)


def deadlines_date_side(pdf: FPDF, area: Area, printed: Printed, title: str) -> None:
    """The date side: born, died, the life span; a special card's cause of death, orange words in orange."""
    person: deadlines.Person = printed.card
    _deadlines_band(pdf, area, person, title)
    pdf.set_font(FONT, "B", 8)
    pdf.set_text_color(*BLACK)
    block(pdf, wrap(pdf, printed.name, area.text_width - 2)[:2], area.middle, area.y + INSET + BAND + 5, 3.6)
    top = area.y + 25
    for label, value in (("born", person.born), ("died", person.died), ("life span", person.lifespan)):
        labelled(pdf, area, label, str(value), top)
        top += 11.5
    if person.special:
        cause_of_death(pdf, area, person, top)
    small_print(pdf, area, printed)


def cause_of_death(pdf: FPDF, area: Area, person: deadlines.Person, top: float) -> None:
    """The cause with its orange words marked; keywords the cause does not spell out follow, in orange."""
    pdf.set_font(FONT, size=5.5)
    pdf.set_text_color(*GREY)
    centred(pdf, "CAUSE OF DEATH", area.middle, top)
    runs, others = orange_words(person.cause, person.keywords)
    pdf.set_font(FONT, "B", 8.5)
    baseline = top + 4
    for line in wrap_runs(pdf, runs, area.text_width - 2)[:3]:
        draw_runs(pdf, line, area.middle, baseline, BLACK, ORANGE)
        baseline += 3.8
    if others:
        pdf.set_font(FONT, size=6.5)
        for line in wrap_runs(pdf, [("also: ", False), (", ".join(others), True)], area.text_width - 2)[:2]:
            draw_runs(pdf, line, area.middle, baseline, GREY, ORANGE)
            baseline += 3


def orange_words(cause: str, keywords: tuple[str, ...]) -> tuple[list[Run], list[str]]:
    """The cause as runs, each keyword found at the start of a word marked; the keywords not found.

    >>> orange_words("aplastic anaemia from radiation", ("radiation", "anaemia", "radium"))
    ([('aplastic ', False), ('anaemia', True), (' from ', False), ('radiation', True)], ['radium'])
    """
    marked = [False] * len(cause)
    missing = []
    for keyword in keywords:
        found = False
        for match in re.finditer(rf"(?<!\w){re.escape(keyword)}", cause, re.IGNORECASE):
            marked[match.start() : match.end()] = [True] * (match.end() - match.start())
            found = True
        if not found:
            missing.append(keyword)
    runs: list[Run] = []
    for char, mark in zip(cause, marked):
        if runs and runs[-1][1] == mark:
            runs[-1] = (runs[-1][0] + char, mark)
        else:
            runs.append((char, mark))
    return runs, missing


# ----- Dead Set -----------------------------------------------------------------------------------


def dead_set_name_face(pdf: FPDF, area: Area, printed: Printed, title: str) -> None:
    """The face: the celebrity's name, the sticker's spot; never the age."""
    band(pdf, area, DARK, title)
    big_name(pdf, area, printed.name, area.y + 24, size=17)
    nfc_spot(pdf, area.middle, area.y + area.height - INSET - 20)


def dead_set_age_back(pdf: FPDF, area: Area, printed: Printed, title: str) -> None:
    """The back: the age at death, large, and whose it is."""
    band(pdf, area, DARK, title)
    pdf.set_font(FONT, size=6)
    pdf.set_text_color(*GREY)
    centred(pdf, "AGE AT DEATH", area.middle, area.y + 30)
    pdf.set_font(FONT, "B", 44)
    pdf.set_text_color(*BLACK)
    centred(pdf, str(printed.card), area.middle, area.y + 48)
    pdf.set_font(FONT, "B", 8)
    block(pdf, wrap(pdf, printed.name, area.text_width - 2)[:2], area.middle, area.y + 60, 3.6)
    small_print(pdf, area, printed)


# ----- Dead Fellas --------------------------------------------------------------------------------

FELLAS_COLOURS: dict[str | None, Colour] = {
    None: DARK,  # Mooks
    "weapon": (190, 30, 30),  # the rulebook: red for Weapons, blue for Disguises, green for Vehicles
    "disguise": (30, 80, 180),
    "vehicle": (30, 140, 60),
}
ACTION_COLOUR: Colour = (110, 50, 140)
SAYS_HITS = re.compile(r"(mook|weapon|disguise|vehicle) with \d+ hits?", re.IGNORECASE)
MAFIA_COLOUR: Colour = (120, 20, 20)


def dead_fellas_face(pdf: FPDF, area: Area, printed: Printed, title: str) -> None:
    """The face: the kind (an item's slot), the hits as bullets top left, the name, the text."""
    card: dead_fellas.Card = printed.card
    colour = ACTION_COLOUR if card.kind == "action" else FELLAS_COLOURS[card.slot]
    band(pdf, area, colour, card.slot or card.kind)
    top = area.y + INSET + BAND + 5
    if card.hits:
        pdf.set_fill_color(*colour)
        for bullet in range(card.hits):
            pdf.circle(area.x + INSET + 3 + bullet * 5.5, top, 2.2, style="F")
        pdf.set_font(FONT, "B", 7)
        pdf.set_text_color(*colour)
        pdf.text(
            area.x + INSET + 1 + card.hits * 5.5 + 1.5, top + 1.2, f"{card.hits} hit{'s' if card.hits > 1 else ''}"
        )
    last = big_name(pdf, area, dead_fellas.base_name(printed.name), area.y + 28, size=15)  # not "Boost 2"
    if card.text and not SAYS_HITS.fullmatch(card.text.strip()):  # "Mook with 1 hit": the bullets say it
        paragraph(pdf, area, card.text, max(last + 9, area.y + 50), 8.5, 7)
    small_print(pdf, area, printed)


def dead_fellas_back(pdf: FPDF, area: Area, printed: Printed, title: str) -> None:
    """The back of the Mook deck or of the Mafia deck: which card it is stays hidden."""
    card: dead_fellas.Card = printed.card
    if card.kind == "mook":
        deck_back(pdf, area, DARK, "Mook", title)
    else:
        deck_back(pdf, area, MAFIA_COLOUR, "Mafia", title)


# ----- Deck of Death ------------------------------------------------------------------------------

DEATH_COLOURS: dict[str, Colour] = {
    "blue": (40, 90, 200),
    "orange": ORANGE,
    "green": (40, 150, 70),
    "red": (200, 40, 40),
    "white": WHITE,
}
KINDS = {  # the rulebook's card types
    "blue": "persistent rule",
    "orange": "social",
    "green": "physical",
    "red": "chaos",
    "white": "rare chaos",
}


def deck_of_death_face(pdf: FPDF, area: Area, printed: Printed, title: str) -> None:
    """The face: the colour and tier (a white card's effect), the title, the text."""
    card: deck_of_death.Card = printed.card
    colour = DEATH_COLOURS[card.color]
    grade = f"tier {card.tier}" if card.tier is not None else (card.effect or "").replace("-", " ")
    band(pdf, area, colour, f"{card.color} · {grade}", ink=BLACK if card.color == "white" else WHITE)
    if card.color != "white":
        frame(pdf, area, colour, width=1.0)
    pdf.set_font(FONT, "", 6.5)
    pdf.set_text_color(*GREY)
    centred(pdf, KINDS[card.color], area.middle, area.y + INSET + BAND + 4.5)
    last = big_name(pdf, area, printed.name, area.y + 26, size=14)
    paragraph(pdf, area, card.text, max(last + 8, area.y + 42), 9, 9)
    small_print(pdf, area, printed)


def deck_of_death_back(pdf: FPDF, area: Area, printed: Printed, title: str) -> None:
    """The deck's back, the same for every card."""
    deck_back(pdf, area, BLACK, title, "")


DESIGNS: dict[str, Design] = {
    deadlines.NAME: Design(deadlines_name_side, deadlines_date_side, "name sides", "date sides"),
    dead_set.NAME: Design(dead_set_name_face, dead_set_age_back, "name faces", "age backs"),
    dead_fellas.NAME: Design(dead_fellas_face, dead_fellas_back, "faces", "backs"),
    deck_of_death.NAME: Design(deck_of_death_face, deck_of_death_back, "faces", "backs"),
}


# ----- the pages ----------------------------------------------------------------------------------


def printed_cards(deck: Deck) -> list[Printed]:
    """The deck's cards in the printed order."""
    return [
        Printed(card_id, deck.name_of(card_id), deck[card_id], index)
        for index, card_id in enumerate(printed_order(deck))
    ]


def pages_of(cards: list[Printed], per_page: int) -> Iterator[list[Printed]]:
    for start in range(0, len(cards), per_page):
        yield cards[start : start + per_page]


def render_deck(deck: Deck, sheet: CardSheet) -> bytes:
    """The deck as a PDF: duplex, a page of fronts then a page of backs per sheet; fold, one page each.
    DeckError names the first card with a letter the print font lacks.

    >>> from box.games import load_deck
    >>> pdf = render_deck(load_deck("dead-set"), CardSheet.make("a4", "poker", "duplex"))
    >>> pdf[:5], pdf.count(b"/Type /Page\\n")
    (b'%PDF-', 24)
    """
    design = DESIGNS[deck.game]
    title = TITLES.get(deck.game, deck.game)
    cards = printed_cards(deck)
    check_letters(deck, cards)
    pdf = new_document()
    pdf.set_title(f"{title}: print and play")
    groups = list(pages_of(cards, sheet.per_page))
    for number, group in enumerate(groups, start=1):
        if sheet.sides == "duplex":
            where = f"sheet {number}/{len(groups)}"
            page(pdf, sheet, f"{title} · {where} · {design.front_words}")
            for slot, printed in enumerate(group):
                draw_side(pdf, sheet, sheet.front(slot), design.front, printed, title)
            page(pdf, sheet, f"{title} · {where} · {design.back_words}", backs=True)
            for slot, printed in enumerate(group):
                draw_side(pdf, sheet, sheet.back(slot), design.back, printed, title)
        else:
            page(pdf, sheet, f"{title} · page {number}/{len(groups)} · fold")
            for slot, printed in enumerate(group):
                for corner, side in ((sheet.front(slot), design.front), (sheet.back(slot), design.back)):
                    draw_side(pdf, sheet, corner, side, printed, title)
    return bytes(pdf.output())


def draw_side(
    pdf: FPDF, sheet: CardSheet, corner: tuple[float, float], side: Side, printed: Printed, title: str
) -> None:
    """One side of a card at `corner`; without a bleed, a hairline round it to cut along."""
    (x, y), (width, height) = corner, sheet.card
    if not sheet.bleed:
        outline(pdf, x, y, width, height)
    side(pdf, Area(x, y, width, height, sheet.bleed), printed, title)


def check_letters(deck: Deck, cards: list[Printed]) -> None:
    """DeckError for the first card whose words hold a letter the print font lacks."""
    for printed in cards:
        missing = unprintable([printed.name, *_words(printed.card)])
        if missing:
            raise DeckError(
                deck.path,
                f"card {printed.card_id} ({printed.name!r}) has {missing!r}, which the print font "
                f"({FONT}: Latin, Greek, Cyrillic) lacks",
            )


def _words(value: Any) -> Iterator[str]:
    """The texts in a card's data (its fields, lists of keywords), to check before printing."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, (tuple, list)):
        for item in value:
            yield from _words(item)
    elif is_dataclass(value):
        for item in fields(value):
            yield from _words(getattr(value, item.name))


def page(pdf: FPDF, sheet: CardSheet, heading: str, backs: bool = False) -> None:
    """A new page with its crop marks and its heading: in the top margin, between the first two
    marks, or where that is too near the paper's edge, up the left margin."""
    pdf.add_page(orientation=sheet.orientation, format=_format(sheet))
    crop_marks(pdf, sheet, backs)
    xs, ys = sheet.cut_lines(backs)
    pdf.set_text_color(*GREY)
    baseline = ys[0] - sheet.bleed - MARK_GAP - 1.2
    if baseline - 2.5 >= SAFE_EDGE:
        fitted(pdf, heading, xs[1] - xs[0] - 3, 1, 6, smallest=4)
        pdf.text(xs[0] + 1.5, baseline, printable(heading))
        return
    fitted(pdf, heading, ys[1] - ys[0] - 3, 1, 6, smallest=4)
    x, y = xs[0] - sheet.bleed - MARK_GAP - 1.2, ys[1] - 1.5
    with pdf.rotation(90, x, y):
        pdf.text(x, y, printable(heading))


def _format(sheet: CardSheet) -> tuple[float, float]:
    """The page's size as fpdf takes it: portrait width and height in the document's unit (mm)."""
    width, height = sorted(sheet.page)
    return width, height
