"""What the OLED shows in each phase of Dead Set (the phase table in `rules` names them)."""

from __future__ import annotations

from box.games.base import View
from box.games.dead_set.state import State
from box.games.kit import name_line, short_name, short_person, window
from box.words import LINE_CHARS, TEXT_LINES

AGE_ROOM = LINE_CHARS - 4  # a revealed card's name beside its age
SCORE_NAME = 7  # a player's name beside a count, two to a line
SCOREBOARD_LINES = TEXT_LINES - 2  # below the two lines of the play and game over screens


def play(state: State) -> View:
    taken = len(state.taken[state.seat])
    lines = ("Tap: twist  OK: stick", f"Taken this round: {taken}", *_scoreboard(state, state.seat))
    return View(name_line(f"R{state.round} ", state.players[state.seat], "'s turn"), lines, notice=state.notice)


def reveal(state: State) -> View:
    count = len(state.taken[state.seat])
    people = tuple(state.deck.names.values())
    shown = [
        f"{short_person(state.deck.name_of(card), AGE_ROOM, people):<{AGE_ROOM}} {state.deck[card]:>3}"
        for card in state.revealed
    ]
    lines = (f"Tap card {len(state.revealed) + 1} of {count}", *shown[-4:])
    cursor = len(lines) - 1 if shown else None
    return View(name_line("", state.players[state.seat], ": youngest 1st"), lines, cursor=cursor, notice=state.notice)


def bonus(state: State) -> View:
    why = "Highest total!" if state.high_bonus_done else "Order correct!"
    lines = (why, "Take a graveyard card", f"and tap it ({state.graveyard} left)", "BACK: graveyard empty")
    return View(name_line("", state.players[state.seat], ": bonus card"), lines, notice=state.notice)


def over(state: State) -> View:
    assert state.winner is not None
    target = state.house.target
    lines = (
        name_line("", state.players[state.winner], " wins!"),
        f"{target} celebrit{'y' if target == 1 else 'ies'}",
        *_scoreboard(state, state.winner),
    )
    return View("Game over", lines, cursor=0, notice=state.notice)


def _scoreboard(state: State, seat: int) -> tuple[str, ...]:
    """Celebrities owned, two players a line: 'Ann       5 Bob      3'; with more than six players the
    three lines around `seat`'s."""
    entries = [
        f"{short_name(name, SCORE_NAME):<{SCORE_NAME}}{len(cards):>3}"
        for name, cards in zip(state.players, state.owned, strict=True)
    ]
    lines = [" ".join(entries[i : i + 2]) for i in range(0, len(entries), 2)]
    return window(lines, seat // 2, SCOREBOARD_LINES)[0]
