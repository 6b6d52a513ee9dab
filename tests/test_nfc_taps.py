"""A tap of a known tag on the serial line: its record is read once per UID and remembered."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from box.messages import WriteCard, WriteOutcome
from box.ports.nfc.reader import CardLifted, CardPlaced, KnownRecords, Pn532Reader
from box.ports.nfc.simchip import SimNtag, SimulatedPn532, forget_sim_chips, sim_chip

UID = bytes.fromhex("04a1b2c3d4e5f6")
CARD = ("deadlines", "dl042")


@pytest.fixture(autouse=True)
def fresh_chips() -> Iterator[None]:
    forget_sim_chips()
    yield
    forget_sim_chips()


class Line:
    """Counts the bytes both ways between the driver and one simulated chip."""

    def __init__(self, chip: SimulatedPn532, monkeypatch: pytest.MonkeyPatch) -> None:
        self.bytes = 0
        receive, send = chip.receive, chip.send

        def received(connection: int, data: bytes) -> None:
            self.bytes += len(data)
            receive(connection, data)

        def sent(connection: int, size: int, timeout: float | None = 0.0) -> bytes:
            data = send(connection, size, timeout)
            self.bytes += len(data)
            return data

        monkeypatch.setattr(chip, "receive", received)
        monkeypatch.setattr(chip, "send", sent)


class Table:
    """One reader on a simulated chip, polled on a fake clock."""

    def __init__(self, name: str, monkeypatch: pytest.MonkeyPatch, known: KnownRecords | None = None) -> None:
        self.name, self.now = name, 0.0
        self.reader = Pn532Reader(name, f"pn532sim://{name}", known=known)
        self.chip = sim_chip(name)
        self.line = Line(self.chip, monkeypatch)
        self.poll()  # online

    def poll(self) -> list:
        self.now += 0.05
        return self.reader.poll(self.now)

    def lay(self, tag: SimNtag) -> tuple[list, int]:
        """The tag laid: what the reader says and the bytes it cost."""
        before = self.line.bytes
        self.chip.place(tag)
        return self.poll(), self.line.bytes - before

    def lift(self) -> list:
        self.chip.lift()
        return [event for _ in range(self.reader.misses_to_lift) for event in self.poll()]


def test_a_known_tag_laid_again_costs_far_fewer_bytes_and_says_the_same(monkeypatch) -> None:
    table = Table("taps", monkeypatch)
    tag = SimNtag(UID, card=CARD)
    first, read = table.lay(tag)
    assert first == [CardPlaced("taps", UID, False, CARD, "")]
    assert table.lift() == [CardLifted("taps", UID)]
    again, known = table.lay(tag)
    assert again == first
    assert known * 2 < read, (known, read)


def test_a_tag_the_box_rewrote_is_read_again(monkeypatch) -> None:
    table = Table("rewrite", monkeypatch)
    tag = SimNtag(UID, card=CARD)
    _, read = table.lay(tag)
    table.reader.request_write(WriteCard("rewrite", UID, ("deadlines", "dl007"), overwrite=True))
    assert table.poll()[0].outcome is WriteOutcome.WRITTEN
    table.lift()
    again, cost = table.lay(tag)
    assert again == [CardPlaced("rewrite", UID, False, ("deadlines", "dl007"), "")] and cost == read


def test_a_failed_read_is_not_remembered_and_a_record_is_known_to_every_reader(monkeypatch) -> None:
    known = KnownRecords()
    left, right = Table("left", monkeypatch, known), Table("right", monkeypatch, known)
    blank = SimNtag(bytes.fromhex("04000000000001"))
    _, read_blank = left.lay(blank)
    left.lift()
    _, again = left.lay(blank)
    assert again == read_blank  # a tag naming no card is read each time (it may be enrolled since)
    _, read = left.lay(SimNtag(UID, card=CARD))
    events, cost = right.lay(SimNtag(UID, card=CARD))
    assert events == [CardPlaced("right", UID, False, CARD, "")] and cost * 2 < read


def test_the_pty_chips_take_a_card_carrying_its_record() -> None:
    """bench/tap_uart.py lays cards through box.ports.nfc.simpty's command lines."""
    from box.ports.nfc.ntag import identify
    from box.ports.nfc.simpty import PtyChips

    chips = PtyChips(["bench"], baud=115200)
    try:
        chips._command(["place", "bench", UID.hex(), *CARD])
        tag = chips.chips["bench"].card
        assert isinstance(tag, SimNtag) and tag.uid == UID
        assert identify(tag.user_memory()).card == CARD
    finally:
        chips.close()
        chips.serve()  # the close is taken at once: the ptys are closed
