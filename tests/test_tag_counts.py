"""What the Cards page counts as enrolled is what the box saved: the simulator's made-up tags (every
card known, so taps work without enrolment) are never written, to tags.csv or to a stick."""

from __future__ import annotations

import shutil
from pathlib import Path

from box.core.app import SIM_STICK, SIM_STICKS
from box.core.tagtransfer import FILE_NAME
from box.storage.tags import TAGS_FILE, TagMap, simulated_uid
from box.web.cards import deck_rows
from box.web.journal_view import JournalView
from tests.test_tag_transfer import CLASSIC, MARILYN, answered, simulated_box, usb


def enrolled(state: Path, game: str) -> str:
    """The Cards page's count for `game`, read as the page reads it: tags.csv against the deck."""
    rows = deck_rows(JournalView(state / "journal.db").card_list(game), TagMap.load(state / TAGS_FILE))
    return f"{rows['enrolled']}/{rows['total']}"


def test_the_stick_saves_what_the_cards_page_counts_as_enrolled(tmp_path: Path) -> None:
    world = simulated_box(tmp_path / "box", tags=f"{CLASSIC.hex()},dead-set,ds001")
    try:
        assert world.box.tags.lookup(simulated_uid("deadlines", "dl001")) is not None  # every card taps in the simulator
        usb(world, "Save tags to USB")
        assert answered(world) == "1 tag saved on STICK: you may pull it"
    finally:
        world.close()
    assert enrolled(tmp_path / "box", "dead-set") == "1/108" and enrolled(tmp_path / "box", "deadlines") == "0/256"


def test_a_loaded_stick_keeps_in_tags_csv_only_what_was_enrolled(tmp_path: Path) -> None:
    world = simulated_box(tmp_path / "box")
    stick = tmp_path / "box" / SIM_STICKS / SIM_STICK / FILE_NAME
    stick.write_text(f"uid,game,card\n{CLASSIC.hex()},dead-set,ds001\n")
    try:
        usb(world, "Load tags from USB")
        assert answered(world) == "1 tag read from STICK"
        assert world.box.tags.lookup(CLASSIC) == MARILYN
        assert world.box.tags.lookup(simulated_uid("dead-set", "ds002")) == ("dead-set", "ds002")  # still under it
    finally:
        world.close()
    assert len(TagMap.load(tmp_path / "box" / TAGS_FILE).cards) == 1
    assert enrolled(tmp_path / "box", "dead-set") == "1/108"


def test_a_simulators_stick_takes_no_enrolment_from_a_second_box(tmp_path: Path) -> None:
    first = simulated_box(tmp_path / "first")  # nothing enrolled: only made-up tags
    try:
        usb(first, "Save tags to USB")
        assert answered(first) == "0 tags saved on STICK: you may pull it"
    finally:
        first.close()
    second = simulated_box(tmp_path / "second", tags=f"{CLASSIC.hex()},dead-set,ds001")
    shutil.copy(tmp_path / "first" / SIM_STICKS / SIM_STICK / FILE_NAME, tmp_path / "second" / SIM_STICKS / SIM_STICK / FILE_NAME)
    try:
        usb(second, "Load tags from USB")
        answered(second)
        assert second.box.tags.lookup(CLASSIC) == MARILYN, "the card keeps the tag it was enrolled with"
    finally:
        second.close()
