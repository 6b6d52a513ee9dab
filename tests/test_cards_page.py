"""The Cards page and the box agree: the count and the cards an enrolment shows on the OLED are the
page's, and a card played normally on any reader is named in "Last tag seen", not "unknown tag"."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from box.cli.enroll import command
from box.links.control import ControlServer
from box.sim.world import SimulatedBox
from box.storage.tags import TAGS_FILE, TagMap
from box.web.app import WebSettings, create_app
from tests.support import until_published

DECKS = Path(__file__).parent / "scenarios" / "dead-set" / "decks"


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[tuple[SimulatedBox, TestClient]]:
    control = ControlServer(tmp_path / "run" / "control.sock", lambda command: None)
    control.start()
    world = SimulatedBox(tmp_path / "state", decks_dir=DECKS, control=control)
    settings = WebSettings(state_dir=tmp_path / "state", control=control.path, decks_dir=DECKS, hosts=("testserver",))
    app = create_app(settings)
    try:
        with TestClient(app) as client:
            client.app_state = app.state  # type: ignore[attr-defined]
            yield world, client
    finally:
        world.close()
        control.stop()


def page_after(world: SimulatedBox, client: TestClient, wanted: str) -> str:
    """The Cards page once the box's newest state (in which `wanted` shows) reached the page."""
    link = client.app_state.link  # type: ignore[attr-defined]

    client.portal.call(until_published, link, lambda: world.advance(0.05), lambda state: wanted in str(state))
    return html.unescape(client.get("/cards?deck=dead-set").text)


def test_an_enrolment_counts_on_the_oled_as_on_the_cards_page(rig: tuple[SimulatedBox, TestClient]) -> None:
    world, client = rig
    deck = world.decks["dead-set"]
    ids = list(deck.cards)
    earlier = TagMap({bytes.fromhex("04000000000001"): ("dead-set", ids[5]), bytes.fromhex("04000000000002"): ("dead-set", ids[6])})
    earlier.save(world.state_dir / TAGS_FILE)
    world.restart()  # the box reads the tags enrolled before, over the simulator's made-up ones
    world.box.lobby.open_enrolment("dead-set", world.now)
    command(world, "tap left uid:04a1b2c3d4e5f6")
    command(world, "tap middle uid:04a1b2c3d4e5f7")
    enrolment = world.dump()["enrolment"]
    assert (enrolment["done"], enrolment["total"]) == (4, len(ids))
    page = page_after(world, client, "'done': 4")
    assert f"{enrolment['done']}/{enrolment['total']} enrolled" in page
    assert f"· {enrolment['done']}/{enrolment['total']} with a tag" in page  # the box's count, the same words
    rows = dict(re.findall(r'<tr><td>([^<]+)</td><td class="uid">([^<]+)</td>', page))
    assert rows[deck.name_of(ids[0])] == "04a1b2c3d4e5f6" and rows[deck.name_of(ids[1])] == "04a1b2c3d4e5f7"
    assert rows[deck.name_of(ids[2])] == "no tag"  # the card the OLED asks for next
    assert enrolment["current"] == ids[2]


def test_a_card_played_on_any_reader_is_named_on_the_cards_page(rig: tuple[SimulatedBox, TestClient]) -> None:
    world, client = rig
    world.box.lobby.start_game("dead-set", world.now, names=["Ann", "Bob"])
    card = next(iter(world.decks["dead-set"].cards))
    world.put("middle", world.uid_for(card))  # its tag carries its record; the tag map file never had it
    world.lift("middle")
    page = page_after(world, client, "'middle'")
    seen = re.search(r"<td>middle</td><td>([^<]*)", page)
    assert seen is not None and seen[1].strip() == f"{world.decks['dead-set'].name_of(card)} (Dead Set)"
