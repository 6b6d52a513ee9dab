"""Deadlines' transitions: (state, action) -> Step or Rejected, pure and total.

One handler per phase (`PHASES`); each answers every action, so an input the phase does
not expect is rejected with a reason and the state stays as it was.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from box.decks.codec import Deck
from box.games import TITLES
from box.games.base import Action, Press, Rejected, Roll, Setup, Sound, Step, Tap, View
from box.games.deadlines import cards, events, screens
from box.games.deadlines.cards import OLDEST_AGE, compare, compare_spans
from box.games.deadlines.state import (
    COLUMN_LABELS,
    COLUMNS,
    FIGURES,
    FIRST_GUESS,
    OPTIONS,
    PENALTY_LIMIT,
    PHONE,
    READER_COLUMN,
    SECRETS,
    Attempting,
    Drawing,
    Finished,
    Game,
    Guessing,
    Judging,
    Options,
    Placing,
    Question,
    Revealing,
    Rewarding,
    Starting,
    Targeting,
    dump,
    figures_of,
    value_of,
)
from box.games.kit import MOVES, Rulebook, Stage, expect, moved, set_at

Result = Step[Game] | Rejected


def apply(game: Game, action: Action) -> Result:
    """The next state after `action`, or why it is refused."""
    if isinstance(action, Roll):
        return Rejected("Deadlines uses no dice")
    if isinstance(action, Tap) and (action.card not in game.deck or action.reader not in READER_COLUMN):
        return Rejected("Not a Deadlines card or reader")  # the service filters these: a safety net
    return PHASES[type(game.phase)].handle(game, action)


def view(game: Game) -> View:
    """The screen for `game`'s phase; `notice` carries the last result."""
    return PHASES[type(game.phase)].screen(game)


# --- setup -------------------------------------------------------------------


def _starting(game: Game, action: Action) -> Result:
    if not isinstance(action, Tap):
        return Rejected("Tap a starting card on each reader")
    column = READER_COLUMN[action.reader]
    if game.columns[column]:
        return Rejected(f"{COLUMN_LABELS[column]} has its starting card")
    if action.card in game.used:
        return _already_played(game, action.card)
    game = _with_card(game, column, 0, action.card)
    notice = f"{game.name(action.card)}: {value_of(game.card(action.card), column)}"
    phase = Drawing() if all(game.columns) else game.phase
    return Step(replace(game, phase=phase, notice=notice), (Sound.CLICK,))


# --- a turn ------------------------------------------------------------------


def _drawing(game: Game, action: Action) -> Result:
    phase = expect(game.phase, Drawing)
    may_stop = game.options.streak == "may" and phase.placed > 0
    if isinstance(action, Press):
        if action.button == "ok" and may_stop:
            return _next_turn(replace(game, notice=f"{game.players[game.turn]} stops"), ())
        return Rejected("Tap a card, or OK to stop" if may_stop else "Tap a card under a tombstone")
    if not isinstance(action, Tap):
        return Rejected("Deadlines uses no dice")  # `apply` refuses a Roll before any phase sees it
    column = READER_COLUMN[action.reader]
    if game.closed(column):
        return Rejected(f"The {COLUMN_LABELS[column]} column is closed")
    if action.card in game.used:
        return _already_played(game, action.card)
    if game.card(action.card).special:
        return Step(replace(game, phase=Attempting(action.card, column, phase.placed), notice=""), (Sound.CLICK,))
    return Step(
        replace(game, phase=_start_placing(game, action.card, column, False, phase.placed), notice=""), (Sound.CLICK,)
    )


def _attempting(game: Game, action: Action) -> Result:
    phase = expect(game.phase, Attempting)

    def attempt() -> Result:
        placing = _start_placing(game, phase.card, phase.column, phase.choice == 0, phase.placed)
        return Step(replace(game, phase=placing), (Sound.CLICK,))

    def back() -> Result:
        return Step(replace(game, phase=Drawing(phase.placed), notice="Card taken back"), (Sound.CLICK,))

    return _answer(game, phase, action, 2, "Answer with UP/DOWN and OK", attempt, back)


def _start_placing(game: Game, card: str, column: int, attempt: bool, placed: int) -> Placing:
    """The insertion cursor starts in the middle of the column (between the two middle cards)."""
    return Placing(card, column, len(game.columns[column]) // 2, attempt, placed)


def _placing_step(game: Game, action: Action) -> Result:
    phase = expect(game.phase, Placing)
    if not isinstance(action, Press):
        return Rejected("Place the card: UP/DOWN, OK")
    if action.button in ("up", "down"):
        position = moved(phase.position, len(game.columns[phase.column]) + 1, action.button)
        return Step(replace(game, phase=replace(phase, position=position)), (Sound.CLICK,))
    if action.button == "ok":
        return _reveal(game, phase)
    if action.button == "back":
        if game.card(phase.card).special:
            return Step(replace(game, phase=Attempting(phase.card, phase.column, phase.placed)), (Sound.CLICK,))
        return Step(replace(game, phase=Drawing(phase.placed), notice="Card taken back"), (Sound.CLICK,))
    return Rejected("Place the card: UP/DOWN, OK")


def fits(game: Game, column: int, position: int, card: str) -> bool:
    """Whether `card` at `position` is in order with every card above and below it (RULINGS 3).

    The column stays in order as a whole: a coarse "1809" may tie both Poe (1809-01-19) and
    Darwin (1809-02-12), yet Darwin may not stand above Poe. Ties follow the `ties` rule.
    """
    cards = game.columns[column]
    return all(in_order(game, column, above, card) for above in cards[:position]) and all(
        in_order(game, column, card, below) for below in cards[position:]
    )


def in_order(game: Game, column: int, first: str, second: str) -> bool:
    """Whether `first` may stand above `second` in `column`."""
    a, b = game.card(first), game.card(second)
    if column == 1:
        order = compare_spans(a.lifespan, b.lifespan)
    else:
        order = compare(a.born, b.born) if column == 0 else compare(a.died, b.died)
    return order < 0 or (order == 0 and game.options.ties == "either")


def _reveal(game: Game, phase: Placing) -> Result:
    """Judge the placement from the card data; keep a right card, count a wrong one."""
    name = game.name(phase.card)
    value = value_of(game.card(phase.card), phase.column)
    right = fits(game, phase.column, phase.position, phase.card)
    game = replace(
        game,
        used=game.used | {phase.card},
        placements=_counted(game, game.placements, phase.column),
        right=_counted(game, game.right, phase.column) if right else game.right,
    )
    if not right:
        game = _penalise(replace(game, notice=f"Wrong! {name}: {value}"), game.turn)
        return _after_turn(game, (Sound.WRONG,))
    game = _with_card(game, phase.column, phase.position, phase.card)
    sounds: tuple[str, ...] = (Sound.RIGHT,)
    notice = f"Right! {value}"
    if game.closed(phase.column):
        sounds += (Sound.COLUMN,)
        notice += f", {COLUMN_LABELS[phase.column]} closed"
    game = replace(game, notice=notice)
    if phase.attempt:
        return Step(replace(game, phase=Judging(phase.card, phase.placed + 1)), sounds)
    return _after_right(game, phase.placed + 1, sounds)


# --- the special card's judge and reward ---------------------------------------


def _judging(game: Game, action: Action) -> Result:
    phase = expect(game.phase, Judging)

    def judged() -> Result:
        if phase.choice == 1:
            return _after_right(replace(game, notice="Wrong cause: no reward"), phase.placed, (Sound.CLICK,))
        return _reward(game, phase.placed)

    return _answer(game, phase, action, 2, "The judge answers: UP/DOWN, OK", judged)


def _reward(game: Game, placed: int) -> Result:
    """Choose one reward (discard or give), or both with `reward=both`; co-op can only discard."""
    me = game.turn
    if game.options.cooperative:
        if game.team_penalties == 0:
            return _after_right(replace(game, notice="Reward: no penalty to drop"), placed, (Sound.RIGHT,))
        game = replace(game, team_penalties=game.team_penalties - 1, notice="Reward: team penalty gone")
        return _after_right(game, placed, (Sound.RIGHT,))
    targets = tuple(p for p in game.survivors if p != me)
    can_discard = game.penalties[me] > 0
    if can_discard and targets and game.options.reward == "one":
        return Step(replace(game, phase=Rewarding(placed), notice="Reward!"), (Sound.RIGHT,))
    if can_discard:
        game = _discard(game)
    if targets:
        return _pick_target(game, placed, targets, from_choice=False, sounds=(Sound.RIGHT,))
    return _after_right(game if can_discard else replace(game, notice="Reward: nothing to do"), placed, (Sound.RIGHT,))


def _rewarding(game: Game, action: Action) -> Result:
    phase = expect(game.phase, Rewarding)

    def chosen() -> Result:
        if phase.choice == 0:
            return _after_right(_discard(game), phase.placed, (Sound.CLICK,))
        targets = tuple(p for p in game.survivors if p != game.turn)
        return _pick_target(game, phase.placed, targets, from_choice=True, sounds=(Sound.CLICK,))

    return _answer(game, phase, action, 2, "Choose a reward: UP/DOWN, OK", chosen)


def _pick_target(
    game: Game, placed: int, targets: tuple[int, ...], from_choice: bool, sounds: tuple[str, ...]
) -> Result:
    """Ask who gets the penalty, unless only one player can."""
    if len(targets) == 1:
        return _give(game, targets[0], placed, sounds)
    return Step(replace(game, phase=Targeting(placed, targets, from_choice)), sounds)


def _targeting(game: Game, action: Action) -> Result:
    phase = expect(game.phase, Targeting)

    def give() -> Result:
        return _give(game, phase.targets[phase.choice], phase.placed, (Sound.CLICK,))

    def back() -> Result:
        return Step(replace(game, phase=Rewarding(phase.placed, choice=1)), (Sound.CLICK,))

    hint = "Who gets a penalty? UP/DOWN, OK"
    return _answer(game, phase, action, len(phase.targets), hint, give, back if phase.from_choice else None)


def _discard(game: Game) -> Game:
    penalties = _changed(game.penalties, game.turn, -1)
    return replace(game, penalties=penalties, notice=f"{game.players[game.turn]} drops a penalty")


def _give(game: Game, target: int, placed: int, sounds: tuple[str, ...]) -> Result:
    game = _penalise(replace(game, notice=f"{game.players[target]} gets a penalty"), target)
    return _after_right(game, placed, sounds)


# --- turns and the end --------------------------------------------------------


def _after_right(game: Game, placed: int, sounds: tuple[str, ...]) -> Result:
    """After a right card: the game may end, else the turn passes or goes on per `streak`."""
    finished = _finish_if_over(game)
    if finished is not None:
        return Step(finished, sounds + _end_sounds(finished))
    if game.options.streak == "off":
        return _next_turn(game, sounds)
    return Step(replace(game, phase=Drawing(placed)), sounds)


def _after_turn(game: Game, sounds: tuple[str, ...]) -> Result:
    finished = _finish_if_over(game)
    if finished is not None:
        return Step(finished, sounds + _end_sounds(finished))
    return _next_turn(game, sounds)


def _next_turn(game: Game, sounds: tuple[str, ...]) -> Step:
    seats = len(game.players)
    following = next(
        seat for step in range(1, seats + 1) if (seat := (game.turn + step) % seats) not in game.eliminated
    )
    return Step(replace(game, turn=following, phase=Drawing()), sounds)


def _penalise(game: Game, player: int) -> Game:
    """One more penalty for `player` (and the team in co-op); out at the limit in Death Match."""
    game = replace(game, penalties=_changed(game.penalties, player, +1))
    if game.options.cooperative:
        return replace(game, team_penalties=game.team_penalties + 1)
    if game.options.eliminating and game.penalties[player] >= PENALTY_LIMIT and player not in game.eliminated:
        return replace(game, eliminated=(*game.eliminated, player), notice=f"{game.players[player]} is out")
    return game


def _finish_if_over(game: Game) -> Game | None:
    """The finished (or death-match) state when the end condition is met, else None."""
    if game.options.cooperative:
        if game.team_penalties >= PENALTY_LIMIT:
            return replace(game, phase=Finished(), notice="3 penalties: the table loses")
        if game.all_closed:
            return replace(game, phase=Finished(), winners=game.players, notice="All columns closed: you win")
        return None
    survivors = game.survivors
    if game.options.eliminating and (not survivors or (len(game.players) > 1 and len(survivors) == 1)):
        names = tuple(game.players[p] for p in survivors)
        return replace(game, phase=Finished(), winners=names, notice="Last one standing")
    if not game.all_closed:
        return None
    fewest = min(game.penalties[p] for p in survivors)
    tied = tuple(p for p in survivors if game.penalties[p] == fewest)
    if len(tied) == 1:
        return replace(game, phase=Finished(), winners=(game.players[tied[0]],), notice="Fewest penalties")
    return replace(game, phase=Guessing(tied, (), FIRST_GUESS), notice="Tie! Death match")


def _end_sounds(game: Game) -> tuple[str, ...]:
    return (Sound.FANFARE,) if isinstance(game.phase, Finished) and game.winners else ()


# --- the death match (a tie at the end) ---------------------------------------


def _guessing(game: Game, action: Action) -> Result:
    phase = expect(game.phase, Guessing)
    if not isinstance(action, Press):
        return Rejected("Guess first, then tap the card")
    if action.button in ("up", "down"):
        value = phase.value + (1 if action.button == "up" else -1)
        if not 0 <= value <= OLDEST_AGE:
            return Rejected(f"Guesses go from 0 to {OLDEST_AGE}")
        return Step(replace(game, phase=replace(phase, value=value)), (Sound.CLICK,))
    if action.button == "ok":
        if phase.value in phase.guesses:
            who = game.players[phase.tied[phase.guesses.index(phase.value)]]
            return Rejected(f"{who} already guessed {phase.value}")
        guesses = (*phase.guesses, phase.value)
        if len(guesses) == len(phase.tied):
            return Step(replace(game, phase=Revealing(phase.tied, guesses), notice=""), (Sound.CLICK,))
        return Step(replace(game, phase=Guessing(phase.tied, guesses, _free_guess(guesses))), (Sound.CLICK,))
    if action.button == "back" and phase.guesses:
        return Step(replace(game, phase=Guessing(phase.tied, phase.guesses[:-1], phase.guesses[-1])), (Sound.CLICK,))
    return Rejected("Set your guess: UP/DOWN, OK")


def _free_guess(guesses: tuple[int, ...]) -> int:
    """The first guess nobody made yet, from FIRST_GUESS upwards (then downwards)."""
    free = [value for value in range(FIRST_GUESS, OLDEST_AGE + 1) if value not in guesses]
    return free[0] if free else max(value for value in range(FIRST_GUESS) if value not in guesses)


def _revealing(game: Game, action: Action) -> Result:
    phase = expect(game.phase, Revealing)
    if not isinstance(action, Tap):
        return Rejected("Tap the top card of the centre deck")
    if action.card in game.used:
        return _already_played(game, action.card)
    years = game.card(action.card).lifespan.years
    game = replace(game, used=game.used | {action.card})
    distances = [abs(guess - years) for guess in phase.guesses]
    closest = tuple(p for p, distance in zip(phase.tied, distances) if distance == min(distances))
    notice = f"{game.name(action.card)}: {years}y"
    if len(closest) == 1:
        finished = replace(game, phase=Finished(), winners=(game.players[closest[0]],), notice=notice)
        return Step(finished, (Sound.FANFARE,))
    again = replace(game, phase=Guessing(closest, (), FIRST_GUESS), notice=notice + ", again")
    return Step(again, (Sound.WRONG,))


def _finished(game: Game, action: Action) -> Result:
    return Rejected("The game is over")


# --- small helpers --------------------------------------------------------------


def _answer(
    game: Game,
    phase: Question,
    action: Action,
    count: int,
    hint: str,
    ok: Callable[[], Result],
    back: Callable[[], Result] | None = None,
) -> Result:
    """A question of `count` answers: UP/DOWN move its cursor (the kit's rule), OK answers, BACK where it can."""
    if not isinstance(action, Press):
        return Rejected(hint)
    if action.button in MOVES:
        return Step(replace(game, phase=replace(phase, choice=moved(phase.choice, count, action.button))), (Sound.CLICK,))
    if action.button == "ok":
        return ok()
    if action.button == "back" and back is not None:
        return back()
    return Rejected(hint)


def _with_card(game: Game, column: int, position: int, card: str) -> Game:
    held = game.columns[column]
    columns = set_at(game.columns, column, (*held[:position], card, *held[position:]))
    return replace(game, columns=columns, used=game.used | {card})


def _counted(game: Game, counts: tuple[tuple[int, ...], ...], column: int) -> tuple[tuple[int, ...], ...]:
    """`counts` (placements or right ones, a row a player) with one more for the current player in `column`."""
    return tuple(_changed(row, column, +1) if player == game.turn else row for player, row in enumerate(counts))


def _changed(counts: tuple[int, ...], index: int, delta: int) -> tuple[int, ...]:
    return set_at(counts, index, counts[index] + delta)


def _already_played(game: Game, card: str) -> Rejected:
    return Rejected(f"{game.name(card)} is already in play")


PHASES: dict[type, Stage[Game]] = {
    Starting: Stage(_starting, screens.starting),
    Drawing: Stage(_drawing, screens.drawing),
    Attempting: Stage(_attempting, screens.attempting),
    Placing: Stage(_placing_step, screens.placing),
    Judging: Stage(_judging, screens.judging),
    Rewarding: Stage(_rewarding, screens.rewarding),
    Targeting: Stage(_targeting, screens.targeting),
    Guessing: Stage(_guessing, screens.guessing),
    Revealing: Stage(_revealing, screens.revealing),
    Finished: Stage(_finished, screens.finished),
}


def new(setup: Setup, deck: Deck) -> Game:
    """The table before the starting cards: every column empty, nobody penalised."""
    players = tuple(setup.players)
    none = ((0,) * len(COLUMNS),) * len(players)
    return Game(
        deck, players, Options.from_mapping(setup.options), Starting(),
        penalties=(0,) * len(players), placements=none, right=none,
    )


def is_over(game: Game) -> bool:
    return isinstance(game.phase, Finished)


RULES = Rulebook(
    cards.NAME, TITLES[cards.NAME], (1, 10), OPTIONS, cards.load_deck, new, apply, view, dump, is_over,
    describe=screens.describe, figures=FIGURES, figures_of=figures_of, phone=PHONE, secrets=SECRETS,
    events=events.happened,
)
