"""Soak: hours of drunken button mashing on virtual time, with unplugs and power cuts.

A seeded `RandomPlayer` looks at the simulated box and picks the next step as
lines of the script language (docs/sim.md): presses, holds, taps of known,
unknown and repeated cards, cards left lying, rolls, undo, abandoned games,
unplugged readers, line garbage and power cuts. `soak()` plays them through the
script runner and checks after every step that nothing broke (see `check`).

Run from the repository root: ``python bench/soak.py [--steps 100000] [--seed 7]``
(prints JSON per game). tests/test_soak.py runs a shorter fixed-seed soak.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import json
import random
import resource
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from box.base.session import full_replay
from box.games import GAMES
from box.games.base import READERS, Rejected, Tap
from box.sim.script import ScriptRunner, parse_script
from box.sim.world import SimulatedBox

TRANSIENT_KEYS = ("notice", "screen", "timer", "readers_offline")
"""Dump keys a power cut may change: on-screen state that is never journaled (docs/reliability.md)."""

PLAYERS = {"deadlines": 3, "dead-set": 3, "dead-fellas": 3, "deck-of-death": 4}


def game_check(game: str) -> Callable[[Any], Any] | None:
    """The game's own invariant check, `check` in `box/games/<game>/invariants.py` (None if it has none)."""
    try:
        return importlib.import_module(f"{GAMES[game]}.invariants").check
    except ModuleNotFoundError:
        return None


def stable(dump: dict[str, Any]) -> dict[str, Any]:
    """The dump without its transient keys, plus the journaled best chug."""
    kept = {key: value for key, value in dump.items() if key not in TRANSIENT_KEYS}
    kept["best_chug"] = dump["timer"]["best_chug"]
    return kept


def quiescent(world: SimulatedBox) -> bool:
    """Nothing a power cut would drop: no overlay, open dice, flashed screen, running timer, lying card,
    or a menu moved away from its first screen (menus are not journaled: a box boots into its menu)."""
    box = world.box
    open_dice = box.dice_tray.free_open()
    lying = any(world.chips.chip(reader).card is not None for reader in world.pinmap.readers)
    if box.session is None and (box.root.menu.page, box.root.menu.cursor) != ("main", 0):
        return False
    flash = getattr(box, "flash", None) is not None and world.now < getattr(box, "flash_until", 0.0)
    running = box.timer.timer.state in ("countdown", "stopwatch")
    return box.overlay is None and not open_dice and not running and not lying and not flash


@dataclass
class RandomPlayer:
    """Picks steps for one game from the box's state.

    `faults` adds unplugs, garbage and power cuts. `tidy` ends every step with
    nothing on screen or on a reader that a power cut would drop: a free roll's
    dice are closed, a card laid down is lifted in the same step.
    """

    game: str
    rng: random.Random
    faults: bool = True
    tidy: bool = False
    lying: dict[str, str] = field(default_factory=dict)  # reader -> card left on it
    unplugged: set[str] = field(default_factory=set)
    last_card: str | None = None
    abandon_every: int = 400  # steps, on average, before a table gives a game up
    chosen: Counter[str] = field(default_factory=Counter)  # moves by kind

    def step(self, world: SimulatedBox) -> list[str]:
        box, rng = world.box, self.rng
        if box.session is None and box.overlay is None:
            return [f"start {self.game} players={PLAYERS[self.game]}"]
        if box.overlay is not None:
            if box.overlay.name == "box-menu" and rng.random() < 0.3:
                return ["press down", "press ok"]
            return ["press back"] if rng.random() < 0.8 else [f"press {rng.choice(('up', 'down', 'ok'))}"]
        if box.session is not None and box.session.dump().get("over"):
            return ["hold ok 1.2"] if rng.random() < 0.7 else [f"press {rng.choice(('ok', 'back', 'up'))}"]
        if rng.random() < 1 / self.abandon_every:
            return ["hold back 1.2", "press down", "press ok", "press ok"]  # Abandon game, confirmed
        return self.move(world)

    def move(self, world: SimulatedBox) -> list[str]:
        rng = self.rng
        own = list(world.decks[self.game].cards)
        others = [card for game, deck in world.decks.items() if game != self.game for card in deck.cards]
        reader = rng.choice(READERS)
        kinds = Counter(
            ok=14, press=12, card=18, roll=6, long=3, repeat=3, other=2, unknown=2, put=2, lift=3,
            undo=2, timer=1, wait=1, unplug=1 if self.faults else 0, garbage=1 if self.faults else 0,
            restart=2 if self.faults else 0,
        )  # fmt: skip
        kind = rng.choices(list(kinds), weights=list(kinds.values()))[0]
        self.chosen[kind] += 1
        if kind == "ok":
            return ["press ok"]
        if kind == "press":
            return [f"press {rng.choice(('up', 'down', 'back', 'ok'))}"]
        if kind == "long":
            return [f"hold {rng.choice(('up', 'down', 'ok'))} {rng.choice((1.1, 1.5, 2.3))}"]
        if kind == "roll":
            roll = [f"dice {rng.randint(1, 6)} {rng.randint(1, 6)}", "press roll"]
            session = world.box.session
            if self.tidy and (session is None or not session.rules.wants_roll(session.state)):
                roll.append("press back")  # close the free dice
            return roll
        if kind in ("card", "repeat", "other", "unknown"):
            if kind == "card" or (kind == "repeat" and self.last_card is None):
                reader, self.last_card = self.good_tap(world, own)
            card = {
                "card": self.last_card,
                "repeat": self.last_card,
                "other": rng.choice(others),
                "unknown": "uid:" + rng.randbytes(rng.choice((4, 7, 10))).hex(),
            }[kind]
            lines = [f"lift {reader}"] if reader in self.lying else []
            lines.append(f"tap {reader} {card}")
            if self.tidy and kind == "unknown":
                lines.append("wait 3.5")  # the unknown card's screen goes by itself
            return lines
        if kind == "put":
            if reader in self.lying:
                return [f"lift {reader}"]
            card = rng.choice(own)
            lie = [f"put {reader} {card}", f"wait {rng.choice((0.5, 2, 5))}"]
            if self.tidy:
                return [*lie, f"lift {reader}"]
            self.lying[reader] = card
            return lie
        if kind == "lift":
            return [f"lift {reader}"] if self.lying.pop(reader, None) else ["press ok"]
        if kind == "undo":
            return ["hold back 1.2", "press ok", "press ok"]  # "Undo: ...?", yes
        if kind == "timer":
            return ["hold roll 1.2", "press down", "press ok", "wait 1.5", "press ok", "press back"]
        if kind == "wait":
            return [f"wait {rng.choice((1, 3, 10))}"]
        if kind == "unplug":
            if reader in self.unplugged:
                self.unplugged.discard(reader)
                return [f"replug {reader}"]
            self.unplugged.add(reader)
            return [f"unplug {reader}"]
        if kind == "garbage":
            return [f"garbage {reader} {rng.randbytes(rng.randint(1, 40)).hex()}"]
        return ["restart"]

    def good_tap(self, world: SimulatedBox, own: list[str]) -> tuple[str, str]:
        """A tap the game would accept, when a few random tries find one (games move on); else any."""
        session = world.box.session
        cards = self.rng.sample(own, min(len(own), 40))
        tries = [(reader, card) for card in cards for reader in self.rng.sample(READERS, len(READERS))]
        if session is not None:
            for reader, card in tries:
                if not isinstance(session.rules.apply(session.state, Tap(reader, card)), Rejected):
                    return reader, card
        return tries[0]


@dataclass
class SoakReport:
    """What one soak run did and saw."""

    game: str
    steps: int = 0
    commands: Counter[str] = field(default_factory=Counter)
    accepted: int = 0  # actions journaled
    games_started: int = 0
    games_over: int = 0
    power_cuts: int = 0
    power_cuts_compared: int = 0  # restarts at a quiescent moment, state compared before/after
    faults: int = 0  # unplugs, replugs, garbage
    bad_inputs: int = 0  # taps of unknown, other games' and repeated cards, line garbage
    kinds: dict[str, int] = field(default_factory=dict)
    actions_lost: int = 0
    objects: list[int] = field(default_factory=list)  # live objects after gc, at each quarter
    max_rss_kib: int = 0
    virtual_hours: float = 0.0
    seconds: float = 0.0

    def as_json(self) -> dict[str, Any]:
        data = dict(self.__dict__)
        data["commands"] = dict(self.commands)
        return data


def live_objects() -> int:
    """Objects the collector tracks, after a collection (the display devices of earlier boots
    are released: `box.ports.display.without_exit_hook`)."""
    gc.collect()
    return len(gc.get_objects())


FULL_JOURNAL_CHECK_EVERY = 250  # steps between comparing the state with a full replay (the rest: count and last)


def check(world: SimulatedBox, game_checker: Callable[[Any], Any] | None, step: int = 0) -> None:
    """The box's invariants after a step; raises AssertionError."""
    box = world.box
    dump = world.dump()
    assert json.loads(json.dumps(dump)) == dump, "the dump is not JSON"
    view = box.screen(world.now)
    assert len(view.lines) <= 5, view
    if box.session is not None:
        game = box.session.record.id
        session = box.session
        # Every step: the count and the newest action in force agree with the journal (cheap); now
        # and then, the state is the one a full replay of the journal gives (checkpoints included).
        count, last = box.journal.db.execute(
            "SELECT COUNT(*), MAX(seq) FROM actions WHERE game = ? AND undone = 0", (game,)
        ).fetchone()
        assert (count, last) == (session.count, session.last_seq), "session and journal differ"
        assert dump["actions"] == session.count
        if step % FULL_JOURNAL_CHECK_EVERY == 0:
            assert session.state == full_replay(session.rules, session.deck, session.record, box.journal), (
                "replay differs"
            )
        if game_checker is not None:
            game_checker(box.session.state)


def soak(game: str, steps: int, seed: int, state_dir: Path, faults: bool = True, checker: bool = True) -> SoakReport:
    """Play `steps` random steps of `game`; raise AssertionError (with the seed and step) on a broken invariant."""
    rng = random.Random(seed)
    world = SimulatedBox(state_dir=state_dir, seed=seed)
    player = RandomPlayer(game, rng, faults=faults)
    runner = ScriptRunner(world, f"soak:{game}:{seed}")
    game_checker = game_check(game) if checker else None
    report = SoakReport(game)
    started = time.perf_counter()
    quarters = {steps * k // 4 for k in range(1, 5)}
    was_over = False
    try:
        for number in range(1, steps + 1):
            lines = player.step(world)
            before = stable(world.dump()) if lines == ["restart"] and quiescent(world) else None
            try:
                runner.run(parse_script("\n".join(lines), runner.path))
                check(world, game_checker, number)
            except Exception as problem:
                raise AssertionError(f"{game} seed {seed} step {number} {lines}: {problem!r}") from problem
            for line in lines:
                verb = line.split()[0]
                report.commands[verb] += 1
                report.faults += verb in ("unplug", "replug", "garbage")
            if lines == ["restart"]:
                report.power_cuts += 1
                if before is not None:
                    report.power_cuts_compared += 1
                    after = stable(world.dump())
                    if after != before:
                        report.actions_lost += 1
                        raise AssertionError(
                            f"{game} seed {seed} step {number}: a power cut changed {before} to {after}"
                        )
            if lines[0].startswith("start"):
                report.games_started += 1
            over = bool(world.box.session is not None and world.box.session.dump().get("over"))
            report.games_over += over and not was_over
            was_over = over
            if number in quarters:
                report.objects.append(live_objects())
            report.steps = number
        report.kinds = dict(player.chosen)
        report.bad_inputs = sum(player.chosen[kind] for kind in ("other", "unknown", "garbage", "repeat"))
        report.accepted = world.box.journal.db.execute("SELECT COUNT(*) FROM actions").fetchone()[0]
    finally:
        report.virtual_hours = world.now / 3600
        report.seconds = time.perf_counter() - started
        report.max_rss_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        world.parts.close()
        world.box.journal.close()
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100_000, help="steps per game")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--game", choices=list(GAMES), action="append", help="only these games")
    args = parser.parse_args()
    results = []
    for game in args.game or list(GAMES):
        with tempfile.TemporaryDirectory(prefix="gravebox-soak-") as scratch:
            report = soak(game, args.steps, args.seed, Path(scratch))
        results.append(report.as_json())
        print(json.dumps(report.as_json()), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
