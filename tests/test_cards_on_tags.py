"""End to end in the simulator: a card enrolled on one box (its own state folder) is known on a
second box with an empty tag map, because enrolment wrote the card onto the tag; tags that cannot
be written stay in the first box's tag map; a tag lifted during its write is written on its next tap.
"""

from __future__ import annotations

from pathlib import Path

from box.games import load_decks
from box.ports.nfc.ntag import identify
from box.ports.nfc.simchip import SimMifareClassic, SimNtag
from box.screens.enrolment import Enrolment, names_from
from box.sim.world import SimulatedBox
from box.storage.tags import TAGS_FILE, TagMap

FRESH = bytes.fromhex("04c0ffee123456")  # no box's tag map knows it (the simulator's made-up UIDs are others)
OTHER = bytes.fromhex("04c0ffee654321")
CLASSIC = bytes.fromhex("c0ffee12")


def enrolment_box(state: Path) -> SimulatedBox:
    """A box running the dead-set enrolment as `gravebox enroll dead-set` does, on simulated parts."""
    decks = load_decks(None)
    state.mkdir(parents=True, exist_ok=True)  # as `gravebox enroll` finds it
    return SimulatedBox(
        state,
        root=lambda tags: Enrolment("dead-set", decks["dead-set"], tags, path=state / TAGS_FILE, names=names_from(decks)),
    )


def lay(world: SimulatedBox, reader: str, tag) -> None:
    world.chip(reader).place(tag)
    world.advance(0.3)


def take(world: SimulatedBox, reader: str) -> None:
    world.chip(reader).lift()
    world.advance(0.3)


def test_a_card_enrolled_on_one_box_is_known_on_a_second_box_with_an_empty_tag_map(tmp_path: Path) -> None:
    first = enrolment_box(tmp_path / "first")
    enrol = first.box.root
    assert isinstance(enrol, Enrolment)
    card_id = enrol.current
    tag = SimNtag(FRESH)
    try:
        lay(first, "left", tag)
        assert enrol.written == {card_id}
        assert enrol.current != card_id  # on to the next card
    finally:
        first.close()
    assert identify(tag.user_memory()).card == ("dead-set", card_id)
    assert TagMap.load(tmp_path / "first" / TAGS_FILE).lookup(FRESH) == ("dead-set", card_id)  # the cache

    second = SimulatedBox(tmp_path / "second")  # its own state: nothing enrolled there
    try:
        assert second.box.tags.lookup(FRESH) is None
        second.box.lobby.start_game("dead-set", second.now, players=2)
        second.advance(0.5)
        session = second.box.session
        assert session is not None
        before = session.count
        lay(second, "left", tag)
        assert not second.box.notices.text.startswith("Unknown card"), second.box.notices.text
        assert session.count == before + 1  # the game took the tap as that card
    finally:
        second.close()


def test_a_record_naming_a_card_this_box_lacks_is_an_unknown_card_saying_which(tmp_path: Path) -> None:
    world = SimulatedBox(tmp_path)
    try:
        lay(world, "left", SimNtag(OTHER, card=("dead-set", "ds999")))
        assert world.box.notices.text == "Unknown card 04c0ffee654321: dead-set ds999 is not in this box's deck"
        take(world, "left")
        lay(world, "left", SimNtag(FRESH))  # blank, and in no tag map
        assert world.box.notices.text == "Unknown card 04c0ffee123456"
    finally:
        world.close()


def test_unwritable_tags_stay_in_the_tag_map_and_the_screen_says_which(tmp_path: Path) -> None:
    world = enrolment_box(tmp_path)
    enrol = world.box.root
    assert isinstance(enrol, Enrolment)
    ids = list(enrol.ids)
    locked = SimNtag(FRESH)
    locked.lock()
    try:
        lay(world, "left", SimMifareClassic(CLASSIC))
        assert enrol.notice == f"{enrol.deck.name_of(ids[0])}: tag map only (MIFARE Classic (needs keys: cannot carry a record))"
        take(world, "left")
        lay(world, "right", locked)
        assert enrol.notice == f"{enrol.deck.name_of(ids[1])}: tag map only (locked (read-only))"
        assert enrol.map_only == {
            ids[0]: "MIFARE Classic (needs keys: cannot carry a record)",
            ids[1]: "locked (read-only)",
        }
        assert enrol.written == set()
    finally:
        world.close()
    saved = TagMap.load(tmp_path / TAGS_FILE)
    assert saved.lookup(CLASSIC) == ("dead-set", ids[0])
    assert saved.lookup(FRESH) == ("dead-set", ids[1])


def test_a_tag_lifted_during_its_write_is_written_on_its_next_tap(tmp_path: Path) -> None:
    world = enrolment_box(tmp_path)
    enrol = world.box.root
    assert isinstance(enrol, Enrolment)
    card_id = enrol.current
    tag = SimNtag(FRESH)
    try:
        world.chip("middle").lift_during_write(after_pages=3)
        lay(world, "middle", tag)
        assert enrol.notice == f"{enrol.deck.name_of(card_id)}: lifted too soon, lay it again"
        assert enrol.current == card_id and enrol.written == set()
        assert TagMap.load(tmp_path / TAGS_FILE).lookup(FRESH) is None
        world.advance(0.5)  # the tag is gone from the reader: lifted
        lay(world, "middle", tag)
        assert enrol.written == {card_id}
    finally:
        world.close()
    assert identify(tag.user_memory()).card == ("dead-set", card_id)


def test_another_cards_tag_is_refused_until_ok_confirms_the_overwrite(tmp_path: Path) -> None:
    world = enrolment_box(tmp_path)
    enrol = world.box.root
    assert isinstance(enrol, Enrolment)
    card_id = enrol.current
    tag = SimNtag(FRESH, card=("deadlines", "dl001"))
    try:
        lay(world, "left", tag)
        assert enrol.notice.startswith("tag already ")
        assert enrol.notice.endswith("(deadlines): OK overwrites")
        assert identify(tag.user_memory()).card == ("deadlines", "dl001")
        world.press("ok")
        world.advance(0.3)
        assert enrol.written == {card_id}
    finally:
        world.close()
    assert identify(tag.user_memory()).card == ("dead-set", card_id)
