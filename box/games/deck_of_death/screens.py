"""What the OLED shows in Deck of Death: the phase's screen, or the screen laid over it."""

from __future__ import annotations

from collections.abc import Callable

from box.games.base import View
from box.games.deck_of_death.state import (
    DUEL_STYLES,
    FORCED_EXIT_AFTER,
    FORCED_EXIT_DRINKS,
    Layer,
    Overlay,
    Phase,
    Placed,
    State,
    forfeit,
)
from box.games.kit import Picker, fit
from box.words import TEXT_LINES


def view(state: State) -> View:
    """The OLED screen: the figures once over, the overlay if one is open, else the phase's screen."""
    if state.phase is Phase.OVER:
        return _page("Enough chaos!", figures(state), state.cursor, state.notice)
    if state.overlay is not None:
        return LAYERS[state.overlay.kind](state, state.overlay)
    lines, cursor = SCREENS[state.phase](state)
    title = fit(f"{state.players[state.turn]}: {state.phase.replace('-', ' ')}")
    return View(title=title, lines=lines, cursor=cursor, notice=state.notice)


# -- the phases: (lines, highlighted line) ------------------------------------------------

Lines = tuple[tuple[str, ...], int | None]


def _where(state: State) -> str:
    token = state.token
    return f"{'Inner' if token.ring == 'inner' else 'Space'} {token.space}"


def _draw(state: State) -> Lines:
    return ("Draw up to 7 cards", _where(state), "OK: ready to roll"), None


def _roll(state: State) -> Lines:
    lines = [_where(state), "ROLL: throw 2d6"]
    if state.token.ring == "inner":
        lines.append(f"{state.inner_turns[state.turn]} turns inside")
        lines.append("1+1 escapes")
        if state.inner_turns[state.turn] >= FORCED_EXIT_AFTER:
            lines.append("OK: force out (chug)")
    return tuple(lines), None


def _force(state: State) -> Lines:
    pay = f"Pay: chug ({forfeit(state, FORCED_EXIT_DRINKS)})"
    return ("Force the way out?", pay, "then roll from arrow", "OK: yes  BACK: no"), None


def _end(state: State) -> Lines:
    return ("Discard up to 3,", "down to 7 cards", "OK: end turn"), None


def _on_space(screen: Callable[[State, Placed, tuple[str, str]], Lines]) -> Callable[[State], Lines]:
    """A screen about the card on the token's space (its title and owner on top); an empty space's otherwise."""

    def shown(state: State) -> Lines:
        placed = state.spaces[state.slot]
        if placed is None:
            placing = "Locked: none allowed" if state.lockout else "Tap a card to place"
            return (_where(state), "Empty space", placing, "OK: place nothing"), None
        card = state.cards[placed.card]
        return screen(state, placed, (card.title, fit(f"{card.label} by {state.players[placed.owner]}")))

    return shown


@_on_space
def _challenge(state: State, placed: Placed, head: tuple[str, str]) -> Lines:
    fail = f"Fail: {forfeit(state, state.cards[placed.card].forfeit)}"
    return (*head, fail, "OK done  BACK failed", "Tap it to react"), None


@_on_space
def _react(state: State, placed: Placed, head: tuple[str, str]) -> Lines:
    return (*head, "Tap reaction card", f"tier {state.cards[placed.card].tier}: cancel", "+colour: reflect"), None


@_on_space
def _reflected(state: State, placed: Placed, head: tuple[str, str]) -> Lines:
    return (*head, f"{state.players[placed.owner]} takes it!", "OK done  BACK failed"), None


@_on_space
def _card(state: State, placed: Placed, head: tuple[str, str]) -> Lines:
    action = "Tap to replace" if state.completed else "No replacing"
    return (*head, _where(state), action, "OK: done"), None


@_on_space
def _duel_style(state: State, placed: Placed, head: tuple[str, str]) -> Lines:
    return (f"{state.players[placed.owner]} defends:", *DUEL_STYLES, "OK: choose BACK: drop"), 1 + state.cursor


@_on_space
def _duel_roll(state: State, placed: Placed, head: tuple[str, str]) -> Lines:
    duel = state.duel
    assert duel is not None
    who = state.players[state.turn] if not duel.rolls else state.players[placed.owner]
    return ("High-Die Roll", f"{who} presses ROLL", *(f"Challenger: {r}" for r in duel.rolls)), None


@_on_space
def _duel_winner(state: State, placed: Placed, head: tuple[str, str]) -> Lines:
    return (state.players[state.turn], state.players[placed.owner], "Who won? OK"), state.cursor


SCREENS: dict[Phase, Callable[[State], Lines]] = {
    Phase.DRAW: _draw,
    Phase.ROLL: _roll,
    Phase.FORCE: _force,
    Phase.CHALLENGE: _challenge,
    Phase.REACT: _react,
    Phase.REFLECTED: _reflected,
    Phase.CARD: _card,
    Phase.DUEL_STYLE: _duel_style,
    Phase.DUEL_ROLL: _duel_roll,
    Phase.DUEL_WINNER: _duel_winner,
    Phase.END: _end,
}


# -- the screens laid over a phase ----------------------------------------------------------


def _rules_page(state: State, overlay: Overlay) -> View:
    return _page("Rules in play", rules_lines(state), overlay.cursor)


def _scores_page(state: State, overlay: Overlay) -> View:
    return _page("Scores", figures(state), overlay.cursor)


def _chaos(state: State, overlay: Overlay) -> View:
    return View("Enough chaos?", ("End the session", "and show figures?", "OK: yes  BACK: no"))


def _immunity(state: State, overlay: Overlay) -> View:
    return _picker(f"{_white_title(state, overlay)}: who?", state.players, overlay.cursor)


def _rule_creator(state: State, overlay: Overlay) -> View:
    if overlay.slot is None:
        names = tuple(_space_name(state, slot) for slot in state.board.card_slots())
        return _picker(f"{_white_title(state, overlay)}: where?", names, overlay.cursor)
    return _picker(f"{_white_title(state, overlay)}: whose?", state.players, overlay.cursor)


LAYERS: dict[Layer, Callable[[State, Overlay], View]] = {
    Layer.RULES_LIST: _rules_page,
    Layer.SCORES: _scores_page,
    Layer.CHAOS: _chaos,
    Layer.IMMUNITY: _immunity,
    Layer.RULE_CREATOR: _rule_creator,
}


def _white_title(state: State, overlay: Overlay) -> str:
    return state.cards[overlay.card].title if overlay.card else ""


def _space_name(state: State, slot: int) -> str:
    """A space for the Rule Creator's picker, with the card it holds: 'space 3: Plank'."""
    placed = state.spaces[slot]
    return state.where(slot) + (f": {state.cards[placed.card].title}" if placed is not None else "")


def _picker(title: str, choices: tuple[str, ...], cursor: int) -> View:
    """A list of choices around the cursor (the kit's `Picker`)."""
    lines, line = Picker(choices, cursor).lines()
    return View(fit(title), lines, cursor=line)


def _page(title: str, lines: tuple[str, ...], top: int, notice: str = "") -> View:
    return View(title, lines[top : top + TEXT_LINES], notice=notice)


def rules_lines(state: State) -> tuple[str, ...]:
    """The active persistent rules: blue cards and Rule Creator cards on the board."""
    lines = tuple(
        f"{state.board.key(slot)}: {state.cards[p.card].title}"
        for slot, p in enumerate(state.spaces)
        if p is not None and state.cards[p.card].persistent
    )
    return lines or ("No rules in play",)


def figures(state: State) -> tuple[str, ...]:
    """One line per player: laps, drinks (or points), duels won."""
    letter = "D" if state.forfeits == "drinks" else "P"
    return tuple(
        f"{fit(name, 9):9} L{laps} {letter}{drinks} W{won}"
        for name, laps, drinks, won in zip(state.players, state.laps, state.drinks, state.duels_won)
    )
