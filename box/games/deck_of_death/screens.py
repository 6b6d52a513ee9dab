"""What the OLED shows in Deck of Death: each phase's screen and the screens laid over a phase
(the tables in `rules` name them)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from box.games.base import View
from box.games.deck_of_death.state import (
    CLEARS,
    DUEL_STYLES,
    FORCED_EXIT_AFTER,
    FORCED_EXIT_DRINKS,
    MENU_ITEMS,
    WAYS,
    Duel,
    Effect,
    Failure,
    Overlay,
    Placed,
    State,
    chosen_here,
    clear_choices,
    cost,
    forfeit,
    may_place,
    other_players,
)
from box.games.kit import Picker, expect, fit, name_line, short_name, short_person, window
from box.words import LINE_CHARS, TEXT_LINES


def over(state: State) -> View:
    """After enough chaos: the session's figures, scrolled."""
    return _page("Enough chaos!", figures(state), state.cursor, state.notice)


# -- the phases ---------------------------------------------------------------------------


def _phase(state: State, lines: tuple[str, ...], cursor: int | None = None, scrolling: tuple[int, ...] = ()) -> View:
    """A phase's screen: the player and the phase on top, the notice below; `scrolling` as `View`'s."""
    title = name_line("", state.players[state.turn], f": {state.phase.replace('-', ' ')}")
    return View(title=title, lines=lines, cursor=cursor, notice=state.notice, scrolling=scrolling)


def _where(state: State) -> str:
    token = state.token
    return f"{'Inner' if token.ring == 'inner' else 'Space'} {token.space}"


MENU_HINT = "DOWN: table menu"


def draw(state: State) -> View:
    lines = ["Draw up to 7 cards", _where(state), "ROLL: drawn, roll"]
    if state.before is not None and state.before != state.turn:
        lines.append(name_line("", state.players[state.before], ": discard to 7"))
    lines.append(MENU_HINT)
    return _phase(state, tuple(lines))


def roll(state: State) -> View:
    if state.first_roll is not None:  # Loaded Dice: the first throw waits
        first = f"Threw {state.first_roll[0]}+{state.first_roll[1]}"
        return _phase(state, (_where(state), first, "OK: keep it", "ROLL: again, the", "better one kept"))
    lines = [_where(state), "ROLL: throw 2d6"]
    if state.token.ring == "inner":
        lines.append(f"{state.inner_turns[state.turn]} turns inside")
        lines.append("1+1 escapes")
        if state.inner_turns[state.turn] >= FORCED_EXIT_AFTER:
            lines.append("OK: force out (chug)")
    return _phase(state, tuple(lines) + ((MENU_HINT,) if len(lines) < TEXT_LINES else ()))


def force(state: State) -> View:
    pay = f"Pay: chug ({forfeit(state, FORCED_EXIT_DRINKS)})"
    return _phase(state, ("Force the way out?", pay, "then roll from arrow", "OK: yes  BACK: no"))


def _on_space(screen: Callable[[State, Placed, tuple[str, str]], View]) -> Callable[[State], View]:
    """A screen about the card on the token's space (its title and owner on top); an empty space's otherwise."""

    def shown(state: State) -> View:
        placed = state.spaces[state.slot]
        if placed is None:
            placing = "Locked: none allowed" if state.lockout else "Tap a card to place"
            return _phase(state, (_where(state), "Empty space", placing, "OK: place nothing", MENU_HINT))
        card = state.cards[placed.card]
        return screen(state, placed, (card.title, name_line(f"{card.label} by ", state.players[placed.owner])))

    return shown


@_on_space
def challenge(state: State, placed: Placed, head: tuple[str, str]) -> View:
    """OK: done (the turn passes), BACK: failed; tapping the card on the space reacts, tapping
    another card says "done" and takes the space over with it."""
    count = cost(state, placed.card)
    fail = "BACK failed: see card" if count is None else f"BACK failed: {forfeit(state, count)}"
    choices = chosen_here(state)
    if choices:  # the effect's choice is made here: OK carries it out
        chosen = choices[min(state.cursor, len(choices) - 1)]
        what = state.cards[placed.card].turn_effect or ""
        if what in CLEARS:
            return _phase(state, (*head, f"OK: clear {state.where(chosen)}", "UP/DOWN: which", fail), scrolling=(0,))
        before, after = CHOICES[what]
        return _phase(state, (*head, name_line(before, state.players[chosen], after), "UP/DOWN: who", fail), scrolling=(0,))
    return _phase(state, (*head, "OK done  DOWN: menu", fail, "Tap: react or replace"), scrolling=(0,))


CHOICES = {"skip": ("OK: ", " skips"), "swap-seats": ("OK: swap with ", ""), "duel": ("OK: duel ", "")}


@_on_space
def react(state: State, placed: Placed, head: tuple[str, str]) -> View:
    tier = f"tier {state.cards[placed.card].tier}: cancel"
    return _phase(state, (*head, "Tap reaction card", tier, "+colour: reflect"), scrolling=(0,))


@_on_space
def reflected(state: State, placed: Placed, head: tuple[str, str]) -> View:
    takes = name_line("", state.players[placed.owner], " takes it!")
    return _phase(state, (*head, takes, "OK done  BACK failed"), scrolling=(0,))


def failed(state: State) -> View:
    """A failed card that moves tokens: go on, cast the failing player inside, or move a token."""
    failure = expect(state.failure, Failure)
    name = state.players[failure.player]
    go_on = "Place a card" if may_place(state) else "Next player"
    title = short_person(state.cards[failure.card].title, LINE_CHARS - len(" failed:"))
    lines = (f"{title} failed:", go_on, name_line("", name, " into the circle"), "Move a token")
    return _phase(state, lines, 1 + state.cursor)


@_on_space
def card(state: State, placed: Placed, head: tuple[str, str]) -> View:
    action = "Tap to replace" if state.completed else "No replacing"
    return _phase(state, (*head, _where(state), action, "OK: done  DOWN: menu"), scrolling=(0,))


def duel_style(state: State) -> View:
    duel = expect(state.duel, Duel)
    defends = name_line("", state.players[duel.defender], " defends:")
    return _phase(state, (defends, *DUEL_STYLES, "OK: choose BACK: drop"), 1 + state.cursor)


def duel_roll(state: State) -> View:
    duel = expect(state.duel, Duel)
    who = state.players[duel.challenger if not duel.rolls else duel.defender]
    return _phase(state, ("High-Die Roll", name_line("", who, " presses ROLL"), *(f"Challenger: {r}" for r in duel.rolls)))


def duel_winner(state: State) -> View:
    duel = expect(state.duel, Duel)
    return _phase(state, (state.players[duel.challenger], state.players[duel.defender], "Who won? OK"), state.cursor)


QUESTIONS = {  # a done card's effect: what the effect phase asks
    "skip": ": who skips?",
    "swap-seats": ": with who?",
    "duel": ": duel whom?",
    "clear": ": clear?",
    "clear-two": ": clear?",
}


def effect(state: State) -> View:
    """A done card's choice: another player (next to play first), a space (nearest first; a tap of
    its card clears it too), or the discarded card the table picked (a tap)."""
    doing = expect(state.effect, Effect)
    card = state.cards[doing.card]
    what = card.turn_effect or ""
    if what == "recall":
        lines = ("Tap the card the", "table picked from", "the discard pile", "OK: another card", "BACK: not done")
        return View(fit(card.title), lines)
    title = f"{short_person(card.title, LINE_CHARS - len(QUESTIONS[what]))}{QUESTIONS[what]}"
    if what in ("clear", "clear-two"):
        slots = clear_choices(state, doing)
        return _picker(title, tuple(_space_name(state, slot) for slot in slots), state.cursor, free=True)
    return _picker(title, tuple(state.players[p] for p in other_players(state, doing)), state.cursor)


# -- the screens laid over a phase ----------------------------------------------------------


def rules_page(state: State) -> View:
    overlay = expect(state.overlay, Overlay)
    return _page("Rules in play", rules_lines(state), overlay.cursor, free=True)


def scores_page(state: State) -> View:
    overlay = expect(state.overlay, Overlay)
    return _page("Scores", figures(state), overlay.cursor)


def chaos(state: State) -> View:
    return View("Enough chaos?", ("End the session", "and show figures?", "OK: yes  BACK: no"))


def immunity(state: State) -> View:
    overlay = expect(state.overlay, Overlay)
    return _over_phase(state, _picker(_white_title(state, overlay, ": who?"), state.players, overlay.cursor))


def rule_creator(state: State) -> View:
    overlay = expect(state.overlay, Overlay)
    if overlay.slot is None:
        names = tuple(_space_name(state, slot) for slot in state.board.card_slots())
        return _over_phase(state, _picker(_white_title(state, overlay, ": where?"), names, overlay.cursor, free=True))
    return _over_phase(state, _picker(_white_title(state, overlay, ": whose?"), state.players, overlay.cursor))


def _over_phase(state: State, picker: View) -> View:
    """A tapped card's picker keeps the phase's bottom line (its notice, the last thing that
    happened): it opens over the phase, and the panel's pages that hold the line need not change."""
    return replace(picker, notice=picker.notice or state.notice)


def menu(state: State) -> View:
    overlay = expect(state.overlay, Overlay)
    return _picker("Table menu", MENU_ITEMS, overlay.cursor)


def move(state: State) -> View:
    """Whose token, which way, then how many spaces (UP counts up)."""
    overlay = expect(state.overlay, Overlay)
    if overlay.player is None:
        names = tuple(name_line("", name, f" {_token_where(state, p)}") for p, name in enumerate(state.players))
        return _picker("Move whose token?", names, overlay.cursor)
    name = state.players[overlay.player]
    if overlay.way is None:
        return _picker(name_line("Move ", name, ":"), WAYS, overlay.cursor)
    steps = overlay.cursor + 1
    lines = (f"< {steps} space{'s' if steps > 1 else ''} >", "UP/DOWN: how many", "OK: move BACK: back")
    return View(name_line("", name, f" {WAYS[overlay.way].lower()}"), lines)


def broken(state: State) -> View:
    """A rule tapped: who broke it (the cost in the title)?"""
    overlay = expect(state.overlay, Overlay)
    count = cost(state, overlay.card or "") or 0
    return _over_phase(state, _picker(f"Broke it: {forfeit(state, count)}"[:LINE_CHARS], state.players, overlay.cursor))


def _token_where(state: State, player: int) -> str:
    token = state.tokens[player]
    return f"{'in' if token.ring == 'inner' else 'sp'} {token.space}"


def _white_title(state: State, overlay: Overlay, question: str) -> str:
    """The white card's title (shortened to fit) and the question: "Immunity: who?"."""
    title = state.cards[overlay.card].title if overlay.card else ""
    return f"{short_person(title, LINE_CHARS - len(question))}{question}"


def _space_name(state: State, slot: int) -> str:
    """A space for the Rule Creator's picker, with the card it holds: 'space 3: Plank'."""
    placed = state.spaces[slot]
    return state.where(slot) + (f": {state.cards[placed.card].title}" if placed is not None else "")


def _picker(title: str, choices: tuple[str, ...], cursor: int, free: bool = False) -> View:
    """A list of choices around the cursor (the kit's `Picker`); `free`: free text, which scrolls."""
    lines, line = window(choices, Picker(choices, cursor).cursor)
    return View(title, lines, cursor=line, scrolling=tuple(range(len(lines))) if free else ())


def _page(title: str, lines: tuple[str, ...], top: int, notice: str = "", free: bool = False) -> View:
    """A read-only page from its `top` line; `free`: its lines are free text, which scrolls."""
    shown = lines[top : top + TEXT_LINES]
    return View(title, shown, notice=notice, scrolling=tuple(range(len(shown))) if free else ())


def rules_lines(state: State) -> tuple[str, ...]:
    """The active persistent rules: blue cards and Rule Creator cards on the board."""
    lines = tuple(
        f"{state.board.key(slot)}: {state.cards[p.card].title}"
        for slot, p in enumerate(state.spaces)
        if p is not None and state.cards[p.card].persistent
    )
    return lines or ("No rules in play",)


def figures(state: State) -> tuple[str, ...]:
    """A legend, then one line per player: laps, drinks (or points), duels won."""
    letter = "D" if state.forfeits == "drinks" else "P"
    legend = f"L:lap {letter}:{'drink' if letter == 'D' else 'point'} W:duel"
    return (legend, *(
        f"{short_name(name, 9):9} L{laps} {letter}{drinks} W{won}"
        for name, laps, drinks, won in zip(state.players, state.laps, state.drinks, state.duels_won)
    ))
