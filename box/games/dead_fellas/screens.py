"""What the 128x64 OLED shows for each phase: a title and at most five lines of ~21 characters."""

from __future__ import annotations

import textwrap

from box.games.base import View
from box.games.dead_fellas.state import (
    Attack,
    Chain,
    Choice,
    Deal,
    EndTurn,
    Evidence,
    Game,
    Over,
    Picking,
    Playing,
    Reading,
    Recruit,
    Target,
    choices,
)

WIDTH = 21
LINES = 5


def window(offered: tuple[Choice, ...], cursor: int, size: int = LINES) -> tuple[tuple[str, ...], int]:
    """The labels that fit on screen around the cursor, and the cursor's line among them.

    >>> window(tuple(Choice(str(n), None) for n in range(8)), 6)
    (('3', '4', '5', '6', '7'), 3)
    """
    cursor = min(cursor, len(offered) - 1)
    first = max(0, min(cursor - size // 2, len(offered) - size))
    shown = offered[first : first + size]
    return tuple(choice.label[:WIDTH] for choice in shown), cursor - first


def picker(game: Game, title: str, cursor: int) -> View:
    lines, line = window(choices(game), cursor)
    return View(title=title[:WIDTH], lines=lines, cursor=line, notice=game.notice)


def view(game: Game) -> View:
    """The screen for the game's phase."""
    phase = game.phase
    player = game.player[:10]
    if isinstance(phase, Deal):
        dealt = len(game.board.mooks[game.turn])
        lines = (
            "Tap your dealt Mooks",
            f"Mook {dealt + 1} of 3",
            *(game.name(m.card)[:WIDTH] for m in game.board.mooks[game.turn]),
        )
        return View(title=f"Deal: {player}", lines=lines, notice=game.notice)
    if isinstance(phase, Playing):
        lines = ("Draw; tap cards; act:", "Whack", "Draw a card", "Recruit a Mook", scoreline(game))
        return View(title=f"{player}'s turn", lines=lines, cursor=1 + min(phase.cursor, 2), notice=game.notice)
    if isinstance(phase, Recruit):
        return View(
            title=f"{player}: recruit",
            lines=("Draw a Mook and tap", "it: it stays face", "down till next turn", "BACK: other action"),
            notice=game.notice,
        )
    if isinstance(phase, Attack):
        return picker(game, f"{player}: who whacks?", phase.cursor)
    if isinstance(phase, Target):
        return picker(game, f"{game.name(phase.attacker)[:10]} whacks who?", phase.cursor)
    if isinstance(phase, Evidence):
        return picker(game, "Ditch which evidence?", phase.cursor)
    if isinstance(phase, EndTurn):
        keep = len(game.board.mooks[game.turn])
        lines = (
            f"Keep at most {keep} card{'s' if keep != 1 else ''}",
            "in hand; tap discards",
            "(optional).",
            "OK: next player",
            scoreline(game),
        )
        return View(title=f"{player}: end of turn", lines=lines, notice=game.notice)
    if isinstance(phase, Picking):
        return picker(game, picking_title(game, phase), phase.cursor)
    if isinstance(phase, Reading):
        card = game.board.cards[phase.card]
        lines = (*textwrap.wrap(card.text, WIDTH)[: LINES - 1], "OK: done")
        return View(title=card.name[:WIDTH], lines=lines, notice=game.notice)
    if isinstance(phase, Chain):
        return chain_view(game, phase)
    return over_view(game, phase)


def picking_title(game: Game, phase: Picking) -> str:
    name = game.name(phase.card)[:12]
    if phase.step == "slot":
        return f"{name} as?"
    if phase.step == "item":
        return "Boost which item?"
    if phase.step == "discard":
        return "Guy gets which card?"
    return f"{name} on?"


def chain_view(game: Game, chain: Chain) -> View:
    count = len(chain.cards)
    what = game.last.describe(game.board) if game.last else "nothing"
    verdict = "cancelled" if count % 2 else "stands"
    lines = (what[:WIDTH], f"{count} played: {verdict}", "Tap another to flip", "OK: settle", "BACK: take last back")
    return View(title=f"Fuhgeddaboutit x{count}", lines=lines, notice=game.notice)


def over_view(game: Game, over: Over) -> View:
    lines = tuple(f"{name[:14]} {game.board.score(seat)}" for seat, name in enumerate(game.players))[: LINES - 1]
    return View(title=f"{game.players[over.winner][:14]} wins!", lines=(*lines, "Fuhgeddaboutit?"), notice=game.notice)


def scoreline(game: Game) -> str:
    return f"Score {game.board.score(game.turn)}/10 Mooks {len(game.board.mooks[game.turn])}"
