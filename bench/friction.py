"""Friction: how many inputs (button presses and card taps) each kind of turn takes at the table.

Reference games of each title are played through the simulator (mock pins, simulated PN532s,
virtual time) by seeded players who do what a party does: draw a card and place it, twist or
stick, arm a Mook and whack, roll and play a card. Where a screen asks a choice, the player
takes the shortest way to the line it wants (UP or DOWN to it, then OK), found by trying the
moves on the game's pure rules first. Every input that reaches the box is counted against the
turn it belongs to, so the figures are what the box asks, measured.

Prints one JSON object, each kind of turn with its mean, worst and the issue's target:

    {"deadlines": {"placement": {"mean": m, "worst": w, "target": 4}, "special": ...},
     "dead-set": {"twist": ..., "stick": ...}, "dead-fellas": {"item": ..., "attack": ...},
     "deck-of-death": {"turn": ..., "turn_with_card": ...}}

Run: `python bench/friction.py [--games N]` (docs/performance.md records the figures).
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

# Inputs a turn may take (issue 15). Dead Fellas "three items and a whack" is `item` x 3 + `attack`.
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
        self.world.parts.close()
        self.world.box.journal.close()


def start(table: Table, game: str, players: int, **options: str) -> None:
    table.world.box.start_game(game, table.world.now, players=players, options=options)
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
    """Two players: deal, then each turn arm the player's Mooks with up to three items and whack."""
    start(table, "dead-fellas", 2)
    deck = table.session.deck
    mooks = [c for c in deck.cards if deck[c].kind == "mook"]
    items = [c for c in deck.cards if deck[c].kind == "item"]
    rng.shuffle(mooks)
    rng.shuffle(items)
    for _ in range(6):
        table.tap("left", mooks.pop())
    for _ in range(30):
        dump = table.session.dump()
        if dump["over"] or dump["phase"] != "playing":
            break
        player = dump["current_player"]
        table.begin()
        armed = 0
        for _ in range(3):
            if not items:
                break
            before = table.session.dump()
            table.tap("middle", items.pop())
            if table.session.dump()["phase"] == "picking":
                mine = before["mooks"][player]
                table.choose(lambda after, mine=mine: table.session.rules.dump(after)["phase"] != "picking")
            if table.session.dump() != before:
                armed += 1
        items_inputs = table.counted
        table.begin()
        phase = table.session.dump()["phase"]
        whacked = False
        if phase == "playing" and table.choose(lambda after: table.session.rules.dump(after)["phase"] == "attack"):
            while table.session.dump()["phase"] in ("attack", "target", "evidence"):
                now = table.session.dump()["phase"]
                before = table.session.dump()
                if now == "attack" and whacked:
                    table.choose(lambda after: table.session.rules.dump(after)["phase"] != "attack")
                elif now == "target":
                    table.press("ok")
                    whacked = whacked or table.session.dump()["score"] != before["score"]
                else:
                    table.press("ok")
                if table.session.dump() == before:
                    table.press("back")
                    break
        attack_inputs = table.counted
        if whacked:
            table.tally["attack"].append(attack_inputs)
            if armed == 3:
                table.tally["three_items_and_a_whack"].append(items_inputs + attack_inputs)
        if armed:
            table.tally["item"].append(round(items_inputs / armed, 2))
        if table.session.dump()["phase"] == "playing":  # no whack: draw a card
            table.choose(lambda after: table.session.rules.dump(after)["phase"] != "playing")
        while table.session.dump()["phase"] in ("endturn", "recruit", "reading", "chain"):
            before = table.session.dump()
            table.press("ok")
            if table.session.dump() == before:
                table.press("back")
                if table.session.dump() == before:
                    return


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
    table.begin()
    for _ in range(600):
        state = table.state
        dump = table.session.dump()
        if dump["current_player"] != player:
            table.end("turn_with_card" if played else "turn")
            player, played = dump["current_player"], False
            if len(table.tally["turn"]) + len(table.tally["turn_with_card"]) >= 30:
                break
        phase = state.phase
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
    "dead-fellas": ("item", "attack", "three_items_and_a_whack"),
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
    parser.add_argument("--games", type=int, default=3, help="reference games of each title (seeds 0..N-1)")
    args = parser.parse_args()
    print(json.dumps(measure(args.games)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
