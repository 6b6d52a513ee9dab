"""Print-shop ready: fonts embedded (pdffonts), names in three scripts, the bleed, the marks, the duplex offset."""

from __future__ import annotations

import io
import shutil
import subprocess
from pathlib import Path

import pytest

pytest.importorskip("fpdf")
from pypdf import PdfReader

from box.cli.main import main
from box.games import GAMES, load_deck
from box.printing.calibration import render_calibration, targets
from box.printing.cards import render_deck
from box.printing.layout import (
    BLEED,
    CARD_SIZES,
    MIN_MARK,
    PAPERS,
    SAFE_EDGE,
    SIDES,
    CardSheet,
    new_document,
    wrap,
)

NAMES = ("Antonín Dvořák", "Łucja Wiśniewska", "Дмитрий Шостакович", "Νίκος Καζαντζάκης")


def a_deck(folder: Path, names: tuple[str, ...]) -> Path:
    folder.mkdir(exist_ok=True)
    rows = "".join(f"ds{n},{name},{50 + n}\n" for n, name in enumerate(names, start=1))
    (folder / "dead-set.csv").write_text(f"id,name,age\n{rows}", encoding="utf-8")
    return folder


# ----- fonts and letters --------------------------------------------------------------------------


@pytest.mark.skipif(shutil.which("pdffonts") is None, reason="poppler-utils' pdffonts is not installed")
@pytest.mark.parametrize("what", [*GAMES, "board", "calibration"])
def test_every_font_of_every_pdf_is_embedded(what: str, tmp_path: Path) -> None:
    target = tmp_path / "out.pdf"
    assert main(["print", what, "-o", str(target), "--config", str(tmp_path / "none.toml")]) == 0
    listed = subprocess.run(["pdffonts", str(target)], capture_output=True, text=True, check=True).stdout
    fonts = listed.splitlines()[2:]  # under the header and its rule
    assert fonts and all(line.split()[-5] == "yes" for line in fonts), listed  # the "emb" column
    assert all("DejaVuSans" in line for line in fonts), listed


def test_names_in_latin_greek_and_cyrillic_print_as_written(tmp_path: Path) -> None:
    decks = a_deck(tmp_path / "decks", NAMES)
    target = tmp_path / "cards.pdf"
    assert main(["print", "dead-set", "-o", str(target), "--decks", str(decks)]) == 0
    text = " ".join(page.extract_text() for page in PdfReader(target).pages)
    assert all(name in text for name in NAMES), text


def test_a_letter_the_print_font_lacks_is_refused_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    decks = a_deck(tmp_path / "decks", ("Ann Lee", "李小龍"))
    target = tmp_path / "cards.pdf"
    assert main(["print", "dead-set", "-o", str(target), "--decks", str(decks)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "card ds2" in err and "'李小龍'" in err and "print font" in err, err
    assert not target.exists()


# ----- row 7a: a long word wraps in one pass ------------------------------------------------------


def test_wrapping_a_long_word_measures_each_letter_about_once(monkeypatch: pytest.MonkeyPatch) -> None:
    pdf = new_document()
    pdf.set_font("DejaVu Sans", size=10)
    measured = 0
    measure = pdf.get_string_width

    def counted(text: str, *args: object, **kwargs: object) -> float:
        nonlocal measured
        measured += len(text)
        return measure(text, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(pdf, "get_string_width", counted)
    for length in (1_000, 10_000):
        measured = 0
        lines = wrap(pdf, "x" * length, 40)
        assert "".join(lines) == "x" * length and len(lines) > 1
        assert measured <= 3 * length  # letters measured: linear (it was cubic: 10,000 letters took hours)


def test_a_deck_with_a_name_of_a_long_word_prints(tmp_path: Path) -> None:
    decks = a_deck(tmp_path / "decks", ("Ann", "W" * 3000))
    assert main(["print", "dead-set", "-o", str(tmp_path / "x.pdf"), "--decks", str(decks)]) == 0


# ----- the bleed and the crop marks ---------------------------------------------------------------


@pytest.mark.parametrize("paper", PAPERS)
@pytest.mark.parametrize("size", CARD_SIZES)
@pytest.mark.parametrize("sides", SIDES)
@pytest.mark.parametrize("bleed", [0.0, BLEED])
def test_every_cut_has_marks_within_the_printable_area_clear_of_the_cards_and_their_bleed(
    paper: str, size: str, sides: str, bleed: float
) -> None:
    if bleed and sides == "fold":
        return  # refused (below)
    if bleed and (paper, size) == ("letter", "bridge"):
        with pytest.raises(ValueError, match="no room for crop marks"):  # 3 x 88.9 mm and the bleed: refused
            CardSheet.make(paper, size, sides, bleed)
        return
    sheet = CardSheet.make(paper, size, sides, bleed)
    width, height = sheet.page
    if sides == "duplex":
        assert sheet.per_page == 9  # the places enrolment names
    for backs in (False, True):
        xs, ys = sheet.cut_lines(backs)
        marks = sheet.marks(backs)
        left, right, top, bottom = xs[0] - bleed, xs[-1] + bleed, ys[0] - bleed, ys[-1] + bleed
        assert top >= 0 and bottom <= height and left >= 0 and right <= width  # the bleed is on the paper
        for x1, y1, x2, y2 in marks:
            for x, y in ((x1, y1), (x2, y2)):
                assert SAFE_EDGE - 1e-6 <= x <= width - SAFE_EDGE + 1e-6 and SAFE_EDGE - 1e-6 <= y <= height - SAFE_EDGE + 1e-6
                assert not (left < x < right and top < y < bottom), (x, y)  # clear of the cards and the bleed
            assert abs(x2 - x1) + abs(y2 - y1) >= MIN_MARK - 1e-6
        fold = width / 2 if sides == "fold" else None
        assert {x1 for x1, _, x2, _ in marks if x1 == x2} == {x for x in xs if x != fold}  # every cut across
        assert {y1 for _, y1, _, y2 in marks if y1 == y2} == set(ys)  # and every cut down


def test_letters_crop_marks_keep_off_the_edge_the_printer_cannot_reach() -> None:
    sheet = CardSheet.make("letter", "poker", "duplex")
    assert min(min(y1, y2) for _, y1, _, y2 in sheet.marks()) >= SAFE_EDGE  # they began 3.7 mm from the edge


def picture(data: bytes, page: int, folder: Path) -> object:
    from PIL import Image

    source = folder / "in.pdf"
    source.write_bytes(data)
    subprocess.run(["pdftoppm", "-r", "72", "-png", "-f", str(page), "-l", str(page), source, folder / "p"], check=True)
    (made,) = folder.glob("p-*.png")
    image = Image.open(made).convert("L")
    made.unlink()
    return image


@pytest.mark.skipif(shutil.which("pdftoppm") is None, reason="poppler-utils' pdftoppm is not installed")
@pytest.mark.parametrize("game", ["dead-fellas", "deck-of-death"])
def test_the_backs_run_to_the_cut_and_with_a_bleed_past_it(game: str, tmp_path: Path) -> None:
    deck = load_deck(game)
    for bleed in (0.0, BLEED):
        sheet = CardSheet.make("a4", "poker", "duplex", bleed)
        image = picture(render_deck(deck, sheet), 2, tmp_path)
        x, y = sheet.back(2)  # the top row's last card: its back is the leftmost, by the margin
        px = 72 / 25.4
        inside = image.getpixel((round((x + 1.0) * px), round((y + 40) * px)))  # 1 mm in from the cut
        outside = image.getpixel((round((x - 2.0) * px), round((y + 40) * px)))  # 2 mm out: the bleed
        assert inside < 100  # the back's colour, not paper
        assert (outside < 100) == bool(bleed), (bleed, outside)


def test_bleed_is_for_duplex_and_offset_takes_two_numbers(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    out = str(tmp_path / "x.pdf")
    for extra, said in (
        (["--bleed", "--sides", "fold"], "--bleed: for cards printed on both sides"),
        (["--offset", "1"], "--offset: '1' is not X,Y"),
        (["--offset", "nan,0"], "at most 10 mm"),
        (["--offset", "0,40"], "at most 10 mm"),
        (["--bleed", "--paper", "letter", "--size", "bridge"], "no room for crop marks on letter"),
        (["--offset=-1,0", "--sides", "fold"], "--offset: moves the backs of cards printed on both sides"),
    ):
        assert main(["print", "dead-set", "-o", out, *extra]) == 2
        err = capsys.readouterr().err
        assert said in err and err.count("\n") == 1, err
    assert not (tmp_path / "x.pdf").exists()
    for what, extra, said in (("board", "--bleed", "--bleed: for a game's cards"), ("board", "--offset=1,1", "--offset")):
        assert main(["print", what, "-o", out, extra]) == 2
        assert said in capsys.readouterr().err


# ----- the duplex offset and its calibration sheet ------------------------------------------------


def test_the_offset_moves_every_back_as_seen_from_its_front() -> None:
    plain = CardSheet.make("a4", "poker", "duplex")
    moved = CardSheet.make("a4", "poker", "duplex", offset=(1.5, -0.5))
    width = plain.page[0]
    for slot in range(plain.per_page):
        (x, y), (mx, my) = plain.back(slot), moved.back(slot)
        seen_x = width - mx - plain.card[0]  # where the back lies behind the front, in the front's x
        assert seen_x == pytest.approx(width - x - plain.card[0] + 1.5) and my == pytest.approx(y - 0.5)
        assert moved.front(slot) == plain.front(slot)


def test_the_calibration_sheet_puts_a_cross_behind_each_zero_moved_by_the_offset() -> None:
    from pypdf import PdfReader

    for offset in ((0.0, 0.0), (2.0, -1.0)):
        reader = PdfReader(io.BytesIO(render_calibration("letter", offset)))
        assert len(reader.pages) == 2
        front = reader.pages[0].extract_text()
        assert "Duplex calibration" in front and f"--offset={offset[0]:g},{offset[1]:g}" in front
    assert len(targets("a4")) == 3


def test_gravebox_print_calibration_writes_the_sheet(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    target = tmp_path / "calibration.pdf"
    assert main(["print", "calibration", "-o", str(target), "--paper", "letter", "--offset=-1.5,1"]) == 0
    assert capsys.readouterr().out.strip() == f"{target}: the duplex calibration sheet on letter, backs moved -1.5,1 mm"
    assert len(PdfReader(target).pages) == 2


# ----- the card as a player reads it --------------------------------------------------------------


def test_a_copy_prints_its_cards_name_and_a_mook_no_words_its_bullets_say() -> None:
    deck = load_deck("dead-fellas")
    reader = PdfReader(io.BytesIO(render_deck(deck, CardSheet.make("a4", "poker", "duplex"))))
    fronts = " ".join(" ".join(page.extract_text().split()) for page in reader.pages[0::2])
    assert "Brass Knuckles" in fronts and "Brass Knuckles 2" not in fronts
    assert "Mook with" not in fronts and "Weapon with" not in fronts and "1 hit" in fronts
    assert "dfw02 · Sheet" in fronts  # the copy is still told apart by its id
