"""`gravebox print GAME|board|calibration -o FILE.pdf`: a game's cards, the Deck of Death board, or the
duplex calibration sheet, to print and play.

The deck and the board are read by the games' own loaders (the same files the box plays, the
same one-line answer for a bad one); the pages are drawn by box/printing/. The PDF library
(fpdf2, the `print` extra) is imported here only, when a PDF is made.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

BOARD = "board"
CALIBRATION = "calibration"
EXIT_BAD_INPUT = 2


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of `gravebox print` (checked by `main`, each refused in one line)."""
    from box.games import GAMES  # the registry only: no game's module
    from box.printing.layout import CARD_SIZES, PAPERS, SIDES

    parser.add_argument(
        "what",
        help=f"the cards of a game ({', '.join(GAMES)}), {BOARD!r} (the board to play on) or {CALIBRATION!r} "
        "(a sheet that measures how far your printer shifts the backs)",
    )
    parser.add_argument("-o", "--output", type=Path, metavar="FILE.pdf", help="the PDF to write")
    parser.add_argument("--paper", default="a4", help=f"the paper: {', '.join(PAPERS)} (default a4)")
    parser.add_argument("--size", default="poker", help=f"the cards' size: {', '.join(CARD_SIZES)} (default poker)")
    parser.add_argument(
        "--sides",
        default="duplex",
        help=f"{' or '.join(SIDES)}: both sides of the paper (flip on the long edge), or one side folded",
    )
    parser.add_argument(
        "--bleed", action="store_true", help="a print shop's 3 mm bleed: the cards' backgrounds run past the cuts"
    )
    parser.add_argument(
        "--offset",
        default="0,0",
        metavar="X,Y",
        help="move the backs X mm right and Y mm down, as the calibration sheet reads them (duplex); "
        "write --offset=-1.5,1 when X is negative",
    )


def problem(args: argparse.Namespace) -> str | None:
    """What is wrong with the command line, in one line, or None."""
    from box.games import GAMES
    from box.printing.layout import CARD_SIZES, PAPERS, SIDES

    choices = (("paper", PAPERS), ("size", CARD_SIZES), ("sides", SIDES))
    if args.what not in GAMES and args.what not in (BOARD, CALIBRATION):
        return f"nothing called {args.what!r} to print; print one of {', '.join([*GAMES, BOARD, CALIBRATION])}"
    for option, known in choices:
        value = getattr(args, option)
        if value not in known:
            return f"--{option}: {value!r} is not one of {', '.join(known)}"
    if isinstance(offset := parse_offset(args.offset), str):
        return offset
    if args.bleed and args.what not in GAMES:
        return f"--bleed: for a game's cards, not {args.what!r}"
    if any(offset) and (args.what == BOARD or args.sides == "fold"):
        return "--offset: moves the backs of cards printed on both sides (--sides duplex) and of the calibration sheet"
    if args.bleed and args.sides == "fold":
        return "--bleed: for cards printed on both sides (--sides duplex); a folded card's fold is its edge"
    if args.bleed and args.what in GAMES:
        from box.printing.layout import BLEED, CardSheet

        try:
            CardSheet.make(args.paper, args.size, args.sides, BLEED)
        except ValueError as problem:
            return f"--bleed: {problem}"
    output = args.output
    if output is None:
        return "say where to write the PDF: -o FILE.pdf"
    if output.suffix.lower() != ".pdf":
        return f"-o: {output} does not end in .pdf"
    if output.is_dir() or not output.parent.is_dir():
        return f"-o: cannot write {output} (no such folder, or a folder of that name)"
    return None


def parse_offset(text: str) -> tuple[float, float] | str:
    """`--offset X,Y` as two numbers of mm, or what is wrong with it in one line.

    >>> parse_offset("1.5,-0.5"), parse_offset("0,0")
    ((1.5, -0.5), (0.0, 0.0))
    >>> parse_offset("2")
    "--offset: '2' is not X,Y (two numbers of mm, such as 1.5,-0.5)"
    """
    from box.printing.calibration import MOST_OFFSET

    parts = text.split(",")
    try:
        x, y = (float(part) for part in parts)
    except ValueError:
        return f"--offset: {text!r} is not X,Y (two numbers of mm, such as 1.5,-0.5)"
    if not all(abs(value) <= MOST_OFFSET for value in (x, y)):  # NaN and infinity too
        return f"--offset: {text!r}: each of X and Y is at most {MOST_OFFSET:g} mm either way"
    return x, y


def main(args: argparse.Namespace) -> int:
    """`gravebox print GAME|board -o FILE.pdf [--paper] [--size] [--sides] [--decks DIR]`."""
    wrong = problem(args)
    if wrong is not None:
        print(f"gravebox print: {wrong}", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        import fpdf  # noqa: F401  (the print extra: said in one line when missing)
    except ImportError:
        print("gravebox print: the PDF library is missing: pip install 'gravebox[print]' (fpdf2)", file=sys.stderr)
        return 1
    from box.decks.codec import check_decks_folder
    from box.errors import FileProblem
    from box.files.bounded import write_atomically
    from box.games import load_deck
    from box.games.deck_of_death.cards import NAME as BOARD_GAME
    from box.printing.layout import BLEED, CARD_SIZES, CardSheet
    from box.storage.config import DEFAULT_CONFIG, load_config

    offset = parse_offset(args.offset)
    assert not isinstance(offset, str)  # `problem` said it
    bleed = BLEED if args.bleed else 0.0
    decks = check_decks_folder(args.decks, field="--decks") if args.decks else None
    if decks is None and args.what != CALIBRATION:
        decks = load_config(args.config or DEFAULT_CONFIG).decks
    if args.what == CALIBRATION:
        from box.printing.calibration import render_calibration

        data = render_calibration(args.paper, offset)
        said = f"the duplex calibration sheet on {args.paper}, backs moved {offset[0]:g},{offset[1]:g} mm"
    elif args.what == BOARD:
        from box.printing.board import Rings, pieces, render_board

        board = getattr(load_deck(BOARD_GAME, decks), "board", None)
        assert board is not None  # the game's loader always gives its board
        data = render_board(board, CARD_SIZES[args.size], args.paper)
        count = len(pieces(Rings(board, CARD_SIZES[args.size]), args.paper))
        said = f"the board, its map and {count} pieces on {args.paper}, for {args.size} cards"
    else:
        from box.printing.cards import render_deck

        deck = load_deck(args.what, decks)
        data = render_deck(deck, CardSheet.make(args.paper, args.size, args.sides, bleed, offset))
        said = f"{len(deck)} cards, {args.size} size on {args.paper}, {args.sides}"
        said += f", {bleed:g} mm bleed" if bleed else ""
        said += f", backs moved {offset[0]:g},{offset[1]:g} mm" if any(offset) and args.sides == "duplex" else ""
    try:
        write_atomically(args.output, data)
    except OSError as failure:
        raise FileProblem(args.output, f"cannot write it: {failure.strerror or failure}", field="-o") from None
    print(f"{args.output}: {said}")
    return 0
