"""Deck of Death as a pure state machine over the box's buttons, card taps and dice.

A turn runs draw -> roll -> challenge (if the space holds a card) -> card -> end,
with detours for reactions, duels and the inner circle. The box cannot see hands:
it trusts the table for drawing and discarding and knows a card when it is tapped.

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
from pathlib import Path
from typing import Any

from box.cards import Deck, open_deck
from box.games.base import Action, Chug, Option, Press, Rejected, Roll, Setup, Sound, Step, Tap, View
from box.games.deck_of_death import state as S
from box.games.deck_of_death.board import Board, load_board
from box.games.deck_of_death.cards import COLUMNS, parse_card
from box.games.deck_of_death.state import Duel, Overlay, Placed, State, Token

NAME = "deck-of-death"
BUILTIN_BOARD = Path(__file__).resolve().parents[2] / "decks" / f"{NAME}.toml"
HIGH_DIE, OTHER_GAME = 0, 1
DUEL_STYLES = ("High-Die Roll", "Other minigame")
FORCED_EXIT_DRINKS = 2  # finish the drink, or 2 heavy shots
FORCED_EXIT_AFTER = 5  # failed turns inside before the way out may be forced
PAGE = 5  # lines on the OLED


def _tuple_set(values: tuple, index: int, value: Any) -> tuple:
    """A copy of `values` with one item changed."""
    return (*values[:index], value, *values[index + 1 :])


def _forfeit(state: State, count: int) -> str:
    """The forfeit in the session's currency: '2 drinks', '1 point'."""
    word = "drink" if state.forfeits == "drinks" else "point"
    return f"{count} {word}{'' if count == 1 else 's'}"


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


class DeckOfDeath:
    """The `Rules` of Deck of Death (see docs/games/deck-of-death.md)."""

    name = NAME
    title = "Deck of Death"
    min_players = 2
    max_players = 8
    options = (Option("forfeits", "Forfeits", "drinks", ("drinks", "points")),)

    # -- the contract -------------------------------------------------------------------

    def load_deck(self, directory: Any = None) -> Deck:
        """The deck `<directory>/deck-of-death.csv` with its board in `extras["board"]`.

        The board is `<directory>/deck-of-death.toml` when that file exists, else the built-in one.
        """
        folder = Path(directory) if directory is not None else None
        deck = open_deck(NAME, COLUMNS, parse_card, folder, name_column="title")
        board_file = folder / f"{NAME}.toml" if folder is not None else BUILTIN_BOARD
        board = load_board(board_file if board_file.exists() else BUILTIN_BOARD)
        return replace(deck, extras={**deck.extras, "board": board})

    def new(self, setup: Setup, deck: Deck) -> State:
        """Every token on Start, nobody immune, an empty board; the first player draws."""
        board: Board = deck.extras.get("board") or load_board(BUILTIN_BOARD)
        count = len(setup.players)
        zeros = (0,) * count
        return State(
            players=tuple(setup.players),
            board=board,
            cards=deck.cards,
            forfeits=setup.options.get("forfeits", "drinks"),
            turn=0,
            phase=S.DRAW,
            tokens=(Token("outer", board.start),) * count,
            laps=zeros,
            drinks=zeros,
            inner_turns=zeros,
            duels_won=zeros,
            immune=(False,) * count,
            spaces=(None,) * board.size,
        )

    def wants_roll(self, state: State) -> bool:
        """True in the roll phase and during a High-Die Roll, unless a screen is laid over."""
        return state.overlay is None and state.phase in (S.ROLL, S.DUEL_ROLL)

    def apply(self, state: State, action: Action) -> Step | Rejected:
        """The next state for one input, or the reason it is refused."""
        if state.phase == S.OVER:
            return self._over(state, action)
        if state.overlay is not None:
            return self._overlay(state, action)
        if isinstance(action, Press) and action.long:
            return self._long_press(state, action.button)
        if isinstance(action, Tap) and self._is_white_in_hand(state, action.card):
            return self._white(state, action.card)
        if isinstance(action, Roll) and not self.wants_roll(state):
            return Rejected("No dice now")
        if isinstance(action, Tap) and action.card not in state.cards:
            return Rejected("Not a Deck of Death card")
        handler = getattr(self, "_" + state.phase.replace("-", "_"))
        return handler(state, action)

    def view(self, state: State) -> View:
        """The OLED screen: the overlay if one is open, else the phase's screen."""
        if state.phase == S.OVER:
            return self._page("Enough chaos!", self._figures(state), state.cursor, state.notice)
        if state.overlay is not None:
            return self._overlay_view(state, state.overlay)
        name = state.players[state.turn]
        title = f"{name}: {state.phase.replace('-', ' ')}"
        return View(
            title=title[:21], lines=self._phase_lines(state), cursor=self._phase_cursor(state), notice=state.notice
        )

    def dump(self, state: State) -> dict[str, Any]:
        """JSON-ready figures; see docs/games/deck-of-death.md for every key."""
        names = state.players
        board = state.board
        return {
            "current_player": None if state.phase == S.OVER else names[state.turn],
            "over": state.phase == S.OVER,
            "winners": [],
            "phase": state.phase,
            "forfeits": state.forfeits,
            "positions": {n: {"ring": t.ring, "space": t.space} for n, t in zip(names, state.tokens)},
            "laps": dict(zip(names, state.laps)),
            "board": {
                board.key(slot): {"card": placed.card, "owner": names[placed.owner]}
                for slot, placed in enumerate(state.spaces)
                if placed is not None
            },
            "drinks": dict(zip(names, state.drinks)),
            "inner_turns": dict(zip(names, state.inner_turns)),
            "duels_won": dict(zip(names, state.duels_won)),
            "lockout": state.lockout,
            "immune": [n for n, immune in zip(names, state.immune) if immune],
            "persistent": [p.card for p in state.spaces if p is not None and state.cards[p.card].persistent],
        }

    # -- inputs any phase understands ------------------------------------------------------

    def _long_press(self, state: State, button: str) -> Step | Rejected:
        """Long UP lists the rules, long DOWN the scores, long OK asks about enough chaos."""
        kinds = {"up": S.RULES_LIST, "down": S.SCORES, "ok": S.CHAOS}
        if button not in kinds:
            return Rejected(f"Long {button.upper()} does nothing here")
        return Step(replace(state, overlay=Overlay(kinds[button])), (Sound.CLICK,))

    def _is_white_in_hand(self, state: State, card_id: str) -> bool:
        """A white card of this deck that is not on the board (so it is being played)."""
        card = state.cards.get(card_id)
        return card is not None and card.color == "white" and state.slot_of(card_id) is None

    def _white(self, state: State, card_id: str) -> Step | Rejected:
        """A white card can be played at any time: open its picker."""
        card = state.cards[card_id]
        if state.phase == S.REACT:
            return Rejected("White cards cannot react")
        if card.effect == "immunity":
            return Step(replace(state, overlay=Overlay(S.IMMUNITY, state.turn, card_id)), (Sound.CLICK,))
        slots = state.board.card_slots()
        cursor = slots.index(state.slot) if state.slot in slots else 0
        return Step(replace(state, overlay=Overlay(S.RULE_CREATOR, cursor, card_id)), (Sound.CLICK,))

    # -- screens over the phase -----------------------------------------------------------

    def _overlay(self, state: State, action: Action) -> Step | Rejected:
        overlay = state.overlay
        assert overlay is not None
        if not isinstance(action, Press) or action.long:
            return Rejected("Close this screen first")
        button = action.button
        if overlay.kind in (S.RULES_LIST, S.SCORES):
            lines = self._rules_lines(state) if overlay.kind == S.RULES_LIST else self._figures(state)
            if button in ("up", "down"):
                return self._scroll(state, overlay, button, len(lines))
            if button in ("ok", "back"):
                return Step(replace(state, overlay=None), (Sound.CLICK,))
        elif overlay.kind == S.CHAOS:
            if button == "ok":
                return Step(
                    replace(state, overlay=None, phase=S.OVER, cursor=0, notice="Yeah... that's enough chaos"),
                    (Sound.FANFARE,),
                )
            if button == "back":
                return Step(replace(state, overlay=None), (Sound.CLICK,))
        elif overlay.kind == S.IMMUNITY:
            return self._immunity_pick(state, overlay, button)
        else:
            return self._rule_creator_pick(state, overlay, button)
        return Rejected("OK or BACK")

    def _scroll(self, state: State, overlay: Overlay, button: str, count: int) -> Step | Rejected:
        step = -1 if button == "up" else 1
        top = overlay.cursor + step
        if not 0 <= top <= max(0, count - PAGE):
            return Rejected("End of the list")
        return Step(replace(state, overlay=replace(overlay, cursor=top)), (Sound.CLICK,))

    def _immunity_pick(self, state: State, overlay: Overlay, button: str) -> Step | Rejected:
        count = len(state.players)
        if button in ("up", "down"):
            cursor = (overlay.cursor + (-1 if button == "up" else 1)) % count
            return Step(replace(state, overlay=replace(overlay, cursor=cursor)), (Sound.CLICK,))
        if button == "back":
            return Step(replace(state, overlay=None, notice="Immunity not played"), (Sound.CLICK,))
        if button != "ok":
            return Rejected("Pick the player, then OK")
        name = state.players[overlay.cursor]
        if state.immune[overlay.cursor]:
            return Rejected(f"{name} is already immune")
        immune = _tuple_set(state.immune, overlay.cursor, True)
        return Step(replace(state, immune=immune, overlay=None, notice=f"{name} immune to next turn"), (Sound.RIGHT,))

    def _rule_creator_pick(self, state: State, overlay: Overlay, button: str) -> Step | Rejected:
        slots = state.board.card_slots()
        choosing_owner = overlay.slot is not None
        count = len(state.players) if choosing_owner else len(slots)
        if button in ("up", "down"):
            cursor = (overlay.cursor + (-1 if button == "up" else 1)) % count
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
        placed = self._place(replace(state, overlay=None), overlay.slot, Placed(overlay.card, overlay.cursor))
        notice = f"New rule on {state.where(overlay.slot)}"
        return Step(replace(placed, notice=placed.notice or notice), (Sound.RIGHT,))

    # -- the phases -----------------------------------------------------------------------

    def _draw(self, state: State, action: Action) -> Step | Rejected:
        if action == Press("ok"):
            return Step(replace(state, phase=S.ROLL, notice=""), (Sound.CLICK,))
        return self._wrong_time(action, "Draw up to 7, then OK")

    def _roll(self, state: State, action: Action) -> Step | Rejected:
        if isinstance(action, Roll):
            return self._move(state, action.dice)
        if action == Press("ok"):
            if state.token.ring != "inner":
                return Rejected("Press ROLL to roll")
            if state.inner_turns[state.turn] < FORCED_EXIT_AFTER:
                left = FORCED_EXIT_AFTER - state.inner_turns[state.turn]
                return Rejected(f"Way out forced in {left} turn{'s' if left > 1 else ''}")
            return Step(replace(state, phase=S.FORCE), (Sound.CLICK,))
        return self._wrong_time(action, "Press ROLL to roll")

    def _force(self, state: State, action: Action) -> Step | Rejected:
        if action == Press("back"):
            return Step(replace(state, phase=S.ROLL), (Sound.CLICK,))
        if action != Press("ok"):
            return self._wrong_time(action, "OK: chug and leave, BACK: stay")
        player = state.turn
        assert state.token.entry is not None  # a token inside always knows its arrow
        out = Token("outer", state.token.entry)
        moved = replace(
            state,
            phase=S.ROLL,
            tokens=_tuple_set(state.tokens, player, out),
            inner_turns=_tuple_set(state.inner_turns, player, 0),
        )
        moved, skipped = _drink(moved, (player,), FORCED_EXIT_DRINKS)
        if skipped:
            return Step(replace(moved, notice=f"Immune: out free to {out.space}"), (Sound.RIGHT,))
        return Step(replace(moved, notice=f"Chug! Then roll from {out.space}"), (Sound.END,), timer=Chug())

    def _move(self, state: State, dice: tuple[int, int]) -> Step | Rejected:
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
            state = replace(state, inner_turns=_tuple_set(state.inner_turns, player, turns))
        else:
            space, laps = board.move_outer(token.space, total)
            token = Token("outer", space)
            if laps:
                state = replace(state, laps=_tuple_set(state.laps, player, state.laps[player] + laps))
                state, skipped = _drink(state, range(len(state.players)), laps)
                sounds = (Sound.LAP,)
                notes.append("Lap! All drink" + (f" but {', '.join(skipped)}" if skipped else ""))
            target = board.arrow_target(space)
            if target is not None:
                token = Token("inner", target, space)
                state = replace(state, inner_turns=_tuple_set(state.inner_turns, player, 0))
                notes.append(f"Arrow! Inner {target}")
            elif not laps:
                notes.append(f"To space {space}")
        state = replace(state, tokens=_tuple_set(state.tokens, player, token), completed=False, reacted=False)
        return Step(self._land(replace(state, notice=". ".join(notes))), sounds)

    def _land(self, state: State) -> State:
        """After moving: the challenge if the space holds a card, else the card phase (none on Start)."""
        if state.token.ring == "outer" and state.token.space == state.board.start:
            return replace(state, phase=S.END)
        if state.spaces[state.slot] is not None:
            return replace(state, phase=S.CHALLENGE)
        return replace(state, phase=S.CARD)

    def _challenge(self, state: State, action: Action) -> Step | Rejected:
        placed = state.spaces[state.slot]
        assert placed is not None
        card = state.cards[placed.card]
        if action == Press("ok"):
            return Step(replace(state, phase=S.CARD, completed=True, notice="Challenge completed"), (Sound.RIGHT,))
        if action == Press("back"):
            state, skipped = _drink(state, (state.turn,), card.forfeit)
            notice = "Failed, but immune" if skipped else f"Failed: {_forfeit(state, card.forfeit)}"
            return Step(replace(state, phase=S.CARD, completed=False, notice=notice), (Sound.WRONG,))
        if isinstance(action, Tap):
            if action.card != placed.card:
                return Rejected("Finish the challenge first")
            if state.reacted:
                return Rejected("One reaction per challenge")
            if placed.owner == state.turn:
                return Rejected("Your own card: no reaction")
            if state.cards[placed.card].tier is None:
                return Rejected("No reaction to a white card")
            return Step(replace(state, phase=S.REACT), (Sound.CLICK,))
        return self._wrong_time(action, "OK done, BACK failed")

    def _react(self, state: State, action: Action) -> Step | Rejected:
        """The reaction card: same tier cancels, same tier and colour reflects."""
        if action == Press("back"):
            return Step(replace(state, phase=S.CHALLENGE), (Sound.CLICK,))
        if not isinstance(action, Tap):
            return self._wrong_time(action, "Tap your reaction card")
        placed = state.spaces[state.slot]
        assert placed is not None
        attack, reply = state.cards[placed.card], state.cards[action.card]
        on = state.slot_of(action.card)
        if on is not None:
            return Rejected(f"Already on {state.where(on)}")
        if reply.tier != attack.tier:
            return Rejected(f"Not allowed: needs tier {attack.tier}")
        state = replace(state, reacted=True)
        if reply.color == attack.color:
            owner = state.players[placed.owner]
            return Step(replace(state, phase=S.REFLECTED, notice=f"Reflected onto {owner}!"), (Sound.RIGHT,))
        return Step(replace(state, phase=S.CARD, completed=False, notice="Cancelled"), (Sound.RIGHT,))

    def _reflected(self, state: State, action: Action) -> Step | Rejected:
        """The attacker takes the whole challenge and cannot react."""
        placed = state.spaces[state.slot]
        assert placed is not None
        card = state.cards[placed.card]
        owner = state.players[placed.owner]
        if action == Press("ok"):
            return Step(replace(state, phase=S.CARD, notice=f"{owner} did it"), (Sound.RIGHT,))
        if action == Press("back"):
            state, skipped = _drink(state, (placed.owner,), card.forfeit)
            notice = f"{owner} failed, but immune" if skipped else f"{owner}: {_forfeit(state, card.forfeit)}"
            return Step(replace(state, phase=S.CARD, notice=notice), (Sound.WRONG,))
        if isinstance(action, Tap):
            return Rejected("One reaction per challenge")
        return self._wrong_time(action, f"{owner[:8]}: OK done, BACK failed")

    def _card(self, state: State, action: Action) -> Step | Rejected:
        """Tap a card to place it on the token's space; OK places nothing."""
        if action == Press("ok"):
            return Step(replace(state, phase=S.END, notice=""), (Sound.CLICK,))
        if not isinstance(action, Tap):
            return self._wrong_time(action, "Tap a card or OK to skip")
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
            state = self._place(state, slot, Placed(action.card, state.turn))
            return Step(
                replace(state, phase=S.END, notice=state.notice or f"Placed on {state.where(slot)}"), (Sound.RIGHT,)
            )
        if not state.completed:
            return Rejected("Replace only after a completed challenge")
        old = state.cards[placed.card]
        if placed.owner == state.turn or (old.tier is not None and card.color == old.color and card.tier > old.tier):
            state = self._place(state, slot, Placed(action.card, state.turn))
            return Step(replace(state, phase=S.END, notice=f"Takeover: {old.title[:12]} out"), (Sound.RIGHT,))
        defender = state.players[placed.owner]
        return Step(
            replace(
                state, phase=S.DUEL_STYLE, duel=Duel(action.card), cursor=HIGH_DIE, notice=f"Duel with {defender}!"
            ),
            (Sound.CLICK,),
        )

    def _place(self, state: State, slot: int, placed: Placed) -> State:
        """Put a card on a slot (the card there is discarded) and check the full-board lockout."""
        spaces = _tuple_set(state.spaces, slot, placed)
        state = replace(state, spaces=spaces)
        if not state.lockout and all(spaces[s] is not None for s in state.board.outer_card_slots()):
            return replace(state, lockout=True, notice="Board full: lockout!")
        return state

    def _duel_style(self, state: State, action: Action) -> Step | Rejected:
        """The defender picks the duel; BACK drops the takeover."""
        if action in (Press("up"), Press("down")):
            return Step(replace(state, cursor=1 - state.cursor), (Sound.CLICK,))
        if action == Press("ok"):
            phase = S.DUEL_ROLL if state.cursor == HIGH_DIE else S.DUEL_WINNER
            assert state.duel is not None
            duel = replace(state.duel, rolls=())
            return Step(replace(state, phase=phase, duel=duel, cursor=0, notice=""), (Sound.CLICK,))
        if action == Press("back"):
            return Step(replace(state, phase=S.CARD, duel=None, cursor=0, notice="No takeover"), (Sound.CLICK,))
        return self._wrong_time(action, "Defender: pick, then OK")

    def _duel_roll(self, state: State, action: Action) -> Step | Rejected:
        """High-Die Roll: challenger, then defender; the higher total wins, a tie rolls again."""
        duel = state.duel
        assert duel is not None
        if action == Press("back"):
            return Step(replace(state, phase=S.DUEL_STYLE, duel=replace(duel, rolls=())), (Sound.CLICK,))
        if not isinstance(action, Roll):
            return self._wrong_time(action, "Press ROLL")
        dice = action.dice
        if len(dice) != 2 or any(type(d) is not int or not 1 <= d <= 6 for d in dice):
            return Rejected("Dice must be two of 1 to 6")
        rolls = (*duel.rolls, dice[0] + dice[1])
        if len(rolls) == 1:
            return Step(replace(state, duel=replace(duel, rolls=rolls), notice=f"Challenger {rolls[0]}"))
        if rolls[0] == rolls[1]:
            return Step(replace(state, duel=replace(duel, rolls=()), notice=f"Tie at {rolls[0]}: roll again"))
        return self._duel_over(state, challenger_won=rolls[0] > rolls[1], score=f" {rolls[0]}-{rolls[1]}")

    def _duel_winner(self, state: State, action: Action) -> Step | Rejected:
        """Another minigame: pick who won (challenger first), then OK."""
        if action in (Press("up"), Press("down")):
            return Step(replace(state, cursor=1 - state.cursor), (Sound.CLICK,))
        if action == Press("ok"):
            return self._duel_over(state, challenger_won=state.cursor == 0, score="")
        if action == Press("back"):
            return Step(replace(state, phase=S.DUEL_STYLE, cursor=OTHER_GAME), (Sound.CLICK,))
        return self._wrong_time(action, "Pick the winner, then OK")

    def _duel_over(self, state: State, challenger_won: bool, score: str) -> Step:
        """The winner's card stays on the space, the loser's is discarded."""
        duel, slot = state.duel, state.slot
        placed = state.spaces[slot]
        assert duel is not None and placed is not None
        winner = state.turn if challenger_won else placed.owner
        state = replace(state, duels_won=_tuple_set(state.duels_won, winner, state.duels_won[winner] + 1))
        if challenger_won:
            state = self._place(state, slot, Placed(duel.card, state.turn))
        name = state.players[winner]
        return Step(
            replace(state, phase=S.END, duel=None, cursor=0, notice=f"{name[:10]} wins{score}"), (Sound.FANFARE,)
        )

    def _end(self, state: State, action: Action) -> Step | Rejected:
        """OK passes the turn; the next player's immunity ends as their turn begins."""
        if action != Press("ok"):
            return self._wrong_time(action, "Discard, then OK")
        turn = (state.turn + 1) % len(state.players)
        return Step(
            replace(
                state,
                turn=turn,
                phase=S.DRAW,
                immune=_tuple_set(state.immune, turn, False),
                completed=False,
                reacted=False,
                duel=None,
                cursor=0,
                notice="",
            ),
            (Sound.CLICK,),
        )

    def _over(self, state: State, action: Action) -> Step | Rejected:
        """The session is over: only scrolling the figures."""
        if action in (Press("up"), Press("down")):
            top = state.cursor + (-1 if action == Press("up") else 1)
            if 0 <= top <= max(0, len(self._figures(state)) - PAGE):
                return Step(replace(state, cursor=top), (Sound.CLICK,))
        return Rejected("The session is over")

    def _wrong_time(self, action: Action, hint: str) -> Rejected:
        """The reason for an input the phase has no use for."""
        if isinstance(action, Tap):
            return Rejected("Cards go on your space in card phase")
        if isinstance(action, Roll):
            return Rejected("No dice now")
        return Rejected(hint)

    # -- screens --------------------------------------------------------------------------

    def _phase_lines(self, state: State) -> tuple[str, ...]:
        """The lines of the current phase's screen."""
        phase, token = state.phase, state.token
        where = f"{'Inner' if token.ring == 'inner' else 'Space'} {token.space}"
        placed = state.spaces[state.slot]
        card = state.cards[placed.card] if placed is not None else None
        if phase == S.DRAW:
            return ("Draw up to 7 cards", where, "OK: ready to roll")
        if phase == S.ROLL:
            lines = [where, "ROLL: throw 2d6"]
            if token.ring == "inner":
                lines.append(f"{state.inner_turns[state.turn]} turns inside")
                lines.append("1+1 escapes")
                if state.inner_turns[state.turn] >= FORCED_EXIT_AFTER:
                    lines.append("OK: force out (chug)")
            return tuple(lines)
        if phase == S.FORCE:
            return (
                "Force the way out?",
                f"Pay: chug ({_forfeit(state, FORCED_EXIT_DRINKS)})",
                "then roll from arrow",
                "OK: yes  BACK: no",
            )
        if phase == S.END:
            return ("Discard up to 3,", "down to 7 cards", "OK: end turn")
        if card is None or placed is None:
            return (
                where,
                "Empty space",
                "Locked: none allowed" if state.lockout else "Tap a card to place",
                "OK: place nothing",
            )
        owner = state.players[placed.owner]
        head = (card.title, f"{card.label} by {owner}"[:21])
        if phase == S.CHALLENGE:
            return (*head, f"Fail: {_forfeit(state, card.forfeit)}", "OK done  BACK failed", "Tap it to react")
        if phase == S.REACT:
            return (*head, "Tap reaction card", f"tier {card.tier}: cancel", "+colour: reflect")
        if phase == S.REFLECTED:
            return (*head, f"{owner} takes it!", "OK done  BACK failed")
        if phase == S.CARD:
            action = "Tap to replace" if state.completed else "No replacing"
            return (*head, where, action, "OK: done")
        if phase == S.DUEL_STYLE:
            return (f"{owner} defends:", *DUEL_STYLES, "OK: choose BACK: drop")
        if phase == S.DUEL_ROLL:
            duel = state.duel
            assert duel is not None
            who = state.players[state.turn] if not duel.rolls else owner
            return ("High-Die Roll", f"{who} presses ROLL", *(f"Challenger: {r}" for r in duel.rolls))
        return (state.players[state.turn], owner, "Who won? OK")

    def _phase_cursor(self, state: State) -> int | None:
        """The highlighted line of a picker phase."""
        if state.phase == S.DUEL_STYLE:
            return 1 + state.cursor
        if state.phase == S.DUEL_WINNER:
            return state.cursor
        return None

    def _overlay_view(self, state: State, overlay: Overlay) -> View:
        if overlay.kind == S.RULES_LIST:
            return self._page("Rules in play", self._rules_lines(state), overlay.cursor)
        if overlay.kind == S.SCORES:
            return self._page("Scores", self._figures(state), overlay.cursor)
        if overlay.kind == S.CHAOS:
            return View("Enough chaos?", ("End the session", "and show figures?", "OK: yes  BACK: no"))
        title = state.cards[overlay.card].title if overlay.card else ""
        if overlay.kind == S.IMMUNITY:
            return self._picker(f"{title}: who?", state.players, overlay.cursor)
        if overlay.slot is None:
            names = [self._space_name(state, slot) for slot in state.board.card_slots()]
            return self._picker(f"{title}: where?", names, overlay.cursor)
        return self._picker(f"{title}: whose?", state.players, overlay.cursor)

    def _space_name(self, state: State, slot: int) -> str:
        """A space for the Rule Creator's picker, with the card it holds: 'space 3: Plank'."""
        placed = state.spaces[slot]
        return state.where(slot) + (f": {state.cards[placed.card].title}" if placed is not None else "")

    def _picker(self, title: str, choices: tuple[str, ...] | list[str], cursor: int) -> View:
        """A list of choices scrolled so the cursor is visible."""
        top = min(max(0, cursor - PAGE + 1), max(0, len(choices) - PAGE))
        return View(title[:21], tuple(choices[top : top + PAGE]), cursor=cursor - top)

    def _page(self, title: str, lines: tuple[str, ...], top: int, notice: str = "") -> View:
        return View(title, lines[top : top + PAGE], notice=notice)

    def _rules_lines(self, state: State) -> tuple[str, ...]:
        """The active persistent rules: blue cards and Rule Creator cards on the board."""
        lines = tuple(
            f"{state.board.key(slot)}: {state.cards[p.card].title}"
            for slot, p in enumerate(state.spaces)
            if p is not None and state.cards[p.card].persistent
        )
        return lines or ("No rules in play",)

    def _figures(self, state: State) -> tuple[str, ...]:
        """One line per player: laps, drinks (or points), duels won."""
        letter = "D" if state.forfeits == "drinks" else "P"
        return tuple(
            f"{name[:9]:9} L{laps} {letter}{drinks} W{won}"
            for name, laps, drinks, won in zip(state.players, state.laps, state.drinks, state.duels_won)
        )


RULES = DeckOfDeath()
