"""Card records on NTAG memory: the pure layer (ntag.py) with hypothesis, and reading and
writing them through the driver and the simulated chip (tags lifted mid-write, locked tags,
MIFARE Classic, another card's tag)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from box.ports.nfc.commands import Command
from box.ports.nfc.ntag import (
    NTAG213,
    NTAG215,
    NTAG216,
    NTAG_TYPES,
    ULTRALIGHT,
    BadTlv,
    NotWritable,
    decode_card,
    encode_card,
    identify,
    read_ndef,
    tlv_image,
    write_plan,
)
from box.ports.nfc.reader import CardLifted, CardPlaced, Pn532Reader
from box.ports.nfc.simchip import SimMifareClassic, SimNtag, forget_sim_chips, sim_chip
from box.ports.nfc.tagio import CardWritten, WriteCard, WriteOutcome

UID = bytes.fromhex("04112233445566")
OTHER_UID = bytes.fromhex("04665544332211")
CARD = ("deadlines", "dl042")

names = st.text(st.characters(blacklist_categories=("C", "Z")), min_size=1, max_size=20)
games = names.filter(lambda game: "/" not in game and "#" not in game)


def fits(card: tuple[str, str]) -> bool:
    try:
        return bool(encode_card(*card))
    except ValueError:
        return False


cards = st.tuples(games, names).filter(fits)


# --- the pure layer ---------------------------------------------------------------------------


@given(card=cards, kind=st.sampled_from(NTAG_TYPES))
def test_a_card_record_round_trips_through_user_memory(card: tuple[str, str], kind) -> None:
    message = encode_card(*card)
    assert decode_card(message) == card
    try:
        image = tlv_image(message, kind)
    except NotWritable:
        assert kind is ULTRALIGHT  # only the 48-byte Ultralight can be too small
        return
    assert identify(image, kind.data_size).card == card


@given(message=st.binary(max_size=700), kind=st.sampled_from([NTAG215, NTAG216]))
def test_any_message_round_trips_through_a_tlv_with_a_1_or_3_byte_length(message: bytes, kind) -> None:
    image = tlv_image(message, kind)
    assert image[1] == (len(message) if len(message) < 0xFF else 0xFF)
    assert read_ndef(image, kind.data_size) == message


@st.composite
def corrupted(draw: st.DrawFn) -> tuple[bytes, int]:
    """A card's NDEF TLV with one byte or two adjacent bytes changed, and the TLV's length."""
    image = bytearray(tlv_image(encode_card(*draw(cards)), NTAG213))
    extent = 2 + image[1]  # the NDEF TLV (a card record is short: a 1-byte length)
    at = draw(st.integers(0, extent - 1))
    for offset in range(draw(st.integers(1, 2))):
        if at + offset < extent:
            image[at + offset] = draw(st.integers(0, 255).filter(lambda value, i=at + offset: value != image[i]))
    return bytes(image), extent


@settings(max_examples=400)
@given(case=corrupted())
def test_a_corrupted_tlv_never_names_a_card(case: tuple[bytes, int]) -> None:
    image, _ = case
    identity = identify(image, NTAG213.data_size)
    assert identity.card is None
    assert identity.reason


@given(old=cards, new=cards, done=st.integers(0, 40), half=st.booleans())
def test_a_torn_write_never_names_a_third_card_and_names_the_new_one_only_when_done(
    old: tuple[str, str], new: tuple[str, str], done: int, half: bool
) -> None:
    tag = SimNtag(UID, card=old)
    plan = write_plan(encode_card(*new), NTAG213)
    done = min(done, len(plan))
    for page, data in plan[:done]:
        tag.write(page, data)
    if half and done < len(plan):  # the page being written when the tag left: half new, half old
        page, data = plan[done]
        tag.write(page, data[:2] + tag.read(page)[2:4])
    card = identify(tag.user_memory(), NTAG213.data_size).card
    if done == len(plan):
        assert card == new
    elif done == 0 and not half:
        assert card == old
    else:
        assert card is None or card == new == old


@given(memory=st.binary(max_size=NTAG213.data_size))
def test_any_user_memory_is_identified_without_an_error(memory: bytes) -> None:
    identity = identify(memory, NTAG213.data_size)
    assert (identity.card is None) == bool(identity.reason)


@given(
    kind=st.sampled_from(NTAG_TYPES), writes=st.lists(st.tuples(st.integers(4, 300), st.binary(min_size=4, max_size=4)))
)
def test_simulated_pages_read_back_as_written(kind, writes: list[tuple[int, bytes]]) -> None:
    tag = SimNtag(UID, kind)
    expected = bytearray(tag.memory)
    for page, data in writes:
        if page <= kind.last_user_page:
            assert tag.write(page, data)
            expected[page * 4 : page * 4 + 4] = data
        elif page >= kind.pages:
            assert not tag.write(page, data)
    for page in range(0, kind.last_user_page + 1):
        assert tag.read(page)[:4] == expected[page * 4 : page * 4 + 4]


def test_what_a_record_is_not() -> None:
    assert identify(bytes.fromhex("0300fe"), 144).reason == "blank tag (no record)"
    assert identify(bytes.fromhex("fe"), 144).reason == "blank tag (no record)"
    assert (
        "a record of another kind (urn:nfc:wkt:T)"
        in identify(tlv_image(bytes.fromhex("d101045402656e78"), NTAG213)).reason
    )
    with pytest.raises(BadTlv, match="runs past user memory"):
        read_ndef(bytes.fromhex("03ff0100"), 144)
    with pytest.raises(ValueError, match="cannot name card"):
        encode_card("dead/set", "x")
    with pytest.raises(NotWritable, match="full: the record needs 70 bytes, this MIFARE Ultralight holds 48"):
        tlv_image(encode_card("deadlines", "a-card-id-far-too-long-for-48"), ULTRALIGHT)


# --- through the driver -------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def fresh_chips() -> Iterator[None]:
    forget_sim_chips()
    yield
    forget_sim_chips()


class Box:
    """One reader on a fake clock, as the loop sees it."""

    def __init__(self) -> None:
        self.chip = sim_chip("left")
        self.reader = Pn532Reader("left", "pn532sim://left")
        self.now = 0.0
        assert self.poll()[0].online

    def poll(self, times: int = 1) -> list:
        events = []
        for _ in range(times):
            events += self.reader.poll(self.now)
            self.now += 0.05
        return events

    def tap(self, tag) -> CardPlaced:
        self.chip.place(tag)
        [placed] = self.poll()
        return placed

    def write(self, card: tuple[str, str] = CARD, uid: bytes = UID, overwrite: bool = False) -> CardWritten:
        self.reader.request_write(WriteCard("left", uid, card, overwrite))
        [written] = [event for event in self.poll() if isinstance(event, CardWritten)]
        return written


@pytest.mark.parametrize("kind", [NTAG213, NTAG215, NTAG216], ids=lambda kind: kind.name)
def test_a_written_card_is_known_on_its_next_tap(kind) -> None:
    box, tag = Box(), SimNtag(UID, kind)
    assert box.tap(tag) == CardPlaced("left", UID, reason="blank tag (no record)")
    assert box.write().outcome is WriteOutcome.WRITTEN
    box.chip.lift()
    assert box.poll(3) == [CardLifted("left", UID)]
    assert box.tap(tag) == CardPlaced("left", UID, card=CARD)


def test_a_tap_reads_only_the_pages_the_record_needs() -> None:
    box = Box()
    before = box.chip.commands[Command.IN_DATA_EXCHANGE]
    box.tap(SimNtag(UID, NTAG216, card=CARD))
    assert box.chip.commands[Command.IN_DATA_EXCHANGE] - before == 4  # 47 bytes from page 3: 4 READs
    box.poll(10)  # a card lying there is not read again
    assert box.chip.commands[Command.IN_DATA_EXCHANGE] - before == 4


def test_a_tag_lifted_during_the_write_is_torn_and_written_on_the_next_tap() -> None:
    box, tag = Box(), SimNtag(UID, card=("deadlines", "dl001"))
    box.tap(tag)
    box.chip.lift_during_write(after_pages=3)
    written = box.write(overwrite=True)
    assert written.outcome is WriteOutcome.TORN
    assert written.message == "lifted during the write: lay it again"
    assert box.poll(3) == [CardLifted("left", UID)]
    again = box.tap(tag)
    assert again.card is None and again.reason == "blank tag (no record)"
    assert box.write().outcome is WriteOutcome.WRITTEN
    assert identify(tag.user_memory()).card == CARD


def test_a_tear_on_the_last_page_reads_as_damaged_never_as_a_card() -> None:
    box, tag = Box(), SimNtag(UID)
    box.tap(tag)
    box.chip.lift_during_write(after_pages=len(write_plan(encode_card(*CARD), NTAG213)) - 1)
    assert box.write().outcome is WriteOutcome.TORN
    box.poll(3)
    again = box.tap(tag)
    assert again.card is None
    assert again.reason == "a damaged record (torn?)"


def test_unwritable_tags_say_why() -> None:
    box = Box()
    locked = SimNtag(UID)
    locked.lock()
    box.tap(locked)
    assert (box.write().outcome, box.write().message) == (WriteOutcome.NOT_WRITABLE, "locked (read-only)")
    box.chip.lift()
    box.poll(3)
    classic = SimMifareClassic(bytes.fromhex("a1b2c3d4"))
    box.tap(classic)
    written = box.write(uid=classic.uid)
    assert written.outcome is WriteOutcome.NOT_WRITABLE
    assert written.message == "MIFARE Classic (needs keys: cannot carry a record)"
    box.chip.lift()
    box.poll(3)
    small = SimNtag(UID, ULTRALIGHT)
    box.tap(small)
    written = box.write(card=("deadlines", "a-card-id-far-too-long-for-48"))
    assert written.outcome is WriteOutcome.NOT_WRITABLE
    assert written.message.startswith("full: ")


def test_a_page_lock_bit_alone_makes_the_tag_unwritable() -> None:
    box, tag = Box(), SimNtag(UID)
    tag.write(2, bytes([0, 0, 0x00, 0x02]))  # static lock bit L9: page 9 read-only
    box.tap(tag)
    assert box.write().message == "locked (read-only)"
    assert identify(tag.user_memory()).reason == "blank tag (no record)"  # nothing written


def test_another_cards_tag_is_refused_unless_overwriting() -> None:
    box, tag = Box(), SimNtag(UID, card=("dead-set", "ds001"))
    assert box.tap(tag).card == ("dead-set", "ds001")
    refused = box.write()
    assert (refused.outcome, refused.other) == (WriteOutcome.OTHER_CARD, ("dead-set", "ds001"))
    assert refused.message == "it is already dead-set ds001"
    assert box.write(overwrite=True).outcome is WriteOutcome.WRITTEN
    assert identify(tag.user_memory()).card == CARD
    assert box.write().outcome is WriteOutcome.WRITTEN  # the same card again: nothing to do


def test_a_request_for_a_tag_that_is_not_there_is_answered() -> None:
    box = Box()
    assert box.write().outcome is WriteOutcome.NOT_THERE
    box.tap(SimNtag(OTHER_UID))
    written = box.write()
    assert written.outcome is WriteOutcome.NOT_THERE
    assert written.message == f"tag {UID.hex()} is not on reader left: lay it again"


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(card=cards, tear=st.integers(0, 20))
def test_any_torn_write_is_redone_on_the_next_tap(card: tuple[str, str], tear: int) -> None:
    forget_sim_chips()
    box, tag = Box(), SimNtag(UID)
    box.tap(tag)
    box.chip.lift_during_write(after_pages=tear)
    first = box.write(card)
    if first.outcome is WriteOutcome.WRITTEN:  # the plan was shorter than the tear
        assert identify(tag.user_memory()).card == card
        return
    assert first.outcome is WriteOutcome.TORN
    box.poll(3)
    assert box.tap(tag).card is None
    assert box.write(card).outcome is WriteOutcome.WRITTEN
    box.chip.lift()
    box.poll(3)
    assert box.tap(tag).card == card


def test_a_watched_reader_writes_on_its_next_check_and_answers_at_once_without_the_tag() -> None:
    chip, reader = sim_chip("left"), Pn532Reader("left", "pn532sim://left")
    reader.watch(0.0, keepalive=0.01)  # connects
    tag = SimNtag(UID)
    chip.place(tag)
    [placed], _ = reader.watch(0.0, keepalive=0.01)
    assert placed.reason == "blank tag (no record)"
    reader.request_write(WriteCard("left", UID, CARD))
    [written], _ = reader.watch(0.0, keepalive=0.01)
    assert written.outcome is WriteOutcome.WRITTEN
    assert identify(tag.user_memory()).card == CARD
    chip.lift()
    while reader.watch(0.0, keepalive=0.01)[0] != [CardLifted("left", UID)]:
        pass
    reader.request_write(WriteCard("left", UID, CARD))
    [missing], _ = reader.watch(0.0, keepalive=0.01)
    assert missing.outcome is WriteOutcome.NOT_THERE
    reader.close()
