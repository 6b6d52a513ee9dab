"""A paired phone ends a Deck of Death session in a real browser: the control, its question, the box's end."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests import test_web_browser
from tests.test_web_browser import LIVE_MS, Live, new_page, pair, playwright, pump_until

browser, shots, live = test_web_browser.browser, test_web_browser.shots, test_web_browser.live  # the fixtures
pytestmark = test_web_browser.pytestmark


def test_a_paired_phone_ends_the_session_after_asking(browser: Any, live: Live, shots: Path) -> None:
    from box.storage.roster import ROSTER_FILE, Roster, save_roster

    save_roster(Roster.checked(["Ann", "Bob"], {}), live.state_dir / ROSTER_FILE)  # the start form seats them
    page = new_page(browser)
    pair(page, live)
    page.goto(live.url + "start")
    page.click("a.button[href='/start/deck-of-death']")
    page.click("#start button[type=submit]")
    pump_until(live, lambda: live.world.dump()["game"] == "deck-of-death")
    page.goto(live.url)
    playwright.expect(page.locator("#controls #end")).to_be_visible(timeout=LIVE_MS)
    page.click("#controls #end")
    playwright.expect(page.locator("h1")).to_have_text("End the session?")
    page.screenshot(path=shots / "end.png")
    page.click("#confirm")
    pump_until(live, lambda: live.world.dump()["over"])
    assert live.oled()[0] == "Enough chaos!", "the box shows the end as if pressed there"
    playwright.expect(page.locator("#controls #end")).to_have_count(0, timeout=LIVE_MS)
