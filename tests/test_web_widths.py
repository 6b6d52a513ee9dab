"""Every page at a phone's width (320, 390 and 412 px) in a real browser (Playwright driving Debian's
chromium, headless): nothing wider than the screen, so no page scrolls sideways.

The box is the simulator's (`SimulatedBox` with its control socket, a game of Dead Set in play);
its history is a season of finished games of each of the four games, as the stats browser test has
it. Screenshots at 390 px go to `$GRAVEBOX_SCREENSHOTS` when it is set, else to the test's own
temporary folder.
"""

from __future__ import annotations

import contextlib
import os
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from box.games import GAMES, rules_for
from box.sim.script import ScriptRunner, parse_script
from box.sim.world import SimulatedBox
from box.storage.roster import ROSTER_FILE, Roster, save_roster
from box.web.journal_view import JournalView
from box.web.summaries import GameSummary

playwright = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (the test extra)")

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
WIDTHS = (320, 390, 412)
PEOPLE = ("Ann", "Bob", "Cid", "Dee")
PAGES = ("/", "/history", "/players/Ann", "/stats", "/roster", "/cards", "/box", "/pair", "/start")
SCRIPT = Path(__file__).parent / "scenarios" / "dead-set" / "win-mid-scoring.script"

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="no /usr/bin/chromium: ./run-tests installs it (apt-get install chromium) as root"
)


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
    """A simulated box (a game of Dead Set in play, its history `season()`) and its page at `host`:
    the page's address. Call it where JournalView.history is patched to the season."""
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


@pytest.fixture
def box_url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    games = season()
    monkeypatch.setattr(JournalView, "history", lambda self: (games, {"best_chug": 6.85}))
    with simulated_box(tmp_path) as url:
        yield url


def test_no_page_is_wider_than_a_phone(box_url: str, tmp_path: Path) -> None:
    shots = Path(os.environ.get("GRAVEBOX_SCREENSHOTS") or tmp_path / "shots")
    shots.mkdir(parents=True, exist_ok=True)
    wide: list[str] = []
    with playwright.sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=FLAGS)
        try:
            for width in WIDTHS:
                page: Any = browser.new_context(viewport={"width": width, "height": 844}).new_page()
                for path in PAGES:
                    page.goto(box_url.rstrip("/") + path)
                    page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
                    scrolled = page.evaluate("document.documentElement.scrollWidth")
                    if scrolled > width:
                        wide.append(f"{path} at {width} px: {scrolled} px wide")
                    if width == 390:
                        name = path.strip("/").replace("/", "-") or "now"
                        page.screenshot(path=shots / f"width-{name}.png", full_page=True)
                page.context.close()
        finally:
            browser.close()
    assert not wide, wide
