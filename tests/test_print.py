"""Print and play: every built-in deck and the board rendered once, read back (pypdf) and looked at (pdftoppm)."""

from __future__ import annotations

import io
import math
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("fpdf")
from pypdf import PdfReader

from box.cli.main import main
from box.decks.codec import BUILTIN_DIR, Deck
from box.decks.order import CARDS_PER_SHEET, place_label, printed_order, sheets
from box.errors import FileProblem
from box.games import GAMES, load_deck
from box.games.dead_fellas.cards import base_name
from box.games.deck_of_death.cards import parse_board
from box.printing.board import Rings, arrow_path, pieces, render_board
from box.printing.cards import DESIGNS, render_deck
from box.printing.layout import CARD_SIZES, PAPERS, SIDES, CardSheet

MM = 25.4 / 72  # a PDF point in mm
DATE = re.compile(r"\b\d{4}-\d{2}\b|\bBC\b")


class Page:
    """A page's text pieces with where each starts, in mm from the page's top left."""

    def __init__(self, page: object, height_mm: float):
        self.pieces: list[tuple[str, float, float]] = []

        def seen(text: str, cm: list[float], tm: list[float], *_: object) -> None:
            if text.strip():
                self.pieces.append((text.strip(), tm[4] * MM, height_mm - tm[5] * MM))

        self.text = page.extract_text(visitor_text=seen)  # type: ignore[attr-defined]

    def where(self, text: str) -> tuple[float, float]:
        found = [(x, y) for piece, x, y in self.pieces if piece == text]
        assert len(found) == 1, (text, found)
        return found[0]


def read(data: bytes, sheet_height: float) -> list[Page]:
    return [Page(page, sheet_height) for page in PdfReader(io.BytesIO(data)).pages]


SHEET = CardSheet.make("a4", "poker", "duplex")


@pytest.fixture(scope="module")
def decks() -> dict[str, Deck]:
    return {game: load_deck(game) for game in GAMES}


@pytest.fixture(scope="module")
def printed(decks: dict[str, Deck]) -> dict[str, tuple[bytes, list[Page]]]:
    """Each built-in deck printed once for the whole module (780 cards)."""
    out = {}
    for game, deck in decks.items():
        data = render_deck(deck, SHEET)
        out[game] = (data, read(data, SHEET.page[1]))
    return out


# ----- the sheets ---------------------------------------------------------------------------------


@pytest.mark.parametrize("paper", PAPERS)
@pytest.mark.parametrize("size", CARD_SIZES)
@pytest.mark.parametrize("sides", SIDES)
def test_a_cards_back_is_its_front_mirrored_across_the_sheet_and_every_card_fits_the_paper(
    paper: str, size: str, sides: str
) -> None:
    sheet = CardSheet.make(paper, size, sides)
    width, height = sheet.page
    card_w, card_h = sheet.card
    if sides == "duplex":
        assert sheet.per_page == CARDS_PER_SHEET  # the place enrolment shows is the sheet's
    assert sheet.per_page >= 4
    fronts = [sheet.front(slot) for slot in range(sheet.per_page)]
    backs = [sheet.back(slot) for slot in range(sheet.per_page)]
    for (fx, fy), (bx, by) in zip(fronts, backs):
        assert fx + bx + card_w == pytest.approx(width) and fy == by  # the long edge's flip, or the fold
        for x, y in ((fx, fy), (bx, by)):
            assert x >= 5 and x + card_w <= width - 5 and y >= 5 and y + card_h <= height - 5
    everything = fronts + (backs if sides == "fold" else [])
    for n, (x, y) in enumerate(everything):  # no two cards overlap
        for x2, y2 in everything[n + 1 :]:
            assert abs(x - x2) >= card_w - 1e-6 or abs(y - y2) >= card_h - 1e-6


def test_the_printed_order_is_the_deck_files_nine_to_a_sheet(decks: dict[str, Deck]) -> None:
    deck = decks["dead-set"]
    assert printed_order(deck) == tuple(deck.cards)
    assert [place_label(n) for n in (0, 8, 9, 107)] == [
        "Sheet 1, card 1",
        "Sheet 1, card 9",
        "Sheet 2, card 1",
        "Sheet 12, card 9",
    ]


# ----- the decks ----------------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_every_card_is_printed_once_front_and_back_on_its_sheet(
    game: str, decks: dict[str, Deck], printed: dict[str, tuple[bytes, list[Page]]]
) -> None:
    deck = decks[game]
    _, pages = printed[game]
    assert len(pages) == 2 * sheets(len(deck))
    text = "\n".join(page.text for page in pages)
    for index, card_id in enumerate(printed_order(deck)):
        assert text.count(f"{card_id} · Sheet") == 1
        assert f"{card_id} · {place_label(index)}" in text
        sheet = index // CARDS_PER_SHEET
        name = deck.name_of(card_id)
        if game == "dead-fellas":  # a copy's front bears the card's name: "Brass Knuckles", not "Brass Knuckles 2"
            name = base_name(name)
        assert name in flat(pages[2 * sheet].text), card_id  # its front, on its sheet's page
    for number, page in enumerate(pages):
        words = DESIGNS[game].front_words if number % 2 == 0 else DESIGNS[game].back_words
        assert f"sheet {number // 2 + 1}/{len(pages) // 2} · {words}" in page.text


def flat(text: str) -> str:
    """Text with its line breaks as spaces (a long name is wrapped on the card)."""
    return " ".join(text.split())


@pytest.mark.parametrize("game", GAMES)
def test_duplex_a_cards_front_and_back_stand_at_mirrored_places(
    game: str, decks: dict[str, Deck], printed: dict[str, tuple[bytes, list[Page]]]
) -> None:
    deck = decks[game]
    _, pages = printed[game]
    card_w, card_h = SHEET.card
    width = SHEET.page[0]
    for index, card_id in enumerate(printed_order(deck)[:CARDS_PER_SHEET]):
        small = f"{card_id} · {place_label(index)}"
        front_has = small in pages[0].text
        x, y = pages[0 if front_has else 1].where(small)
        left, top = SHEET.front(index) if front_has else SHEET.back(index)
        assert left < x < left + card_w and top < y < top + card_h
        other_left, other_top = SHEET.back(index) if front_has else SHEET.front(index)
        assert other_left == pytest.approx(width - left - card_w) and other_top == top


def test_each_side_shows_what_its_game_shows_there_and_nothing_it_hides(
    decks: dict[str, Deck], printed: dict[str, tuple[bytes, list[Page]]]
) -> None:
    _, deadlines = printed["deadlines"]
    assert not any(DATE.search(page.text) for page in deadlines[0::2])  # the name side: no date
    curie = decks["deadlines"].find("Marie Curie")
    assert curie is not None
    person = decks["deadlines"][curie]
    dates = flat(deadlines[1].text)
    assert str(person.born) in dates and str(person.died) in dates and str(person.lifespan) in dates
    assert "aplastic anaemia from radiation" in dates and "also: radium" in dates  # the cause, orange words
    _, dead_set = printed["dead-set"]
    assert not any("AGE" in page.text for page in dead_set[0::2])
    assert all(page.text.count("AGE AT DEATH") == min(9, 108 - 9 * n) for n, page in enumerate(dead_set[1::2]))
    backs = {"dead-fellas": {"MOOK", "MAFIA", "DEAD FELLAS"}, "deck-of-death": {"DECK OF DEATH", "DECK OF", "DEATH"}}
    for game, words in backs.items():
        _, pages = printed[game]
        for page in pages[1::2]:  # a back names no card: a recruit and a hand stay secret
            heading, *shown = [piece for piece, _, _ in page.pieces]
            assert heading.endswith("· backs") and set(shown) <= words | {"NFC", "sticker here"}, shown
    fellas = flat(printed["dead-fellas"][1][0].text)
    assert "MOOK" in fellas and "1 hit" in fellas
    items = [n for n, card_id in enumerate(decks["dead-fellas"].cards) if card_id.startswith("dfw")]
    weapon_page = flat(printed["dead-fellas"][1][2 * (items[0] // CARDS_PER_SHEET)].text)
    assert "WEAPON" in weapon_page
    death = flat(printed["deck-of-death"][1][0].text)
    assert "BLUE · TIER 1" in death and "Nobody may point at anything." in death


def test_a_fold_over_print_puts_a_front_and_its_back_on_one_page(decks: dict[str, Deck]) -> None:
    sheet = CardSheet.make("letter", "bridge", "fold")
    deck = decks["dead-set"]
    pages = read(render_deck(deck, sheet), sheet.page[1])
    assert len(pages) == -(-len(deck) // sheet.per_page)
    first = pages[0]
    for slot, card_id in enumerate(printed_order(deck)[: sheet.per_page]):
        x, _ = first.where(f"{card_id} · {place_label(slot)}")  # on the back, right of the fold
        left, _ = sheet.back(slot)
        assert left < x < left + sheet.card[0] and x > sheet.page[0] / 2
        assert deck.name_of(card_id) in first.text


# ----- the board ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def board_pages(decks: dict[str, Deck]) -> tuple[bytes, list[Page]]:
    data = render_board(decks["deck-of-death"].board, CARD_SIZES["poker"], "a4")  # type: ignore[attr-defined]
    return data, read(data, PAPERS["a4"][1])


def test_the_board_is_a_map_and_its_pieces_with_every_space_named_once_as_the_box_names_it(
    decks: dict[str, Deck], board_pages: tuple[bytes, list[Page]]
) -> None:
    board = decks["deck-of-death"].board  # type: ignore[attr-defined]
    cut = pieces(Rings(board, CARD_SIZES["poker"]), "a4")
    _, pages = board_pages
    assert len(pages) == 1 + len(cut) == 18  # 24 tiles of a square metre before: now only the rings
    assert "map of its pieces" in pages[0].text
    named: list[str] = []
    for page, piece in zip(pages[1:], cut):
        assert f"{piece.name} of {len(cut)} pieces" in page.text
        labels = [text for text, _, _ in page.pieces]
        mine = [f"Inner {space}" if piece.inner else str(space) for space in piece.spaces]
        assert set(mine) <= set(labels), (piece, labels)
        named += mine
    assert sorted(named) == sorted([*map(str, range(board.outer)), *(f"Inner {n}" for n in range(board.inner))])
    every = {text for page in pages[1:] for text, _, _ in page.pieces}
    assert "START" in every
    arrows = sum(piece == "ARROW" for page in pages[:1] for piece, _, _ in page.pieces)
    assert arrows == len(board.arrows)
    assert sum(page.text.count("to Inner 0") for page in pages[1:]) == len(board.arrows)


@pytest.mark.parametrize("paper", PAPERS)
@pytest.mark.parametrize("size", CARD_SIZES)
def test_each_piece_fits_its_page_and_the_pieces_hold_every_space_once(paper: str, size: str) -> None:
    from box.printing.board import _extent, _room

    board = load_deck("deck-of-death").board  # type: ignore[attr-defined]
    rings = Rings(board, CARD_SIZES[size])
    cut = pieces(rings, paper)
    assert len(cut) <= 18
    for inner, total in ((False, board.outer), (True, board.inner)):
        mine = [piece for piece in cut if piece.inner == inner]
        assert [space for piece in mine for space in piece.spaces] == list(range(total))
        for piece in mine:
            width, height = _extent(rings, inner, piece.count)
            room_w, room_h = _room(paper)
            assert width <= room_w and height <= room_h


def test_the_arrows_go_round_the_inner_circle_never_over_it_or_the_outer_ring() -> None:
    board = parse_board("outer = 36\n[arrows]\n3 = 0\n9 = 4\n15 = 0\n21 = 7\n27 = 0\n33 = 9\n", "b.toml")
    rings = Rings(board, CARD_SIZES["poker"])
    centre = rings.size / 2
    for arrow, target in board.arrows:
        path = arrow_path(rings, arrow, target)
        for point in path:
            assert rings.inner_out < math.dist(point, (centre, centre)) < rings.outer_in
        end = path[-1]
        angle = math.atan2(end[0] - centre, centre - end[1]) % (2 * math.pi)
        assert angle == pytest.approx(rings.angle(True, target))  # it ends at the space it leads to


def test_the_board_is_to_scale_a_space_holds_a_card() -> None:
    board = parse_board("outer = 40\n[arrows]\n1 = 1\n5 = 2\n9 = 3\n13 = 4\n17 = 5\n", "b.toml")
    rings = Rings(board, CARD_SIZES["poker"])
    width, length = CARD_SIZES["poker"]
    assert rings.outer_out - rings.outer_in > length and rings.inner_out - rings.inner_in > length
    for radius, count in ((rings.outer_in, 40), (rings.inner_in, 10)):
        assert 2 * 3.14159 * radius / count > width  # the narrow edge of a space is wider than a card


# ----- the pictures -------------------------------------------------------------------------------


@pytest.mark.skipif(shutil.which("pdftoppm") is None, reason="poppler-utils' pdftoppm is not installed")
def test_the_pages_as_pictures_have_their_colours(
    printed: dict[str, tuple[bytes, list[Page]]], board_pages: tuple[bytes, list[Page]], tmp_path: Path
) -> None:
    from PIL import Image

    def picture(data: bytes, page: int) -> Image.Image:
        source = tmp_path / "in.pdf"
        source.write_bytes(data)
        subprocess.run(
            ["pdftoppm", "-r", "60", "-png", "-f", str(page), "-l", str(page), source, tmp_path / "p"], check=True
        )
        (made,) = tmp_path.glob("p-*.png")
        image = Image.open(made).convert("RGB")
        made.unlink()
        return image

    def share(image: Image.Image, near: tuple[int, int, int]) -> float:
        colours = image.getcolors(image.width * image.height) or []
        close = sum(count for count, colour in colours if sum(abs(a - b) for a, b in zip(colour, near)) < 90)
        return close / (image.width * image.height)

    assert share(picture(printed["deadlines"][0], 2), (232, 110, 0)) > 0  # the orange words
    assert share(picture(printed["deck-of-death"][0], 1), (40, 90, 200)) > 0.01  # blue cards
    assert share(picture(printed["dead-set"][0], 1), (255, 255, 255)) > 0.5  # paper, not ink
    assert share(picture(printed["dead-set"][0], 1), (45, 45, 45)) > 0.005
    assert share(picture(board_pages[0], 1), (232, 110, 0)) > 0.001  # the map: its pieces and arrows


# ----- the command line ---------------------------------------------------------------------------


def test_gravebox_print_writes_the_pdf_it_is_asked_for(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "dead-set.pdf"
    assert main(["print", "dead-set", "-o", str(target), "--paper", "letter", "--size", "bridge"]) == 0
    assert capsys.readouterr().out.strip() == f"{target}: 108 cards, bridge size on letter, duplex"
    assert len(PdfReader(target).pages) == 24


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["nothing", "-o", "x.pdf"], "nothing called 'nothing' to print"),
        (["dead-set"], "say where to write the PDF: -o FILE.pdf"),
        (["dead-set", "-o", "x.txt"], "does not end in .pdf"),
        (["dead-set", "-o", "x.pdf", "--paper", "a3"], "--paper: 'a3' is not one of a4, letter"),
        (["dead-set", "-o", "x.pdf", "--size", "tarot"], "--size: 'tarot' is not one of poker, bridge"),
        (["dead-set", "-o", "x.pdf", "--sides", "three"], "--sides: 'three' is not one of duplex, fold"),
        (["dead-set", "-o", "no/such/folder/x.pdf"], "no such folder"),
        (["dead-set", "-o", "x.pdf", "--decks", "no-such-decks"], "no such folder of decks"),
    ],
)
def test_bad_input_is_answered_in_one_line_with_status_2(
    argv: list[str], said: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["print", *argv, "--config", str(tmp_path / "none.toml")]) == 2
    err = capsys.readouterr().err
    assert said in err and err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "x.pdf").exists()


def test_a_bad_deck_or_board_gets_the_line_the_box_gives(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    decks = tmp_path / "decks"
    decks.mkdir()
    (decks / "dead-set.csv").write_text("id,name,age\nds1,Ada Lovelace,old\n", encoding="utf-8")
    (decks / "deck-of-death.toml").write_text("outer = 30\n[arrows]\n0 = 1\n", encoding="utf-8")
    for what, game in (("dead-set", "dead-set"), ("board", "deck-of-death")):
        with pytest.raises(FileProblem) as at_the_box:
            load_deck(game, decks)
        assert main(["print", what, "-o", str(tmp_path / "x.pdf"), "--decks", str(decks)]) == 2
        assert capsys.readouterr().err == f"gravebox: {at_the_box.value}\n"
    assert not (tmp_path / "x.pdf").exists()


def test_a_custom_deck_and_board_print_the_same_way(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    decks = tmp_path / "decks"
    decks.mkdir()
    names = ("Antonín Dvořák", "Дмитрий Шостакович", "Νίκος Καζαντζάκης")
    rows = "".join(f"{n},{name},{60 + n}\n" for n, name in enumerate(names, start=1))
    (decks / "dead-set.csv").write_text(f"id,name,age\n{rows}", encoding="utf-8")
    shutil.copy(BUILTIN_DIR / "deck-of-death.csv", decks)
    (decks / "deck-of-death.toml").write_text(
        "outer = 20\n[arrows]\n2 = 1\n6 = 3\n10 = 5\n14 = 7\n18 = 9\n", encoding="utf-8"
    )
    cards, board = tmp_path / "cards.pdf", tmp_path / "board.pdf"
    assert main(["print", "dead-set", "-o", str(cards), "--decks", str(decks), "--sides", "fold"]) == 0
    assert main(["print", "board", "-o", str(board), "--decks", str(decks)]) == 0
    text = PdfReader(cards).pages[0].extract_text()
    assert all(name in text for name in names) and "1 · Sheet 1, card 1" in text  # as written, three scripts
    parts = read(board.read_bytes(), PAPERS["a4"][0])[1:]  # the pieces' pages are landscape
    labels = {piece for page in parts for piece, _, _ in page.pieces}
    assert {str(space) for space in range(20)} <= labels and "20" not in labels and "to Inner 9" in labels


def test_the_box_start_and_enrolment_load_no_pdf_library() -> None:
    code = "import sys, box.screens.enrolment, box.cli.main; box.cli.main.build_parser('print'); print('fpdf' in sys.modules)"
    run = subprocess.run(
        [sys.executable, "-c", code], cwd=Path(__file__).parents[1], capture_output=True, text=True, check=True
    )
    assert run.stdout.strip() == "False"
