"""Friction: how many inputs (button presses and card taps) each kind of turn takes at the table.

Reference games of each title are played through the simulator (mock pins, simulated PN532s,
virtual time) by seeded players who do what a party does: draw a card and place it, twist or
stick, arm a Mook and whack, roll and play a card. Where a screen asks a choice, the player
takes the shortest way to the line it wants (UP or DOWN to it, then OK), found by trying the
moves on the game's pure rules first. Every input that reaches the box is counted against the
turn it belongs to, so the figures are what the box asks, measured.

Prints one JSON object, each kind of turn with its mean, worst and the issue's target:

    {"deadlines": {"placement": {"mean": m, "worst": w, "target": 4}, "special": ...},
     "dead-set": {"twist": ..., "stick": ...},
     "dead-fellas": {"item": ..., "attack": ..., "end_of_turn": ..., "three_items_and_a_whack": ...},
     "deck-of-death": {"turn": ..., "turn_with_card": ...}}

Dead Fellas' `item` is per item played (the tap of a Mook armed first included), `attack` per
whack (Whack, who whacks, the target, the evidence), `end_of_turn` what passes the turn after the
action (OK, or the discards the box is told of).

Run: `python bench/friction.py [--games N]` (10 by default; docs/performance.md records the figures).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from box.games.base import Press, Rejected
from box.sim.world import SimulatedBox

# Inputs a turn may take (issue 15). Dead Fellas' "three items and a whack" is a whole turn: three
# items played, one whack, the turn passed; `attack` is the Whack action's inputs per whack.
TARGETS: dict[str, dict[str, float]] = {
    "deadlines": {"placement": 4},  # 1 tap + 3 presses
    "dead-set": {"twist": 1, "stick": 1},
    "dead-fellas": {"attack": 4, "three_items_and_a_whack": 8},
    "deck-of-death": {"turn": 2},
}
DICE_WATCHED = 2.0  # seconds
MOST_MOVES = 12  # a choice further than this many UP/DOWN presses is not looked for


class Table:
    """A simulated box and the tally of inputs per kind of turn."""

    def __init__(self, state_dir: Path, seed: int):
        self.world = SimulatedBox(state_dir=state_dir, seed=seed)
        self.counted = 0  # inputs since the current turn began
        self.tally: dict[str, list[int]] = defaultdict(list)
        self.trace: list[str] | None = None  # every input, when a caller wants to see them

    @property
    def session(self) -> Any:
        return self.world.box.session

    @property
    def state(self) -> Any:
        return self.session.state

    def press(self, button: str) -> None:
        self.world.press(button)
        self.counted += 1
        if self.trace is not None:
            self.trace.append(button)
        if button == "roll":
            self.world.advance(DICE_WATCHED)  # the table watches the dice before the next input

    def tap(self, reader: str, card: str) -> None:
        self.world.put(reader, self.world.box.tags.uid_of(self.session.record.name, card))
        self.world.lift(reader)
        self.counted += 1
        if self.trace is not None:
            self.trace.append(f"tap {reader}")

    def begin(self) -> None:
        self.counted = 0

    def end(self, kind: str) -> None:
        self.tally[kind].append(self.counted)
        self.counted = 0

    def choose(self, wanted: Callable[[Any], bool], last: str = "ok") -> bool:
        """Press UP or DOWN to the line after which `last` gives a state `wanted` accepts; then `last`.

        The moves are tried on the pure rules first, the shortest way is played on the box.
        """
        rules = self.session.rules
        for moves in range(MOST_MOVES + 1):
            for button in ("down", "up") if moves else ("down",):
                state = self.state
                for _ in range(moves):
                    result = rules.apply(state, Press(button))
                    if isinstance(result, Rejected):
                        break
                    state = result.state
                else:
                    result = rules.apply(state, Press(last))
                    if not isinstance(result, Rejected) and wanted(result.state):
                        for _ in range(moves):
                            self.press(button)
                        self.press(last)
                        return True
        return False

    def close(self) -> None:
        """The box closed and its subscribers (the history) done, before the state folder goes."""
        self.world.end()


def start(table: Table, game: str, players: int, **options: str) -> None:
    table.world.box.lobby.start_game(game, table.world.now, players=players, options=options)
    table.world.advance(0.0)


# ----- Deadlines ------------------------------------------------------------------------------


def play_deadlines(table: Table, rng: random.Random) -> None:
    """A game of 3 players: each turn a random card on a random open column, placed right 4 times in 5."""
    from box.games.deadlines import state as dl

    start(table, "deadlines", 3)
    deck = table.session.deck
    unused = [card for card in deck.cards]
    rng.shuffle(unused)
    for reader in ("left", "middle", "right"):
        table.tap(reader, unused.pop())
    readers = {column: reader for reader, column in dl.READER_COLUMN.items()}
    for _ in range(400):
        game = table.state
        if not isinstance(game.phase, dl.Drawing) or not unused:
            break
        table.begin()
        card = unused.pop()
        open_columns = [c for c in range(len(dl.COLUMNS)) if not game.closed(c)]
        column = rng.choice(open_columns)
        special = deck[card].special
        table.tap(readers[column], card)
        right = rng.random() < 0.8
        while not isinstance(table.state.phase, dl.Drawing | dl.Finished | dl.Guessing):
            phase = table.state.phase
            if isinstance(phase, dl.Placing):
                before = sum(table.state.penalties) + table.state.team_penalties

                def placed(after: Any, right: bool = right, before: int = before) -> bool:
                    wrong = sum(after.penalties) + after.team_penalties > before
                    return not isinstance(after.phase, dl.Placing) and wrong != right

                if not table.choose(placed):
                    table.choose(lambda after: not isinstance(after.phase, dl.Placing))
            else:  # the question, the judge, the reward, its target: the first line will do
                table.press("ok")
        table.end("special" if special else "placement")


# ----- Dead Set -------------------------------------------------------------------------------


def play_dead_set(table: Table, rng: random.Random) -> None:
    """A game of 3: twist one to four cards (a whim decides), then stick; reveals and bonuses as asked."""
    from box.games.dead_set.state import Phase

    start(table, "dead-set", 3)
    deck = table.session.deck
    pile = list(deck.cards)
    rng.shuffle(pile)
    for _ in range(2000):
        state = table.state
        seat = state.seat
        busy = {card for cards in (*state.owned, *state.taken) for card in cards}
        free = [card for card in pile if card not in busy]
        table.begin()
        if state.phase is Phase.PLAY:
            taken = len(state.taken[seat])
            if free and (taken < 1 or (taken < 4 and rng.random() < 0.6)):
                table.tap("left", free[0])
                table.end("twist")
            else:
                table.press("ok")
                table.end("stick")
        elif state.phase is Phase.REVEAL:
            left = sorted((c for c in state.taken[seat] if c not in state.revealed), key=lambda c: deck[c])
            table.tap("left", left[0])
        elif state.phase is Phase.BONUS and free:
            table.tap("left", free[-1])
        elif state.phase is Phase.BONUS:
            table.press("back")
        else:
            break
        if table.state == state:  # refused: this player does not know the way on
            break


# ----- Dead Fellas ----------------------------------------------------------------------------


def play_dead_fellas(table: Table, rng: random.Random) -> None:
    """Two players: deal; each turn draw (trusted), arm Mooks with the items in hand and whack with
    every armed Mook that has a target (the Mook worth most first, the weakest item ditched), else
    draw a card or now and then recruit; then discard down to the hand limit.

    The Mafia deck's action cards are left out: these players hold items. A player arming one
    Mook with two items or more taps that Mook first (its items then need no picker); a single
    item is tapped and its Mook picked. Now and then a player keeps the items back until they
    arm a Mook in one go (three items and a whack in one turn).
    """
    from box.games.dead_fellas import state as df

    start(table, "dead-fellas", 2)
    deck = table.session.deck
    mooks = [c for c in deck.cards if deck[c].kind == "mook"]
    items = [c for c in deck.cards if deck[c].kind == "item"]
    rng.shuffle(mooks)
    rng.shuffle(items)
    for _ in range(2 * df.DEALT_MOOKS):
        table.tap("left", mooks.pop())
    table.begin()  # the deal is no turn
    hands: list[list[str]] = [[items.pop() for _ in range(3)] for _ in range(2)]
    for _ in range(60):
        game = table.state
        if not isinstance(game.phase, df.Playing) or not items:
            break
        seat, hand = game.turn, hands[game.turn]
        hand.append(items.pop())  # the turn's draw, trusted
        counts: dict[str, int] = {}
        plays = _dead_fellas_plays(game, hand, hoard=rng.random() < 0.5)
        for mook, cards in plays.items():
            if len(cards) > 1 and table.state.phase.mook != mook:
                table.tap("left", mook)  # arm this Mook: its items go on it
            for card in cards:
                table.tap("middle", card)
                hand.remove(card)
                if isinstance(table.state.phase, df.Picking):
                    table.choose(lambda after, c=card, m=mook: after.board.mook(m).item(deck[c].slot) == c)
        counts["items"], table.counted = table.counted, 0
        whacks = _dead_fellas_action(table, rng, hand, items, mooks)
        counts["action"], table.counted = table.counted, 0
        if not isinstance(table.state.phase, df.Over):
            keep = len(table.state.board.mooks[seat])
            if len(hand) > keep and rng.random() < 0.25:  # discards the box is told of (it trusts the rest)
                table.choose(lambda after: isinstance(after.phase, df.Discard))
                while len(hand) > keep:
                    table.tap("middle", hand.pop(0))
                    if isinstance(table.state.phase, df.Picking):  # an action card: "Ann discards it" is the first line
                        table.press("ok")
                table.press("ok")
            else:
                del hand[: max(0, len(hand) - keep)]
                table.choose(lambda after: not isinstance(after.phase, df.EndTurn))
            table.tally["end_of_turn"].append(table.counted)
        counts["end"], table.counted = table.counted, 0
        played = sum(len(cards) for cards in plays.values())
        if played:
            table.tally["item"].append(round(counts["items"] / played, 2))
        if whacks:
            table.tally["attack"].append(round(counts["action"] / whacks, 2))
        if whacks == 1 and played == 3:
            table.tally["three_items_and_a_whack"].append(sum(counts.values()))
        if isinstance(table.state.phase, df.Over):
            break


def _dead_fellas_plays(game: Any, hand: list[str], hoard: bool) -> dict[str, list[str]]:
    """The items a player plays this turn, by Mook: the Mook nearest to armed takes what fills its
    empty slots, the next one the rest (an item whose slot is filled everywhere stays in hand).
    A hoarding player plays only what arms a Mook that has a target this turn."""
    from box.games.dead_fellas import state as df

    deck = game.board.cards
    own = sorted(
        (mook for mook in game.board.mooks[game.turn] if mook.face_up),
        key=lambda mook: (-len(mook.items), -game.board.total(mook)),
    )
    plays: dict[str, list[str]] = {}
    left = list(hand)
    for mook in own:
        for slot in df.SLOTS:
            card = next((card for card in left if deck[card].slot == slot), None)
            if mook.item(slot) is None and card is not None:
                plays.setdefault(mook.card, []).append(card)
                left.remove(card)
        if hoard:  # this Mook only if it is armed for a whack this turn; else the next one, or nothing
            mine = plays.pop(mook.card, [])
            ready = mook
            for card in mine:
                ready = ready.with_item(deck[card].slot, card)
            rivals = [rival for seat, row in enumerate(game.board.mooks) if seat != game.turn for rival in row]
            if ready.armed and any(r.face_up and game.board.total(r) <= game.board.total(ready) for r in rivals):
                return {mook.card: mine} if mine else {}
            left = list(hand)
    return plays


def _dead_fellas_action(table: Table, rng: random.Random, hand: list[str], items: list[str], mooks: list[str]) -> int:
    """The turn's action: Whack with every armed Mook that has a target (answers how many whacks),
    else Recruit now and then, else Draw a card."""
    from box.games.dead_fellas import state as df

    seat = table.state.turn
    if not df.attackers(table.state, ()):
        if rng.random() < 0.2 and table.state.board.mooks_left() and mooks:
            table.choose(lambda after: isinstance(after.phase, df.Recruit))
            table.tap("left", mooks.pop())
        else:
            table.choose(lambda after: isinstance(after.phase, df.EndTurn))
            if items:
                hand.append(items.pop())  # the drawn card, trusted
        return 0
    whacked = len(table.state.board.piles[seat])
    table.choose(lambda after: len(after.board.piles[seat]) > whacked or isinstance(after.phase, df.Attack | df.Target))
    while isinstance(table.state.phase, df.Attack | df.Target | df.Evidence):
        now = table.state
        if isinstance(now.phase, df.Attack):  # the first armed Mook: its target picker, or its one target whacked
            first = df.attackers(now, now.phase.done)[0].card
            chosen = table.choose(
                lambda after, first=first: first in (*getattr(after.phase, "done", ()), getattr(after.phase, "attacker", None))
            )
        elif isinstance(now.phase, df.Target):
            attacker = now.board.mook(now.phase.attacker)
            best = max(now.board.hits(mook.card) for _, mook in df.targets(now, attacker))
            gain = now.board.score(seat) + best
            chosen = table.choose(lambda after, gain=gain: after.board.score(seat) == gain)
        else:
            attacker = now.board.mook(now.phase.attacker)
            weakest = min(
                (slot for slot in df.SLOTS if attacker.item(slot)),
                key=lambda slot: now.board.item_hits(attacker.item(slot) or ""),
            )
            chosen = table.choose(lambda after, a=attacker.card, w=weakest: after.board.mook(a).item(w) is None)
        if not chosen:
            raise RuntimeError(f"the Dead Fellas player found no way on from {type(now.phase).__name__}")
    return len(table.state.board.piles[seat]) - whacked


# ----- Deck of Death --------------------------------------------------------------------------


def play_deck_of_death(table: Table, rng: random.Random) -> None:
    """Three players, 30 turns: roll, meet the challenge, now and then place a card from the hand
    (on an empty space, or over the card on the space once its challenge is done)."""
    from box.games.deck_of_death.state import Phase

    start(table, "deck-of-death", 3)
    deck = table.session.deck
    coloured = [card for card in deck.cards if deck[card].color != "white"]
    rng.shuffle(coloured)
    player = table.session.dump()["current_player"]
    played = False
    last = Phase.DRAW
    table.begin()
    for _ in range(600):
        state = table.state
        dump = table.session.dump()
        # a turn begins on a draw screen: another player's, or the same player's again (Hijack)
        if dump["current_player"] != player or (state.phase is Phase.DRAW and last is not Phase.DRAW):
            table.end("turn_with_card" if played else "turn")
            player, played = dump["current_player"], False
            if len(table.tally["turn"]) + len(table.tally["turn_with_card"]) >= 30:
                break
        phase = last = state.phase
        before = dump
        if phase in (Phase.DRAW, Phase.ROLL):  # ROLL on the draw screen: drawn, and rolling
            table.press("roll")
        elif phase is Phase.CHALLENGE:  # done (now and then taking the space over with a card), or failed
            whim = rng.random()
            if whim < 0.2 and coloured:
                table.tap("middle", coloured.pop())
                played = True
            else:
                table.press("ok" if whim < 0.7 else "back")
        elif phase is Phase.CARD and coloured and rng.random() < 0.35:
            table.tap("middle", coloured.pop())
            played = True
        elif phase in (Phase.DUEL_STYLE, Phase.DUEL_WINNER, Phase.FORCE, Phase.REFLECTED):
            table.press("ok")
        elif phase is Phase.DUEL_ROLL:
            table.press("roll")
        elif phase is Phase.OVER:
            break
        else:  # the card phase, nothing placed: OK
            table.press("ok")
        if table.session.dump() == before and table.state == state:
            table.press("back")


PLAYERS = {
    "deadlines": play_deadlines,
    "dead-set": play_dead_set,
    "dead-fellas": play_dead_fellas,
    "deck-of-death": play_deck_of_death,
}
KINDS = {
    "deadlines": ("placement", "special"),
    "dead-set": ("twist", "stick"),
    "dead-fellas": ("item", "attack", "end_of_turn", "three_items_and_a_whack"),
    "deck-of-death": ("turn", "turn_with_card"),
}


def measure(games: int) -> dict[str, dict[str, dict[str, float | None]]]:
    figures: dict[str, dict[str, dict[str, float | None]]] = {}
    for title, play in PLAYERS.items():
        tally: dict[str, list[float]] = defaultdict(list)
        for seed in range(games):
            with tempfile.TemporaryDirectory() as folder:
                table = Table(Path(folder) / "state", seed)
                try:
                    play(table, random.Random(seed))
                finally:
                    table.close()
                for kind, counts in table.tally.items():
                    tally[kind].extend(counts)
        figures[title] = {}
        for kind in KINDS[title]:
            counts = tally.get(kind, [])
            entry: dict[str, float | None] = {
                "mean": round(sum(counts) / len(counts), 2) if counts else None,
                "worst": max(counts) if counts else None,
                "turns": len(counts),
            }
            if kind in TARGETS[title]:
                entry["target"] = TARGETS[title][kind]
            figures[title][kind] = entry
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10, help="reference games of each title (seeds 0..N-1)")
    args = parser.parse_args()
    print(json.dumps(measure(args.games)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
