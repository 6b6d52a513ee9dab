"""What the OLED shows in each phase of Dead Fellas (the phase table in `rules` names them): a title and
at most five lines of 21 characters."""

from __future__ import annotations

from box.games.base import View
from box.games.dead_fellas.state import (
    Attack,
    EndTurn,
    Evidence,
    Game,
    Over,
    Picking,
    Playing,
    Reading,
    Target,
    choices,
)
from box.games.kit import Picker, expect, fit, wrap
from box.words import TEXT_LINES

MOOK_LEGEND = "Items WDV, then hits"  # how a Mook's line reads: "Vinnie Bones WD- 3"


def picker(game: Game, title: str, cursor: int, legend: str = "") -> View:
    """The phase's choices (`choices(game)`) around the cursor; `legend` on the bottom line until a notice."""
    lines, line = Picker(tuple(choice.label for choice in choices(game)), cursor).lines()
    return View(title=fit(title), lines=lines, cursor=line, notice=game.notice or legend)


def _player(game: Game) -> str:
    return fit(game.player, 10)


def deal(game: Game) -> View:
    dealt = len(game.board.mooks[game.turn])
    lines = (
        "Tap your dealt Mooks",
        f"Mook {dealt + 1} of 3",
        *(fit(game.name(m.card)) for m in game.board.mooks[game.turn]),
    )
    return View(title=f"Deal: {_player(game)}", lines=lines, notice=game.notice)


def playing(game: Game) -> View:
    phase = expect(game.phase, Playing)
    head = fit(f"Items on {game.name(phase.mook)}") if phase.mook else "Draw; tap cards; act:"
    lines = (head, "Whack", "Draw a card", "Recruit a Mook", scoreline(game))
    return View(title=f"{_player(game)}'s turn", lines=lines, cursor=1 + min(phase.cursor, 2), notice=game.notice)


def recruit(game: Game) -> View:
    return View(
        title=f"{_player(game)}: recruit",
        lines=("Draw a Mook and tap", "it: it stays face", "down till next turn", "BACK: other action"),
        notice=game.notice,
    )


def attack(game: Game) -> View:
    phase = expect(game.phase, Attack)
    return picker(game, f"{_player(game)}: who whacks?", phase.cursor, MOOK_LEGEND)


def target(game: Game) -> View:
    phase = expect(game.phase, Target)
    return picker(game, f"{fit(game.name(phase.attacker), 10)} whacks who?", phase.cursor, MOOK_LEGEND)


def evidence(game: Game) -> View:
    phase = expect(game.phase, Evidence)
    return picker(game, "Ditch which evidence?", phase.cursor)


def end_turn(game: Game) -> View:
    """The hand limit, then "Next player" / "Discard cards"."""
    phase = expect(game.phase, EndTurn)
    keep = len(game.board.mooks[game.turn])
    labels = tuple(choice.label for choice in choices(game))
    lines = (f"Keep at most {keep} card{'s' if keep != 1 else ''}", *labels, scoreline(game))
    cursor = 1 + Picker(labels, phase.cursor).cursor
    return View(title=f"{_player(game)}: end of turn", lines=lines, cursor=cursor, notice=game.notice)


def discard(game: Game) -> View:
    lines = ("Tap cards to discard", "(not played)", "OK: next player", "BACK: back", scoreline(game))
    return View(title=f"{_player(game)}: discard", lines=lines, notice=game.notice)


def picking(game: Game) -> View:
    phase = expect(game.phase, Picking)
    return picker(game, picking_title(game, phase), phase.cursor, MOOK_LEGEND if phase.step == "mook" else "")


def reading(game: Game) -> View:
    phase = expect(game.phase, Reading)
    card = game.board.cards[phase.card]
    return View(title=fit(card.name), lines=(*wrap(card.text, TEXT_LINES - 1), "OK: done"), notice=game.notice)


def over(game: Game) -> View:
    over = expect(game.phase, Over)
    scores = tuple(f"{fit(name, 14)} {game.board.score(seat)}" for seat, name in enumerate(game.players))
    title = f"{fit(game.players[over.winner], 14)} wins!"
    return View(title=title, lines=(*scores[: TEXT_LINES - 1], "Fuhgeddaboutit?"), notice=game.notice)


def picking_title(game: Game, phase: Picking) -> str:
    """What the card's picker asks; another player's card (RULINGS 5a) is named as theirs."""
    name = fit(game.name(phase.card), 12)
    whose = "" if phase.by == game.turn else f"{fit(game.players[phase.by], 7)}'s "
    if phase.step == "slot":
        return f"{whose}{name} as?"
    if phase.step == "item":
        return f"{fit(game.players[phase.by], 7)} boosts which?" if whose else "Boost which item?"
    if phase.step == "discard":
        return f"{whose}Guy gets?" if whose else "Guy gets which card?"
    return f"{whose}{name} on?"


def scoreline(game: Game) -> str:
    return f"Score {game.board.score(game.turn)}/10 Mooks {len(game.board.mooks[game.turn])}"
