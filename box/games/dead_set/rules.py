"""Dead Set's transitions: one handler per phase, (state, action) -> Step or Rejected, pure.

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

from dataclasses import replace
from itertools import pairwise

from box.decks.codec import Deck
from box.games import TITLES
from box.games.base import Action, Press, Rejected, Roll, Setup, Sound, Step, Tap, View
from box.games.dead_set import cards, events, screens
from box.games.dead_set.state import (
    BUST_OVER,
    FIGURES,
    GRAVEYARD_SLOTS,
    OPTIONS,
    PHONE,
    SECRETS,
    HouseRules,
    Phase,
    Result,
    State,
    dump,
    figures_of,
)
from box.games.kit import MOST_PLAYERS, Rulebook, Stage, deal_for, set_at


def in_order(ages: list[int], strict: bool) -> bool:
    """True if `ages` go youngest to oldest; equal neighbours pass unless `strict`.

    >>> in_order([20, 20, 30], strict=False), in_order([20, 20, 30], strict=True)
    (True, False)
    """
    pairs = pairwise(ages)
    return all(a < b for a, b in pairs) if strict else all(a <= b for a, b in pairs)


def order_said(ages: list[int], fewest: int, strict: bool) -> str:
    """Why the round earns the order bonus or not, in a few words.

    >>> order_said([10, 30], 2, False), order_said([30, 10, 40], 2, False), order_said([20], 2, False)
    ('in order', 'out of order: 30 then 10', '1 card: no order bonus')
    """
    if len(ages) < fewest:
        return f"{len(ages)} card{'s' if len(ages) != 1 else ''}: no order bonus"
    wrong = next(((a, b) for a, b in pairwise(ages) if (a >= b if strict else a > b)), None)
    return "in order" if wrong is None else f"out of order: {wrong[0]} then {wrong[1]}"


def apply(state: State, action: Action) -> Step[State] | Rejected:
    """The game after `action`, or why it is refused (the state is never changed)."""
    if state.phase is Phase.OVER:
        return _over(state, action)
    if isinstance(action, Roll):
        return Rejected("Dead Set needs no dice")
    if isinstance(action, Tap) and action.card not in state.deck:
        return Rejected("Not a Dead Set card")
    return PHASES[state.phase].handle(state, action)


def view(state: State) -> View:
    """The screen for the current phase."""
    return PHASES[state.phase].screen(state)


# --- the round: twist or stick ---------------------------------------------------------


def _play(state: State, action: Action) -> Step[State] | Rejected:
    if isinstance(action, Tap):
        return _twist(state, action.card)
    if isinstance(action, Press) and action.button == "ok":
        return _stick(state)
    return Rejected("Tap a card to twist, OK to stick")

def _why_not_free(state: State, card: str) -> str | None:
    """Why `card` cannot be taken now (it is owned or was taken this round), or None."""
    for seat, name in enumerate(state.players):
        if card in state.owned[seat]:
            return f"{name} owns it already"
        if card in state.taken[seat]:
            mine = seat == state.seat and state.phase is Phase.PLAY
            return "You took it already" if mine else f"{name} took it this round"
    return None


def _twist(state: State, card: str) -> Step[State] | Rejected:
    problem = _why_not_free(state, card)
    if problem:
        return Rejected(problem)
    taken = set_at(state.taken, state.seat, state.taken[state.seat] + (card,))
    count = len(taken[state.seat])
    moved = replace(state, taken=taken, notice=f"{state.players[state.seat]} twists ({count})")
    return _next_turn(moved, (Sound.CLICK,))


def _stick(state: State) -> Step[State]:
    moved = replace(state, stuck=set_at(state.stuck, state.seat, True), notice=f"{state.players[state.seat]} sticks")
    return _next_turn(moved, (Sound.CLICK,))


def _next_turn(state: State, sounds: tuple[str, ...]) -> Step[State]:
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


def _advance(state: State, sounds: tuple[str, ...]) -> Step[State]:
    """Move on to the next thing the table must do: a bonus card, a reveal, a new round."""
    if state.owed and state.graveyard > 0:
        return Step(replace(state, phase=Phase.BONUS, seat=state.owed[0]), sounds)
    if state.owed:  # the graveyard is empty: nobody else gets a bonus card this round
        return _advance(replace(state, owed=()), sounds)
    scorer = _next_scorer(state)
    if scorer is not None and state.taken[scorer]:
        return Step(replace(state, phase=Phase.REVEAL, seat=scorer, revealed=()), sounds)
    if scorer is not None:  # stuck without a card: nothing to reveal
        return _advance(replace(state, results=set_at(state.results, scorer, Result(0, False, False))), sounds)
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


def _reveal(state: State, action: Action) -> Step[State] | Rejected:
    if not isinstance(action, Tap):
        return Rejected("Tap your cards, youngest first")
    card = action.card
    if card not in state.taken[state.seat]:
        return Rejected("Not one of your cards this round")
    if card in state.revealed:
        return Rejected("Already revealed")
    revealed = (*state.revealed, card)
    age = state.deck[card]
    shown = replace(state, revealed=revealed, notice=f"{state.deck.name_of(card)} {age}")
    if len(revealed) < len(state.taken[state.seat]):
        return Step(shown, (Sound.CLICK,))
    return _judge(shown)


def _judge(state: State) -> Step[State]:
    """All cards revealed: order bonus, total, bust or keep."""
    seat, house = state.seat, state.house
    ages = [state.deck[card] for card in state.revealed]
    total = sum(ages)
    bust = total > BUST_OVER
    order_ok = len(ages) >= house.order_bonus_min and in_order(ages, house.strict_ties)
    owned = state.owned if bust else set_at(state.owned, seat, state.owned[seat] + state.revealed)
    verdict = "BUST" if bust else "kept"
    order = order_said(ages, house.order_bonus_min, house.strict_ties)  # a bust says only its order bonus
    judged = replace(
        state,
        owned=owned,
        results=set_at(state.results, seat, Result(total, bust, order_ok)),
        busts=set_at(state.busts, seat, state.busts[seat] + bust),
        owed=state.owed + ((seat,) if order_ok else ()),
        notice=f"{state.players[seat]} +{ages[-1]} = {total} {verdict}" + (f", {order}" if order_ok or not bust else ""),
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


def _bonus(state: State, action: Action) -> Step[State] | Rejected:
    if isinstance(action, Press) and action.button == "back":
        return _graveyard_empty(state)
    if not isinstance(action, Tap):
        return Rejected("Tap the bonus card (BACK: none)")
    card = action.card
    problem = _why_not_free(state, card)
    if problem:
        return Rejected(problem)
    seat = state.seat
    result = state.results[seat]
    assert result is not None  # a bonus is owed only to a scored player
    taken = replace(
        state,
        owned=set_at(state.owned, seat, state.owned[seat] + (card,)),
        results=set_at(state.results, seat, replace(result, bonus=result.bonus + 1)),
        owed=state.owed[1:],
        graveyard=state.graveyard - 1,
        notice=f"{state.players[seat]}: bonus {state.deck.name_of(card)}",
    )
    return _win(taken) or _advance(taken, (Sound.RIGHT,))


def _graveyard_empty(state: State) -> Step[State]:
    """BACK while a bonus is owed: the table says the graveyard has no card left."""
    return _advance(replace(state, graveyard=0, notice="Graveyard empty"), (Sound.CLICK,))


def _win(state: State) -> Step[State] | None:
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


def _over(state: State, action: Action) -> Rejected:
    return Rejected("The game is over")


PHASES: dict[Phase, Stage[State]] = {
    Phase.PLAY: Stage(_play, screens.play),
    Phase.REVEAL: Stage(_reveal, screens.reveal),
    Phase.BONUS: Stage(_bonus, screens.bonus),
    Phase.OVER: Stage(_over, screens.over),
}


def new(setup: Setup, deck: Deck) -> State:
    """Round 1, the first named player to twist or stick; ValueError for repeated names, or for more
    players than the deck deals for (a card for each player's first twist; the graveyard holds what
    is left, see `_start_scoring`)."""
    players = tuple(setup.players)
    if len(set(players)) != len(players):
        raise ValueError("Dead Set players need different names")
    deal_for(len(players), len(deck), 1)
    empty = tuple(() for _ in players)
    return State(
        players=players,
        deck=deck,
        house=HouseRules.from_options(setup.options),
        owned=empty,
        taken=empty,
        stuck=tuple(False for _ in players),
        results=tuple(None for _ in players),
        busts=tuple(0 for _ in players),
        notice=f"Round 1: {players[0]} starts",
    )


def is_over(state: State) -> bool:
    return state.phase is Phase.OVER


RULES = Rulebook(
    cards.NAME, TITLES[cards.NAME], (2, MOST_PLAYERS), OPTIONS, cards.load_deck, new, apply, view, dump, is_over,
    figures=FIGURES, figures_of=figures_of, phone=PHONE, secrets=SECRETS,
    events=events.happened,
)
