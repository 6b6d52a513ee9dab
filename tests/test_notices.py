"""The bottom line: a refusal stays readable until a press puts it away; other notices go by themselves."""

from __future__ import annotations

from pathlib import Path

from box.base.settings import Settings
from box.core.service import Box
from box.parts.notices import NOTICE_SECONDS
from box.screens.tools import DiceCup
from box.storage.journal import Journal
from box.storage.tags import TagMap, simulated_uid

DECKS = Path(__file__).parent / "scenarios" / "box" / "decks"


def make_box() -> Box:
    return Box(Journal(":memory:"), TagMap(), DiceCup(die=lambda: 2), Settings(names=("Ann", "Bob"), decks_dir=DECKS))


def test_a_refusal_stays_until_a_press_and_that_press_still_acts():
    box = make_box()
    box.card_placed("left", bytes.fromhex("04010203040506"), now=1.0)
    assert box.dump(1.0 + 10 * NOTICE_SECONDS)["notice"] == "Unknown card 04010203040506"  # still readable
    cursor = box.root.menu.cursor
    box.button("down", "short", 40.0)
    assert box.dump(40.0)["notice"] == ""
    assert box.root.menu.cursor != cursor  # the press put it away and moved the cursor too


def test_a_notice_that_is_no_refusal_goes_by_itself():
    box = make_box()
    box.say("Undone", now=1.0)
    assert box.dump(1.5)["notice"] == "Undone"
    assert box.dump(1.0 + NOTICE_SECONDS + 0.1)["notice"] == ""


def test_an_accepted_tap_puts_a_refusal_away():
    box = make_box()
    box.tags.merge(TagMap.simulated([box.lobby.deck("dead-set")]))
    box.lobby.start_game("dead-set", now=1.0)
    box.card_placed("left", bytes.fromhex("04010203040506"), now=2.0)
    assert box.dump(30.0)["notice"] == "Unknown card 04010203040506"
    box.card_placed("left", simulated_uid("dead-set", next(iter(box.lobby.deck("dead-set").cards))), now=31.0)
    assert box.session is not None and box.session.count == 1  # Ann twists: accepted
    assert box.dump(31.0)["notice"] != "Unknown card 04010203040506"
