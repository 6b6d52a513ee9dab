"""What the OLED shows in each phase of Deadlines (the phase table in `rules` names them): a title and at
most five lines of 21 characters."""

from __future__ import annotations

from collections.abc import Sequence

from box.games.base import Action, Press, Tap, View
from box.games.deadlines.state import (
    COLUMN_LABELS,
    PENALTY_LIMIT,
    READER_COLUMN,
    Attempting,
    Drawing,
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
from box.games.kit import expect, name_line, short_person, told, window, wrap
from box.words import LINE_CHARS, TEXT_LINES

INSERT_MARK = "----- here -----"
_READER_OF = {column: reader for reader, column in READER_COLUMN.items()}


def starting(game: Game) -> View:
    lines = tuple(
        _card_line(game.name(cards[0]), str(value_of(game.card(cards[0]), column)), _people(game))
        if cards
        else f"{COLUMN_LABELS[column]}: tap {_READER_OF[column]}"
        for column, cards in enumerate(game.columns)
    )
    return View("Starting cards", lines, notice=game.notice)


def drawing(game: Game) -> View:
    phase = expect(game.phase, Drawing)
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
    return View(name_line("", game.players[game.turn], ": tap a card"), tuple(lines), notice=game.notice)


def attempting(game: Game) -> View:
    phase = expect(game.phase, Attempting)
    title = f"Special: {short_person(game.name(phase.card), LINE_CHARS - 9, _people(game))}"
    return View(title, ("Guess cause of death?", "Yes, I guess", "No"), cursor=1 + phase.choice)


def placing(game: Game) -> View:
    phase = expect(game.phase, Placing)
    """The column top to bottom with the insertion mark; a window of five lines around it."""
    column = phase.column
    people = _people(game)
    rows = [_card_line(game.name(card), str(value_of(game.card(card), column)), people) for card in game.columns[column]]
    rows.insert(phase.position, INSERT_MARK)
    label = COLUMN_LABELS[column]
    title = f"{label}: {short_person(game.name(phase.card), LINE_CHARS - len(label) - 2, _people(game))}"
    return _listing(title, rows, phase.position, game.notice)


def judging(game: Game) -> View:
    """The judge (the player to the right, RULINGS 6) is named: they answer, not the player on turn."""
    phase = expect(game.phase, Judging)
    keywords = wrap(", ".join(game.card(phase.card).keywords), 3)
    judge = judge_of(game)
    title = name_line("Judge ", judge, ": keyword?") if judge else "Judge: keyword said?"
    return View(title, (*keywords, "Yes, one was said", "No"), cursor=len(keywords) + phase.choice, notice=game.notice)


def judge_of(game: Game) -> str | None:
    """The player to the right of the one on turn (the previous seat still in), or None when alone."""
    seats = game.survivors
    if len(seats) < 2 or game.turn not in seats:
        return None
    return game.players[seats[seats.index(game.turn) - 1]]


def rewarding(game: Game) -> View:
    phase = expect(game.phase, Rewarding)
    return View("Reward: choose one", ("Drop my penalty", "Give a penalty"), cursor=phase.choice, notice=game.notice)


def targeting(game: Game) -> View:
    phase = expect(game.phase, Targeting)
    names = [name_line("", game.players[p], f" ({game.penalties[p]})") for p in phase.targets]
    return _listing("Penalty for whom?", names, phase.choice, game.notice)


def guessing(game: Game) -> View:
    phase = expect(game.phase, Guessing)
    guesser = game.players[phase.tied[len(phase.guesses)]]
    earlier = tuple(name_line("", game.players[p], f": {g}y") for p, g in zip(phase.tied, phase.guesses))
    lines = (name_line("", guesser, ": life span?"), f"   < {phase.value} years >", *earlier[-3:])
    return View("Death match", lines, cursor=1, notice=game.notice)


def revealing(game: Game) -> View:
    phase = expect(game.phase, Revealing)
    guesses = tuple(name_line("", game.players[p], f": {g}y") for p, g in zip(phase.tied, phase.guesses))
    return View("Death match", ("Tap the centre card", *guesses)[:TEXT_LINES], notice=game.notice)


def finished(game: Game) -> View:
    if game.options.cooperative:
        verdict = "You all win!" if game.winners else "The table loses"
        return View("Game over", (verdict, f"Team penalties: {game.team_penalties}"), notice=game.notice)
    winners = "Winner: " if len(game.winners) == 1 else "Winners: "
    scores = " ".join(
        f"{name}:{'out' if seat in game.eliminated else count}"
        for seat, (name, count) in enumerate(zip(game.players, game.penalties))
    )
    scores_lines = wrap(scores, TEXT_LINES)
    if len(scores_lines) > TEXT_LINES - 2:  # room for the verdict and the game's last word: one line, scrolling
        scores_lines = (scores,)
    lines = (winners + ", ".join(game.winners), *scores_lines)
    return View("Game over", lines, notice=game.notice, scrolling=tuple(range(len(lines))))


def _listing(title: str, rows: list[str], cursor: int, notice: str) -> View:
    """A list longer than the screen: the window of five rows around `cursor`."""
    lines, line = window(rows, cursor)
    return View(title, lines, cursor=line, notice=notice)


def _people(game: Game) -> tuple[str, ...]:
    """The deck's names, which a shortened name is told apart from."""
    return tuple(game.deck.names.values())


def _card_line(name: str, value: str, among: Sequence[str] = ()) -> str:
    """`name` shortened to fit beside `value`, which is right-aligned (told apart from `among`'s names).

    >>> _card_line("Albert Einstein", "1879-03-14")
    'Einstein   1879-03-14'
    >>> _card_line("Leonardo da Vinci", "67y 0m")
    'L. d. Vinci    67y 0m'
    """
    room = LINE_CHARS - len(value) - 1
    return f"{short_person(name, room, among):<{room}} {value}"


def describe(before: Game | None, action: Action, after: Game) -> str | None:
    """The undo label of a card on its way into a column, else the notice the action left.

    "Lincoln under Birth" (tapped at the left tombstone), "moving Lincoln", "placing Lincoln".
    """
    if before is not None and isinstance(action, Tap) and isinstance(before.phase, Starting | Drawing):
        return f"{before.name(action.card)} under {COLUMN_LABELS[READER_COLUMN[action.reader]]}"
    if before is not None and isinstance(action, Press) and isinstance(before.phase, Placing):
        name = before.name(before.phase.card)
        if action.button == "ok":
            return f"placing {name}"
        if action.button in ("up", "down"):
            return f"moving {name}"
    return told(before, after)
