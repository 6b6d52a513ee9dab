"""What the OLED shows in each phase of Deadlines: a title and at most five lines of ~21 characters."""

from __future__ import annotations

from box.games.base import View
from box.games.deadlines.state import (
    COLUMN_LABELS,
    PENALTY_LIMIT,
    READER_COLUMN,
    Attempting,
    Drawing,
    Finished,
    Game,
    Guessing,
    Judging,
    Placing,
    Revealing,
    Rewarding,
    Starting,
    Targeting,
    value_of,
)

WIDTH = 21
LINES = 5
INSERT_MARK = "----- here -----"
_READER_OF = {column: reader for reader, column in READER_COLUMN.items()}


def view(game: Game) -> View:
    """The screen for `game`'s phase; `notice` carries the last result."""
    phase = game.phase
    if isinstance(phase, Starting):
        lines = tuple(
            _card_line(game.name(cards[0]), str(value_of(game.card(cards[0]), column)))
            if cards
            else f"{COLUMN_LABELS[column]}: tap {_READER_OF[column]}"
            for column, cards in enumerate(game.columns)
        )
        return View("Starting cards", lines, notice=game.notice)
    if isinstance(phase, Drawing):
        return _drawing(game, phase)
    if isinstance(phase, Attempting):
        title = _cut(f"Special: {game.name(phase.card)}")
        return View(title, ("Guess cause of death?", "Yes, I guess", "No"), cursor=1 + phase.choice)
    if isinstance(phase, Placing):
        return _placing(game, phase)
    if isinstance(phase, Judging):
        keywords = _wrap(", ".join(game.card(phase.card).keywords), 3)
        return View(
            "Judge: keyword said?", (*keywords, "Yes", "No"), cursor=len(keywords) + phase.choice, notice=game.notice
        )
    if isinstance(phase, Rewarding):
        return View(
            "Reward: choose one", ("Drop my penalty", "Give a penalty"), cursor=phase.choice, notice=game.notice
        )
    if isinstance(phase, Targeting):
        names = tuple(f"{game.players[p]} ({game.penalties[p]})" for p in phase.targets)
        return _window("Penalty for whom?", names, phase.choice, game.notice)
    if isinstance(phase, Guessing):
        return _guessing(game, phase)
    if isinstance(phase, Revealing):
        guesses = tuple(f"{game.players[p]}: {g}y" for p, g in zip(phase.tied, phase.guesses))
        return View("Death match", ("Tap the centre card", *guesses)[:LINES], notice=game.notice)
    assert isinstance(phase, Finished)
    return View("Game over", _final_lines(game), notice=game.notice)


def _drawing(game: Game, phase: Drawing) -> View:
    lines = [
        _card_line(label, "closed" if game.closed(column) else f"{len(cards)}/{game.options.column_size}")
        for column, (label, cards) in enumerate(zip(COLUMN_LABELS, game.columns))
    ]
    if game.options.cooperative:
        lines.append(f"Team penalties {game.team_penalties}/{PENALTY_LIMIT}")
    else:
        lines.append(f"Your penalties: {game.penalties[game.turn]}")
    if game.options.streak == "may" and phase.placed > 0:
        lines.append("OK: stop here")
    return View(_cut(f"{game.players[game.turn]}: tap a card"), tuple(lines), notice=game.notice)


def _placing(game: Game, phase: Placing) -> View:
    """The column top to bottom with the insertion mark; a window of five lines around it."""
    column = phase.column
    rows = [_card_line(game.name(card), str(value_of(game.card(card), column))) for card in game.columns[column]]
    rows.insert(phase.position, INSERT_MARK)
    title = _cut(f"{COLUMN_LABELS[column]}: {game.name(phase.card)}")
    return _window(title, tuple(rows), phase.position, game.notice)


def _guessing(game: Game, phase: Guessing) -> View:
    guesser = game.players[phase.tied[len(phase.guesses)]]
    earlier = tuple(f"{game.players[p]}: {g}y" for p, g in zip(phase.tied, phase.guesses))
    lines = (f"{guesser}: life span?", f"   < {phase.value} years >", *earlier[-3:])
    return View("Death match", lines, cursor=1, notice=game.notice)


def _final_lines(game: Game) -> tuple[str, ...]:
    if game.options.cooperative:
        verdict = "You all win!" if game.winners else "The table loses"
        return (verdict, f"Team penalties: {game.team_penalties}")
    winners = "Winner: " if len(game.winners) == 1 else "Winners: "
    scores = " ".join(
        f"{name}:{'out' if seat in game.eliminated else count}"
        for seat, (name, count) in enumerate(zip(game.players, game.penalties))
    )
    return (_cut(winners + ", ".join(game.winners)), *_wrap(scores, LINES - 1))


def _window(title: str, rows: tuple[str, ...], cursor: int, notice: str) -> View:
    """At most five rows around `cursor`, the cursor kept inside the window."""
    start = max(0, min(cursor - LINES // 2, len(rows) - LINES))
    return View(title, rows[start : start + LINES], cursor=cursor - start, notice=notice)


def _card_line(name: str, value: str) -> str:
    """`name` shortened to fit beside `value`, which is right-aligned.

    >>> _card_line("Albert Einstein", "1879-03-14")
    'Einstein   1879-03-14'
    >>> _card_line("Leonardo da Vinci", "67y 0m")
    'L. d. Vinci    67y 0m'
    """
    room = WIDTH - len(value) - 1
    *first, last = name.split() or [""]
    for short in (name, " ".join([*(f"{word[0]}." for word in first), last]), last):
        if len(short) <= room:
            break
    return f"{short[:room]:<{room}} {value}"


def _cut(text: str) -> str:
    return text[:WIDTH]


def _wrap(text: str, most: int) -> tuple[str, ...]:
    """`text` broken at spaces into at most `most` lines of WIDTH characters."""
    lines: list[str] = []
    for word in text.split():
        if lines and len(lines[-1]) + 1 + len(word) <= WIDTH:
            lines[-1] += " " + word
        else:
            lines.append(word[:WIDTH])
    return tuple(lines[:most])
