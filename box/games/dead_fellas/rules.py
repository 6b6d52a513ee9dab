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

from box.decks.codec import Deck
from box.games import TITLES
from box.games.base import Action, Press, Rejected, Roll, Setup, Sound, Step, Tap, View
from box.games.dead_fellas import cards, events, screens
from box.games.dead_fellas.cards import BOOST, FUGAZI, FUHGEDDABOUTIT, I_KNOW_A_GUY, SLOTS, Card
from box.games.dead_fellas.state import (
    CHOOSING,
    DEALT_MAFIA,
    DEALT_MOOKS,
    FIGURES,
    OPTIONS,
    PHONE,
    SECRETS,
    WIN_SCORE,
    Attack,
    Board,
    Boosted,
    CardPlay,
    Deal,
    Discard,
    EndTurn,
    Equipped,
    Evidence,
    Game,
    Mook,
    Over,
    Phase,
    Picking,
    Play,
    Playing,
    Reading,
    Recruit,
    TablePlayed,
    Target,
    TookFromDiscard,
    Whacked,
    aim,
    attackers,
    boostable,
    choices,
    dump,
    evidence,
    figures_of,
    likely_receiver,
    players_for,
    receivers,
    targets,
)
from box.games.kit import MOST_PLAYERS, MOVES, Picker, Rulebook, Stage, deal_for, expect, name_line, read_options, told

NO_DICE = "Dead Fellas uses no dice"
NOTHING_TO_CHOOSE = "nothing to choose here"

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
        if isinstance(phase, Playing) and _armable(game, action.card):
            return arm(game, phase, action.card)
        if game.board.in_play(action.card):
            return Rejected(f"{card.name} is in play")
        if action.card in held(phase):
            return Rejected(f"{card.name} is being played")
        if card.effect == FUHGEDDABOUTIT and not isinstance(phase, Discard):  # any player, any time
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
        if not isinstance(action, Press):
            return Rejected(NO_DICE)  # `apply` refuses a Roll before any phase sees it
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


def _tap_choosing(game: Game, card: str) -> Result:
    """While a choice is open (an attacker, a target, the evidence, a card's picker) only action cards
    may be played (RULINGS 5a); the open choice is asked again on the new situation."""
    return play_action(game, game.board.cards[card]) if _kind(game, card) == "action" else _busy(game, card)


def _recruit(game: Game, action: Action) -> Result:
    if isinstance(action, Tap):
        return recruit(game, action.card) if _kind(game, action.card) == "mook" else _tap_choosing(game, action.card)
    if not isinstance(action, Press):
        return Rejected(NO_DICE)  # `apply` refuses a Roll before any phase sees it
    if action.button == "back":
        return step(replace(game, phase=Playing(2)), "", Sound.CLICK)
    return Rejected("tap the new Mook")


def _target_back(game: Game, phase: Target) -> Step[Game]:
    """Back to "who whacks?", or where its BACK goes when it was skipped (one attacker)."""
    if len(attackers(game, phase.done)) > 1:
        return step(replace(game, phase=Attack(phase.done)), "", Sound.CLICK)
    return step(replace(game, phase=EndTurn() if phase.done else Playing()), "", Sound.CLICK)


def _attacker_chosen(game: Game, phase: Attack, attacker: str | None) -> Step[Game]:
    """The attacker chosen, or "Done" (None): the turn's end."""
    if attacker is None:
        return step(replace(game, phase=EndTurn()), "", Sound.CLICK)
    return _attack_with(game, aim(game, attacker, phase.done))


def _attack_back(game: Game, phase: Attack) -> Step[Game]:
    return step(replace(game, phase=EndTurn() if phase.done else Playing()), "", Sound.CLICK)


def _refuse(reason: str) -> Callable[[Game, Any], Rejected]:
    return lambda game, phase: Rejected(reason)


def _end_turn_tap(game: Game, card_id: str) -> Result:
    """After the action: an item tapped is recorded as discarded, an action card is played."""
    card = game.board.cards[card_id]
    if card.kind == "mook":
        return Rejected("recruit with the action menu")
    if card_id in game.board.discard:
        return Rejected(f"{card.name} is discarded")
    if card.kind == "item":
        return _discard(game, card_id)
    return play_action(game, card)


def _end_turn_chosen(game: Game, phase: EndTurn, value: str | None) -> Step[Game]:
    if value == "discard":
        return step(replace(game, phase=Discard()), "Tap cards to discard", Sound.CLICK)
    return next_turn(game)


def _discard(game: Game, card_id: str) -> Step[Game]:
    return step(replace(game, board=game.board.to_discard(card_id)), f"{game.name(card_id)} discarded", Sound.CLICK)


def _discarding(game: Game, action: Action) -> Result:
    """The discard step: an item tapped is discarded; an action card may be a play by anyone
    (RULINGS 5a), so the box asks: the current player's discard first, then who plays it."""
    if isinstance(action, Tap):
        card = game.board.cards[action.card]
        if card.kind == "mook":
            return Rejected("Mooks are not discarded")
        if action.card in game.board.discard:
            return Rejected(f"{card.name} is discarded")
        if card.kind == "action":
            return step(replace(game, phase=Picking(card.id, "use", game.phase, game.turn)), "", Sound.CLICK)
        return _discard(game, action.card)
    if not isinstance(action, Press):
        return Rejected(NO_DICE)  # `apply` refuses a Roll before any phase sees it
    if action.button == "ok":
        return next_turn(game)
    if action.button == "back":
        return step(replace(game, phase=EndTurn(1)), "", Sound.CLICK)
    return Rejected(NOTHING_TO_CHOOSE)


def _reading(game: Game, action: Action) -> Result:
    phase = expect(game.phase, Reading)
    if isinstance(action, Tap):
        return _tap_choosing(game, action.card)
    if not isinstance(action, Press):
        return Rejected(NO_DICE)  # `apply` refuses a Roll before any phase sees it
    if action.button in ("ok", "back"):
        return step(replace(game, phase=resume(game, phase.resume)), game.notice, Sound.CLICK)
    return Rejected(NOTHING_TO_CHOOSE)


def _over(game: Game, action: Action) -> Result:
    return Rejected("the game is over")




# --- what the phases share ----------------------------------------------------------------


def _kind(game: Game, card: str) -> str:
    return game.board.cards[card].kind


def held(phase: Phase) -> tuple[str, ...]:
    """The cards being played: the open picker's card and those of the pickers it interrupted."""
    cards: list[str] = []
    while isinstance(phase, Picking | Reading):
        cards.append(phase.card)
        phase = phase.resume
    return tuple(cards)


def _busy(game: Game, card: str) -> Rejected:
    """A Mook or an item tapped while a choice is open: Mooks come by the action menu, items before the action."""
    if _kind(game, card) == "mook":
        return Rejected("recruit with the action menu")
    return Rejected("items go before the action")


def move(game: Game, button: str) -> Result:
    """UP/DOWN on the phase's choices (the kit's cursor rule)."""
    offered, phase = choices(game), game.phase
    if not offered or not isinstance(phase, CHOOSING):  # `choices` offers nothing in the other phases
        return Rejected(NOTHING_TO_CHOOSE)
    picker = Picker(tuple(choice.label for choice in offered), phase.cursor).move(button)
    return step(replace(game, phase=replace(phase, cursor=picker.cursor)), game.notice, Sound.CLICK)


def _with_choice(game: Game, then: Callable[[str | None], Result]) -> Result:
    """OK: the value of the choice under the cursor, handed to `then`."""
    offered = choices(game)
    if not offered:
        return Rejected(NOTHING_TO_CHOOSE)
    picker = Picker(tuple(choice.label for choice in offered), getattr(game.phase, "cursor", 0))
    return then(offered[picker.cursor].value)


def back_from_picking(game: Game, phase: Picking) -> Step[Game]:
    effect = game.board.cards[phase.card].effect
    if phase.step == "use":
        return step(replace(game, phase=phase.resume), f"{game.name(phase.card)} kept", Sound.CLICK)
    if phase.step == "mook" and effect == FUGAZI:
        return step(replace(game, phase=replace(phase, step="slot", cursor=0)), "", Sound.CLICK)
    if phase.step == "mook" and effect == BOOST:
        return step(replace(game, phase=replace(phase, step="item", source=None, cursor=0)), "", Sound.CLICK)
    return step(replace(game, phase=resume(game, phase.resume)), f"{game.name(phase.card)} not played", Sound.CLICK)


# --- the turn -------------------------------------------------------------------------


def start_turn(game: Game, seat: int, notice: str = "") -> Step[Game]:
    """Seat `seat` begins: recruited Mooks turn face up and are named now; the box reminds them to draw.

    The last play stays the last (RULINGS 5): a Fuhgeddaboutit at the start of this turn still cancels it.
    """
    flipped = [game.name(mook.card) for mook in game.board.mooks[seat] if not mook.face_up]
    board = game.board.flip_up(seat)
    parts = [notice] if notice else []
    if flipped:
        parts.append(f"{', '.join(flipped)} turned up")
    game = replace(game, board=board, turn=seat, phase=Playing())
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
    return _attack_with(game, attack_phase(game, ()))


def _attack_with(game: Game, phase: Phase) -> Step[Game]:
    """The attacker chosen (or the only one): its target picker, or the whack itself when it has one target.

    Only where the player has just chosen to attack: a picker offered again after a Fuhgeddaboutit
    or for the next attacker is asked.
    """
    if isinstance(phase, Target):
        offered = targets(game, game.board.mook(phase.attacker))
        if len(offered) == 1:
            return whack(game, phase.attacker, offered[0][1].card, phase.done)
    return step(replace(game, phase=phase), "", Sound.CLICK)


def attack_phase(game: Game, done: tuple[str, ...], cursor: int = 0) -> Phase:
    """Go on attacking while an armed Mook has a target (one alone is not asked "who whacks?");
    else the turn's end (or back to the menu before any attack)."""
    ready = attackers(game, done)
    if len(ready) == 1:
        return aim(game, ready[0].card, done)
    if ready:
        return Attack(done, cursor)
    return EndTurn() if done else Playing()


def resume(game: Game, phase: Phase) -> Phase:
    """`phase` again after an interruption or a Fuhgeddaboutit, re-checked against the table.

    The attack picker and a target list are offered again only while they still make sense; a
    card's picker whose choices went away gives the card back (or its Boost steps back).
    """
    if isinstance(phase, Attack):
        return attack_phase(game, phase.done, phase.cursor)
    if isinstance(phase, Target):
        where = game.board.find(phase.attacker)
        attacker = game.board.mook(phase.attacker) if where is not None else None
        if attacker is None or phase.attacker in phase.done or not attacker.armed or not targets(game, attacker):
            return attack_phase(game, phase.done)
        return phase
    if isinstance(phase, Evidence):
        where = game.board.find(phase.attacker)
        if where is None or not game.board.mook(phase.attacker).items:  # nothing left to ditch
            return phase.resume if phase.resume is not None else attack_phase(game, phase.done)
        return phase
    if isinstance(phase, Picking):
        return _resume_picking(game, phase)
    return phase


def _resume_picking(game: Game, phase: Picking) -> Phase:
    if phase.step == "item" and not boostable(game, phase.by):
        return resume(game, phase.resume)
    if phase.step == "mook" and phase.source is not None:
        offered = [mook.item(slot) for _, mook, slot in boostable(game, phase.by)]
        if phase.source not in offered:
            return replace(phase, step="item", source=None, cursor=0) if offered else resume(game, phase.resume)
    if phase.step == "mook" and not receivers(game, phase):
        return resume(game, phase.resume)
    return phase


def whack(game: Game, attacker: str, target: str, done: tuple[str, ...]) -> Step[Game]:
    seat, position = game.board.find(target) or (0, 0)
    whacked = game.board.mooks[seat][position]
    board = game.board.remove_mook(target).to_pile(game.turn, target).to_discard(*whacked.items)
    done = (*done, attacker)
    play = Whacked(attacker=attacker, by=game.turn, target=whacked, seat=seat, position=position, done=done)
    game = replace(game, board=board, last=play, chain=())
    notice = f"{game.name(target)} whacked: +{board.hits(target)}"
    standing = [other for other in range(len(game.players)) if not board.is_out(other)]
    if board.score(game.turn) >= WIN_SCORE or standing == [game.turn]:
        return step(replace(game, phase=Over(game.turn, done)), f"{game.player} wins!", Sound.FANFARE)
    return step(replace(game, phase=evidence(game, attacker, done)), notice, Sound.RIGHT)


def discard_evidence(game: Game, phase: Evidence, slot: str) -> Step[Game]:
    attacker = game.board.mook(phase.attacker)
    item = attacker.item(slot) or ""
    board = game.board.equip(phase.attacker, slot, None)
    last = replace(game.last, evidence=item, evidence_slot=slot) if isinstance(game.last, Whacked) else game.last
    game = replace(game, board=board, last=last)
    then = phase.resume if phase.resume is not None else attack_phase(game, phase.done)
    return step(replace(game, phase=then), f"{game.name(item)} discarded", Sound.CLICK)


# --- taps -----------------------------------------------------------------------------


def recruit(game: Game, card: str) -> Step[Game]:
    """A new Mook in front of the player, face down until their next turn, and secret till then:
    the shared screen says only that one was recruited."""
    board = game.board.add_mook(game.turn, Mook(card, face_up=False))
    return step(replace(game, board=board, phase=EndTurn()), f"{game.player} recruited a Mook", Sound.CLICK)


def deal(game: Game, card: str) -> Step[Game]:
    board = game.board.add_mook(game.turn, Mook(card))
    seat = game.turn + 1 if len(board.mooks[game.turn]) == DEALT_MOOKS else game.turn
    game = replace(game, board=board, turn=seat % len(game.players))
    if seat < len(game.players) and board.mooks_left() > 0:
        return step(game, f"{game.name(card)} dealt", Sound.CLICK)
    dealt = [sum(board.hits(mook.card) for mook in row) for row in board.mooks]
    first = max(range(len(game.players)), key=lambda other: (dealt[other], -other))
    return start_turn(game, first, f"{game.players[first]} starts ({dealt[first]} hits)")


def arm(game: Game, phase: Playing, mook: str) -> Result:
    """A Mook in front tapped before the action: the next items go on it (tapped again: ask again).

    >>> from box.games.base import Setup, Tap
    >>> game = RULES.new(Setup(("Ann", "Bob")), RULES.load_deck())
    >>> for card in ("dfm01", "dfm02", "dfm03", "dfm04", "dfm05", "dfm06"):
    ...     game = RULES.apply(game, Tap("left", card)).state
    >>> game = RULES.apply(game, Tap("left", game.board.mooks[game.turn][0].card)).state
    >>> game.notice.startswith("Items go on ")
    True
    """
    if not game.board.mook(mook).face_up:
        return Rejected("face-down Mooks take no items")
    if phase.mook == mook:
        return step(replace(game, phase=replace(phase, mook=None)), "Items: the box asks the Mook", Sound.CLICK)
    return step(replace(game, phase=replace(phase, mook=mook)), f"Items go on {game.name(mook)}", Sound.CLICK)


def _armable(game: Game, card: str) -> bool:
    """A Mook in front of the player (of anyone with `items_on_opponents`): one items may go on."""
    place = game.board.find(card)
    if place is None or game.board.cards[card].kind != "mook":
        return False
    return place[0] == game.turn or game.items_on_opponents


def play_item(game: Game, card: str) -> Result:
    """An item, played by the player whose turn it is."""
    picking = Picking(card, "mook", game.phase, game.turn)
    if not receivers(game, picking):
        if game.board.mooks[game.turn]:
            return Rejected("face-down Mooks take no items")
        return Rejected("no Mook to take an item")
    return _to_mook(game, picking)


def _to_mook(game: Game, picking: Picking) -> Result:
    """The card's Mook picker; or the card goes on the Mook the player tapped to arm, or on the
    only Mook that can take it."""
    offered = [mook.card for _, mook in receivers(game, picking)]
    armed = picking.resume.mook if isinstance(picking.resume, Playing) and picking.by == game.turn else None
    if armed in offered:
        return pick(game, picking, armed)
    if len(offered) == 1:
        return pick(game, picking, offered[0])
    return step(replace(game, phase=replace(picking, cursor=likely_receiver(game, picking))), "", Sound.CLICK)


def play_action(game: Game, card: Card, by: int | None = None) -> Result:
    """An action card, anyone's (RULINGS 5a; a Fuhgeddaboutit, see below): its first picker is the
    current player's (or `by`'s), with a line for each other player who can play it; when the current
    player cannot, it opens as the first who can, clockwise."""
    phase = game.phase
    able = players_for(game, card)
    if by is None or by not in able:
        by = game.turn if game.turn in able else able[0] if able else game.turn
    if card.effect == FUGAZI:
        if not able:
            return Rejected("no face-up Mook for a Fugazi")
        return step(replace(game, phase=Picking(card.id, "slot", phase, by)), "", Sound.CLICK)
    if card.effect == BOOST:
        if not able:
            seats = game.seats_from_turn()
            return Rejected("no face-up Mook to take it" if any(boostable(game, s) for s in seats) else "no item to boost")
        return step(replace(game, phase=Picking(card.id, "item", phase, by)), "", Sound.CLICK)
    if card.effect == I_KNOW_A_GUY:
        if not [known for known in game.board.discard if known != card.id]:
            return finish_play(game, card.id, TookFromDiscard(card.id, None), phase, "Take any discarded card")
        return step(replace(game, phase=Picking(card.id, "discard", phase, by)), "", Sound.CLICK)
    return finish_play(game, card.id, TablePlayed(card.id), Reading(card.id, phase), "The table resolves it")


def pick(game: Game, phase: Picking, value: str | None) -> Result:
    card = game.board.cards[phase.card]
    offered = choices(game)
    chosen = offered[Picker(tuple(choice.label for choice in offered), phase.cursor).cursor]
    if phase.step == "use":  # an action card tapped while discarding: discarded, or played by `chosen.seat`
        game = replace(game, phase=phase.resume)
        if value == "discard":
            return _discard(game, card.id)
        if card.effect == FUHGEDDABOUTIT:
            return fuhgeddaboutit(game, card.id)
        return play_action(game, card, chosen.seat)
    if chosen.seat is not None:  # another player's card: the same first step, as theirs
        return step(replace(game, phase=replace(phase, by=chosen.seat, cursor=0)), "", Sound.CLICK)
    if phase.step == "slot":
        return _to_mook(game, replace(phase, step="mook", slot=value, cursor=0))
    if phase.step == "item":
        return _to_mook(game, replace(phase, step="mook", source=value, cursor=0))
    if phase.step == "discard":
        taken = game.board.from_discard(value) if value else game.board
        hand = "hand" if phase.by == game.turn else f"{game.players[phase.by]}'s hand"
        notice = f"{game.name(value)} to {hand}" if value else "Take the card from discards"
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
    equipped = Equipped(card.id, mook, slot, replaced)
    return finish_play(replace(game, board=board), None, equipped, phase.resume, equipped.describe(board))


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
    game = replace(game, board=board, last=play, chain=())
    return step(replace(game, phase=resume(game, then)), notice, Sound.CLICK)


# --- Fuhgeddaboutit -------------------------------------------------------------------


def fuhgeddaboutit(game: Game, card: str) -> Result:
    """Any player, any time, in any phase: cancel the last play, or reverse the Fuhgeddaboutit before.

    It takes effect at once and goes to the discard pile; the chain's parity decides: odd, the
    play is cancelled; even, it stands. The chain stays open until the next play, the next
    whack or the end of the turn; the phase goes on (re-checked against the table).
    """
    play = game.last
    if play is None:
        return Rejected("nothing to cancel")
    board, notice = game.board, ""
    if card in board.discard:
        board, notice = replace(board, discard=()), "; discards reshuffled"
    chain = (*game.chain, card)
    cancelled = len(chain) % 2 == 1
    board = board.to_discard(card)
    board = play.cancel(board) if cancelled else play.redo(board)
    for picked in held(game.phase):
        if board.in_play(picked):  # the card in hand cannot come back to the table
            return Rejected(f"{game.name(picked)} is being played")
    game = replace(game, board=board, chain=chain)
    game = replace(game, phase=_after_chain(game, play, cancelled))
    verdict = "cancelled" if cancelled else "stands"
    return step(game, f"Fuhgeddaboutit x{len(chain)}: {verdict}{notice}", Sound.CLICK)


def _after_chain(game: Game, play: Play, cancelled: bool) -> Phase:
    """Where play goes on after a Fuhgeddaboutit: a cancelled whack needs no evidence (its attack
    is spent) and ends no game; standing again, it wins again or asks for its evidence again."""
    phase = game.phase
    if isinstance(play, Whacked):
        if cancelled and isinstance(phase, Evidence | Over):
            return attack_phase(game, play.done)
        if not cancelled:
            standing = [seat for seat in range(len(game.players)) if not game.board.is_out(seat)]
            if game.board.score(play.by) >= WIN_SCORE or standing == [play.by]:
                return Over(play.by, play.done)
            if play.evidence is None:  # on a later turn, play goes on there once it is ditched
                later = phase if play.by != game.turn else None
                return replace(evidence(game, play.attacker, play.done), resume=later)
    return resume(game, phase)


# --- the phase table -----------------------------------------------------------------

PHASES: dict[type, Stage[Game]] = {
    Deal: Stage(_deal, screens.deal),
    Playing: Stage(
        _choosing(lambda game, _, value: choose_action(game, value or ""), _refuse("choose an action"), _tap_playing),
        screens.playing,
    ),
    Recruit: Stage(_recruit, screens.recruit),
    Attack: Stage(_choosing(_attacker_chosen, _attack_back, _tap_choosing), screens.attack),
    Target: Stage(
        _choosing(
            lambda game, phase, value: whack(game, phase.attacker, value or "", phase.done),
            _target_back,
            _tap_choosing,
        ),
        screens.target,
    ),
    Evidence: Stage(
        _choosing(
            lambda game, phase, value: discard_evidence(game, phase, value or ""),
            _refuse("choose the item to discard"),
            _tap_choosing,
        ),
        screens.evidence,
    ),
    EndTurn: Stage(_choosing(_end_turn_chosen, _refuse("the action is taken: OK ends turn"), _end_turn_tap), screens.end_turn),
    Discard: Stage(_discarding, screens.discard),
    Picking: Stage(_choosing(pick, back_from_picking, _tap_choosing), screens.picking),
    Reading: Stage(_reading, screens.reading),
    Over: Stage(_over, screens.over),
}


def new(setup: Setup, deck: Deck) -> Game:
    """The deal: the first player (left of the dealer, the last player) taps their three Mooks.

    ValueError when the deck cannot deal three Mooks and three Mafia cards to every player."""
    mooks = sum(1 for card in deck.cards.values() if card.kind == "mook")
    deal_for(len(setup.players), mooks, DEALT_MOOKS, "Mooks")
    deal_for(len(setup.players), len(deck.cards) - mooks, DEALT_MAFIA, "Mafia cards")
    on_opponents = read_options(OPTIONS, setup.options)["items_on_opponents"] == "yes"
    return Game(tuple(setup.players), Board.empty(deck.cards, len(setup.players)), Deal(), items_on_opponents=on_opponents)


def describe(before: Game | None, action: Action, after: Game) -> str | None:
    """The undo label: the turn passed says whose turn ended ("Ann ends turn"), not what the next
    turn's start showed ("Rocco turned up"); else the notice the action left."""
    if before is not None and not isinstance(before.phase, Deal) and after.turn != before.turn:
        return name_line("", before.player, " ends turn")
    return told(before, after)


def is_over(game: Game) -> bool:
    return isinstance(game.phase, Over)


def secret(game: Game, card: str) -> bool:
    """A recruited Mook still face down: its owner may peek, the table must not see it named."""
    return any(mook.card == card and not mook.face_up for row in game.board.mooks for mook in row)


RULES = Rulebook(
    cards.NAME, TITLES[cards.NAME], (2, MOST_PLAYERS), OPTIONS, cards.load_deck, new, apply, view, dump, is_over, secret=secret,
    figures=FIGURES, figures_of=figures_of, phone=PHONE, secrets=SECRETS,
    events=events.happened, describe=describe,
)
