"""Watch a PN532 card reader over a serial port (HSU) and turn what it sees into events.

:class:`Pn532Reader` owns no thread. On virtual time (the simulator, tests) it is polled:
one :meth:`~Pn532Reader.poll` call is one cycle. In real time it is watched: with the chip
set to retry until a card comes, :meth:`~Pn532Reader.watch` leaves one InListPassiveTarget
pending and sits in a read until the card answers it, so an idle reader costs no CPU and
almost no wake-ups. :func:`start_readers` watches every reader of a box, each on its own
thread, and hands the events to the loop.

>>> from box.ports.nfc.simchip import SimNtag, forget_sim_chips, sim_chip
>>> reader = Pn532Reader("left", "pn532sim://doc-left")
>>> reader.poll(now=0.0)
[ReaderStatus(reader='left', online=True, message='reader left: ready on pn532sim://doc-left (PN532 v1.6)')]
>>> sim_chip("doc-left").place(SimNtag(bytes.fromhex("04a1b2c3d4e5f6"), card=("deadlines", "dl042")))
>>> [placed] = reader.poll(now=0.05)
>>> placed.uid.hex(), placed.lying, placed.card
('04a1b2c3d4e5f6', False, ('deadlines', 'dl042'))
>>> reader.poll(now=0.1)
[]
>>> reader.request_write(WriteCard("left", placed.uid, ("deadlines", "dl007")))
>>> reader.poll(now=0.15)[0].message
'it is already deadlines dl042'
>>> reader.request_write(WriteCard("left", placed.uid, ("deadlines", "dl007"), overwrite=True))
>>> reader.poll(now=0.2)[0].outcome
<WriteOutcome.WRITTEN: 'written'>
>>> reader.close(); forget_sim_chips()
"""

from __future__ import annotations

import errno
import logging
import termios
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from typing import TYPE_CHECKING, TypeVar

import serial

from box.messages import CardLifted, CardPlaced, CardWritten, ReaderEvent, ReaderStatus, WriteCard, WriteOutcome
from box.ports.nfc.codec import ACK, CHIP_TO_HOST, Ack, ErrorFrame, Frame, FrameDecoder, Nack, Response, encode_command
from box.ports.nfc.commands import (
    MAX_RETRIES,
    MAX_RETRIES_CONFIG_ITEM,
    ONE_TYPE_A_TARGET,
    POWER_UP_RATE,
    RELEASE_ALL_TARGETS,
    SAM_NORMAL_MODE,
    SERIAL_RATES,
    WAKE_UP,
    BadAnswer,
    Command,
    Target,
    parse_firmware,
    parse_target,
)

if TYPE_CHECKING:
    from box.ports import ReaderPort
    from box.ports.nfc.ntag import Identity

logger = logging.getLogger(__name__)

BAUD_RATE = POWER_UP_RATE
"""The rate a port is opened at: the chip's after power-up."""
FAST_RATE = 460800
"""The rate the driver asks the chip for (SetSerialBaudRate): a known tag's answer crosses the line
in under 1 ms instead of 3.4 ms; where the line does not carry it, the reader stays at BAUD_RATE and says so."""
RATE_SETTLE = 0.002
"""Seconds between the ACK that makes the chip change its rate and the host changing its own."""
READ_TIMEOUT = 0.02
"""Longest one read waits for its first byte (seconds)."""
QUIET_READS = 4
"""Empty reads in a row before an answer counts as missing (about 80 ms on a real port)."""
MAX_READS = 16
"""Reads per command, so a line that never stops babbling cannot hold the driver."""
ATTEMPTS = 2
"""Tries per command: one retry after no answer, a NACK, an error frame or a garbled answer."""
WAKE_ATTEMPTS = 3
"""Wake-up + SAMConfiguration tries on connect: a sleeping chip may lose the first ones."""
WAIT_FOR_CARD = bytes([MAX_RETRIES_CONFIG_ITEM, 0xFF, 0x01, 0xFF])
"""RFConfiguration for watching: the chip retries activation until a card comes, answering at once."""
KEEPALIVE = 1.0
"""Longest a watched reader with no card waits before checking that the chip still answers (seconds)."""
SERIAL_ERRORS = (OSError, serial.SerialException, termios.error)
# A port another program holds: pyserial's exclusive=True lock (EAGAIN, EWOULDBLOCK) or EBUSY.
PORT_BUSY = frozenset({errno.EAGAIN, errno.EWOULDBLOCK, errno.EBUSY})
"""What a serial call raises when the device vanishes (pyserial may raise a bare termios.error)."""

KNOWN_RECORDS = 512
"""Tags whose record the readers remember (a few decks' worth; the oldest is forgotten first)."""

T = TypeVar("T")




class KnownRecords:
    """The card each tag's record named when it was last read, by UID, shared by a box's readers.

    A tap of a known tag then costs its InListPassiveTarget and InRelease, not the record's
    READs. Only a record that named a card is kept (a failed read is tried again), and a write
    through any reader forgets the tag: what the box writes is read again on the next lay.

    >>> from box.ports.nfc.ntag import Identity
    >>> known = KnownRecords(limit=2)
    >>> for uid in (b"a", b"b", b"c"):
    ...     known.remember(uid, Identity(("deadlines", uid.decode())))
    >>> known.get(b"a"), known.get(b"c").card
    (None, ('deadlines', 'c'))
    """

    def __init__(self, limit: int = KNOWN_RECORDS) -> None:
        self.limit = limit
        self._known: OrderedDict[bytes, Identity] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, uid: bytes) -> Identity | None:
        with self._lock:
            identity = self._known.get(uid)
            if identity is not None:
                self._known.move_to_end(uid)
            return identity

    def remember(self, uid: bytes, identity: Identity) -> None:
        if identity.card is None:
            return
        with self._lock:
            self._known[uid] = identity
            self._known.move_to_end(uid)
            while len(self._known) > self.limit:
                self._known.popitem(last=False)

    def forget(self, uid: bytes) -> None:
        with self._lock:
            self._known.pop(uid, None)


class _Offline(Exception):
    """The reader cannot be used now; the message is the status line for the user."""


def open_serial(port: str) -> serial.Serial:
    """Open a device path or pyserial URL at 115200 baud with short read timeouts."""
    return serial.serial_for_url(port, baudrate=BAUD_RATE, timeout=READ_TIMEOUT, write_timeout=1.0)


class Pn532Reader:
    """One PN532 reader behind one serial port, polled by calling :meth:`poll`.

    On (re)connect it wakes the chip, sends SAMConfiguration, limits the activation retries
    and checks the firmware; each poll then lists one type A target and releases it. A card
    counts as lifted after ``misses_to_lift`` polls in a row without it. When the port fails
    or the chip stops answering, the reader reports itself offline and reopens the port no
    sooner than the next ``backoff`` delay (the last one repeats).
    """

    def __init__(
        self,
        name: str,
        port: str,
        open_port: Callable[[str], serial.Serial] = open_serial,
        misses_to_lift: int = 3,
        backoff: Sequence[float] = (0.25, 0.5, 1.0, 1.5),
        known: KnownRecords | None = None,
        rate: int = FAST_RATE,
    ) -> None:
        """``rate``: the HSU rate to ask the chip for once it answers at BAUD_RATE (BAUD_RATE: stay there)."""
        if misses_to_lift < 1:
            raise ValueError(f"reader {name}: misses_to_lift must be at least 1, not {misses_to_lift}")
        if not backoff or min(backoff) <= 0:
            raise ValueError(f"reader {name}: backoff needs positive delays in seconds, not {backoff!r}")
        if rate not in SERIAL_RATES:
            raise ValueError(f"reader {name}: a PN532 takes one of {', '.join(map(str, SERIAL_RATES))} baud, not {rate}")
        self.name = name
        self.port = port
        self.misses_to_lift = misses_to_lift
        self.backoff = tuple(backoff)
        self._open_port = open_port
        self.known = known if known is not None else KnownRecords()
        self.rate = rate  # the rate wanted; BAUD_RATE after the chip did not answer at it (see `slow`)
        self.slow = ""  # why the reader stays at BAUD_RATE though another rate was asked for: for its status
        self._serial: serial.Serial | None = None
        self._ready = False
        self._card: bytes | None = None
        self._misses = 0
        self._failed_connects = 0
        self._retry_at = float("-inf")
        self._reported: tuple[bool, str] | None = None
        self._armed = False  # watching: an InListPassiveTarget is pending, answered when a card comes
        self._release_due = False  # a card answered and is still selected: released at the next step
        self._decoder = FrameDecoder()
        self._heard: list[Frame] = []
        self._requests: list[WriteCard] = []
        self._requests_lock = threading.Lock()

    @property
    def online(self) -> bool:
        """True while the chip is initialised and answering."""
        return self._ready

    def poll(self, now: float) -> list[ReaderEvent]:
        """Run one poll cycle at time ``now`` (seconds, monotonic) and return what changed."""
        events: list[ReaderEvent] = []
        try:
            connecting = not self._ready
            if connecting:
                if now < self._retry_at:
                    return events
                version = self._connect(MAX_RETRIES)
                self._ready, self._failed_connects = True, 0
                events += self._report(True, f"reader {self.name}: ready on {self.port} ({version})")
            events += self._scan(connecting)
        except _Offline as problem:
            events += self._go_offline(now, str(problem))
        return events

    def watch(
        self, now: float, interval: float = 0.05, keepalive: float = KEEPALIVE
    ) -> tuple[list[ReaderEvent], float]:
        """One step of watching in real time: what changed, and how long to rest before the next step.

        With no card near, the step blocks in the port's read for up to ``keepalive`` seconds
        until a card answers the pending InListPassiveTarget; then it aborts and re-sends the
        command, so a chip that went silent is noticed. A card is seen at once; while it lies
        there the step checks it again every ``interval``, and it counts as lifted after
        ``misses_to_lift`` checks without an answer. :meth:`interrupt` ends a waiting step.
        A reader is either polled or watched, not both.
        """
        events: list[ReaderEvent] = []
        try:
            if not self._ready:
                if now < self._retry_at:
                    return events, self._retry_at - now
                version = self._connect(MAX_RETRIES)
                self._ready, self._failed_connects = True, 0
                events += self._report(True, f"reader {self.name}: ready on {self.port} ({version})")
                events += self._scan(connecting=True)  # a card there now was left lying: one quick look
                self._exchange(Command.RF_CONFIGURATION, WAIT_FOR_CARD, bytes)
                return events, 0.0 if self._card is None else interval
            if not self._armed:
                self._release()
                self._arm()
            answer = self._await_target(keepalive if self._card is None else interval)
            if answer is None:
                if self._card is not None:
                    events += self._missed()  # still armed: the card coming back answers the command
                else:
                    self._write(ACK)  # no card for `keepalive`: abort; the next step re-arms and hears the chip
                    self._armed = False
                    events += self._missed()  # answers write requests for a tag that is not there
                return events, 0.0
            self._armed = False
            target = self._parsed(Command.IN_LIST_PASSIVE_TARGET, answer, parse_target)
            events += self._missed() if target is None else self._target_found(target, lying=False)
            return events, interval
        except _Offline as problem:
            self._armed = False
            return events + self._go_offline(now, str(problem)), 0.0

    def interrupt(self) -> None:
        """From another thread: end a :meth:`watch` step that waits for a card (a stopping box)."""
        port = self._serial
        if port is not None and hasattr(port, "cancel_read"):
            try:
                port.cancel_read()
            except SERIAL_ERRORS:
                logger.debug("reader %s: cancelling a read failed", self.name, exc_info=True)

    def request_write(self, request: WriteCard) -> None:
        """Queue a write of a card record (safe from any thread); the next poll does it and
        returns a :class:`CardWritten` event (NOT_THERE when the tag is not on the reader)."""
        with self._requests_lock:
            self._requests.append(request)

    def close(self) -> None:
        """Close the serial port; the next poll opens it again."""
        port, self._serial, self._ready, self._armed = self._serial, None, False, False
        self._release_due = False  # a reconnect starts the chip afresh
        if port is not None:
            try:
                port.close()
            except SERIAL_ERRORS:
                logger.debug("reader %s: closing %s failed", self.name, self.port, exc_info=True)

    # --- connecting -------------------------------------------------------------------

    def _connect(self, retries: bytes) -> str:
        """Open the port and initialise the chip with these activation ``retries``; return its firmware version."""
        self.close()
        try:
            self._serial = self._open_port(self.port)
        except ValueError as error:
            raise _Offline(f"reader {self.name}: cannot open {self.port} ({error}): check the port name") from error
        except SERIAL_ERRORS as error:
            if getattr(error, "errno", None) in PORT_BUSY:
                raise _Offline(self._busy_message()) from error
            raise _Offline(self._unplugged_message()) from error
        outcome = self._wake()
        if not isinstance(outcome, Response) and self.rate != BAUD_RATE:
            self._set_rate(self.rate)  # a chip keeps its rate until powered off: an earlier run may have set it
            there = self._wake()
            outcome = there if isinstance(there, Response) or outcome is None else outcome
        if outcome is None and self.slow.startswith(f"{BAUD_RATE} baud: no answer"):
            raise _Offline(self._deaf_message())
        if not isinstance(outcome, Response):
            raise _Offline(self._failure_message(Command.SAM_CONFIGURATION, outcome))
        if self._port().baudrate != self.rate:
            self._speed_up()
        self._exchange(Command.RF_CONFIGURATION, retries, bytes)
        version = self._exchange(Command.GET_FIRMWARE_VERSION, b"", parse_firmware)
        return f"{version}; {self.slow}" if self.slow else version

    def _wake(self) -> Response | ErrorFrame | Nack | None:
        """Wake the chip and configure its SAM, a few tries (a sleeping chip loses the first bytes)."""
        outcome: Response | ErrorFrame | Nack | None = None
        for _ in range(WAKE_ATTEMPTS):
            self._write(WAKE_UP)
            outcome = self._send_and_wait(Command.SAM_CONFIGURATION, SAM_NORMAL_MODE, flush_first=True)
            if isinstance(outcome, Response):
                break
            self._write(ACK)
        return outcome

    def _speed_up(self) -> None:
        """Ask the chip for `rate` (SetSerialBaudRate, then the host's ACK: both change), and check that it
        answers there; else ask it back to BAUD_RATE and stay there, saying why in the reader's status. A
        chip that hears neither keeps the fast rate until it is switched off and on: the reader is then
        offline and says so, and asks for no other rate again."""
        wanted = self.rate
        try:
            self._set_rate(wanted)  # a port (an adapter) that cannot take the rate says so before the chip is asked
            self._set_rate(BAUD_RATE)
        except (_Offline, ValueError) as problem:
            self._stay_slow(f"{BAUD_RATE} baud: its port cannot take {wanted} ({problem})")
            return
        outcome = self._send_and_wait(Command.SET_SERIAL_BAUD_RATE, bytes([SERIAL_RATES.index(wanted)]))
        if not isinstance(outcome, Response):
            self._stay_slow(f"{BAUD_RATE} baud: its chip refused {wanted}")
            return
        self._change_rate(wanted)
        if isinstance(self._send_and_wait(Command.GET_FIRMWARE_VERSION, b"", flush_first=True), Response):
            return
        self._stay_slow(f"{BAUD_RATE} baud: no answer at {wanted}, check its wiring")
        back = encode_command(Command.SET_SERIAL_BAUD_RATE, bytes([SERIAL_RATES.index(BAUD_RATE)]))
        for _ in range(WAKE_ATTEMPTS):  # unheard answers: a garbling line may let one of them through
            self._write(back)
            self._write(ACK)
        self._change_rate(BAUD_RATE)
        if not isinstance(self._wake(), Response):
            raise _Offline(self._deaf_message())

    def _deaf_message(self) -> str:
        return f"reader {self.name}: no answer on {self.port} after a change of rate: switch it off and on"

    def _change_rate(self, rate: int) -> None:
        """The host's side of a change of rate: its ACK sent on the line, a pause, then its port's rate."""
        self._write(ACK)
        self._guarded(self._port().flush)
        time.sleep(RATE_SETTLE)
        self._set_rate(rate)

    def _stay_slow(self, why: str) -> None:
        logger.warning("reader %s: %s", self.name, why)
        self.rate, self.slow = BAUD_RATE, why

    def _set_rate(self, rate: int) -> None:
        port = self._port()
        self._guarded(partial(setattr, port, "baudrate", rate))

    def _go_offline(self, now: float, message: str) -> list[ReaderEvent]:
        self.close()
        events: list[ReaderEvent] = []
        if self._card is not None:
            events.append(CardLifted(self.name, self._card))
            self._card, self._misses = None, 0
        delay = self.backoff[min(self._failed_connects, len(self.backoff) - 1)]
        self._failed_connects += 1
        self._retry_at = now + delay
        return events + self._report(False, message)

    def _report(self, online: bool, message: str) -> list[ReaderEvent]:
        """A status event when the status differs from the last one reported."""
        if self._reported == (online, message):
            return []
        self._reported = (online, message)
        logger.log(logging.INFO if online else logging.WARNING, "%s", message)
        return [ReaderStatus(self.name, online, message)]

    def _busy_message(self) -> str:
        return (
            f"reader {self.name}: {self.port} is in use by another program (the running box?): "
            "stop it first (sudo systemctl stop gravebox) or use the box's own menu"
        )

    def _unplugged_message(self) -> str:
        return f"reader {self.name}: unplugged ({self.port}): check its cable"

    # --- polling ----------------------------------------------------------------------

    def _scan(self, connecting: bool) -> list[ReaderEvent]:
        self._release()
        target = self._exchange(Command.IN_LIST_PASSIVE_TARGET, ONE_TYPE_A_TARGET, parse_target)
        if target is None:
            return self._missed()
        return self._target_found(target, lying=connecting)

    def _target_found(self, target: Target, lying: bool) -> list[ReaderEvent]:
        """A card answered and is still selected: what its answer means.

        The one place, polled or watched, where the chip still talks to the card after it
        answered: a new card's record is read here, and the write requests are done here. The
        card is released at the start of the next step (`_release`), not here: the events go
        to the loop without waiting for InRelease's bytes on the line.
        """
        from box.ports.nfc.tagio import read_identity, write_card  # the tag I/O: see load_tag_io

        identity = None if target.uid == self._card else self.known.get(target.uid)
        if identity is None and target.uid != self._card:
            identity = read_identity(target, self._transceive)
            self.known.remember(target.uid, identity)
        events = self._seen(target.uid, lying, identity)
        for request in self._take_requests():
            if request.uid == target.uid:
                self.known.forget(target.uid)  # written or not, the next lay reads what it holds
            done = write_card(target, request, self._transceive) if request.uid == target.uid else None
            events.append(done or self._not_there(request))
        self._release_due = True
        return events

    def _release(self) -> None:
        """Release the card the last step found, before the chip is asked for a card again."""
        if self._release_due:
            self._release_due = False
            self._exchange(Command.IN_RELEASE, RELEASE_ALL_TARGETS, bytes)

    def _take_requests(self) -> list[WriteCard]:
        with self._requests_lock:
            requests, self._requests = self._requests, []
        return requests

    def _transceive(self, params: bytes) -> bytes:
        """One tag command through InDataExchange: the answer's ``Status [data]``."""
        return self._exchange(Command.IN_DATA_EXCHANGE, params, bytes)

    def _not_there(self, request: WriteCard) -> CardWritten:
        message = f"tag {request.uid.hex()} is not on reader {self.name}: lay it again"
        return CardWritten(request.reader, request.uid, request.card, WriteOutcome.NOT_THERE, message)

    def _seen(self, uid: bytes, lying: bool, identity: Identity | None) -> list[ReaderEvent]:
        """The card ``uid`` answered; ``identity``: what its record says, read when it is new."""
        self._misses = 0
        if identity is None:
            return []
        events: list[ReaderEvent] = [] if self._card is None else [CardLifted(self.name, self._card)]
        self._card = uid
        return [*events, CardPlaced(self.name, uid, lying, identity.card, identity.reason)]

    def _missed(self) -> list[ReaderEvent]:
        """No card answered this step: a pending write request finds no tag."""
        events: list[ReaderEvent] = [self._not_there(request) for request in self._take_requests()]
        if self._card is None:
            return events
        self._misses += 1
        if self._misses < self.misses_to_lift:
            return events
        lifted = CardLifted(self.name, self._card)
        self._card, self._misses = None, 0
        return [*events, lifted]

    # --- talking to the chip --------------------------------------------------------------

    def _exchange(self, command: Command, params: bytes, parse: Callable[[bytes], T]) -> T:
        """Send a command and parse its answer's data, retrying; raise _Offline when it keeps failing."""
        failure: ErrorFrame | Nack | BadAnswer | None = None
        for attempt in range(ATTEMPTS):
            outcome = self._send_and_wait(command, params, flush_first=attempt > 0)
            if isinstance(outcome, Response):
                try:
                    return parse(outcome.payload[1:])
                except BadAnswer as error:
                    failure = error
            else:
                failure = outcome
            self._write(ACK)
        raise _Offline(self._failure_message(command, failure))

    def _parsed(self, command: Command, answer: Response, parse: Callable[[bytes], T]) -> T:
        try:
            return parse(answer.payload[1:])
        except BadAnswer as error:
            raise _Offline(self._failure_message(command, error)) from error

    def _arm(self) -> None:
        """Send InListPassiveTarget and hear the chip take it (its ACK); retry once, else _Offline.

        From then on the chip answers when a card comes; an answer that came with the ACK is kept.
        """
        port = self._port()
        failure: ErrorFrame | Nack | None = None
        for attempt in range(ATTEMPTS):
            if attempt:
                self._write(ACK)
                self._guarded(port.reset_input_buffer)
            self._decoder, self._heard = FrameDecoder(), []
            self._write(encode_command(Command.IN_LIST_PASSIVE_TARGET, ONE_TYPE_A_TARGET))
            quiet_reads = 0
            for _ in range(MAX_READS):
                data = self._guarded(lambda: port.read(max(self._decoder.bytes_wanted(), port.in_waiting)))
                quiet_reads = 0 if data else quiet_reads + 1
                if quiet_reads == QUIET_READS:
                    break
                frames = self._decoder.feed(data)
                if Ack() in frames:
                    self._heard, self._armed = frames[frames.index(Ack()) + 1 :], True
                    return
                failure = next((f for f in frames if isinstance(f, ErrorFrame | Nack)), None)
                if failure is not None:
                    break
        raise _Offline(self._failure_message(Command.IN_LIST_PASSIVE_TARGET, failure))

    def _await_target(self, timeout: float) -> Response | None:
        """The chip's answer to the armed command, waiting in the port's read up to ``timeout`` seconds.

        None when it did not come in time (or the read was interrupted); an error frame is _Offline.
        """
        port = self._port()
        deadline = time.monotonic() + timeout
        short_timeout = port.timeout
        try:
            while True:
                for index, frame in enumerate(self._heard):
                    if isinstance(frame, ErrorFrame):
                        raise _Offline(self._failure_message(Command.IN_LIST_PASSIVE_TARGET, frame))
                    if (
                        isinstance(frame, Response)
                        and frame.tfi == CHIP_TO_HOST
                        and frame.payload[:1] == bytes([Command.IN_LIST_PASSIVE_TARGET.response_code])
                    ):
                        del self._heard[: index + 1]
                        return frame
                self._heard.clear()
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None
                self._guarded(partial(setattr, port, "timeout", remaining))
                data = self._guarded(lambda: port.read(self._decoder.bytes_wanted()))
                if not data:
                    return None
                self._heard += self._decoder.feed(data)
        finally:
            if self._serial is port:
                self._guarded(lambda: setattr(port, "timeout", short_timeout))

    def _failure_message(self, command: Command, outcome: ErrorFrame | Nack | BadAnswer | None) -> str:
        where = f"reader {self.name}"
        if outcome is None:
            return f"{where}: no answer on {self.port}: is its switch on HSU?"
        if isinstance(outcome, ErrorFrame):
            return f"{where}: the chip on {self.port} rejected {command.name}: is it a PN532?"
        if isinstance(outcome, BadAnswer):
            return f"{where}: unexpected answer on {self.port} ({outcome}): is it a PN532?"
        return f"{where}: garbled answers on {self.port}: check its wiring"

    def _send_and_wait(
        self, command: Command, params: bytes, flush_first: bool = False
    ) -> Response | ErrorFrame | Nack | None:
        """Write one command and read until its answer, an error frame, a NACK, or silence.

        ``flush_first`` drops unread input first (stale answers after a failed try); the
        decoder skips anything else that is not the answer, so a good poll saves that call.
        """
        port = self._port()
        if flush_first:
            self._guarded(port.reset_input_buffer)
        self._write(encode_command(command, params))
        decoder = FrameDecoder()
        quiet_reads = 0
        for _ in range(MAX_READS):
            data = self._guarded(lambda: port.read(max(decoder.bytes_wanted(), port.in_waiting)))
            quiet_reads = 0 if data else quiet_reads + 1
            if quiet_reads == QUIET_READS:
                return None
            for frame in decoder.feed(data):
                if isinstance(frame, ErrorFrame | Nack):
                    return frame
                if (
                    isinstance(frame, Response)
                    and frame.tfi == CHIP_TO_HOST
                    and frame.payload[:1] == bytes([command.response_code])
                ):
                    return frame
        return None

    def _write(self, data: bytes) -> None:
        port = self._port()
        self._guarded(lambda: port.write(data))

    def _port(self) -> serial.Serial:
        if self._serial is None:
            raise _Offline(self._unplugged_message())
        return self._serial

    def _guarded(self, call: Callable[[], T]) -> T:
        """Run one serial call; a vanished device becomes _Offline."""
        try:
            return call()
        except SERIAL_ERRORS as error:
            raise _Offline(self._unplugged_message()) from error


def load_tag_io() -> None:
    """Import what reading and writing a card's record needs: the tag I/O, the NTAG model and
    ndeflib (~6 ms here, ten times that on a Zero 2 W). A reader thread calls it as it starts,
    after READY, so neither the box's start nor the first tap waits for it."""
    import ndef  # noqa: F401

    import box.ports.nfc.tagio  # noqa: F401


FAULT_PAUSE = 1.0  # seconds a thread rests after an unexpected driver fault before it reconnects


class ReaderThread:
    """Watch one reader on a daemon thread (see :meth:`Pn532Reader.watch`); hand events to ``on_event``.

    ``on_event`` runs on this thread: it should only enqueue (the loop owns all state).
    ``interval`` is how often a card lying on the reader is checked; ``keepalive`` how long
    the thread waits for a card before checking the chip still answers.

    >>> import queue
    >>> from box.ports.nfc.simchip import forget_sim_chips
    >>> events = queue.Queue()
    >>> with ReaderThread(Pn532Reader("right", "pn532sim://doc-right"), events.put, interval=0.01):
    ...     events.get(timeout=5).online
    True
    >>> forget_sim_chips()
    """

    def __init__(
        self,
        reader: ReaderPort,
        on_event: Callable[[ReaderEvent], None],
        interval: float = 0.05,
        clock: Callable[[], float] = time.monotonic,
        keepalive: float = KEEPALIVE,
    ) -> None:
        if interval <= 0:
            raise ValueError(f"reader {reader.name}: the poll interval must be positive, not {interval}")
        if keepalive <= 0:
            raise ValueError(f"reader {reader.name}: the keepalive must be positive, not {keepalive}")
        self.reader = reader
        self.interval = interval
        self.keepalive = keepalive
        self._on_event = on_event
        self._clock = clock
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"nfc-{reader.name}", daemon=True)

    def start(self) -> None:
        """Start watching."""
        self._thread.start()

    def ask_to_stop(self) -> None:
        """Tell the thread to end, waking it from a wait, without waiting for it."""
        self._stopping.set()
        self.reader.interrupt()

    def stop(self, timeout: float = 2.0) -> None:
        """Stop watching, wait for the thread to end and close the port."""
        self.ask_to_stop()
        if self._thread.is_alive():
            self._thread.join(timeout)
        if not self._thread.is_alive():
            self.reader.close()

    def __enter__(self) -> ReaderThread:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def _run(self) -> None:
        load_tag_io()
        while not self._stopping.is_set():
            try:
                events, rest = self.reader.watch(self._clock(), self.interval, self.keepalive)
            except Exception as fault:  # a driver bug must not silently end this reader for the night
                logger.exception("reader %s: driver fault", self.reader.name)
                self.reader.close()
                events = [ReaderStatus(self.reader.name, False, f"reader {self.reader.name}: driver fault ({fault})")]
                rest = FAULT_PAUSE
            if self._stopping.is_set():
                break  # an interrupted wait is not news
            for event in events:
                self._on_event(event)
            if rest > 0:
                self._stopping.wait(rest)


class Readers:
    """A box's reader threads, as :func:`start_readers` started them; :meth:`stop` ends them all."""

    def __init__(self, threads: Sequence[ReaderThread]) -> None:
        self.threads = tuple(threads)

    def stop(self, timeout: float = 2.0) -> None:
        """Wake and stop every thread at once, then wait for each and close its port."""
        for thread in self.threads:
            thread.ask_to_stop()
        for thread in self.threads:
            thread.stop(timeout)


def start_readers(
    readers: Iterable[ReaderPort],
    on_event: Callable[[ReaderEvent], None],
    interval: float = 0.05,
    keepalive: float = KEEPALIVE,
) -> Readers:
    """Watch every reader on its own thread, each blocked in its port's read while no card is near.

    ``on_event`` is called from those threads and should only enqueue.

    >>> import queue
    >>> from box.ports.nfc.simchip import forget_sim_chips, sim_chip
    >>> events = queue.Queue()
    >>> running = start_readers([Pn532Reader("left", "pn532sim://doc-watch")], events.put)
    >>> events.get(timeout=5).online
    True
    >>> sim_chip("doc-watch").place(bytes.fromhex("04a1b2c3"))
    >>> events.get(timeout=5).uid.hex()
    '04a1b2c3'
    >>> running.stop(); forget_sim_chips()
    """
    threads = [ReaderThread(reader, on_event, interval=interval, keepalive=keepalive) for reader in readers]
    for thread in threads:
        thread.start()
    return Readers(threads)
