"""The phone page in a real browser (Playwright driving Debian's chromium, headless) beside a simulated box.

The box is the simulator's (`SimulatedBox`: real driver, real journal, virtual time), with its
control socket; the page is `gravebox web`'s app on a thread. A scripted game is played while
the page shows each step live; a phone pairs with the code the OLED shows, enrols a card with
a simulated tap, downloads the tag map and restores it.

Screenshots go to `$GRAVEBOX_SCREENSHOTS` when it is set (`GRAVEBOX_SCREENSHOTS=docs/web`
refreshes the ones docs/web.md shows), else to the test's own temporary folder.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from box.sim.script import ScriptRunner, parse_script
from box.sim.world import SimulatedBox
from box.storage.tags import TAGS_FILE, TagMap

playwright = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (the test extra)")

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
SCENARIOS = Path(__file__).parent / "scenarios"
PHONE = {"width": 390, "height": 844}
LIVE_MS = 2000  # generous on a loaded machine; the 200 ms figure is bench/web_cost.py's

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="no /usr/bin/chromium: ./run-tests installs it (apt-get install chromium) as root"
)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with playwright.sync_playwright() as driver:
        chromium = driver.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=FLAGS)
        yield chromium
        chromium.close()


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("GRAVEBOX_SCREENSHOTS") or tmp_path / "shots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


class Live:
    """A simulated box and its page, put together as `gravebox sim --web` does (box/web/thread.py)."""

    def __init__(self, root: Path, shots: Path, decks: Path | None = None):
        from box.web.thread import Beside

        self.state_dir, self.shots = root / "state", shots
        self.beside = Beside("127.0.0.1", 0)
        control = self.beside.start(self.state_dir, decks)
        self.world = SimulatedBox(
            state_dir=self.state_dir, decks_dir=decks, seed=1, names=("Ann", "Bob"), control=control
        )
        self.url = self.beside.url

    def pump(self, seconds: float = 0.05) -> None:
        """Let the box take what the page sent (its commands wait in the loop's inbox)."""
        self.world.advance(seconds)

    def oled(self) -> list[str]:
        view = self.world.box.screen(self.world.now)
        return [view.title, *view.lines, view.notice]

    def close(self) -> None:
        self.beside.stop()
        self.world.close()


@pytest.fixture
def live(tmp_path: Path, shots: Path) -> Iterator[Live]:
    rig = Live(tmp_path, shots, SCENARIOS / "dead-set" / "decks")
    yield rig
    rig.close()


def new_page(browser: Any) -> Any:
    context = browser.new_context(viewport=PHONE, accept_downloads=True)
    context.set_default_timeout(LIVE_MS * 3)
    return context.new_page()


def pair(page: Any, live: Live) -> None:
    live.world.press("back", seconds=1.2)  # on the box: hold BACK for its menu, then *Pair a phone*
    live.world.press("down")
    live.world.press("ok")
    assert live.world.dump()["pairing"] == "asked"
    for _ in range(200):  # the page hears it over the box's socket
        live.pump()
        if page.request.get(live.url + "api/state").json().get("pairing") == "asked":
            break
    page.goto(live.url + "pair")
    page.click("#ask")
    live.pump()
    live.world.parts.display.image.convert("RGB").resize((512, 256)).save(live.shots / "oled-code.png")
    code = next(line for line in live.oled() if line.replace(" ", "").isdigit()).replace(" ", "")
    page.fill("#code", code)
    page.click("#send")
    playwright.expect(page.locator("nav .pair")).to_have_text("Paired")


def test_a_scripted_game_shows_live_step_by_step(browser: Any, live: Live, shots: Path) -> None:
    page = new_page(browser)
    page.goto(live.url)
    playwright.expect(page.locator("#now h1")).to_have_text("No game in play")
    script = (SCENARIOS / "dead-set" / "win-mid-scoring.script").read_text()
    runner = ScriptRunner(live.world, "win-mid-scoring")
    shown = 0
    for command in parse_script(script, "win-mid-scoring"):
        if command.verb == "expect":
            continue
        if command.verb == "hold":  # the undo menu: the rest replays the end, seen already
            break
        runner.step(command)
        state = live.world.dump()
        for name in state["players"]:
            row = page.locator("#now .players li", has_text=name)
            playwright.expect(row.locator(".figure")).to_contain_text(
                f"{state['celebrities'][name]} celebrit", timeout=LIVE_MS
            )
            turn = row.locator(".turn-tag")
            playwright.expect(turn).to_have_count(1 if state["current_player"] == name else 0, timeout=LIVE_MS)
        shown += 1
    assert live.world.dump()["winners"] == ["Bob"]
    playwright.expect(page.locator("#now .winner")).to_have_text("Winner: Bob", timeout=LIVE_MS)
    assert shown > 15
    page.screenshot(path=shots / "now.png")
    page.goto(live.url + "history")
    playwright.expect(page.locator("article.game")).to_have_count(1)
    page.screenshot(path=shots / "history.png")
    page.goto(live.url + "box")
    playwright.expect(page.locator("main")).to_contain_text("Running")
    page.screenshot(path=shots / "box.png")


def test_pairing_enrolment_and_a_restored_backup(browser: Any, live: Live, shots: Path, tmp_path: Path) -> None:
    page = new_page(browser)
    page.goto(live.url + "roster")
    playwright.expect(page.locator("textarea")).to_be_disabled()
    page.goto(live.url + "pair")
    page.screenshot(path=shots / "pair.png")
    pair(page, live)

    # The roster, saved from the phone.
    page.goto(live.url + "roster")
    page.fill("textarea", "Ann\nBob\nCid")
    page.click("button[type=submit]")
    playwright.expect(page.locator(".message")).to_contain_text("Saved")
    page.screenshot(path=shots / "roster.png")

    # Enrol one card from the phone: the box waits for a tag; a fresh tag is laid on a reader.
    page.goto(live.url + "cards?deck=dead-set")
    page.click("#deck-dead-set button[aria-label='Enrol Tess Ten']")
    playwright.expect(page.locator(".message")).to_contain_text("Tap the tag for")
    live.pump()
    assert live.world.dump()["screen"] == "enrol"
    playwright.expect(page.locator("#enrolling")).to_be_visible(timeout=LIVE_MS)
    tag = bytes.fromhex("04c0ffee000001")
    live.world.put("middle", tag)
    live.world.lift("middle")
    saved = TagMap.load(live.state_dir / TAGS_FILE)
    assert saved.lookup(tag) is not None and saved.lookup(tag)[0] == "dead-set"
    playwright.expect(page.locator("#last-middle")).to_have_text(tag.hex(), timeout=LIVE_MS)
    playwright.expect(page.locator("#deck-dead-set")).to_contain_text(tag.hex())
    page.screenshot(path=shots / "cards.png")

    # Back the tag map up, lose it, restore it.
    with page.expect_download() as download:
        page.click("text=Download the tag map")
    backup = tmp_path / "backup.csv"
    download.value.save_as(backup)
    assert tag.hex() in backup.read_text()
    (live.state_dir / TAGS_FILE).write_text("uid,game,card\n")
    page.set_input_files("form[action='/cards/restore'] input[type=file]", str(backup))
    page.click("form[action='/cards/restore'] button")
    playwright.expect(page.locator(".message")).to_contain_text("Restored")
    assert (live.state_dir / TAGS_FILE).read_bytes() == backup.read_bytes()
    live.pump()
    assert live.world.box.tags.lookup(tag) == saved.lookup(tag)  # the box read the restored map


def test_the_page_says_when_the_box_is_not_running(browser: Any, tmp_path: Path, shots: Path) -> None:
    from box.web.app import WebSettings
    from box.web.thread import PageThread

    state = tmp_path / "state"
    shutil.copytree(SCENARIOS / "dead-set" / "decks", tmp_path / "decks")
    server = PageThread(WebSettings(state, tmp_path / "nobody.sock"), "127.0.0.1", 0)
    server.start()
    try:
        page = new_page(browser)
        page.goto(server.url)
        playwright.expect(page.locator("#box-off")).to_contain_text("The box is not running")
        page.goto(server.url + "history")
        playwright.expect(page.locator("main")).to_contain_text("Every finished game will be listed here")
    finally:
        server.stop()


def pump_until(live: Live, done: Any, tries: int = 400) -> None:
    """Let the box take what the page sent until `done()` (the page waits for the box's verdict)."""
    for _ in range(tries):
        live.pump()
        if done():
            return
    raise AssertionError("the box never did what the page asked")


def test_a_paired_phone_starts_undoes_and_abandons_and_sees_the_board(browser: Any, live: Live, shots: Path) -> None:
    from box.storage.roster import ROSTER_FILE, Roster, save_roster

    save_roster(Roster.checked(["Ann", "Bob", "Cid"], {}), live.state_dir / ROSTER_FILE)
    page = new_page(browser)
    pair(page, live)
    live.pump()

    # Start Deck of Death from the phone: three seats from the roster, in order.
    page.goto(live.url + "start")
    page.click("a.button[href='/start/deck-of-death']")
    playwright.expect(page.locator("select[name=seat2]")).to_have_value("Cid")
    page.screenshot(path=shots / "start.png")
    page.click("#start button[type=submit]")
    pump_until(live, lambda: live.world.dump()["game"] == "deck-of-death")
    assert live.world.dump()["players"] == ["Ann", "Bob", "Cid"]
    page.goto(live.url)
    playwright.expect(page.locator("#now svg.board")).to_be_visible(timeout=LIVE_MS)
    playwright.expect(page.locator("#now svg.board .token")).to_have_count(3)

    # A roll on the box; the phone offers to undo it, asks, and the box takes it back.
    live.world.press("roll")
    pump_until(live, lambda: live.world.dump()["current_player"] != "Ann" or live.world.dump()["actions"] > 0)
    label = live.world.box.session.last_action()
    assert label
    playwright.expect(page.locator("#controls #undo")).to_have_text(f"Undo: {label}", timeout=LIVE_MS)
    page.screenshot(path=shots / "now-board.png")
    page.click("#controls #undo")
    playwright.expect(page.locator("#undo-label")).to_have_text(label)
    page.screenshot(path=shots / "undo.png")
    actions = live.world.dump()["actions"]
    page.click("#confirm")
    pump_until(live, lambda: live.world.dump()["actions"] < actions)

    # Abandon, after the phone asks.
    page.goto(live.url + "abandon")
    page.click("#confirm")
    pump_until(live, lambda: live.world.dump()["game"] is None)
    playwright.expect(page.locator("#now h1")).to_have_text("No game in play", timeout=LIVE_MS)
    playwright.expect(page.locator("#controls #start")).to_be_visible(timeout=LIVE_MS)


def test_a_paired_phone_merges_two_players_after_asking(browser: Any, live: Live, shots: Path) -> None:
    from box.storage.roster import ROSTER_FILE, Roster, load_roster, save_roster

    save_roster(Roster.checked(["Bo", "Bob", "Cid"], {}), live.state_dir / ROSTER_FILE)
    page = new_page(browser)
    pair(page, live)
    live.pump()
    page.goto(live.url + "roster")
    page.select_option("#merge select[name=player]", label="Bo")
    page.select_option("#merge select[name=into]", label="Bob")
    page.click("#merge-ask")
    playwright.expect(page.locator("#merge-confirm h2")).to_have_text("Merge Bo into Bob?")
    page.screenshot(path=shots / "roster-merge.png")
    page.click("#confirm")
    pump_until(live, lambda: live.world.box.settings.roster.names == ("Bob", "Cid"))
    assert live.world.dump()["notice"] == "Bo merged into Bob"
    assert load_roster(live.state_dir / ROSTER_FILE).people[0].former == ("Bo",)
