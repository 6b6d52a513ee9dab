"""The PN532 driver against the simulated chip, through pyserial (``pn532sim://``).

Poll cycles run on a fake ``now``; the simulated chip answers at once, so nothing here waits
on the wall clock except the thread tests, which wait on queues with timeouts.
"""

from __future__ import annotations

import itertools
import os
import queue
import select
import termios
import time
from collections.abc import Iterator

import pytest
import serial
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from box.ports.nfc.codec import (
    ACK,
    ERROR_FRAME,
    NACK,
    START_CODE,
    Ack,
    ErrorFrame,
    FrameDecoder,
    Response,
    encode_frame,
)
from box.ports.nfc.commands import Command
from box.ports.nfc.reader import FAST_RATE, CardLifted, CardPlaced, Pn532Reader, ReaderEvent, ReaderStatus, ReaderThread
from box.ports.nfc.simchip import SimulatedPn532, forget_sim_chips, sim_chip

INTERVAL = 0.05
UID4 = bytes.fromhex("04a1b2c3")
UID7 = bytes.fromhex("04112233445566")
UID10 = bytes.fromhex("0102030405060708090a")
REASON = {  # why a bare UID's card names none: see simchip.card_for_uid
    UID4: "MIFARE Classic (needs keys: cannot carry a record)",
    UID7: "blank tag (no record)",
    UID10: "blank tag (no record)",
}


def placed(uid: bytes, lying: bool = False, reader: str = "left") -> CardPlaced:
    """The placement of a bare UID's card (one carrying no record)."""
    return CardPlaced(reader, uid, lying, None, REASON[uid])


@pytest.fixture(autouse=True)
def fresh_chips() -> Iterator[None]:
    forget_sim_chips()
    yield
    forget_sim_chips()


class Script:
    """A reader and its simulated chip, polled on a fake clock that moves INTERVAL per poll."""

    def __init__(self, name: str = "left", **options: object) -> None:
        self.chip: SimulatedPn532 = sim_chip(name)
        self.reader = Pn532Reader(name, f"pn532sim://{name}", **options)
        self.now = 0.0

    def poll(self, times: int = 1) -> list[ReaderEvent]:
        events: list[ReaderEvent] = []
        for _ in range(times):
            events += self.reader.poll(self.now)
            self.now += INTERVAL
        return events

    def poll_until(self, wanted: type, limit: float = 30.0) -> tuple[float, list[ReaderEvent]]:
        """Poll until an event of type ``wanted`` comes; return when, and that poll's events."""
        deadline = self.now + limit
        while self.now < deadline:
            at = self.now
            events = self.poll()
            if any(isinstance(event, wanted) for event in events):
                return at, events
        raise AssertionError(f"no {wanted.__name__} within {limit} s of fake time")


def online(script: Script) -> Script:
    assert script.poll() == [
        ReaderStatus(
            script.reader.name, True, f"reader {script.reader.name}: ready on {script.reader.port} (PN532 v1.6)"
        )
    ]
    return script


# --- connecting -------------------------------------------------------------------------------


def test_connect_wakes_configures_and_checks_the_chip() -> None:
    script = online(Script())
    assert script.reader.online
    assert script.chip.commands == {
        Command.SAM_CONFIGURATION: 1,
        Command.SET_SERIAL_BAUD_RATE: 1,
        Command.GET_FIRMWARE_VERSION: 2,  # once to check the new rate, once for the status
        Command.RF_CONFIGURATION: 1,
        Command.IN_LIST_PASSIVE_TARGET: 1,
    }
    assert script.chip.passive_activation_retries < 0x10
    assert script.chip.rate == FAST_RATE == 460800 and script.reader.rate == FAST_RATE


def test_a_line_that_does_not_carry_the_fast_rate_falls_back_to_115200_and_says_so() -> None:
    script = Script()
    script.chip.fastest_rate = 115200  # long wires: 460800 comes out garbled both ways
    [status] = script.poll()  # the chip took 460800 and hears nothing at either rate now
    assert not status.online and status.message.endswith("after a change of rate: switch it off and on")
    script.chip.replug()  # switched off and on: 115200 again
    [status] = script.poll_until(ReaderStatus)[1]
    assert status.online and status.message.endswith("(PN532 v1.6; 115200 baud: no answer at 460800, check its wiring)")
    assert script.chip.rate == script.reader.rate == 115200
    assert script.chip.commands[Command.SET_SERIAL_BAUD_RATE] == 1  # not asked again after the power cycle
    script.chip.place(UID7)
    assert script.poll() == [placed(UID7)]


def test_a_line_that_garbles_the_fast_rate_only_one_way_gets_the_chip_back_to_115200() -> None:
    script = Script()
    script.chip.fastest_rate = 115200
    chip = script.chip
    hear = chip.receive

    def heard_at_any_rate(connection: int, data: bytes) -> None:  # the host's bytes get through, the chip's do not
        tuned, chip.host_rate, chip.fastest_rate = chip.host_rate, chip.rate, chip.rate
        hear(connection, data)
        chip.host_rate, chip.fastest_rate = tuned, 115200

    chip.receive = heard_at_any_rate  # type: ignore[method-assign]
    [status] = script.poll()
    assert status.online and "115200 baud: no answer at 460800" in status.message
    assert chip.rate == 115200


def test_a_chip_left_at_the_fast_rate_by_an_earlier_run_is_found_there() -> None:
    script = online(Script())
    script.reader.close()
    assert script.chip.rate == FAST_RATE  # no power cycle: the chip keeps its rate
    again = Pn532Reader("left", "pn532sim://left")
    [status] = again.poll(1.0)
    assert status.online and "baud" not in status.message
    assert script.chip.commands[Command.SET_SERIAL_BAUD_RATE] == 1  # already there: not asked again
    again.close()


def test_the_simulated_chip_hears_only_a_host_at_its_rate() -> None:
    sim_chip("left")
    port = serial.serial_for_url("pn532sim://left", baudrate=9600, timeout=0.02)
    port.write(b"\x55" + encode_frame(0xD4, b"\x14\x01"))
    assert port.read(100) == b""
    port.baudrate = 115200
    port.write(b"\x55" + encode_frame(0xD4, b"\x14\x01"))
    assert FrameDecoder().feed(port.read(100)) == [Ack(), Response(0xD5, b"\x15")]


def test_a_slow_waking_chip_gets_sam_configuration_again() -> None:
    script = Script()
    script.chip.sleep(slow_wake=2)
    online(script)
    assert script.chip.aborts >= 2  # each lost SAMConfiguration was aborted with an ACK


def test_a_chip_that_never_wakes_is_reported_and_tried_again_later() -> None:
    script = Script("middle")
    script.chip.sleep(slow_wake=3)
    assert script.poll() == [
        ReaderStatus("middle", False, "reader middle: no answer on pn532sim://middle: is its switch on HSU?")
    ]
    at, [status] = script.poll_until(ReaderStatus)
    assert status.online and at == pytest.approx(0.25)


def test_a_silent_chip_is_reported_with_the_hsu_hint_and_comes_back() -> None:
    script = Script("middle")
    script.chip.silent = True
    events = script.poll()
    assert events == [
        ReaderStatus("middle", False, "reader middle: no answer on pn532sim://middle: is its switch on HSU?")
    ]
    assert script.poll(40) == []  # offline status is said once, not on every retry
    script.chip.silent = False
    script.chip.sleep()
    _, [status] = script.poll_until(ReaderStatus)
    assert status.online


# --- cards ------------------------------------------------------------------------------------


@pytest.mark.parametrize("uid", [UID4, UID7, UID10], ids=["4 bytes", "7 bytes", "10 bytes"])
def test_a_card_lying_on_the_reader_is_placed_once(uid: bytes) -> None:
    script = online(Script())
    script.chip.place(uid)
    assert script.poll(50) == [placed(uid)]
    assert script.chip.commands[Command.IN_RELEASE] == 49  # each poll releases the card the poll before found


def test_a_found_card_is_released_at_the_next_step_not_before_its_event() -> None:
    script = online(Script())
    script.chip.place(UID7)
    assert script.poll(1) == [placed(UID7)]
    assert script.chip.commands[Command.IN_RELEASE] == 0  # the event did not wait for InRelease
    assert script.poll(1) == []
    assert script.chip.commands[Command.IN_RELEASE] == 1


def test_a_card_already_there_when_the_reader_connects_is_marked_lying() -> None:
    script = Script()
    script.chip.place(UID7)
    events = script.poll()
    assert events[0].online
    assert events[1:] == [placed(UID7, lying=True)]
    script.chip.lift()
    script.poll(3)
    script.chip.place(UID7)
    assert script.poll() == [placed(UID7, lying=False)]


def test_a_card_with_ats_in_the_answer_is_read() -> None:
    script = online(Script())
    script.chip.place(UID7, ats=bytes.fromhex("067577810280"))
    assert script.poll() == [CardPlaced("left", UID7, reason="not an NTAG (an ISO 14443-4 card: cannot carry a record)")]


def test_a_card_is_lifted_after_three_misses_in_a_row() -> None:
    script = online(Script())
    script.chip.place(UID4)
    script.poll()
    script.chip.lift()
    assert script.poll(2) == []
    assert script.poll() == [CardLifted("left", UID4)]
    assert script.poll(10) == []


def test_a_card_missed_twice_then_seen_again_stays_placed() -> None:
    script = online(Script())
    script.chip.place(UID4)
    script.poll()
    script.chip.lift()
    script.poll(2)
    script.chip.place(UID4)
    assert script.poll(10) == []


def test_misses_to_lift_is_a_setting() -> None:
    script = online(Script(misses_to_lift=1))
    script.chip.place(UID4)
    script.poll()
    script.chip.lift()
    assert script.poll() == [CardLifted("left", UID4)]


def test_swapping_cards_lifts_the_old_and_places_the_new() -> None:
    script = online(Script())
    script.chip.place(UID4)
    script.poll()
    script.chip.place(UID7)
    assert script.poll() == [CardLifted("left", UID4), placed(UID7)]


def test_bad_settings_get_a_clear_answer() -> None:
    with pytest.raises(ValueError, match="misses_to_lift must be at least 1"):
        Pn532Reader("left", "pn532sim://left", misses_to_lift=0)
    with pytest.raises(ValueError, match="positive delays"):
        Pn532Reader("left", "pn532sim://left", backoff=())
    with pytest.raises(ValueError, match="ATS starts with its own length"):
        sim_chip("left").place(UID4, ats=b"\x09\x01")
    with pytest.raises(ValueError, match="4, 7 or 10 bytes"):
        sim_chip("left").place(b"\x01\x02\x03")


def test_a_port_name_that_cannot_be_opened_is_reported_clearly() -> None:
    reader = Pn532Reader("left", "nosuchscheme://left")
    [status] = reader.poll(0.0)
    assert not status.online
    assert status.message.startswith("reader left: cannot open nosuchscheme://left (")
    assert status.message.endswith("): check the port name")


def test_a_port_another_program_holds_is_reported_as_in_use_not_garbled() -> None:
    # A real serial device (a pty) opened the way the box opens it: exclusively.
    from box.core.hardware import serial_opener

    controller, device = os.openpty()
    path = os.ttyname(device)
    held = serial_opener(115200)(path)  # the running service holds the port
    try:
        reader = Pn532Reader("left", path, open_port=serial_opener(115200))
        [status] = reader.poll(0.0)
        assert not status.online
        assert status.message == (
            f"reader left: {path} is in use by another program (the running box?): "
            "stop it first (sudo systemctl stop gravebox) or use the box's own menu"
        )
        assert select.select([controller], [], [], 0)[0] == [], "the refused reader wrote nothing to the port"
    finally:
        held.close()
        os.close(device)
        os.close(controller)


# --- unplugging -------------------------------------------------------------------------------


@pytest.mark.parametrize("error", [termios.error, OSError, serial.SerialException])
def test_unplugging_lifts_the_card_and_names_reader_and_port(error: type[Exception]) -> None:
    script = online(Script())
    script.chip.place(UID4)
    script.poll()
    script.chip.unplug(error)
    assert script.poll() == [
        CardLifted("left", UID4),
        ReaderStatus("left", False, "reader left: unplugged (pn532sim://left): check its cable"),
    ]
    assert not script.reader.online
    assert script.poll(100) == []
    script.chip.replug()
    _, events = script.poll_until(ReaderStatus)
    assert events == [
        ReaderStatus("left", True, "reader left: ready on pn532sim://left (PN532 v1.6)"),
        placed(UID4, lying=True),  # it lay there through the unplug: not a new tap
    ]


def test_reopening_backs_off_and_caps_the_delay() -> None:
    script = online(Script())
    script.chip.unplug()
    opens_before = script.chip.open_attempts
    attempts: list[float] = []
    for _ in range(300):  # 15 s of fake time
        before = script.chip.open_attempts
        script.poll()
        if script.chip.open_attempts > before:
            attempts.append(script.now - INTERVAL)
    assert script.chip.open_attempts - opens_before == len(attempts)
    delays = [0.5, 1.0] + [1.5] * (len(attempts) - 3)  # the first retry (0.25 s) is the unplug's
    assert len(attempts) >= 10
    for (earlier, later), delay in zip(itertools.pairwise(attempts), delays, strict=True):
        assert delay - 1e-9 <= later - earlier <= delay + INTERVAL + 1e-9


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(unplugged_for=st.floats(0.0, 12.0))
def test_a_replugged_reader_is_back_within_two_seconds(unplugged_for: float) -> None:
    forget_sim_chips()
    script = online(Script())
    script.chip.unplug()
    script.poll()
    while script.now < 1.0 + unplugged_for:
        script.poll()
    script.chip.replug()
    replugged_at = script.now
    at, [status] = script.poll_until(ReaderStatus)
    assert status.online
    assert at - replugged_at <= 1.5 + INTERVAL < 2.0


# --- garbage on the line ----------------------------------------------------------------------

line_noise = st.lists(
    st.one_of(
        st.binary(max_size=16),
        st.just(START_CODE),
        st.sampled_from([ACK, NACK, ERROR_FRAME]),
        st.binary(max_size=12).map(lambda data: encode_frame(0xD5, data)),
        st.binary(max_size=12).map(lambda data: encode_frame(0xD5, data)[: -1 - len(data) // 2]),
        st.integers(1, 40).map(lambda length: START_CODE + bytes([length, -length & 0xFF])),
    ),
    min_size=1,
    max_size=6,
).map(b"".join)


def card_frames_in(line: bytes) -> list[Response]:
    return [
        frame
        for frame in FrameDecoder().feed(line)
        if isinstance(frame, Response) and frame.payload[:1] == b"\x4b" and frame.payload[1:2] != b"\x00"
    ]


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(noise=st.lists(line_noise, min_size=1, max_size=4))
def test_garbage_on_the_line_never_yields_a_card(noise: list[bytes]) -> None:
    no_card_answer = encode_frame(0xD5, b"\x4b\x00")
    assume(not any(card_frames_in(ACK + garbage + no_card_answer) for garbage in noise))
    forget_sim_chips()
    script = online(Script())
    for garbage in noise:
        script.chip.garbage(garbage)
        assert script.poll() == []
        assert script.reader.online


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(noise=st.lists(line_noise, min_size=1, max_size=4))
def test_garbage_on_the_line_never_lifts_or_changes_a_card(noise: list[bytes]) -> None:
    card_answer = encode_frame(0xD5, b"\x4b\x01\x01\x00\x04\x08\x04" + UID4)
    assume(not any(card_frames_in(ACK + garbage + card_answer)[:-1] for garbage in noise))
    forget_sim_chips()
    script = online(Script())
    script.chip.place(UID4)
    assert script.poll() == [placed(UID4)]
    for garbage in noise:
        script.chip.garbage(garbage)
        assert script.poll() == []


@pytest.mark.parametrize("noise", [ERROR_FRAME, NACK], ids=["error frame", "NACK"])
def test_an_error_frame_or_nack_in_line_noise_is_retried(noise: bytes) -> None:
    script = online(Script())
    script.chip.place(UID4)
    script.chip.garbage(noise)
    aborts_before = script.chip.aborts
    assert script.poll() == [placed(UID4)]
    assert script.chip.aborts == aborts_before + 1


def test_a_board_that_is_not_a_pn532_is_reported() -> None:
    script = Script()
    script.chip.firmware_version = bytes.fromhex("33010607")
    [status] = script.poll()
    assert status == ReaderStatus(
        "left",
        False,
        "reader left: unexpected answer on pn532sim://left"
        " (GetFirmwareVersion answer that is not a PN532: 33010607): is it a PN532?",
    )


def test_a_chip_that_keeps_rejecting_commands_is_reported() -> None:
    chip = sim_chip("left")

    def open_port_with_error_frames(port: str) -> serial.Serial:
        """A line where an error frame comes before every answer."""
        line = serial.serial_for_url(port, baudrate=115200, timeout=0.02)
        write = line.write
        line.write = lambda data: (chip.garbage(ERROR_FRAME), write(data))[1]
        return line

    reader = Pn532Reader("left", "pn532sim://left", open_port=open_port_with_error_frames)
    assert reader.poll(0.0) == [
        ReaderStatus(
            "left", False, "reader left: the chip on pn532sim://left rejected SAM_CONFIGURATION: is it a PN532?"
        )
    ]


def test_the_simulated_chip_answers_unknown_commands_with_an_error_frame() -> None:
    sim_chip("left")
    port = serial.serial_for_url("pn532sim://left", baudrate=115200, timeout=0.02)
    port.write(b"\x55" + encode_frame(0xD4, b"\x14\x01") + encode_frame(0xD4, b"\x99"))
    assert FrameDecoder().feed(port.read(100)) == [Ack(), Response(0xD5, b"\x15"), Ack(), ErrorFrame()]


# --- the thread -------------------------------------------------------------------------------


def next_event(events: queue.Queue[ReaderEvent], wanted: type) -> ReaderEvent:
    while True:
        event = events.get(timeout=5)
        if isinstance(event, wanted):
            return event


def test_the_thread_delivers_events_and_stops() -> None:
    chip = sim_chip("right")
    events: queue.Queue[ReaderEvent] = queue.Queue()
    thread = ReaderThread(Pn532Reader("right", "pn532sim://right"), events.put, interval=0.005)
    thread.start()
    assert next_event(events, ReaderStatus).online
    chip.place(UID7)
    assert next_event(events, CardPlaced) == placed(UID7, reader="right")
    chip.lift()
    assert next_event(events, CardLifted) == CardLifted("right", UID7)
    thread.stop()
    assert not thread._thread.is_alive()
    assert not thread.reader.online


def test_the_thread_waits_between_polls_instead_of_spinning() -> None:
    chip = sim_chip("right")
    events: queue.Queue[ReaderEvent] = queue.Queue()
    with ReaderThread(Pn532Reader("right", "pn532sim://right"), events.put, interval=0.05):
        assert next_event(events, ReaderStatus).online
        started, polls_before = time.monotonic(), chip.commands[Command.IN_LIST_PASSIVE_TARGET]
        with pytest.raises(queue.Empty):
            events.get(timeout=0.3)
        elapsed = time.monotonic() - started
        polls = chip.commands[Command.IN_LIST_PASSIVE_TARGET] - polls_before
    assert polls <= elapsed / 0.05 + 2


def test_stopping_does_not_wait_out_a_long_interval() -> None:
    events: queue.Queue[ReaderEvent] = queue.Queue()
    thread = ReaderThread(Pn532Reader("right", "pn532sim://right"), events.put, interval=60.0)
    thread.start()
    next_event(events, ReaderStatus)
    started = time.monotonic()
    thread.stop()
    assert time.monotonic() - started < 1.0


def test_a_non_positive_interval_is_refused() -> None:
    with pytest.raises(ValueError, match="interval must be positive"):
        ReaderThread(Pn532Reader("right", "pn532sim://right"), print, interval=0)


def test_a_driver_fault_is_reported_and_the_thread_keeps_polling(monkeypatch):
    import threading

    import box.ports.nfc.reader as reader_module

    monkeypatch.setattr(reader_module, "FAULT_PAUSE", 0.0)
    polled_again = threading.Event()
    calls = []

    class Faulty(Pn532Reader):
        def watch(self, now, interval=0.05, keepalive=1.0):
            calls.append(now)
            if len(calls) == 1:
                raise RuntimeError("boom")
            polled_again.set()
            return [], interval

    events = queue.Queue()
    with ReaderThread(Faulty("left", "pn532sim://fault-left"), events.put, interval=0.001):
        status = events.get(timeout=5)
        assert polled_again.wait(timeout=5)
    assert status.online is False
    assert "driver fault (boom)" in status.message
