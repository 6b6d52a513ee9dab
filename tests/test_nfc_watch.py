"""Watching a reader in real time: one pending InListPassiveTarget, the host waiting in a read.

The steps are driven one by one with tiny waits; the thread tests wait on queues with
timeouts (a keepalive of 60 s proves that what woke them was the chip, not the clock).
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator

import pytest

from box.ports.nfc.commands import Command
from box.ports.nfc.reader import (
    CardLifted,
    CardPlaced,
    Pn532Reader,
    ReaderEvent,
    ReaderStatus,
    start_readers,
)
from box.ports.nfc.simchip import WAITS_FOREVER, forget_sim_chips, sim_chip
from box.ports.nfc.simpty import PtyChips

UID = bytes.fromhex("04112233445566")
BLANK = "blank tag (no record)"  # a bare UID's card is a blank NTAG: its placement names no card
OTHER = bytes.fromhex("04aabbccddeeff")
TINY = 0.001  # seconds: a wait that ends at once when nothing comes


@pytest.fixture(autouse=True)
def fresh_chips() -> Iterator[None]:
    forget_sim_chips()
    yield
    forget_sim_chips()


def step(reader: Pn532Reader) -> list[ReaderEvent]:
    events, _ = reader.watch(0.0, interval=TINY, keepalive=TINY)
    return events


def next_event(events: queue.Queue[ReaderEvent], wanted: type) -> ReaderEvent:
    while True:
        event = events.get(timeout=5)
        if isinstance(event, wanted):
            return event


def test_the_first_step_connects_then_the_chip_waits_for_a_card() -> None:
    chip = sim_chip("left")
    reader = Pn532Reader("left", "pn532sim://left")
    [status] = step(reader)
    assert status.online and chip.passive_activation_retries == WAITS_FOREVER
    assert step(reader) == []  # nothing came within the keepalive: the command is aborted
    assert chip.aborts == 1
    chip.place(UID)
    assert step(reader) == [CardPlaced("left", UID, lying=False, reason=BLANK)]


def test_a_card_there_at_connect_is_lying() -> None:
    sim_chip("left").place(UID)
    reader = Pn532Reader("left", "pn532sim://left")
    assert step(reader)[1:] == [CardPlaced("left", UID, lying=True, reason=BLANK)]


def test_a_card_counts_as_lifted_after_the_missed_checks_and_is_not_placed_again() -> None:
    chip = sim_chip("left")
    reader = Pn532Reader("left", "pn532sim://left", misses_to_lift=3)
    step(reader)
    chip.place(UID)
    assert step(reader) == [CardPlaced("left", UID, reason=BLANK)]
    assert step(reader) == []  # still there
    chip.lift()
    assert [step(reader) for _ in range(3)] == [[], [], [CardLifted("left", UID)]]
    assert step(reader) == []
    chip.place(OTHER)
    assert step(reader) == [CardPlaced("left", OTHER, reason=BLANK)]


def test_a_chip_that_goes_silent_is_noticed_at_the_keepalive() -> None:
    chip = sim_chip("left")
    reader = Pn532Reader("left", "pn532sim://left")
    step(reader)
    assert step(reader) == []  # armed, nothing came: the keepalive aborts
    chip.silent = True
    events = step(reader)  # re-arming hears no ACK
    assert [type(event) for event in events] == [ReaderStatus] and not events[0].online
    assert "no answer" in events[0].message


def test_an_idle_reader_sends_one_command_per_keepalive() -> None:
    chip = sim_chip("left")
    reader = Pn532Reader("left", "pn532sim://left")
    step(reader)
    before = chip.commands[Command.IN_LIST_PASSIVE_TARGET]
    for _ in range(5):
        step(reader)
    assert chip.commands[Command.IN_LIST_PASSIVE_TARGET] - before == 5


def test_an_unplug_wakes_a_waiting_reader_at_once() -> None:
    chip = sim_chip("left")
    events: queue.Queue[ReaderEvent] = queue.Queue()
    running = start_readers([Pn532Reader("left", "pn532sim://left")], events.put, keepalive=60.0)
    try:
        assert next_event(events, ReaderStatus).online
        chip.place(UID)
        assert next_event(events, CardPlaced) == CardPlaced("left", UID, reason=BLANK)
        chip.lift()
        assert next_event(events, CardLifted) == CardLifted("left", UID)
        chip.unplug()
        assert not next_event(events, ReaderStatus).online
    finally:
        running.stop()


def test_stop_wakes_every_waiting_reader() -> None:
    events: queue.Queue[ReaderEvent] = queue.Queue()
    readers = [Pn532Reader(name, f"pn532sim://{name}") for name in ("left", "right")]
    running = start_readers(readers, events.put, keepalive=60.0)
    next_event(events, ReaderStatus), next_event(events, ReaderStatus)
    running.stop(timeout=5.0)
    assert not any(thread._thread.is_alive() for thread in running.threads)
    assert not any(reader.online for reader in readers)


def test_watching_through_a_real_tty() -> None:
    chips = PtyChips(["left"])
    server = threading.Thread(target=chips.serve, daemon=True)
    server.start()
    events: queue.Queue[ReaderEvent] = queue.Queue()
    running = start_readers([Pn532Reader("left", chips.paths["left"])], events.put, keepalive=60.0)
    try:
        assert next_event(events, ReaderStatus).online
        chips.place("left", UID)
        assert next_event(events, CardPlaced) == CardPlaced("left", UID, reason=BLANK)
        chips.lift("left")
        assert next_event(events, CardLifted) == CardLifted("left", UID)
    finally:
        running.stop(timeout=5.0)
        chips.close()
        server.join(5)
    assert not server.is_alive()
