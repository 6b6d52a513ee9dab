"""Dead Fellas' transitions: one physical input (a press or a tap) against the game, phase by phase.

Every illegal input answers `Rejected(reason)` and changes nothing; an accepted
one answers `Step(new_game, sounds)` with `notice` saying what happened. Seats
follow `Setup.players`; the dealer is the last player, so the first player sits
left of the dealer and is dealt first.

>>> from box.games.base import Setup, Tap
>>> game = RULES.new(Setup(("Ann", "Bob")), RULES.load_deck())
>>> RULES.view(game).title
'Deal: Ann'
>>> RULES.apply(game, Tap("left", "dfw01")).reason
'deal: tap Mooks only'
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from box.cards import Deck
from box.games import TITLES
from box.games.base import Action, Option, Press, Rejected, Roll, Setup, Sound, Step, Tap, View
from box.games.dead_fellas import cards, screens
from box.games.dead_fellas.cards import BOOST, FUGAZI, FUHGEDDABOUTIT, I_KNOW_A_GUY, SLOTS, Card
from box.games.dead_fellas.state import (
    DEALT_MOOKS,
    RESTING,
    WIN_SCORE,
    Attack,
    Board,
    Boosted,
    CardPlay,
    Chain,
    Deal,
    EndTurn,
    Equipped,
    Evidence,
    Game,
    Mook,
    Over,
    Phase,
    Picking,
    Playing,
    Reading,
    Recruit,
    TablePlayed,
    Target,
    TookFromDiscard,
    Whacked,
    attackers,
    boostable,
    choices,
    dump,
    receivers,
)
from box.games.kit import MOVES, Picker, Rulebook, Stage, expect, fit, read_options

NO_DICE = "Dead Fellas uses no dice"
FINISH_FIRST = "finish this choice first"
NOTHING_TO_CHOOSE = "nothing to choose here"
OPTIONS = (Option("items_on_opponents", "Items on opponents", "no", ("no", "yes")),)

Result = Step[Game] | Rejected
Handler = Callable[[Game, Action], Result]


def apply(game: Game, action: Action) -> Result:
    """The game after `action`, or why it is refused: the inputs of any phase first, then the phase's own."""
    if isinstance(action, Roll) or (isinstance(action, Press) and action.button == "roll"):
        return Rejected(NO_DICE)
    if isinstance(action, Press) and action.button not in (*MOVES, "ok", "back"):
        return Rejected(f"unknown button {action.button!r}")
    if isinstance(action, Tap):
        if action.card not in game.board.cards:
            return Rejected("not a Dead Fellas card")
        card = game.board.cards[action.card]
        phase = game.phase
        if game.board.in_play(action.card):
            return Rejected(f"{fit(card.name, 20)} is in play")
        if (isinstance(phase, Chain) and action.card in phase.cards) or (
            isinstance(phase, Picking) and action.card == phase.card
        ):
            return Rejected(f"{fit(card.name, 20)} is being played")
        if card.effect == FUHGEDDABOUTIT:  # any player, any time
            return fuhgeddaboutit(game, action.card)
    return PHASES[type(game.phase)].handle(game, action)


def view(game: Game) -> View:
    """The screen for the game's phase."""
    return PHASES[type(game.phase)].screen(game)


def step(game: Game, notice: str = "", *sounds: str) -> Step[Game]:
    return Step(state=replace(game, notice=notice), sounds=sounds)


# --- the phases -----------------------------------------------------------------------


def _deal(game: Game, action: Action) -> Result:
    if isinstance(action, Tap) and _kind(game, action.card) == "mook":
        return deal(game, action.card)
    return Rejected("deal: tap Mooks only" if isinstance(action, Tap) else "tap the dealt Mooks")


def _choosing(
    ok: Callable[[Game, Any, str | None], Result],
    back: Callable[[Game, Any], Result],
    tap: Callable[[Game, str], Result] | None = None,
) -> Handler:
    """A phase offering `choices(game)`: UP/DOWN move the cursor, OK hands the value under it to `ok`,
    BACK is `back`'s; a tap is `tap`'s (by default refused: a choice is open)."""

    def handle(game: Game, action: Action) -> Result:
        if isinstance(action, Tap):
            return (tap or _busy)(game, action.card)
        if action.button == "ok":
            return _with_choice(game, lambda value: ok(game, game.phase, value))
        if action.button == "back":
            return back(game, game.phase)
        return move(game, action.button)

    return handle


def _tap_playing(game: Game, card: str) -> Result:
    """Before the action: a Mook is recruited, an item goes on a Mook, an action card is played."""
    kind = _kind(game, card)
    if kind == "mook":
        return recruit(game, card)
    return play_item(game, card) if kind == "item" else play_action(game, game.board.cards[card])


def _tap_attacking(game: Game, card: str) -> Result:
    """While attacking only action cards may be played."""
    return play_action(game, game.board.cards[card]) if _kind(game, card) == "action" else _busy(game, card)


def _recruit(game: Game, action: Action) -> Result:
    if isinstance(action, Tap):
        return recruit(game, action.card) if _kind(game, action.card) == "mook" else _busy(game, action.card)
    if action.button == "back":
        return step(replace(game, phase=Playing(2)), "", Sound.CLICK)
    return Rejected("tap the new Mook")


def _attacker_chosen(game: Game, phase: Attack, attacker: str | None) -> Step[Game]:
    """The attacker chosen, or "Done" (None): the turn's end."""
    if attacker is None:
        return step(replace(game, phase=EndTurn()), "", Sound.CLICK)
    return step(replace(game, phase=Target(attacker, phase.done)), "", Sound.CLICK)


def _attack_back(game: Game, phase: Attack) -> Step[Game]:
    return step(replace(game, phase=EndTurn() if phase.done else Playing()), "", Sound.CLICK)


def _refuse(reason: str) -> Callable[[Game, Any], Rejected]:
    return lambda game, phase: Rejected(reason)


def _end_turn(game: Game, action: Action) -> Result:
    if isinstance(action, Tap):
        card = game.board.cards[action.card]
        if card.kind == "mook":
            return Rejected("recruit with the action menu")
        if action.card in game.board.discard:
            return Rejected(f"{fit(card.name, 20)} is discarded")
        if card.kind == "item":
            return step(replace(game, board=game.board.to_discard(action.card)), f"{card.name} discarded", Sound.CLICK)
        return play_action(game, card)
    if action.button == "ok":
        return next_turn(game)
    if action.button == "back":
        return Rejected("the action is taken: OK ends turn")
    return Rejected(NOTHING_TO_CHOOSE)


def _reading(game: Game, action: Action) -> Result:
    phase = expect(game.phase, Reading)
    if isinstance(action, Tap):
        return _busy(game, action.card)
    if action.button in ("ok", "back"):
        return step(replace(game, phase=resume(game, phase.resume)), game.notice, Sound.CLICK)
    return Rejected(NOTHING_TO_CHOOSE)


def _chain(game: Game, action: Action) -> Result:
    phase = expect(game.phase, Chain)
    if isinstance(action, Tap):
        return Rejected("settle the chain first: OK")
    if action.button == "ok":
        return settle(game, phase)
    if action.button == "back":
        if len(phase.cards) > 1:
            return step(replace(game, phase=replace(phase, cards=phase.cards[:-1])), "Fuhgeddaboutit taken back")
        return step(replace(game, phase=resume(game, phase.resume)), "Fuhgeddaboutit taken back", Sound.CLICK)
    return Rejected(NOTHING_TO_CHOOSE)


def _over(game: Game, action: Action) -> Result:
    return Rejected("the game is over")




# --- what the phases share ----------------------------------------------------------------


def _kind(game: Game, card: str) -> str:
    return game.board.cards[card].kind


def _busy(game: Game, card: str) -> Rejected:
    """A tap while a choice is open: Mooks come by the action menu, items before the action."""
    kind = _kind(game, card)
    if kind == "mook":
        return Rejected("recruit with the action menu")
    return Rejected("items go before the action" if kind == "item" else FINISH_FIRST)


def move(game: Game, button: str) -> Result:
    """UP/DOWN on the phase's choices (the kit's cursor rule)."""
    offered = choices(game)
    if not offered:
        return Rejected(NOTHING_TO_CHOOSE)
    picker = Picker(tuple(choice.label for choice in offered), getattr(game.phase, "cursor", 0)).move(button)
    return step(replace(game, phase=replace(game.phase, cursor=picker.cursor)), game.notice, Sound.CLICK)


def _with_choice(game: Game, then: Callable[[str | None], Result]) -> Result:
    """OK: the value of the choice under the cursor, handed to `then`."""
    offered = choices(game)
    if not offered:
        return Rejected(NOTHING_TO_CHOOSE)
    picker = Picker(tuple(choice.label for choice in offered), getattr(game.phase, "cursor", 0))
    return then(offered[picker.cursor].value)


def back_from_picking(game: Game, phase: Picking) -> Step[Game]:
    effect = game.board.cards[phase.card].effect
    if phase.step == "mook" and effect == FUGAZI:
        return step(replace(game, phase=replace(phase, step="slot", cursor=0)), "", Sound.CLICK)
    if phase.step == "mook" and effect == BOOST:
        return step(replace(game, phase=replace(phase, step="item", source=None, cursor=0)), "", Sound.CLICK)
    return step(replace(game, phase=resume(game, phase.resume)), f"{game.name(phase.card)} not played", Sound.CLICK)


# --- the turn -------------------------------------------------------------------------


def start_turn(game: Game, seat: int, notice: str = "") -> Step[Game]:
    """Seat `seat` begins: recruited Mooks turn face up; the box reminds them to draw."""
    flipped = sum(1 for mook in game.board.mooks[seat] if not mook.face_up)
    board = game.board.flip_up(seat)
    parts = [notice] if notice else []
    if flipped:
        parts.append(f"{flipped} Mook{'s' if flipped > 1 else ''} turned up")
    game = replace(game, board=board, turn=seat, phase=Playing(), last=None)
    return step(game, "; ".join(parts), Sound.CLICK)


def next_turn(game: Game) -> Step[Game]:
    """The next seat still in the game (a seat is out with no Mooks and an empty Mook deck)."""
    for seat in game.seats_from_turn()[1:]:
        if not game.board.is_out(seat):
            return start_turn(game, seat)
    return start_turn(game, game.turn)


def choose_action(game: Game, action: str) -> Result:
    if action == "draw":
        return step(replace(game, phase=EndTurn()), "Draw a Mafia card", Sound.CLICK)
    if action == "recruit":
        if game.board.mooks_left() == 0:
            return Rejected("the Mook deck is empty")
        return step(replace(game, phase=Recruit()), "", Sound.CLICK)
    if not attackers(game, ()):
        if not any(mook.armed for mook in game.board.mooks[game.turn]):
            return Rejected("no Mook has all three items")
        return Rejected("no target weak enough to whack")
    return step(replace(game, phase=Attack()), "", Sound.CLICK)


def attack_phase(game: Game, done: tuple[str, ...], cursor: int = 0) -> Phase:
    """Go on attacking while an armed Mook has a target; else the turn's end (or back to the menu)."""
    if attackers(game, done):
        return Attack(done, cursor)
    return EndTurn() if done else Playing()


def resume(game: Game, phase: Phase) -> Phase:
    """`phase` again after an interruption, re-checked if it was the attack picker."""
    return attack_phase(game, phase.done, phase.cursor) if isinstance(phase, Attack) else phase


def whack(game: Game, attacker: str, target: str, done: tuple[str, ...]) -> Step[Game]:
    seat, position = game.board.find(target) or (0, 0)
    whacked = game.board.mooks[seat][position]
    board = game.board.remove_mook(target).to_pile(game.turn, target).to_discard(*whacked.items)
    play = Whacked(attacker=attacker, by=game.turn, target=whacked, seat=seat, position=position)
    done = (*done, attacker)
    game = replace(game, board=board, last=play)
    notice = f"{game.name(target)} whacked: +{board.hits(target)}"
    standing = [other for other in range(len(game.players)) if not board.is_out(other)]
    if board.score(game.turn) >= WIN_SCORE or standing == [game.turn]:
        return step(replace(game, phase=Over(game.turn, done)), f"{game.player} wins!", Sound.FANFARE)
    return step(replace(game, phase=Evidence(attacker, done)), notice, Sound.RIGHT)


def discard_evidence(game: Game, phase: Evidence, slot: str) -> Step[Game]:
    attacker = game.board.mook(phase.attacker)
    item = attacker.item(slot) or ""
    board = game.board.equip(phase.attacker, slot, None)
    last = replace(game.last, evidence=item, evidence_slot=slot) if isinstance(game.last, Whacked) else game.last
    game = replace(game, board=board, last=last)
    return step(replace(game, phase=attack_phase(game, phase.done)), f"{game.name(item)} discarded", Sound.CLICK)


# --- taps -----------------------------------------------------------------------------


def recruit(game: Game, card: str) -> Step[Game]:
    """A new Mook in front of the player, face down until their next turn."""
    board = game.board.add_mook(game.turn, Mook(card, face_up=False))
    return step(replace(game, board=board, phase=EndTurn()), f"{game.name(card)} recruited", Sound.CLICK)


def deal(game: Game, card: str) -> Step[Game]:
    board = game.board.add_mook(game.turn, Mook(card))
    seat = game.turn + 1 if len(board.mooks[game.turn]) == DEALT_MOOKS else game.turn
    game = replace(game, board=board, turn=seat % len(game.players))
    if seat < len(game.players) and board.mooks_left() > 0:
        return step(game, f"{game.name(card)} dealt", Sound.CLICK)
    dealt = [sum(board.hits(mook.card) for mook in row) for row in board.mooks]
    first = max(range(len(game.players)), key=lambda other: (dealt[other], -other))
    return start_turn(game, first, f"{game.players[first]} starts ({dealt[first]} hits)")


def play_item(game: Game, card: str) -> Result:
    picking = Picking(card, "mook", game.phase)
    if not receivers(game, picking):
        if game.board.mooks[game.turn]:
            return Rejected("face-down Mooks take no items")
        return Rejected("no Mook to take an item")
    return step(replace(game, phase=picking), "", Sound.CLICK)


def play_action(game: Game, card: Card) -> Result:
    phase = game.phase
    if card.effect == FUGAZI:
        if not any(mook.face_up for row in game.board.mooks for mook in row):
            return Rejected("no face-up Mook for a Fugazi")
        return step(replace(game, phase=Picking(card.id, "slot", phase)), "", Sound.CLICK)
    if card.effect == BOOST:
        if not boostable(game):
            return Rejected("no item to boost")
        return step(replace(game, phase=Picking(card.id, "item", phase)), "", Sound.CLICK)
    if card.effect == I_KNOW_A_GUY:
        if not [known for known in game.board.discard if known != card.id]:
            return finish_play(game, card.id, TookFromDiscard(card.id, None), phase, "Take any discarded card")
        return step(replace(game, phase=Picking(card.id, "discard", phase)), "", Sound.CLICK)
    return finish_play(game, card.id, TablePlayed(card.id), Reading(card.id, phase), "The table resolves it")


def pick(game: Game, phase: Picking, value: str | None) -> Result:
    card = game.board.cards[phase.card]
    if phase.step == "slot":
        return step(replace(game, phase=replace(phase, step="mook", slot=value, cursor=0)), "", Sound.CLICK)
    if phase.step == "item":
        chosen = replace(phase, step="mook", source=value, cursor=0)
        if not receivers(game, chosen):
            return Rejected("no face-up Mook to take it")
        return step(replace(game, phase=chosen), "", Sound.CLICK)
    if phase.step == "discard":
        taken = game.board.from_discard(value) if value else game.board
        notice = f"{game.name(value)} to hand" if value else "Take the card from discards"
        return finish_play(replace(game, board=taken), card.id, TookFromDiscard(card.id, value), phase.resume, notice)
    mook = value or ""
    if card.effect == BOOST and phase.source:
        source = game.board.mook(phase.source)
        slot = next(slot for slot in SLOTS if source.item(slot) == phase.source)
        replaced = game.board.mook(mook).item(slot)
        board = game.board.put_mook(source.with_item(slot, None)).equip(mook, slot, phase.source)
        play = Boosted(card.id, phase.source, source.card, mook, slot, replaced)
        return finish_play(replace(game, board=board), card.id, play, phase.resume, play.describe(board))
    slot = phase.slot or card.slot or ""
    replaced = game.board.mook(mook).item(slot)
    board = game.board.equip(mook, slot, card.id)
    play = Equipped(card.id, mook, slot, replaced)
    return finish_play(replace(game, board=board), None, play, phase.resume, play.describe(board))


def finish_play(game: Game, discarded: str | None, play: CardPlay, then: Phase, notice: str) -> Step[Game]:
    """A Mafia card is played: it is the last play; an action card goes to the discard pile.

    A card the box knew as discarded coming back from a hand means the table reshuffled
    the discards into the Mafia deck: the box forgets its discard pile then.
    """
    board = game.board
    if play.card in board.discard:
        board = replace(board, discard=())
        notice = f"{notice}; discards reshuffled"
    if discarded is not None:
        board = board.to_discard(discarded)
    game = replace(game, board=board, last=play)
    return step(replace(game, phase=resume(game, then)), notice, Sound.CLICK)


# --- Fuhgeddaboutit -------------------------------------------------------------------


def fuhgeddaboutit(game: Game, card: str) -> Result:
    """Any player, any time: the first opens a chain against the last play, the next ones join it."""
    phase = game.phase
    if isinstance(phase, Chain):
        chain = replace(phase, cards=(*phase.cards, card))
    elif not isinstance(phase, (*RESTING, Evidence, Over)):
        return Rejected(FINISH_FIRST if not isinstance(phase, Deal) else "nothing to cancel")
    elif game.last is None:
        return Rejected("nothing to cancel")
    else:
        chain = Chain((card,), phase)
    notice = f"Fuhgeddaboutit x{len(chain.cards)}"
    if card in game.board.discard:
        game = replace(game, board=replace(game.board, discard=()))
        notice += "; discards reshuffled"
    return step(replace(game, phase=chain), notice, Sound.CLICK)


def settle(game: Game, chain: Chain) -> Step[Game]:
    """An odd chain cancels the last play, an even one lets it stand; the chain's cards are discarded."""
    play = game.last
    board = game.board.to_discard(*chain.cards)
    if play is None:
        return step(replace(game, board=board, phase=resume(game, chain.resume)), "", Sound.CLICK)
    what = play.describe(board)
    then = chain.resume
    if len(chain.cards) % 2 == 0:
        game = replace(game, board=board, last=None)
        return step(replace(game, phase=resume(game, then)), f"Stands: {what}", Sound.CLICK)
    game = replace(game, board=play.cancel(board), last=None)
    if isinstance(play, Whacked) and isinstance(then, Evidence | Over):
        then = Attack(then.done)
    return step(replace(game, phase=resume(game, then)), f"Cancelled: {what}", Sound.CLICK)


# --- the phase table -----------------------------------------------------------------

PHASES: dict[type, Stage[Game]] = {
    Deal: Stage(_deal, screens.deal),
    Playing: Stage(
        _choosing(lambda game, _, value: choose_action(game, value or ""), _refuse("choose an action"), _tap_playing),
        screens.playing,
    ),
    Recruit: Stage(_recruit, screens.recruit),
    Attack: Stage(_choosing(_attacker_chosen, _attack_back, _tap_attacking), screens.attack),
    Target: Stage(
        _choosing(
            lambda game, phase, value: whack(game, phase.attacker, value or "", phase.done),
            lambda game, phase: step(replace(game, phase=Attack(phase.done)), "", Sound.CLICK),
        ),
        screens.target,
    ),
    Evidence: Stage(
        _choosing(
            lambda game, phase, value: discard_evidence(game, phase, value or ""),
            _refuse("choose the item to discard"),
        ),
        screens.evidence,
    ),
    EndTurn: Stage(_end_turn, screens.end_turn),
    Picking: Stage(_choosing(pick, back_from_picking), screens.picking),
    Reading: Stage(_reading, screens.reading),
    Chain: Stage(_chain, screens.chain),
    Over: Stage(_over, screens.over),
}


def new(setup: Setup, deck: Deck) -> Game:
    """The deal: the first player (left of the dealer, the last player) taps their three Mooks."""
    on_opponents = read_options(OPTIONS, setup.options)["items_on_opponents"] == "yes"
    return Game(tuple(setup.players), Board.empty(deck.cards, len(setup.players)), Deal(), items_on_opponents=on_opponents)


def is_over(game: Game) -> bool:
    return isinstance(game.phase, Over)


RULES = Rulebook(cards.NAME, TITLES[cards.NAME], (2, 6), OPTIONS, cards.load_deck, new, apply, view, dump, is_over)
