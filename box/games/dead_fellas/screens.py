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
from box.games.kit import Picker, expect, name_line, short_name, window, wrap
from box.words import LINE_CHARS, TEXT_LINES

MOOK_LEGEND = "Items WDV, then hits"  # how a Mook's line reads: "Vinnie Bones WD- 3"


def picker(game: Game, title: str, cursor: int, legend: str = "", free: bool = False) -> View:
    """The phase's choices (`choices(game)`) around the cursor; `legend` on the bottom line until a notice.

    `free`: the choices are free text (cards' names), which scroll where they are too long.
    """
    labels = tuple(choice.label for choice in choices(game))
    lines, line = window(labels, Picker(labels, cursor).cursor)
    return View(title, lines, line, notice=game.notice or legend, scrolling=tuple(range(len(lines))) if free else ())


def _titled(game: Game, after: str, before: str = "") -> str:
    """A title about the player on turn, their name shortened to fit: "Ann: recruit"."""
    return name_line(before, game.player, after)


def deal(game: Game) -> View:
    dealt = len(game.board.mooks[game.turn])
    mooks = tuple(game.name(m.card) for m in game.board.mooks[game.turn])
    lines = ("Tap your dealt Mooks", f"Mook {dealt + 1} of 3", *mooks)
    return View(_titled(game, "", "Deal: "), lines, notice=game.notice, scrolling=tuple(range(2, len(lines))))


def playing(game: Game) -> View:
    phase = expect(game.phase, Playing)
    head = f"Items on {game.name(phase.mook)}" if phase.mook else "Draw; tap cards; act:"
    lines = (head, "Whack", "Draw a card", "Recruit a Mook", scoreline(game))
    return View(_titled(game, "'s turn"), lines, 1 + min(phase.cursor, 2), notice=game.notice, scrolling=(0,))


def recruit(game: Game) -> View:
    return View(
        title=_titled(game, ": recruit"),
        lines=("Draw a Mook and tap", "it: it stays face", "down till next turn", "BACK: other action"),
        notice=game.notice,
    )


def attack(game: Game) -> View:
    phase = expect(game.phase, Attack)
    return picker(game, _titled(game, ": who whacks?"), phase.cursor, MOOK_LEGEND)


def target(game: Game) -> View:
    phase = expect(game.phase, Target)
    title = f"{game.short(phase.attacker, LINE_CHARS - 12)} whacks who?"
    return picker(game, title, phase.cursor, MOOK_LEGEND)


def evidence(game: Game) -> View:
    phase = expect(game.phase, Evidence)
    return picker(game, "Ditch which evidence?", phase.cursor, free=True)


def end_turn(game: Game) -> View:
    """The hand limit, then "Next player" / "Discard cards"."""
    phase = expect(game.phase, EndTurn)
    keep = len(game.board.mooks[game.turn])
    labels = tuple(choice.label for choice in choices(game))
    lines = (f"Keep at most {keep} card{'s' if keep != 1 else ''}", *labels, scoreline(game))
    cursor = 1 + Picker(labels, phase.cursor).cursor
    return View(_titled(game, ": end of turn"), lines, cursor, notice=game.notice)


def discard(game: Game) -> View:
    lines = ("Tap cards to discard", "(an action: asked)", "OK: next player", "BACK: back", scoreline(game))
    return View(_titled(game, ": discard"), lines, notice=game.notice)


def picking(game: Game) -> View:
    phase = expect(game.phase, Picking)
    legend = MOOK_LEGEND if phase.step == "mook" else ""
    return picker(game, picking_title(game, phase), phase.cursor, legend, free=phase.step == "discard")


def reading(game: Game) -> View:
    phase = expect(game.phase, Reading)
    card = game.board.cards[phase.card]
    title = game.short(card.id, LINE_CHARS)
    return View(title, (*wrap(card.text, TEXT_LINES - 1), "OK: done"), notice=game.notice)


def over(game: Game) -> View:
    over = expect(game.phase, Over)
    scores = tuple(name_line("", name, f" {game.board.score(seat)}") for seat, name in enumerate(game.players))
    title = name_line("", game.players[over.winner], " wins!")
    return View(title=title, lines=(*scores[: TEXT_LINES - 1], "Fuhgeddaboutit?"), notice=game.notice)


def picking_title(game: Game, phase: Picking) -> str:
    """What the card's picker asks; another player's card (RULINGS 5a) is named as theirs."""
    whose = "" if phase.by == game.turn else f"{short_name(game.players[phase.by], 7)}'s "
    name = game.short(phase.card, LINE_CHARS - 4 - len(whose))
    if phase.step == "slot":
        return f"{whose}{name} as?"
    if phase.step == "item":
        return f"{short_name(game.players[phase.by], 7)} boosts which?" if whose else "Boost which item?"
    if phase.step == "discard":
        return f"{whose}Guy gets?" if whose else "Guy gets which card?"
    if phase.step == "use":
        return f"{game.short(phase.card, LINE_CHARS - 1)}?"
    return f"{whose}{name} on?"


def scoreline(game: Game) -> str:
    return f"Score {game.board.score(game.turn)}/10 Mooks {len(game.board.mooks[game.turn])}"
