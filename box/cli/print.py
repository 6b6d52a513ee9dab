"""`gravebox print GAME|board -o FILE.pdf`: a game's cards, or the Deck of Death board, to print and play.

The deck and the board are read by the games' own loaders (the same files the box plays, the
same one-line answer for a bad one); the pages are drawn by box/printing/. The PDF library
(fpdf2, the `print` extra) is imported here only, when a PDF is made.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

BOARD = "board"
EXIT_BAD_INPUT = 2


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of `gravebox print` (checked by `main`, each refused in one line)."""
    from box.games import GAMES  # the registry only: no game's module
    from box.printing.layout import CARD_SIZES, PAPERS, SIDES

    parser.add_argument("what", help=f"the cards of a game ({', '.join(GAMES)}) or {BOARD!r}, the board to play on")
    parser.add_argument("-o", "--output", type=Path, metavar="FILE.pdf", help="the PDF to write")
    parser.add_argument("--paper", default="a4", help=f"the paper: {', '.join(PAPERS)} (default a4)")
    parser.add_argument("--size", default="poker", help=f"the cards' size: {', '.join(CARD_SIZES)} (default poker)")
    parser.add_argument(
        "--sides",
        default="duplex",
        help=f"{' or '.join(SIDES)}: both sides of the paper (flip on the long edge), or one side folded",
    )


def problem(args: argparse.Namespace) -> str | None:
    """What is wrong with the command line, in one line, or None."""
    from box.games import GAMES
    from box.printing.layout import CARD_SIZES, PAPERS, SIDES

    choices = (("paper", PAPERS), ("size", CARD_SIZES), ("sides", SIDES))
    if args.what not in GAMES and args.what != BOARD:
        return f"nothing called {args.what!r} to print; print one of {', '.join([*GAMES, BOARD])}"
    for option, known in choices:
        value = getattr(args, option)
        if value not in known:
            return f"--{option}: {value!r} is not one of {', '.join(known)}"
    output = args.output
    if output is None:
        return "say where to write the PDF: -o FILE.pdf"
    if output.suffix.lower() != ".pdf":
        return f"-o: {output} does not end in .pdf"
    if output.is_dir() or not output.parent.is_dir():
        return f"-o: cannot write {output} (no such folder, or a folder of that name)"
    return None


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
    from box.printing.layout import CARD_SIZES, CardSheet
    from box.storage.config import DEFAULT_CONFIG, load_config

    decks = check_decks_folder(args.decks, field="--decks") if args.decks else None
    if decks is None:
        decks = load_config(args.config or DEFAULT_CONFIG).decks
    if args.what == BOARD:
        from box.printing.board import render_board

        board = getattr(load_deck(BOARD_GAME, decks), "board", None)
        assert board is not None  # the game's loader always gives its board
        data = render_board(board, CARD_SIZES[args.size], args.paper)
        said = f"the board, {args.paper} tiles for {args.size} cards"
    else:
        from box.printing.cards import render_deck

        deck = load_deck(args.what, decks)
        data = render_deck(deck, CardSheet.make(args.paper, args.size, args.sides))
        said = f"{len(deck)} cards, {args.size} size on {args.paper}, {args.sides}"
    try:
        write_atomically(args.output, data)
    except OSError as failure:
        raise FileProblem(args.output, f"cannot write it: {failure.strerror or failure}", field="-o") from None
    print(f"{args.output}: {said}")
    return 0
