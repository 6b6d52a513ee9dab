"""Deck of Death's transitions: one handler per phase, (state, action) -> Step or Rejected, pure.

A turn runs draw -> roll -> challenge (if the space holds a card) -> card -> the next
player's draw, with detours for reactions, duels and the inner circle. A phase with one
answer is not asked: a completed challenge's OK passes the turn (a card tapped on the
challenge screen is the takeover), a failed one has nothing to place. A done card that changes
the turn order, clears spaces, takes a card back from the discard pile or starts a duel is
carried out (RULINGS 6c), its choice made on the challenge screen. The box cannot see hands:
it trusts the table for drawing and discarding and knows a card when it is tapped.
Screens laid over any phase (the rules in play, the scores, a white card's picker)
have their own table, `LAYERS`.

>>> from box.games.base import Press, Roll, Setup
>>> deck = RULES.load_deck()
>>> state = RULES.new(Setup(("Ann", "Bob")), deck)
>>> state = RULES.apply(state, Press("ok")).state          # drew up to 7
>>> state = RULES.apply(state, Roll((3, 4))).state         # 0 -> 7
>>> RULES.dump(state)["positions"]["Ann"], state.phase
({'ring': 'outer', 'space': 7}, 'card')
>>> RULES.apply(state, Roll((1, 1))).reason
'No dice now'
"""

from __future__ import annotations

from dataclasses import replace

from box.decks.codec import Deck
from box.games import TITLES
from box.games.base import Action, Chug, Press, Rejected, Roll, Setup, Sound, Step, Tap, View
from box.games.deck_of_death import cards, events, screens
from box.games.deck_of_death.cards import BUILTIN_BOARD, BoardDeck, load_board
from box.games.deck_of_death.state import (
    CAST_INSIDE,
    CLEARS,
    DUEL_STYLES,
    FIGURES,
    FORCED_EXIT_AFTER,
    FORCED_EXIT_DRINKS,
    GO_ON,
    HAND,
    MENU_ITEMS,
    MOST_STEPS,
    MOVE_TOKEN,
    OPTIONS,
    PHONE,
    PICKS_PLAYER,
    SECRETS,
    WAYS,
    Duel,
    Effect,
    Failure,
    Layer,
    Overlay,
    Phase,
    Placed,
    State,
    Token,
    chosen_here,
    clear_choices,
    cost,
    dump,
    effect_choices,
    figures_of,
    forfeit,
    may_place,
    next_player,
    order_of,
    other_players,
)
from box.games.kit import (
    MOST_PLAYERS,
    Rulebook,
    Stage,
    deal_for,
    expect,
    moved,
    read_options,
    scroll,
    set_at,
    short_name,
)

HIGH_DIE, OTHER_GAME = 0, 1  # the duel styles, in DUEL_STYLES order
MOVE, RESHUFFLE = 0, 1  # the table menu's items, in MENU_ITEMS order
FORWARDS, BACKWARDS, INSIDE = 0, 1, 2  # the ways a card moves a token, in WAYS order
MENU_PHASES = (Phase.DRAW, Phase.ROLL, Phase.CHALLENGE, Phase.CARD)  # short UP/DOWN opens the menu
MOVE_PHASES = (Phase.CHALLENGE, Phase.CARD)  # where a card's instruction can move a token


def apply(state: State, action: Action) -> Step[State] | Rejected:
    """The next state for one input, or the reason it is refused: inputs of any phase first, then the phase's."""
    if state.phase is Phase.OVER:
        return _over(state, action)
    if state.overlay is not None:
        return _overlay(state, action)
    if isinstance(action, Press) and action.long:
        return _long_press(state, action.button)
    if isinstance(action, Press) and action.button in ("up", "down") and _opens_menu(state):
        return Step(replace(state, overlay=Overlay(Layer.MENU)), (Sound.CLICK,))
    if isinstance(action, Tap) and action.card in state.discard:
        if not _recalling(state):
            return Rejected(f"{state.cards[action.card].title[:20]} is discarded")
        return PHASES[state.phase].handle(state, action)  # Wild Vote: the card taken back, white or not
    if isinstance(action, Tap) and _is_white_in_hand(state, action.card):
        return _white(state, action.card)
    if isinstance(action, Tap) and _is_rule_tapped(state, action.card):
        return _rule_broken(state, action.card)
    if isinstance(action, Roll) and not _wants_roll(state):
        return Rejected("No dice now")
    if isinstance(action, Tap) and action.card not in state.cards:
        return Rejected("Not a Deck of Death card")
    return PHASES[state.phase].handle(state, action)


def _opens_menu(state: State) -> bool:
    """Short UP/DOWN opens the table menu in these phases, but on the challenge of a card whose
    effect asks a choice (a player, a space) they move that choice."""
    if state.phase is Phase.CHALLENGE:
        return not chosen_here(state)
    return state.phase in MENU_PHASES


def view(state: State) -> View:
    """The OLED screen: the overlay if one is open (until the session is over), else the phase's screen."""
    if state.overlay is not None and state.phase is not Phase.OVER:
        return LAYERS[state.overlay.kind].screen(state)
    return PHASES[state.phase].screen(state)


def _wants_roll(state: State) -> bool:
    """True in the draw and roll phases and during a High-Die Roll, unless a screen is laid over."""
    return state.overlay is None and state.phase in (Phase.DRAW, Phase.ROLL, Phase.DUEL_ROLL)


def _drink(state: State, players: range | tuple[int, ...], count: int) -> tuple[State, tuple[str, ...]]:
    """Add `count` drinks to each of `players` who is not immune; also return who was skipped."""
    drinks = list(state.drinks)
    skipped = []
    for player in players:
        if state.immune[player]:
            skipped.append(state.players[player])
        else:
            drinks[player] += count
    return replace(state, drinks=tuple(drinks)), tuple(skipped)


# -- inputs any phase understands ------------------------------------------------------


def _long_press(state: State, button: str) -> Step[State] | Rejected:
    """Long UP lists the rules, long DOWN the scores, long OK asks about enough chaos."""
    kinds = {"up": Layer.RULES_LIST, "down": Layer.SCORES, "ok": Layer.CHAOS}
    if button not in kinds:
        return Rejected(f"Long {button.upper()} does nothing here")
    return Step(replace(state, overlay=Overlay(kinds[button])), (Sound.CLICK,))


def _is_white_in_hand(state: State, card_id: str) -> bool:
    """A white card of this deck that is not on the board (so it is being played)."""
    card = state.cards.get(card_id)
    return card is not None and card.color == "white" and state.slot_of(card_id) is None


def _is_rule_tapped(state: State, card_id: str) -> bool:
    """A rule on the board (blue, Rule Creator) tapped to say it was broken: not the card on the
    token's space while it is the challenge (that tap reacts), nor a card a clearing effect takes off."""
    card, on = state.cards.get(card_id), state.slot_of(card_id)
    if card is None or not card.persistent or on is None:
        return False
    if on == state.slot and state.phase in (Phase.CHALLENGE, Phase.REACT, Phase.REFLECTED):
        return False
    return not _clearing(state)


def _rule_broken(state: State, card_id: str) -> Step[State] | Rejected:
    """A rule was broken: who broke it? (the current player first)."""
    if cost(state, card_id) is None:
        return Rejected("Fail costs: none: the table counts")
    return Step(replace(state, overlay=Overlay(Layer.BROKEN, state.turn, card_id)), (Sound.CLICK,))


def _white(state: State, card_id: str) -> Step[State] | Rejected:
    """A white card can be played at any time: open its picker."""
    card = state.cards[card_id]
    if state.phase == Phase.REACT:
        return Rejected("White cards cannot react")
    if card.effect == "immunity":
        return Step(replace(state, overlay=Overlay(Layer.IMMUNITY, state.turn, card_id)), (Sound.CLICK,))
    slots = state.board.card_slots()
    cursor = slots.index(state.slot) if state.slot in slots else 0
    return Step(replace(state, overlay=Overlay(Layer.RULE_CREATOR, cursor, card_id)), (Sound.CLICK,))


# -- screens over the phase -----------------------------------------------------------


def _overlay(state: State, action: Action) -> Step[State] | Rejected:
    overlay = state.overlay
    assert overlay is not None
    if not isinstance(action, Press) or action.long:
        return Rejected("Close this screen first")
    return LAYERS[overlay.kind].handle(state, action)


def _opened(state: State, action: Action) -> tuple[Overlay, str]:
    """The open overlay and the button pressed on it (`_overlay` lets only short presses through)."""
    return expect(state.overlay, Overlay), expect(action, Press).button


def _listing(state: State, action: Action) -> Step[State] | Rejected:
    """The rules in play or the scores: UP/DOWN scroll, OK or BACK close."""
    overlay, button = _opened(state, action)
    lines = screens.rules_lines(state) if overlay.kind is Layer.RULES_LIST else screens.figures(state)
    if button in ("up", "down"):
        return _scroll(state, overlay, button, len(lines))
    if button in ("ok", "back"):
        return Step(replace(state, overlay=None), (Sound.CLICK,))
    return Rejected("OK or BACK")


def _chaos(state: State, action: Action) -> Step[State] | Rejected:
    """Enough chaos? OK ends the session (whatever was under way with it), BACK goes on."""
    _, button = _opened(state, action)
    if button == "ok":
        return Step(
            replace(
                state, overlay=None, phase=Phase.OVER, cursor=0, failure=None, duel=None, effect=None,
                notice="Yeah... that's enough chaos",
            ),
            (Sound.FANFARE,),
        )
    if button == "back":
        return Step(replace(state, overlay=None), (Sound.CLICK,))
    return Rejected("OK or BACK")


def _scroll(state: State, overlay: Overlay, button: str, count: int) -> Step[State] | Rejected:
    top = scroll(overlay.cursor, button, count)
    if top is None:
        return Rejected("End of the list")
    return Step(replace(state, overlay=replace(overlay, cursor=top)), (Sound.CLICK,))


def _immunity_pick(state: State, action: Action) -> Step[State] | Rejected:
    overlay, button = _opened(state, action)
    count = len(state.players)
    if button in ("up", "down"):
        cursor = moved(overlay.cursor, count, button)
        return Step(replace(state, overlay=replace(overlay, cursor=cursor)), (Sound.CLICK,))
    if button == "back":
        return Step(replace(state, overlay=None, notice="Immunity not played"), (Sound.CLICK,))
    if button != "ok":
        return Rejected("Pick the player, then OK")
    name = state.players[overlay.cursor]
    if state.immune[overlay.cursor]:
        return Rejected(f"{name} is already immune")
    immune = set_at(state.immune, overlay.cursor, True)
    state = _discarded(replace(state, immune=immune, overlay=None, notice=f"{name} immune to next turn"), overlay.card)
    return Step(state, (Sound.RIGHT,))


def _broken_pick(state: State, action: Action) -> Step[State] | Rejected:
    """Who broke the rule: UP/DOWN, OK counts the rule's cost to that player; BACK: nobody."""
    overlay, button = _opened(state, action)
    if button in ("up", "down"):
        cursor = moved(overlay.cursor, len(state.players), button)
        return Step(replace(state, overlay=replace(overlay, cursor=cursor)), (Sound.CLICK,))
    if button == "back":
        return Step(replace(state, overlay=None), (Sound.CLICK,))
    if button != "ok":
        return Rejected("Pick who broke it, then OK")
    assert overlay.card is not None
    name, count = state.players[overlay.cursor], cost(state, overlay.card) or 0
    if state.immune[overlay.cursor]:
        return Rejected(f"{short_name(name, 20)} is immune")
    drunk, _ = _drink(replace(state, overlay=None), (overlay.cursor,), count)
    return Step(replace(drunk, notice=f"{short_name(name, 8)} broke it: {forfeit(state, count)}"), (Sound.WRONG,))


def _rule_creator_pick(state: State, action: Action) -> Step[State] | Rejected:
    overlay, button = _opened(state, action)
    slots = state.board.card_slots()
    choosing_owner = overlay.slot is not None
    count = len(state.players) if choosing_owner else len(slots)
    if button in ("up", "down"):
        cursor = moved(overlay.cursor, count, button)
        return Step(replace(state, overlay=replace(overlay, cursor=cursor)), (Sound.CLICK,))
    if button == "back":
        if choosing_owner:
            back = replace(overlay, slot=None, cursor=slots.index(overlay.slot))
            return Step(replace(state, overlay=back), (Sound.CLICK,))
        return Step(replace(state, overlay=None, notice="Rule Creator not played"), (Sound.CLICK,))
    if button != "ok":
        return Rejected("Pick with UP/DOWN, then OK")
    if not choosing_owner:
        chosen = replace(overlay, slot=slots[overlay.cursor], cursor=state.turn)
        return Step(replace(state, overlay=chosen), (Sound.CLICK,))
    assert overlay.card is not None and overlay.slot is not None
    placed = _place(replace(state, overlay=None), overlay.slot, Placed(overlay.card, overlay.cursor))
    notice = f"New rule on {state.where(overlay.slot)}"
    return Step(replace(placed, notice=placed.notice or notice), (Sound.RIGHT,))


def _menu(state: State, action: Action) -> Step[State] | Rejected:
    """The table menu: move a token (challenge and card phases), reshuffle the discards, back."""
    overlay, button = _opened(state, action)
    if button in ("up", "down"):
        cursor = moved(overlay.cursor, len(MENU_ITEMS), button)
        return Step(replace(state, overlay=replace(overlay, cursor=cursor)), (Sound.CLICK,))
    if button == "back" or (button == "ok" and overlay.cursor == len(MENU_ITEMS) - 1):
        return Step(replace(state, overlay=None), (Sound.CLICK,))
    if button != "ok":
        return Rejected("Pick with UP/DOWN, then OK")
    if overlay.cursor == RESHUFFLE:
        if not state.discard:
            return Rejected("No discards to shuffle")
        return Step(replace(state, overlay=None, discard=(), notice="Discards shuffled into the deck"), (Sound.CLICK,))
    if state.phase not in MOVE_PHASES:
        return Rejected("Moves only in challenge or card phase")
    return Step(replace(state, overlay=Overlay(Layer.MOVE, cursor=state.turn)), (Sound.CLICK,))


def _move_pick(state: State, action: Action) -> Step[State] | Rejected:
    """A card moves a token: whose (the current player first), which way, then how many spaces."""
    overlay, button = _opened(state, action)
    count = len(state.players) if overlay.player is None else len(WAYS) if overlay.way is None else MOST_STEPS
    if button in ("up", "down"):
        if overlay.way is not None:  # a number: UP counts up
            cursor = (overlay.cursor + (1 if button == "up" else -1)) % count
        else:
            cursor = moved(overlay.cursor, count, button)
        return Step(replace(state, overlay=replace(overlay, cursor=cursor)), (Sound.CLICK,))
    if button == "back":
        if overlay.player is None:
            return Step(replace(state, overlay=None), (Sound.CLICK,))
        if overlay.way is None:
            return Step(replace(state, overlay=Overlay(Layer.MOVE, cursor=overlay.player)), (Sound.CLICK,))
        return Step(replace(state, overlay=replace(overlay, way=None, cursor=overlay.way)), (Sound.CLICK,))
    if button != "ok":
        return Rejected("Pick with UP/DOWN, then OK")
    if overlay.player is None:
        if state.immune[overlay.cursor]:
            return Rejected(f"{state.players[overlay.cursor]} is immune")
        return Step(replace(state, overlay=replace(overlay, player=overlay.cursor, cursor=0)), (Sound.CLICK,))
    if overlay.way is None:
        if overlay.cursor != INSIDE:
            return Step(replace(state, overlay=replace(overlay, way=overlay.cursor, cursor=0)), (Sound.CLICK,))
        if state.tokens[overlay.player].ring == "inner":
            return Rejected("Already in the inner circle")
        return Step(_card_move(state, overlay.player, INSIDE, 0), (Sound.CLICK,))
    return Step(_card_move(state, overlay.player, overlay.way, overlay.cursor + 1), (Sound.CLICK,))


def _card_move(state: State, player: int, way: int, steps: int) -> State:
    """Move a token as a card says: no lap ever (laps are the roll phase's), an arrow casts it inside.

    Inside the circle it wraps round the 10 spaces. Into the inner circle from the outer ring it
    goes by the next arrow ahead (its own space if it stands on one). The current player's turn
    goes on in the card phase at the new space (no new challenge), or ends on Start; another
    player's move leaves the phase as it was.
    """
    board, token = state.board, state.tokens[player]
    name = state.players[player]
    inner_turns = state.inner_turns
    if way == INSIDE:
        arrow = min((space for space, _ in board.arrows), key=lambda space: (space - token.space) % board.outer)
        token = Token("inner", board.arrow_target(arrow) or 0, arrow)
        inner_turns = set_at(inner_turns, player, 0)
        notice = f"{name} cast inside"
    else:
        delta = steps if way == FORWARDS else -steps
        if token.ring == "inner":
            token = replace(token, space=board.move_inner(token.space, delta))
        else:
            space = (token.space + delta) % board.outer
            target = board.arrow_target(space)
            token = Token("outer", space) if target is None else Token("inner", target, space)
            inner_turns = set_at(inner_turns, player, 0)
        notice = f"{name} {WAYS[way].lower()} {steps}"
    where = f"inner {token.space}" if token.ring == "inner" else f"space {token.space}"
    state = replace(
        state,
        tokens=set_at(state.tokens, player, token),
        inner_turns=inner_turns,
        overlay=None,
        notice=f"{notice}: {where}",
    )
    if player != state.turn:  # the phase goes on; after a failure, the cursor back on going on
        return replace(state, cursor=GO_ON) if state.phase is Phase.FAILED else state
    if token.ring == "outer" and token.space == board.start:
        return _next_turn(replace(state, completed=False, reacted=False))
    return replace(state, phase=Phase.CARD, completed=False, reacted=False, failure=None, cursor=0)


LAYERS: dict[Layer, Stage[State]] = {
    Layer.RULES_LIST: Stage(_listing, screens.rules_page),
    Layer.SCORES: Stage(_listing, screens.scores_page),
    Layer.CHAOS: Stage(_chaos, screens.chaos),
    Layer.IMMUNITY: Stage(_immunity_pick, screens.immunity),
    Layer.RULE_CREATOR: Stage(_rule_creator_pick, screens.rule_creator),
    Layer.MENU: Stage(_menu, screens.menu),
    Layer.MOVE: Stage(_move_pick, screens.move),
    Layer.BROKEN: Stage(_broken_pick, screens.broken),
}


# -- the phases -----------------------------------------------------------------------


def _draw(state: State, action: Action) -> Step[State] | Rejected:
    """ROLL: drawn, and the dice are thrown (one press); OK: drawn, to the roll screen (the forced exit)."""
    if isinstance(action, Roll):
        return _throw(replace(state, phase=Phase.ROLL, before=None, notice=""), action.dice)
    if action == Press("ok"):
        return Step(replace(state, phase=Phase.ROLL, before=None, notice=""), (Sound.CLICK,))
    return _wrong_time(action, "Draw up to 7, then ROLL")


def _roll(state: State, action: Action) -> Step[State] | Rejected:
    if isinstance(action, Roll):
        return _throw(state, action.dice)
    if action == Press("ok") and state.first_roll is not None:  # Loaded Dice: the first throw kept
        return _move(_unloaded(state), state.first_roll)
    if action == Press("ok"):
        if state.token.ring != "inner":
            return Rejected("Press ROLL to roll")
        if state.inner_turns[state.turn] < FORCED_EXIT_AFTER:
            left = FORCED_EXIT_AFTER - state.inner_turns[state.turn]
            return Rejected(f"Way out forced in {left} turn{'s' if left > 1 else ''}")
        return Step(replace(state, phase=Phase.FORCE), (Sound.CLICK,))
    return _wrong_time(action, "Press ROLL to roll")


def _force(state: State, action: Action) -> Step[State] | Rejected:
    if action == Press("back"):
        return Step(replace(state, phase=Phase.ROLL), (Sound.CLICK,))
    if action != Press("ok"):
        return _wrong_time(action, "OK: chug and leave, BACK: stay")
    player = state.turn
    assert state.token.entry is not None  # a token inside always knows its arrow
    out = Token("outer", state.token.entry)
    moved = replace(
        state,
        phase=Phase.ROLL,
        tokens=set_at(state.tokens, player, out),
        inner_turns=set_at(state.inner_turns, player, 0),
    )
    moved, skipped = _drink(moved, (player,), FORCED_EXIT_DRINKS)
    if skipped:
        return Step(replace(moved, notice=f"Immune: out free to {out.space}"), (Sound.RIGHT,))
    return Step(replace(moved, notice=f"Chug! Then roll from {out.space}"), (Sound.END,), timer=Chug())


def _throw(state: State, dice: tuple[int, int]) -> Step[State] | Rejected:
    """A throw of the roll phase: the move, unless the player's dice are loaded (Loaded Dice):
    the first throw waits (OK keeps it, ROLL throws again) and the second keeps the better."""
    if state.turn not in state.loaded:
        return _move(state, dice)
    if len(dice) != 2 or any(type(d) is not int or not 1 <= d <= 6 for d in dice):
        return Rejected("Dice must be two of 1 to 6")
    if state.first_roll is None:
        said = f"Loaded: {dice[0]}+{dice[1]}. OK keeps, ROLL again"
        return Step(replace(state, first_roll=(dice[0], dice[1]), notice=said), (Sound.CLICK,))
    return _move(_unloaded(state), better_roll(state, state.first_roll, (dice[0], dice[1])))


def better_roll(state: State, first: tuple[int, int], second: tuple[int, int]) -> tuple[int, int]:
    """The better of two throws (a reading of "keep the better roll"): inside the inner circle the
    one that escapes (1+1), else the higher total (the first on a tie).

    >>> from box.games.deck_of_death import RULES
    >>> from box.games.base import Setup
    >>> state = RULES.new(Setup(("Ann", "Bob"), {}), RULES.load_deck())
    >>> better_roll(state, (2, 3), (6, 1)), better_roll(state, (4, 4), (2, 6))
    ((6, 1), (4, 4))
    """
    if state.token.ring == "inner":
        return second if second == (1, 1) and first != (1, 1) else first
    return second if sum(second) > sum(first) else first


def _unloaded(state: State) -> State:
    """The current player's loaded dice used up."""
    return replace(state, first_roll=None, loaded=tuple(p for p in state.loaded if p != state.turn))


def _move(state: State, dice: tuple[int, int]) -> Step[State] | Rejected:
    """The roll phase's throw: move, count laps, take arrows, then the landing space."""
    if len(dice) != 2 or any(type(d) is not int or not 1 <= d <= 6 for d in dice):
        return Rejected("Dice must be two of 1 to 6")
    player, token, board = state.turn, state.token, state.board
    total = dice[0] + dice[1]
    sounds: tuple[str, ...] = ()
    notes = []
    if token.ring == "inner":
        if tuple(dice) == (1, 1):
            assert token.entry is not None  # a token inside always knows its arrow
            token = Token("outer", token.entry)
            turns = 0
            notes.append(f"Snake eyes! Out to {token.space}")
        else:
            token = replace(token, space=board.move_inner(token.space, total))
            turns = state.inner_turns[player] + 1
            notes.append(f"Inner {token.space}, {turns} turn{'s' if turns > 1 else ''} in")
        state = replace(state, inner_turns=set_at(state.inner_turns, player, turns))
    else:
        space, laps = board.move_outer(token.space, total)
        token = Token("outer", space)
        if laps:
            state = replace(state, laps=set_at(state.laps, player, state.laps[player] + laps))
            state, skipped = _drink(state, range(len(state.players)), laps)
            sounds = (Sound.LAP,)
            notes.append("Lap! All drink" + (f" but {', '.join(skipped)}" if skipped else ""))
        target = board.arrow_target(space)
        if target is not None:
            token = Token("inner", target, space)
            state = replace(state, inner_turns=set_at(state.inner_turns, player, 0))
            notes.append(f"Arrow! Inner {target}")
        elif not laps:
            notes.append(f"To space {space}")
    state = replace(state, tokens=set_at(state.tokens, player, token), completed=False, reacted=False)
    return Step(_land(replace(state, notice=". ".join(notes))), sounds)


def _land(state: State) -> State:
    """After moving: the challenge if the space holds a card, else the card phase (none on Start)."""
    if state.token.ring == "outer" and state.token.space == state.board.start:
        return _next_turn(state)
    placed = state.spaces[state.slot]
    if placed is None:
        return _card_phase(state)
    if state.cards[placed.card].color == "blue" and state.blue_landing == "rule":
        # the book: a blue card is a rule in force for everyone, not a challenge: nothing to
        # complete or react to, so the player may try a takeover at once
        return replace(state, phase=Phase.CARD, completed=True, notice=f"{state.notice}. A rule in force")
    return replace(state, phase=Phase.CHALLENGE)


def _challenge(state: State, action: Action) -> Step[State] | Rejected:
    placed = state.spaces[state.slot]
    assert placed is not None
    card = state.cards[placed.card]
    choices = chosen_here(state)
    if action in (Press("up"), Press("down")) and choices:  # the effect's choice, made before OK
        return Step(replace(state, cursor=moved(state.cursor, len(choices), expect(action, Press).button)), (Sound.CLICK,))
    if action == Press("ok"):  # completed, and no takeover: the turn passes (after the card's effect)
        done = replace(state, completed=True, notice="Challenge completed")
        if card.turn_effect is not None:
            return _carry_out(done, Effect(placed.card, state.turn), chosen=True)
        return Step(_next_turn(done), (Sound.RIGHT,))
    if action == Press("back"):
        state, notice = _failed(state, state.turn, placed.card, "Failed")
        return Step(_after_failure(replace(state, completed=False, notice=notice), state.turn, placed.card), (Sound.WRONG,))
    if isinstance(action, Tap):
        if action.card != placed.card:  # another card: completed, and it tries to take the space over
            done = replace(state, completed=True, notice="Challenge completed")
            recalled = card.turn_effect == "recall" and action.card in state.discard  # done: this card back
            if recalled or (card.turn_effect in CLEARS and state.slot_of(action.card) is not None):  # done: clear it
                return _effect(replace(done, phase=Phase.EFFECT, effect=Effect(placed.card, state.turn)), action)
            if card.turn_effect is not None and _placeable(state, action.card):
                return _carry_out(done, Effect(placed.card, state.turn, then=action.card), chosen=True)
            return _card_tap(done, action)
        if state.reacted:
            return Rejected("One reaction per challenge")
        if placed.owner == state.turn:
            return Rejected("Your own card: no reaction")
        if state.cards[placed.card].tier is None:
            return Rejected("No reaction to a white card")
        return Step(replace(state, phase=Phase.REACT), (Sound.CLICK,))
    return _wrong_time(action, "OK done, BACK failed")


def _failed(state: State, player: int, card_id: str, said: str) -> tuple[State, str]:
    """A failed challenge costs `player` what the card says (RULINGS 8a), else its tier; nothing
    the box counts with fail_forfeit=none."""
    count = cost(state, card_id)
    if count is None:
        return state, f"{said}: as the card says"
    if state.immune[player]:
        return state, f"{said}, but immune"
    if player in state.doubled:  # Double Trouble: this failure costs double
        count *= 2
        state = replace(state, doubled=tuple(p for p in state.doubled if p != player))
    state, _ = _drink(state, (player,), count)
    return state, f"{said}: {forfeit(state, count)}"


def _after_failure(state: State, player: int, card_id: str) -> State:
    """After a failure: a card whose text moves tokens offers its consequences first (the failed
    phase); any other goes on at once (the card phase, or the next turn when nothing may be placed)."""
    if state.cards[card_id].moves_tokens:
        return replace(state, phase=Phase.FAILED, failure=Failure(player, card_id), cursor=GO_ON)
    return _card_phase(state)


def _failure(state: State, action: Action) -> Step[State] | Rejected:
    """What the failed card does: play goes on, the failing player is cast into the inner circle,
    or a token moves (the move's pickers, the failing player's token first)."""
    failure = expect(state.failure, Failure)
    if action in (Press("up"), Press("down")):
        return Step(replace(state, cursor=moved(state.cursor, MOVE_TOKEN + 1, expect(action, Press).button)), (Sound.CLICK,))
    if action != Press("ok"):
        return _wrong_time(action, "Pick what the card does, OK")
    if state.cursor == MOVE_TOKEN:
        return Step(replace(state, overlay=Overlay(Layer.MOVE, cursor=failure.player)), (Sound.CLICK,))
    if state.cursor == CAST_INSIDE:
        if state.immune[failure.player]:
            return Rejected(f"{state.players[failure.player]} is immune")
        if state.tokens[failure.player].ring == "inner":
            return Rejected("Already in the inner circle")
        cast = _card_move(state, failure.player, INSIDE, 0)
        return Step(_go_on(cast) if cast.phase is Phase.FAILED else cast, (Sound.CLICK,))  # the owner's, after a reflect
    return Step(_go_on(state), (Sound.CLICK,))


def _go_on(state: State) -> State:
    """The failed card's consequences done: the card phase, or the next turn."""
    return _card_phase(replace(state, failure=None, cursor=0))


def _discarded(state: State, *cards: str | None) -> State:
    """`cards` go to the discard pile (None is no card)."""
    return replace(state, discard=(*state.discard, *(card for card in cards if card is not None)))


def _react(state: State, action: Action) -> Step[State] | Rejected:
    """The reaction card: same tier cancels, same tier and colour reflects."""
    if action == Press("back"):
        return Step(replace(state, phase=Phase.CHALLENGE), (Sound.CLICK,))
    if not isinstance(action, Tap):
        return _wrong_time(action, "Tap your reaction card")
    placed = state.spaces[state.slot]
    assert placed is not None
    attack, reply = state.cards[placed.card], state.cards[action.card]
    on = state.slot_of(action.card)
    if on is not None:
        return Rejected(f"Already on {state.where(on)}")
    if reply.tier != attack.tier:
        return Rejected(f"Not allowed: needs tier {attack.tier}")
    state = _discarded(replace(state, reacted=True), action.card)
    if reply.color == attack.color:
        owner = state.players[placed.owner]
        return Step(replace(state, phase=Phase.REFLECTED, notice=f"Reflected onto {owner}!"), (Sound.RIGHT,))
    return Step(_card_phase(replace(state, completed=False, notice="Cancelled")), (Sound.RIGHT,))


def _reflected(state: State, action: Action) -> Step[State] | Rejected:
    """The attacker takes the whole challenge and cannot react; then both cards are discarded.

    The reaction card went to the discard pile when tapped; the attacking card leaves its
    space now, so the space is empty for the card phase.
    """
    placed = state.spaces[state.slot]
    assert placed is not None
    card = state.cards[placed.card]
    owner = state.players[placed.owner]
    cleared = _discarded(replace(state, phase=Phase.CARD, spaces=set_at(state.spaces, state.slot, None)), placed.card)
    if action == Press("ok"):
        if card.turn_effect is not None:  # the owner carries it out; the card leaves the space after
            return _carry_out(replace(state, notice=f"{owner} does it"), Effect(placed.card, placed.owner))
        return Step(_card_phase(replace(cleared, notice=f"{owner} did it")), (Sound.RIGHT,))
    if action == Press("back"):
        cleared, notice = _failed(cleared, placed.owner, placed.card, f"{owner} failed")
        return Step(_after_failure(replace(cleared, notice=notice), placed.owner, placed.card), (Sound.WRONG,))
    if isinstance(action, Tap):
        return Rejected("One reaction per challenge")
    return _wrong_time(action, f"{owner[:8]}: OK done, BACK failed")


def _card(state: State, action: Action) -> Step[State] | Rejected:
    """Tap a card to place it on the token's space; OK places nothing."""
    if action == Press("ok"):
        return Step(_next_turn(replace(state, notice="")), (Sound.CLICK,))
    if not isinstance(action, Tap):
        return _wrong_time(action, "Tap a card or OK to skip")
    return _card_tap(state, action)


def _card_tap(state: State, action: Tap) -> Step[State] | Rejected:
    """A card for the token's space: placed on an empty one, a takeover or a duel on an occupied one.

    In the card phase, and on the challenge screen, where tapping a card other than the one on
    the space says "completed, and this card takes the space over" in one input.
    """
    slot, card = state.slot, state.cards[action.card]
    on = state.slot_of(action.card)
    placed = state.spaces[slot]
    if on is not None:
        if on == slot and state.reacted:
            return Rejected("One reaction per challenge")
        return Rejected(f"Already on {state.where(on)}")
    if placed is None:
        if state.lockout:
            return Rejected("Board locked: no empty spaces")
        locked = state.lockout
        state = _place(state, slot, Placed(action.card, state.turn))
        placed_notice = f"{card.title} on {state.where(slot)}"
        notice = f"{placed_notice}. Board full: lockout!" if state.lockout and not locked else placed_notice
        return Step(_next_turn(replace(state, notice=notice)), (Sound.RIGHT,))
    if not state.completed:
        return Rejected("Replace only after a completed challenge")
    old = state.cards[placed.card]
    outranks = old.tier is not None and card.tier is not None and card.color == old.color and card.tier > old.tier
    if placed.owner == state.turn or outranks:
        state = _place(state, slot, Placed(action.card, state.turn))
        return Step(_next_turn(replace(state, notice=f"{card.title} in, {old.title} out")), (Sound.RIGHT,))
    defender = state.players[placed.owner]
    if state.immune[placed.owner]:  # a duel is a challenge, which the immune ignore (RULINGS 5)
        return Rejected(f"{short_name(defender, 12)} is immune: no duel")
    return Step(
        replace(
            state,
            phase=Phase.DUEL_STYLE,
            duel=Duel(state.turn, placed.owner, action.card),
            cursor=HIGH_DIE,
            notice=f"Duel with {defender}!",
        ),
        (Sound.CLICK,),
    )


def _place(state: State, slot: int, placed: Placed) -> State:
    """Put a card on a slot (the card there is discarded) and check the full-board lockout."""
    old = state.spaces[slot]
    spaces = set_at(state.spaces, slot, placed)
    state = _discarded(replace(state, spaces=spaces), old.card if old is not None else None)
    if not state.lockout and all(spaces[s] is not None for s in state.board.outer_card_slots()):
        return replace(state, lockout=True, notice="Board full: lockout!")
    return state


def _duel_style(state: State, action: Action) -> Step[State] | Rejected:
    """The defender picks the duel; BACK drops the takeover."""
    if action in (Press("up"), Press("down")):
        return Step(replace(state, cursor=moved(state.cursor, len(DUEL_STYLES), action.button)), (Sound.CLICK,))
    if action == Press("ok"):
        phase = Phase.DUEL_ROLL if state.cursor == HIGH_DIE else Phase.DUEL_WINNER
        assert state.duel is not None
        duel = replace(state.duel, rolls=())
        return Step(replace(state, phase=phase, duel=duel, cursor=0, notice=""), (Sound.CLICK,))
    if action == Press("back"):
        if expect(state.duel, Duel).card is None:  # a card's duel dropped: the effect is done
            return Step(_done(replace(state, duel=None, cursor=0, notice="No duel")), (Sound.CLICK,))
        return Step(replace(state, phase=Phase.CARD, duel=None, cursor=0, notice="No takeover"), (Sound.CLICK,))
    return _wrong_time(action, "Defender: pick, then OK")


def _duel_roll(state: State, action: Action) -> Step[State] | Rejected:
    """High-Die Roll: challenger, then defender; the higher total wins, a tie rolls again."""
    duel = state.duel
    assert duel is not None
    if action == Press("back"):
        return Step(replace(state, phase=Phase.DUEL_STYLE, duel=replace(duel, rolls=())), (Sound.CLICK,))
    if not isinstance(action, Roll):
        return _wrong_time(action, "Press ROLL")
    dice = action.dice
    if len(dice) != 2 or any(type(d) is not int or not 1 <= d <= 6 for d in dice):
        return Rejected("Dice must be two of 1 to 6")
    rolls = (*duel.rolls, dice[0] + dice[1])
    if len(rolls) == 1:
        return Step(replace(state, duel=replace(duel, rolls=rolls), notice=f"Challenger {rolls[0]}"))
    if rolls[0] == rolls[1]:
        return Step(replace(state, duel=replace(duel, rolls=()), notice=f"Tie at {rolls[0]}: roll again"))
    return _duel_over(state, challenger_won=rolls[0] > rolls[1], score=f" {rolls[0]}-{rolls[1]}")


def _duel_winner(state: State, action: Action) -> Step[State] | Rejected:
    """Another minigame: pick who won (challenger first), then OK."""
    if action in (Press("up"), Press("down")):
        return Step(replace(state, cursor=moved(state.cursor, len(DUEL_STYLES), action.button)), (Sound.CLICK,))
    if action == Press("ok"):
        return _duel_over(state, challenger_won=state.cursor == 0, score="")
    if action == Press("back"):
        return Step(replace(state, phase=Phase.DUEL_STYLE, cursor=OTHER_GAME), (Sound.CLICK,))
    return _wrong_time(action, "Pick the winner, then OK")


def _duel_over(state: State, challenger_won: bool, score: str) -> Step[State]:
    """The winner's `duels_won` grows; in a takeover the winner's card stays on the space, the
    loser's is discarded; a card's duel (Ambush) then finishes its effect."""
    duel = expect(state.duel, Duel)
    winner = duel.challenger if challenger_won else duel.defender
    state = replace(state, duels_won=set_at(state.duels_won, winner, state.duels_won[winner] + 1))
    state = replace(state, duel=None, cursor=0, notice=f"{state.players[winner]} wins{score}")
    if duel.card is None:
        return Step(_done(state), (Sound.FANFARE,))
    if challenger_won:
        state = _place(state, state.slot, Placed(duel.card, duel.challenger))
    else:
        state = _discarded(state, duel.card)
    return Step(_next_turn(state), (Sound.FANFARE,))


# -- a done card's effect: the turn order, the board, the discard pile, a duel (RULINGS 6c) --


def _carry_out(state: State, effect: Effect, chosen: bool = False) -> Step[State] | Rejected:
    """A done card's effect: the turn order changes at once (Reverse, Hijack); a choice made on the
    challenge screen (`chosen`: the cursor there) is carried out; any other choice opens the effect
    phase (whose turn, which space, which discarded card), unless there is nothing to choose."""
    what = expect(state.cards[effect.card].turn_effect, str)
    if what == "reverse":
        order = order_of(state)
        turned = replace(order, step=-order.step, until=effect.player if order.step == 1 else None)
        said = "Play passes the other way" if order.step == 1 else "Play passes clockwise"
        return Step(_done(replace(state, order=turned, effect=effect, notice=said)), (Sound.RIGHT,))
    if what == "loaded":
        loaded = replace(state, loaded=tuple(sorted({*state.loaded, effect.player})), effect=effect)
        notice = _name_of(state, effect.player, ": next turn throws twice")
        return Step(_done(replace(loaded, notice=notice)), (Sound.RIGHT,))
    if what == "double":
        doubled = replace(state, doubled=tuple(sorted({*state.doubled, effect.player})), effect=effect)
        notice = _name_of(state, effect.player, ": next fail double")
        return Step(_done(replace(doubled, notice=notice)), (Sound.RIGHT,))
    if what == "hijack":
        hijacked = replace(order_of(state), hijacker=effect.player)
        notice = _name_of(state, effect.player, " takes the next turn")
        return Step(_done(replace(state, order=hijacked, effect=effect, notice=notice)), (Sound.RIGHT,))
    if (what in CLEARS and not clear_choices(state, effect)) or (what == "recall" and not state.discard):
        return Step(_done(replace(state, effect=effect, notice=_name_of(state, effect.player, ": nothing to do"))), (Sound.CLICK,))
    if what in PICKS_PLAYER and not other_players(state, effect):
        return Step(_done(replace(state, effect=effect)), (Sound.CLICK,))
    opened = replace(state, phase=Phase.EFFECT, effect=effect, cursor=state.cursor if chosen else 0)
    if chosen and what != "recall":
        return _effect(opened, Press("ok"))
    return Step(opened, (Sound.CLICK,))


def _name_of(state: State, player: int, after: str) -> str:
    """A notice about a player: 'Ann takes the next turn'."""
    return f"{short_name(state.players[player], 10)}{after}"


def _effect_here(state: State) -> str | None:
    """The effect being carried out (the effect phase), or of the card whose challenge is on screen."""
    if state.phase is Phase.CHALLENGE:
        placed = state.spaces[state.slot]
        return state.cards[placed.card].turn_effect if placed is not None else None
    return state.cards[state.effect.card].turn_effect if state.phase is Phase.EFFECT and state.effect else None


def _recalling(state: State) -> bool:
    """A card that brings a discarded card back to a hand: a discarded card's tap names it."""
    return _effect_here(state) == "recall"


def _clearing(state: State) -> bool:
    """A card that clears cards off spaces: a tap of a card on the board clears it."""
    return _effect_here(state) in CLEARS


def _placeable(state: State, card_id: str) -> bool:
    """A card that could be played onto a space: known, not on the board, not discarded."""
    return card_id in state.cards and state.slot_of(card_id) is None and card_id not in state.discard


def _effect(state: State, action: Action) -> Step[State] | Rejected:
    """The effect's choice: UP/DOWN and OK pick a player or a space; a tap clears a card on the
    board or names the discarded card the table picked; BACK goes back to the card (nothing done)."""
    effect = expect(state.effect, Effect)
    what = expect(state.cards[effect.card].turn_effect, str)
    choices = effect_choices(state, effect)
    if action in (Press("up"), Press("down")) and choices:
        return Step(replace(state, cursor=moved(state.cursor, len(choices), expect(action, Press).button)), (Sound.CLICK,))
    if action == Press("back"):
        if effect.cleared:
            return Rejected("Pick the second space, then OK")
        phase = Phase.CHALLENGE if effect.player == state.turn else Phase.REFLECTED
        return Step(replace(state, phase=phase, effect=None, cursor=0, completed=False, notice=""), (Sound.CLICK,))
    if what == "recall":
        if action == Press("ok"):  # a card the box did not see discarded
            return Step(_done(replace(state, notice="Card back to a hand")), (Sound.RIGHT,))
        if isinstance(action, Tap) and action.card in state.discard:
            back = tuple(card for card in state.discard if card != action.card)
            notice = f"{state.cards[action.card].title[:12]} back to a hand"
            return Step(_done(replace(state, discard=back, notice=notice)), (Sound.RIGHT,))
        return _wrong_time(action, "Tap the card picked, or OK")
    if what in CLEARS:
        if isinstance(action, Tap) and state.slot_of(action.card) is not None:
            return _clear(state, effect, expect(state.slot_of(action.card), int))
        if action == Press("ok"):
            return _clear(state, effect, choices[min(state.cursor, len(choices) - 1)])
        return _wrong_time(action, "Pick a space, OK (or tap)")
    if action != Press("ok"):
        return _wrong_time(action, "Pick a player, then OK")
    chosen = choices[min(state.cursor, len(choices) - 1)]
    name = state.players[chosen]
    if state.immune[chosen]:
        return Rejected(f"{short_name(name, 20)} is immune")
    order = order_of(state)
    if what == "skip":
        skipping = replace(order, skips=(*order.skips, chosen))
        return Step(_done(replace(state, order=skipping, notice=_name_of(state, chosen, " skips a turn"))), (Sound.RIGHT,))
    if what == "swap-seats":
        seats = list(order.seats)
        a, b = seats.index(effect.player), seats.index(chosen)
        seats[a], seats[b] = seats[b], seats[a]
        notice = _name_of(state, chosen, " swapped seats")
        return Step(_done(replace(state, order=replace(order, seats=tuple(seats)), notice=notice)), (Sound.RIGHT,))
    duel = Duel(effect.player, chosen)
    notice = f"Duel with {short_name(name, 12)}!"
    return Step(replace(state, phase=Phase.DUEL_STYLE, duel=duel, cursor=HIGH_DIE, notice=notice), (Sound.CLICK,))


def _clear(state: State, effect: Effect, slot: int) -> Step[State] | Rejected:
    """A card off its space to the discard pile (an immune owner's card stays); the second space
    of a card that clears two, or the effect is done."""
    placed = expect(state.spaces[slot], Placed)
    if placed.owner != effect.player and state.immune[placed.owner]:
        return Rejected(f"{short_name(state.players[placed.owner], 20)} is immune")
    cleared = _discarded(replace(state, spaces=set_at(state.spaces, slot, None)), placed.card)
    notice = f"{state.cards[placed.card].title[:12]} off {state.where(slot)}"
    effect = replace(effect, cleared=effect.cleared + 1)
    cleared = replace(cleared, effect=effect, notice=notice, cursor=0)
    if effect.cleared < CLEARS[expect(state.cards[effect.card].turn_effect, str)] and clear_choices(cleared, effect):
        return Step(cleared, (Sound.CLICK,))
    return Step(_done(cleared), (Sound.RIGHT,))


def _done(state: State) -> State:
    """The effect carried out. After a reflect the attacking card leaves its space (if still on it)
    and the card phase follows; otherwise a card tapped for the space tries the takeover, the
    emptied space may be seeded, or the turn passes (as a completed challenge's OK)."""
    effect = expect(state.effect, Effect)
    state = replace(state, effect=None, phase=Phase.CARD, cursor=0)
    placed = state.spaces[state.slot]
    if effect.player != state.turn:
        if placed is not None and placed.card == effect.card:
            state = _discarded(replace(state, spaces=set_at(state.spaces, state.slot, None)), effect.card)
        return _card_phase(replace(state, completed=False))
    if effect.then is not None:
        tried = _card_tap(replace(state, completed=True), Tap("middle", effect.then))
        return tried.state if isinstance(tried, Step) else replace(state, completed=True, notice=tried.reason)
    if placed is None:
        return _card_phase(state)
    return _next_turn(state)


def _card_phase(state: State) -> State:
    """The card phase, or the next turn when it has one answer (nothing may be placed): an occupied
    space after a challenge not completed, or an empty space once the board is locked."""
    if may_place(state):
        return replace(state, phase=Phase.CARD)
    if state.spaces[state.slot] is None:  # the board is locked
        return _next_turn(replace(state, notice=f"{state.notice}. Board locked" if state.notice else "Board locked"))
    return _next_turn(state)


def _next_turn(state: State) -> State:
    """The next player's draw screen, by the turn order (`next_player`); their immunity ends as
    their turn begins; it reminds `before` to discard."""
    turn, at, order = next_player(state)
    return replace(
        state,
        turn=turn,
        at=at,
        order=order,
        effect=None,
        before=state.turn,
        phase=Phase.DRAW,
        immune=set_at(state.immune, turn, False),
        completed=False,
        reacted=False,
        duel=None,
        failure=None,
        cursor=0,
    )


def _over(state: State, action: Action) -> Step[State] | Rejected:
    """The session is over: only scrolling the figures."""
    if isinstance(action, Press) and not action.long:
        top = scroll(state.cursor, action.button, len(screens.figures(state)))
        if top is not None:
            return Step(replace(state, cursor=top), (Sound.CLICK,))
    return Rejected("The session is over")


def _wrong_time(action: Action, hint: str) -> Rejected:
    """The reason for an input the phase has no use for."""
    if isinstance(action, Tap):
        return Rejected("Cards go on your space in card phase")
    if isinstance(action, Roll):
        return Rejected("No dice now")
    return Rejected(hint)


PHASES: dict[Phase, Stage[State]] = {
    Phase.DRAW: Stage(_draw, screens.draw),
    Phase.ROLL: Stage(_roll, screens.roll),
    Phase.FORCE: Stage(_force, screens.force),
    Phase.CHALLENGE: Stage(_challenge, screens.challenge),
    Phase.REACT: Stage(_react, screens.react),
    Phase.REFLECTED: Stage(_reflected, screens.reflected),
    Phase.FAILED: Stage(_failure, screens.failed),
    Phase.CARD: Stage(_card, screens.card),
    Phase.DUEL_STYLE: Stage(_duel_style, screens.duel_style),
    Phase.DUEL_ROLL: Stage(_duel_roll, screens.duel_roll),
    Phase.DUEL_WINNER: Stage(_duel_winner, screens.duel_winner),
    Phase.EFFECT: Stage(_effect, screens.effect),
    Phase.OVER: Stage(_over, screens.over),
}


def new(setup: Setup, deck: Deck) -> State:
    """Every token on Start, nobody immune, an empty board; the first player draws.

    ValueError when the deck cannot deal a starting hand of 7 to every player."""
    deal_for(len(setup.players), len(deck.cards), HAND)
    board = deck.board if isinstance(deck, BoardDeck) and deck.board is not None else load_board(BUILTIN_BOARD)
    options = read_options(OPTIONS, setup.options)
    count = len(setup.players)
    zeros = (0,) * count
    return State(
        players=tuple(setup.players),
        board=board,
        cards=deck.cards,
        forfeits=options["forfeits"],
        fail_forfeit=options["fail_forfeit"],
        blue_landing=options["blue_landing"],
        turn=0,
        phase=Phase.DRAW,
        tokens=(Token("outer", board.start),) * count,
        laps=zeros,
        drinks=zeros,
        inner_turns=zeros,
        duels_won=zeros,
        immune=(False,) * count,
        spaces=(None,) * board.size,
    )


def is_over(state: State) -> bool:
    return state.phase is Phase.OVER


RULES = Rulebook(
    cards.NAME, TITLES[cards.NAME], (2, MOST_PLAYERS), OPTIONS, cards.load_deck, new, apply, view, dump, is_over, _wants_roll,
    figures=FIGURES, figures_of=figures_of, phone=PHONE, secrets=SECRETS,
    events=events.happened,
)
