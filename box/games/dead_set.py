"""Dead Set: stick or twist, reveal youngest to oldest, and the race to 13 celebrities.

The box cannot see the graveyard or the deck: the table deals, the box keeps the
score. In a round each player in turn twists (taps the card they took) or sticks
(OK). When everybody has stuck, the players reveal in turn order from the
round's first player, tapping their cards youngest first; the box shows each
age, judges the order, totals the ages (over 200 busts) and asks for the bonus
cards to be tapped. The game ends the moment somebody owns `target` cards.
See docs/games/dead-set.md.

>>> deck = Deck("dead-set", {"ds1": 30, "ds2": 60}, {"ds1": "Young", "ds2": "Old"}, "x.csv")
>>> state = RULES.new(Setup(("Ann", "Bob")), deck)
>>> state = RULES.apply(state, Tap("left", "ds1")).state  # Ann twists
>>> RULES.dump(state)["current_player"]
'Bob'
>>> RULES.apply(state, Tap("left", "ds1"))
Rejected(reason='Ann took it this round')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from itertools import pairwise
from pathlib import Path
from typing import Any

from box.cards import Deck, RowError, open_deck, whole_number
from box.games.base import Action, Option, Press, Rejected, Roll, Setup, Sound, Step, Tap, View

NAME = "dead-set"
COLUMNS = ("id", "name", "age")
ID_PREFIX = "ds"
OLDEST_AGE = 122  # Jeanne Calment, the oldest verified human
BUST_OVER = 200
GRAVEYARD_SLOTS = 4
WIDTH = 21  # characters on an OLED line

OPTIONS = (
    Option("target", "Celebrities to win", "13", low=1, high=108),
    Option("ties", "Equal ages in order", "either", ("either", "strict")),
    Option("order_bonus_min", "Cards for order bonus", "2", low=1, high=20),
    Option("high_tie", "Tie for high total", "all", ("all", "none")),
)


def parse_celebrity(values: Mapping[str, str]) -> int:
    """A deck row's age at death; the id must carry the game's prefix.

    >>> parse_celebrity({"id": "ds7", "name": "Ada Lovelace", "age": "36"})
    36
    >>> parse_celebrity({"id": "dl7", "name": "Ada Lovelace", "age": "36"})
    Traceback (most recent call last):
    box.cards.RowError: must start with 'ds', not 'dl7'
    """
    if not values["id"].startswith(ID_PREFIX):
        raise RowError("id", f"must start with {ID_PREFIX!r}, not {values['id']!r}")
    return whole_number(values, "age", 0, OLDEST_AGE)


class Phase(StrEnum):
    PLAY = "play"  # twist or stick
    REVEAL = "reveal"  # a player taps their round's cards, youngest first
    BONUS = "bonus"  # a player taps the bonus card they took from the graveyard
    OVER = "over"


@dataclass(frozen=True)
class HouseRules:
    """The options of a game, parsed.

    >>> HouseRules.from_options({"target": "10", "ties": "strict"})
    HouseRules(target=10, strict_ties=True, order_bonus_min=2, high_tie_all=True)
    """

    target: int = 13
    strict_ties: bool = False
    order_bonus_min: int = 2
    high_tie_all: bool = True

    @classmethod
    def from_options(cls, options: Mapping[str, str]) -> HouseRules:
        chosen = {option.key: option.parse(options.get(option.key, option.default)) for option in OPTIONS}
        return cls(
            target=int(chosen["target"]),
            strict_ties=chosen["ties"] == "strict",
            order_bonus_min=int(chosen["order_bonus_min"]),
            high_tie_all=chosen["high_tie"] == "all",
        )


@dataclass(frozen=True)
class Result:
    """One player's end of round: total age, bust, order bonus earned, bonus cards taken."""

    total: int
    bust: bool
    order_ok: bool
    bonus: int = 0


@dataclass(frozen=True)
class State:
    """One moment of a game. Tuples indexed by seat; `seat` is the player the box waits for.

    `results` holds the round being scored, or the last round's during play.
    `owed` lists the seats still owed a bonus card, `graveyard` how many cards
    are left in the graveyard for bonuses while scoring.
    """

    players: tuple[str, ...]
    deck: Deck = field(repr=False)
    house: HouseRules
    owned: tuple[tuple[str, ...], ...]
    taken: tuple[tuple[str, ...], ...]
    stuck: tuple[bool, ...]
    results: tuple[Result | None, ...]
    phase: Phase = Phase.PLAY
    round: int = 1
    first: int = 0
    seat: int = 0
    revealed: tuple[str, ...] = ()
    owed: tuple[int, ...] = ()
    graveyard: int = 0
    high_bonus_done: bool = False
    winner: int | None = None
    notice: str = ""


def in_order(ages: list[int], strict: bool) -> bool:
    """True if `ages` go youngest to oldest; equal neighbours pass unless `strict`.

    >>> in_order([20, 20, 30], strict=False), in_order([20, 20, 30], strict=True)
    (True, False)
    """
    pairs = pairwise(ages)
    return all(a < b for a, b in pairs) if strict else all(a <= b for a, b in pairs)


class DeadSet:
    """The Dead Set rules for the box service (see box.games.base.Rules)."""

    name = NAME
    title = "Dead Set"
    min_players = 2
    max_players = 6
    options = OPTIONS

    def load_deck(self, directory: Path | str | None = None) -> Deck:
        """`<directory>/dead-set.csv`, or the built-in deck."""
        return open_deck(NAME, COLUMNS, parse_celebrity, Path(directory) if directory else None)

    def new(self, setup: Setup, deck: Deck) -> State:
        """Round 1, the first named player to twist or stick; ValueError for repeated names."""
        players = tuple(setup.players)
        if len(set(players)) != len(players):
            raise ValueError("Dead Set players need different names")
        empty = tuple(() for _ in players)
        return State(
            players=players,
            deck=deck,
            house=HouseRules.from_options(setup.options),
            owned=empty,
            taken=empty,
            stuck=tuple(False for _ in players),
            results=tuple(None for _ in players),
            notice=f"Round 1: {players[0]} starts",
        )

    def apply(self, state: State, action: Action) -> Step | Rejected:
        """The game after `action`, or why it is refused (the state is never changed)."""
        if state.phase is Phase.OVER:
            return Rejected("The game is over")
        if isinstance(action, Roll):
            return Rejected("Dead Set needs no dice")
        if isinstance(action, Tap):
            if action.card not in state.deck:
                return Rejected("Not a Dead Set card")
            return _TAPS[state.phase](state, action.card)
        if isinstance(action, Press):
            if state.phase is Phase.PLAY and action.button == "ok":
                return _stick(state)
            if state.phase is Phase.BONUS and action.button == "back":
                return _graveyard_empty(state)
            return Rejected(_HINTS[state.phase])
        return Rejected("Unknown input")

    def wants_roll(self, state: State) -> bool:
        """Never: Dead Set has no dice."""
        return False

    def view(self, state: State) -> View:
        """The OLED screen for the current phase."""
        return _VIEWS[state.phase](state)

    def dump(self, state: State) -> dict[str, Any]:
        """JSON-ready keys; see docs/games/dead-set.md."""
        over = state.phase is Phase.OVER
        return {
            "current_player": None if over else state.players[state.seat],
            "over": over,
            "winners": [] if state.winner is None else [state.players[state.winner]],
            "phase": state.phase.value,
            "round": state.round,
            "celebrities": {name: len(cards) for name, cards in zip(state.players, state.owned, strict=True)},
            "round_cards": {name: list(cards) for name, cards in zip(state.players, state.taken, strict=True)},
            "stuck": [name for name, stuck in zip(state.players, state.stuck, strict=True) if stuck],
            "last_round": {
                name: {"total": r.total, "bust": r.bust, "order_ok": r.order_ok, "bonus": r.bonus}
                for name, r in zip(state.players, state.results, strict=True)
                if r is not None
            },
        }


RULES = DeadSet()

_HINTS = {
    Phase.PLAY: "Tap a card to twist, OK to stick",
    Phase.REVEAL: "Tap your cards, youngest first",
    Phase.BONUS: "Tap the bonus card (BACK: none)",
}


# --- the round: twist or stick ---------------------------------------------------------


def _why_not_free(state: State, card: str) -> str | None:
    """Why `card` cannot be taken now (it is owned or was taken this round), or None."""
    for seat, name in enumerate(state.players):
        if card in state.owned[seat]:
            return f"{name} owns it already"
        if card in state.taken[seat]:
            mine = seat == state.seat and state.phase is Phase.PLAY
            return "You took it already" if mine else f"{name} took it this round"
    return None


def _twist(state: State, card: str) -> Step | Rejected:
    problem = _why_not_free(state, card)
    if problem:
        return Rejected(problem)
    taken = _with(state.taken, state.seat, state.taken[state.seat] + (card,))
    count = len(taken[state.seat])
    moved = replace(state, taken=taken, notice=f"{state.players[state.seat]} twists ({count})")
    return _next_turn(moved, (Sound.CLICK,))


def _stick(state: State) -> Step:
    moved = replace(state, stuck=_with(state.stuck, state.seat, True), notice=f"{state.players[state.seat]} sticks")
    return _next_turn(moved, (Sound.CLICK,))


def _next_turn(state: State, sounds: tuple[str, ...]) -> Step:
    """The next player to the left who has not stuck, or the scoring once all have."""
    count = len(state.players)
    for offset in range(1, count + 1):
        seat = (state.seat + offset) % count
        if not state.stuck[seat]:
            return Step(replace(state, seat=seat), sounds)
    return _advance(_start_scoring(state), sounds)


# --- end of the round: reveal, judge, bonus cards --------------------------------------


def _start_scoring(state: State) -> State:
    dealt = sum(len(cards) for cards in state.owned + state.taken)
    return replace(
        state,
        results=tuple(None for _ in state.players),
        revealed=(),
        owed=(),
        graveyard=min(GRAVEYARD_SLOTS, len(state.deck) - dealt),
        high_bonus_done=False,
    )


def _advance(state: State, sounds: tuple[str, ...]) -> Step:
    """Move on to the next thing the table must do: a bonus card, a reveal, a new round."""
    if state.owed and state.graveyard > 0:
        return Step(replace(state, phase=Phase.BONUS, seat=state.owed[0]), sounds)
    if state.owed:  # the graveyard is empty: nobody else gets a bonus card this round
        return _advance(replace(state, owed=()), sounds)
    scorer = _next_scorer(state)
    if scorer is not None and state.taken[scorer]:
        return Step(replace(state, phase=Phase.REVEAL, seat=scorer, revealed=()), sounds)
    if scorer is not None:  # stuck without a card: nothing to reveal
        return _advance(replace(state, results=_with(state.results, scorer, Result(0, False, False))), sounds)
    if not state.high_bonus_done:
        return _advance(replace(state, owed=_highest(state), high_bonus_done=True), sounds)
    return Step(_new_round(state), sounds)


def _next_scorer(state: State) -> int | None:
    """The first seat in turn order from the round's first player not scored yet."""
    for seat in _turn_order(state):
        if state.results[seat] is None:
            return seat
    return None


def _turn_order(state: State) -> list[int]:
    count = len(state.players)
    return [(state.first + offset) % count for offset in range(count)]


def _reveal(state: State, card: str) -> Step | Rejected:
    if card not in state.taken[state.seat]:
        return Rejected("Not one of your cards this round")
    if card in state.revealed:
        return Rejected("Already revealed")
    revealed = (*state.revealed, card)
    age = state.deck[card]
    shown = replace(state, revealed=revealed, notice=f"{_short(state.deck.name_of(card), WIDTH - 4)} {age}")
    if len(revealed) < len(state.taken[state.seat]):
        return Step(shown, (Sound.CLICK,))
    return _judge(shown)


def _judge(state: State) -> Step:
    """All cards revealed: order bonus, total, bust or keep."""
    seat, house = state.seat, state.house
    ages = [state.deck[card] for card in state.revealed]
    total = sum(ages)
    bust = total > BUST_OVER
    order_ok = len(ages) >= house.order_bonus_min and in_order(ages, house.strict_ties)
    owned = state.owned if bust else _with(state.owned, seat, state.owned[seat] + state.revealed)
    verdict = "BUST" if bust else "kept"
    judged = replace(
        state,
        owned=owned,
        results=_with(state.results, seat, Result(total, bust, order_ok)),
        owed=state.owed + ((seat,) if order_ok else ()),
        notice=f"{state.players[seat]} +{ages[-1]} = {total} {verdict}" + (", in order" if order_ok else ""),
    )
    sounds = (Sound.WRONG,) if bust else (Sound.RIGHT,)
    return _win(judged) or _advance(judged, sounds)


def _highest(state: State) -> tuple[int, ...]:
    """The seats owed the high-score bonus, in turn order: the best total kept (above 0)."""
    kept = {seat: r.total for seat, r in enumerate(state.results) if r is not None and not r.bust and r.total > 0}
    if not kept:
        return ()
    best = max(kept.values())
    tied = tuple(seat for seat in _turn_order(state) if kept.get(seat) == best)
    return tied if len(tied) == 1 or state.house.high_tie_all else ()


def _take_bonus(state: State, card: str) -> Step | Rejected:
    problem = _why_not_free(state, card)
    if problem:
        return Rejected(problem)
    seat = state.seat
    result = state.results[seat]
    assert result is not None  # a bonus is owed only to a scored player
    taken = replace(
        state,
        owned=_with(state.owned, seat, state.owned[seat] + (card,)),
        results=_with(state.results, seat, replace(result, bonus=result.bonus + 1)),
        owed=state.owed[1:],
        graveyard=state.graveyard - 1,
        notice=f"{state.players[seat]}: bonus {_short(state.deck.name_of(card), WIDTH - 8)}",
    )
    return _win(taken) or _advance(taken, (Sound.RIGHT,))


def _graveyard_empty(state: State) -> Step:
    """BACK while a bonus is owed: the table says the graveyard has no card left."""
    return _advance(replace(state, graveyard=0, notice="Graveyard empty"), (Sound.CLICK,))


_TAPS = {Phase.PLAY: _twist, Phase.REVEAL: _reveal, Phase.BONUS: _take_bonus}


def _win(state: State) -> Step | None:
    """The game over the moment the player being scored owns `target` cards, else None."""
    if len(state.owned[state.seat]) < state.house.target:
        return None
    name = state.players[state.seat]
    return Step(replace(state, phase=Phase.OVER, winner=state.seat, notice=f"{name} wins!"), (Sound.FANFARE,))


def _new_round(state: State) -> State:
    """The next round, one seat to the left; the notice keeps the last result on screen."""
    first = (state.first + 1) % len(state.players)
    return replace(
        state,
        phase=Phase.PLAY,
        round=state.round + 1,
        first=first,
        seat=first,
        taken=tuple(() for _ in state.players),
        stuck=tuple(False for _ in state.players),
        revealed=(),
        owed=(),
        graveyard=0,
    )


# --- screens ---------------------------------------------------------------------------


def _play_view(state: State) -> View:
    name = state.players[state.seat]
    taken = len(state.taken[state.seat])
    lines = ("Tap: twist  OK: stick", f"Taken this round: {taken}", *_scoreboard(state))
    return View(_short(f"R{state.round} {name}'s turn", WIDTH), lines, notice=state.notice)


def _reveal_view(state: State) -> View:
    name = state.players[state.seat]
    count = len(state.taken[state.seat])
    shown = [
        f"{_short(state.deck.name_of(card), WIDTH - 4):<{WIDTH - 4}} {state.deck[card]:>3}" for card in state.revealed
    ]
    lines = (f"Tap card {len(state.revealed) + 1} of {count}", *shown[-4:])
    cursor = len(lines) - 1 if shown else None
    return View(_short(f"{name}: youngest 1st", WIDTH), lines, cursor=cursor, notice=state.notice)


def _bonus_view(state: State) -> View:
    name = state.players[state.seat]
    why = "Highest total!" if state.high_bonus_done else "Order correct!"
    lines = (why, "Take a graveyard card", f"and tap it ({state.graveyard} left)", "BACK: graveyard empty")
    return View(_short(f"{name}: bonus card", WIDTH), lines, notice=state.notice)


def _over_view(state: State) -> View:
    assert state.winner is not None
    lines = (f"{state.players[state.winner]} wins!", f"{state.house.target} celebrities", *_scoreboard(state))
    return View("Game over", lines, cursor=0, notice=state.notice)


_VIEWS = {Phase.PLAY: _play_view, Phase.REVEAL: _reveal_view, Phase.BONUS: _bonus_view, Phase.OVER: _over_view}


def _scoreboard(state: State) -> list[str]:
    """Celebrities owned, two players a line: 'Ann       5 Bob      3'."""
    entries = [f"{_short(name, 7):<7}{len(cards):>3}" for name, cards in zip(state.players, state.owned, strict=True)]
    return [" ".join(entries[i : i + 2]) for i in range(0, len(entries), 2)]


def _short(text: str, width: int) -> str:
    """`text` cut to `width` characters, with '~' where it was cut."""
    return text if len(text) <= width else text[: width - 1] + "~"


def _with(values: tuple, index: int, value: Any) -> tuple:
    """A copy of `values` with `values[index]` replaced."""
    return (*values[:index], value, *values[index + 1 :])
