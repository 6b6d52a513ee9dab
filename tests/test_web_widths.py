"""Every page at a phone's width (320, 390 and 412 px) in a real browser (Playwright driving Debian's
chromium, headless): nothing wider than the screen, so no page scrolls sideways.

The box is tests/simulated_page.py's: the simulator's, a game of Dead Set in play, a season of
finished games of each of the four games as its history. Screenshots at 390 px go to
`$GRAVEBOX_SCREENSHOTS` when it is set, else to the test's own temporary folder.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.simulated_page import CHROMIUM, PAGES, box_with_a_season

playwright = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (the test extra)")

FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
WIDTHS = (320, 390, 412)

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="no /usr/bin/chromium: ./run-tests installs it (apt-get install chromium) as root"
)


@pytest.fixture
def box_url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    with box_with_a_season(tmp_path, monkeypatch) as url:
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
