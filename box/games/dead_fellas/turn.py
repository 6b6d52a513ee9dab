"""The transition: one physical input (a press or a tap) against the game, phase by phase.

Every illegal input answers `Rejected(reason)` and changes nothing; an accepted
one answers `Step(new_game, sounds)` with `notice` saying what happened.
"""

from __future__ import annotations

from dataclasses import replace

from box.games.base import Action, Press, Rejected, Roll, Sound, Step, Tap
from box.games.dead_fellas.board import Mook
from box.games.dead_fellas.deck import BOOST, FUGAZI, FUHGEDDABOUTIT, I_KNOW_A_GUY, SLOTS, Card
from box.games.dead_fellas.plays import Boosted, CardPlay, Equipped, TablePlayed, TookFromDiscard, Whacked
from box.games.dead_fellas.state import (
    DEALT_MOOKS,
    RESTING,
    WIN_SCORE,
    Attack,
    Chain,
    Choice,
    Deal,
    EndTurn,
    Evidence,
    Game,
    Over,
    Phase,
    Picking,
    Playing,
    Reading,
    Recruit,
    Target,
    attackers,
    boostable,
    choices,
    receivers,
)

NO_DICE = "Dead Fellas uses no dice"
FINISH_FIRST = "finish this choice first"


def apply(game: Game, action: Action) -> Step | Rejected:
    """The game after `action`, or why it is refused."""
    if isinstance(action, Tap):
        return tap(game, action.card)
    if isinstance(action, Press) and action.button != "roll":
        return press(game, action.button)
    if isinstance(action, Press | Roll):
        return Rejected(NO_DICE)
    return Rejected("unknown input")


def step(game: Game, notice: str = "", *sounds: str) -> Step:
    return Step(state=replace(game, notice=notice), sounds=sounds)


# --- presses --------------------------------------------------------------------------


def press(game: Game, button: str) -> Step | Rejected:
    if isinstance(game.phase, Over):
        return Rejected("the game is over")
    if button in ("up", "down"):
        return move(game, 1 if button == "down" else -1)
    if button == "ok":
        return confirm(game)
    if button == "back":
        return back(game)
    return Rejected(f"unknown button {button!r}")


def move(game: Game, delta: int) -> Step | Rejected:
    offered = choices(game)
    if not offered:
        return Rejected(idle_hint(game.phase))
    cursor = (cursor_of(game, offered) + delta) % len(offered)
    return step(replace(game, phase=replace(game.phase, cursor=cursor)), game.notice, Sound.CLICK)


def cursor_of(game: Game, offered: tuple[Choice, ...]) -> int:
    return min(getattr(game.phase, "cursor", 0), len(offered) - 1)


def idle_hint(phase: Phase) -> str:
    """Why UP/DOWN/OK do nothing in a phase without choices."""
    if isinstance(phase, Deal):
        return "tap the dealt Mooks"
    if isinstance(phase, Recruit):
        return "tap the new Mook"
    return "nothing to choose here"


def confirm(game: Game) -> Step | Rejected:
    phase = game.phase
    if isinstance(phase, EndTurn):
        return next_turn(game)
    if isinstance(phase, Reading):
        return step(replace(game, phase=resume(game, phase.resume)), game.notice, Sound.CLICK)
    if isinstance(phase, Chain):
        return settle(game, phase)
    offered = choices(game)
    if not offered:
        return Rejected(idle_hint(phase))
    value = offered[cursor_of(game, offered)].value
    if isinstance(phase, Playing):
        return choose_action(game, value or "")
    if isinstance(phase, Attack):
        if value is None:
            return step(replace(game, phase=EndTurn()), "", Sound.CLICK)
        return step(replace(game, phase=Target(value, phase.done)), "", Sound.CLICK)
    if isinstance(phase, Target):
        return whack(game, phase.attacker, value or "", phase.done)
    if isinstance(phase, Evidence):
        return discard_evidence(game, phase, value or "")
    if isinstance(phase, Picking):
        return pick(game, phase, value)
    return Rejected(idle_hint(phase))


def back(game: Game) -> Step | Rejected:
    phase = game.phase
    if isinstance(phase, Recruit):
        return step(replace(game, phase=Playing(2)), "", Sound.CLICK)
    if isinstance(phase, Attack):
        if phase.done:
            return step(replace(game, phase=EndTurn()), "", Sound.CLICK)
        return step(replace(game, phase=Playing()), "", Sound.CLICK)
    if isinstance(phase, Target):
        return step(replace(game, phase=Attack(phase.done)), "", Sound.CLICK)
    if isinstance(phase, Reading):
        return step(replace(game, phase=resume(game, phase.resume)), game.notice, Sound.CLICK)
    if isinstance(phase, Chain):
        if len(phase.cards) > 1:
            return step(replace(game, phase=replace(phase, cards=phase.cards[:-1])), "Fuhgeddaboutit taken back")
        return step(replace(game, phase=resume(game, phase.resume)), "Fuhgeddaboutit taken back", Sound.CLICK)
    if isinstance(phase, Picking):
        return back_from_picking(game, phase)
    if isinstance(phase, Evidence):
        return Rejected("choose the item to discard")
    if isinstance(phase, EndTurn):
        return Rejected("the action is taken: OK ends turn")
    if isinstance(phase, Playing):
        return Rejected("choose an action")
    return Rejected(idle_hint(phase))


def back_from_picking(game: Game, phase: Picking) -> Step:
    effect = game.board.cards[phase.card].effect
    if phase.step == "mook" and effect == FUGAZI:
        return step(replace(game, phase=replace(phase, step="slot", cursor=0)), "", Sound.CLICK)
    if phase.step == "mook" and effect == BOOST:
        return step(replace(game, phase=replace(phase, step="item", source=None, cursor=0)), "", Sound.CLICK)
    return step(replace(game, phase=resume(game, phase.resume)), f"{game.name(phase.card)} not played", Sound.CLICK)


# --- the turn -------------------------------------------------------------------------


def start_turn(game: Game, seat: int, notice: str = "") -> Step:
    """Seat `seat` begins: recruited Mooks turn face up; the box reminds them to draw."""
    flipped = sum(1 for mook in game.board.mooks[seat] if not mook.face_up)
    board = game.board.flip_up(seat)
    parts = [notice] if notice else []
    if flipped:
        parts.append(f"{flipped} Mook{'s' if flipped > 1 else ''} turned up")
    game = replace(game, board=board, turn=seat, phase=Playing(), last=None)
    return step(game, "; ".join(parts), Sound.CLICK)


def next_turn(game: Game) -> Step:
    """The next seat still in the game (a seat is out with no Mooks and an empty Mook deck)."""
    for seat in game.seats_from_turn()[1:]:
        if not game.board.is_out(seat):
            return start_turn(game, seat)
    return start_turn(game, game.turn)


def choose_action(game: Game, action: str) -> Step | Rejected:
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


def whack(game: Game, attacker: str, target: str, done: tuple[str, ...]) -> Step:
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


def discard_evidence(game: Game, phase: Evidence, slot: str) -> Step:
    attacker = game.board.mook(phase.attacker)
    item = attacker.item(slot) or ""
    board = game.board.equip(phase.attacker, slot, None)
    last = replace(game.last, evidence=item, evidence_slot=slot) if isinstance(game.last, Whacked) else game.last
    game = replace(game, board=board, last=last)
    return step(replace(game, phase=attack_phase(game, phase.done)), f"{game.name(item)} discarded", Sound.CLICK)


# --- taps -----------------------------------------------------------------------------


def tap(game: Game, card_id: str) -> Step | Rejected:
    if card_id not in game.board.cards:
        return Rejected("not a Dead Fellas card")
    card: Card = game.board.cards[card_id]
    phase = game.phase
    if game.board.in_play(card_id):
        return Rejected(f"{card.name[:20]} is in play")
    if (isinstance(phase, Chain) and card_id in phase.cards) or (isinstance(phase, Picking) and card_id == phase.card):
        return Rejected(f"{card.name[:20]} is being played")
    if card.effect == FUHGEDDABOUTIT:
        return fuhgeddaboutit(game, card_id)
    if isinstance(phase, Over):
        return Rejected("the game is over")
    if isinstance(phase, Chain):
        return Rejected("settle the chain first: OK")
    if card.kind == "mook":
        return tap_mook(game, card_id)
    if isinstance(phase, Deal):
        return Rejected("deal: tap Mooks only")
    if isinstance(phase, EndTurn) and card_id in game.board.discard:
        return Rejected(f"{card.name[:20]} is discarded")
    if card.kind == "item":
        if isinstance(phase, EndTurn):
            return step(replace(game, board=game.board.to_discard(card_id)), f"{card.name} discarded", Sound.CLICK)
        if not isinstance(phase, Playing):
            return Rejected("items go before the action")
        return play_item(game, card_id)
    if not isinstance(phase, RESTING):
        return Rejected(FINISH_FIRST)
    return play_action(game, card)


def tap_mook(game: Game, card: str) -> Step | Rejected:
    phase = game.phase
    if isinstance(phase, Deal):
        return deal(game, card)
    if not isinstance(phase, Playing | Recruit):
        return Rejected("recruit with the action menu")
    board = game.board.add_mook(game.turn, Mook(card, face_up=False))
    return step(replace(game, board=board, phase=EndTurn()), f"{game.name(card)} recruited", Sound.CLICK)


def deal(game: Game, card: str) -> Step:
    board = game.board.add_mook(game.turn, Mook(card))
    seat = game.turn + 1 if len(board.mooks[game.turn]) == DEALT_MOOKS else game.turn
    game = replace(game, board=board, turn=seat % len(game.players))
    if seat < len(game.players) and board.mooks_left() > 0:
        return step(game, f"{game.name(card)} dealt", Sound.CLICK)
    dealt = [sum(board.hits(mook.card) for mook in row) for row in board.mooks]
    first = max(range(len(game.players)), key=lambda other: (dealt[other], -other))
    return start_turn(game, first, f"{game.players[first]} starts ({dealt[first]} hits)")


def play_item(game: Game, card: str) -> Step | Rejected:
    picking = Picking(card, "mook", game.phase)
    if not receivers(game, picking):
        if game.board.mooks[game.turn]:
            return Rejected("face-down Mooks take no items")
        return Rejected("no Mook to take an item")
    return step(replace(game, phase=picking), "", Sound.CLICK)


def play_action(game: Game, card: Card) -> Step | Rejected:
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


def pick(game: Game, phase: Picking, value: str | None) -> Step | Rejected:
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


def finish_play(game: Game, discarded: str | None, play: CardPlay, then: Phase, notice: str) -> Step:
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


def fuhgeddaboutit(game: Game, card: str) -> Step | Rejected:
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


def settle(game: Game, chain: Chain) -> Step:
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
