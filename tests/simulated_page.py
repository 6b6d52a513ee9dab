"""A simulated box for the page's browser tests (tests/test_web_widths.py, tests/test_web_lighthouse.py):
the simulator's box with its control socket and page, a game of Dead Set in play, and a season of
finished games of each of the four games as its history."""

from __future__ import annotations

import contextlib
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from box.games import GAMES, rules_for
from box.sim.script import ScriptRunner, parse_script
from box.sim.world import SimulatedBox
from box.storage.roster import ROSTER_FILE, Roster, save_roster
from box.web.journal_view import JournalView
from box.web.summaries import GameSummary

CHROMIUM = Path("/usr/bin/chromium")
PEOPLE = ("Ann", "Bob", "Cid", "Dee")
PAGES = ("/", "/history", "/players/Ann", "/stats", "/roster", "/cards", "/box", "/pair", "/start")
SCRIPT = Path(__file__).parent / "scenarios" / "dead-set" / "win-mid-scoring.script"


def season() -> list[GameSummary]:
    """Three finished games of each kind, with every figure its game declares, newest first."""
    draw = random.Random(3)
    games: list[GameSummary] = []
    for night in range(3):
        for hour, name in enumerate(GAMES):
            rules = rules_for(name)
            players = tuple(draw.sample(PEOPLE, draw.randint(3, 4)))
            figures = {p: {f.key: draw.randint(0, 12) for f in rules.figures} for p in players}
            started = f"2026-11-{3 + night:02d} {19 + hour}:00"
            games.append(
                GameSummary(
                    len(games) + 1,
                    name,
                    players,
                    {},
                    True,
                    started,
                    40,
                    True,
                    (draw.choice(players),),
                    figures,
                    rules.figures,
                )
            )
    return games[::-1]


@contextlib.contextmanager
def simulated_box(root: Path, host: str = "127.0.0.1") -> Iterator[str]:
    """A simulated box (a game of Dead Set in play) and its page at `host`: the page's address."""
    from box.web.thread import Beside

    state_dir = root / "state"
    state_dir.mkdir()
    save_roster(Roster(PEOPLE), state_dir / ROSTER_FILE)
    beside = Beside(host, 0)
    control = beside.start(state_dir, SCRIPT.parent / "decks")
    world = SimulatedBox(
        state_dir=state_dir, decks_dir=SCRIPT.parent / "decks", seed=1, names=PEOPLE[:2], control=control
    )
    runner = ScriptRunner(world, SCRIPT.stem)
    for command in [c for c in parse_script(SCRIPT.read_text(), SCRIPT.stem) if c.verb != "expect"][:8]:
        runner.step(command)  # a game in play, some cards down
    try:
        yield beside.url
    finally:
        world.close()
        beside.stop()


@contextlib.contextmanager
def box_with_a_season(root: Path, monkeypatch: pytest.MonkeyPatch, host: str = "127.0.0.1") -> Iterator[str]:
    """`simulated_box` with a `season()` of history (and a best chug of 6.85 s): the page's address."""
    games = season()
    monkeypatch.setattr(JournalView, "history", lambda self: (games, {"best_chug": 6.85}))
    with simulated_box(root, host) as url:
        yield url
