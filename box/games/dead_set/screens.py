"""What the OLED shows in each phase of Dead Set (the phase table in `rules` names them)."""

from __future__ import annotations

from box.games.base import View
from box.games.dead_set.state import State
from box.games.kit import fit, window
from box.words import LINE_CHARS, TEXT_LINES

AGE_ROOM = LINE_CHARS - 4  # a revealed card's name beside its age
SCOREBOARD_LINES = TEXT_LINES - 2  # below the two lines of the play and game over screens


def play(state: State) -> View:
    name = state.players[state.seat]
    taken = len(state.taken[state.seat])
    lines = ("Tap: twist  OK: stick", f"Taken this round: {taken}", *_scoreboard(state, state.seat))
    return View(fit(f"R{state.round} {name}'s turn"), lines, notice=state.notice)


def reveal(state: State) -> View:
    name = state.players[state.seat]
    count = len(state.taken[state.seat])
    shown = [f"{fit(state.deck.name_of(card), AGE_ROOM):<{AGE_ROOM}} {state.deck[card]:>3}" for card in state.revealed]
    lines = (f"Tap card {len(state.revealed) + 1} of {count}", *shown[-4:])
    cursor = len(lines) - 1 if shown else None
    return View(fit(f"{name}: youngest 1st"), lines, cursor=cursor, notice=state.notice)


def bonus(state: State) -> View:
    name = state.players[state.seat]
    why = "Highest total!" if state.high_bonus_done else "Order correct!"
    lines = (why, "Take a graveyard card", f"and tap it ({state.graveyard} left)", "BACK: graveyard empty")
    return View(fit(f"{name}: bonus card"), lines, notice=state.notice)


def over(state: State) -> View:
    assert state.winner is not None
    lines = (f"{state.players[state.winner]} wins!", f"{state.house.target} celebrities", *_scoreboard(state, state.winner))
    return View("Game over", lines, cursor=0, notice=state.notice)


def _scoreboard(state: State, seat: int) -> tuple[str, ...]:
    """Celebrities owned, two players a line: 'Ann       5 Bob      3'; with more than six players the
    three lines around `seat`'s."""
    entries = [f"{fit(name, 7):<7}{len(cards):>3}" for name, cards in zip(state.players, state.owned, strict=True)]
    lines = [" ".join(entries[i : i + 2]) for i in range(0, len(entries), 2)]
    return window(lines, seat // 2, SCOREBOARD_LINES)[0]
