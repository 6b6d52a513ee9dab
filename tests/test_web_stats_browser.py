"""The Stats page in a real browser at a phone's size (Playwright driving Debian's chromium, headless),
over a season of the four games: its charts are SVG drawn by the box, with no script and nothing
fetched from anywhere but the box.

The screenshot goes to `$GRAVEBOX_SCREENSHOTS` when it is set (`GRAVEBOX_SCREENSHOTS=docs/web`
refreshes docs/web/stats.png), else to the test's own temporary folder.
"""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from box.games import GAMES, rules_for
from box.web.journal_view import JournalView
from box.web.summaries import GameSummary

playwright = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (the test extra)")

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"]
PHONE = {"width": 390, "height": 844}
PEOPLE = ("Ann", "Bob", "Cid", "Dee")

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="no /usr/bin/chromium: ./run-tests installs it (apt-get install chromium) as root"
)


def season(nights: int = 8) -> list[GameSummary]:
    """A few games of each kind on each of `nights` evenings, newest first as the history gives them."""
    draw = random.Random(7)
    games: list[GameSummary] = []
    for night in range(nights):
        for hour in range(draw.randint(2, 5)):
            name = draw.choice(list(GAMES))
            rules = rules_for(name)
            players = tuple(draw.sample(PEOPLE, draw.randint(2, 4)))
            figures = {p: {f.key: draw.randint(0, 6) for f in rules.figures} for p in players}
            started = f"2026-11-{3 + 3 * night:02d} {19 + hour}:00"
            summary = GameSummary(
                len(games) + 1, name, players, {}, True, started, 40, True, (draw.choice(players),), figures, rules.figures
            )
            games.append(summary)
    return games[::-1]


@pytest.fixture
def page_url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    from box.web.app import WebSettings
    from box.web.thread import PageThread

    games = season()
    monkeypatch.setattr(JournalView, "history", lambda self: (games, {"best_chug": 2.87}))
    server = PageThread(WebSettings(tmp_path / "state", tmp_path / "nobody.sock"), "127.0.0.1", 0)
    server.start()
    try:
        yield server.url
    finally:
        server.stop()


def test_the_stats_page_on_a_phone(page_url: str, tmp_path: Path) -> None:
    shots = Path(os.environ.get("GRAVEBOX_SCREENSHOTS") or tmp_path / "shots")
    shots.mkdir(parents=True, exist_ok=True)
    with playwright.sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=FLAGS)
        try:
            page = browser.new_context(viewport=PHONE, java_script_enabled=False).new_page()
            asked: list[str] = []
            page.on("request", lambda request: asked.append(request.url))
            page.goto(page_url + "stats")
            playwright.expect(page.locator("nav a[aria-current=page]")).to_have_text("Stats")
            playwright.expect(page.locator("section.wins")).to_have_count(len(PEOPLE))
            playwright.expect(page.locator("section.wins").first.locator("svg g.night")).to_have_count(8)
            playwright.expect(page.locator("section.records")).to_have_count(len(GAMES))
            playwright.expect(page.locator("table.head-to-head tr")).to_have_count(1 + 6)  # a heading, then 4 choose 2
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= PHONE["width"], "nothing wider than the phone"
            assert all(url.startswith(page_url) for url in asked), asked  # no internet needed
            page.screenshot(path=shots / "stats.png", full_page=True)
        finally:
            browser.close()
