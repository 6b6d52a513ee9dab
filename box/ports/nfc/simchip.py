"""A simulated PN532 in HSU mode, reached through pyserial as ``pn532sim://NAME``.

The chip speaks the real frame protocol: it decodes what the host writes with the same codec
and answers synchronously, so a poll against it takes no real time and ``read()`` returns
what is buffered, possibly ``b""``, without waiting. The one answer that comes later is an
InListPassiveTarget waiting for a card (MxRtyPassiveActivation 0xFF): it is sent when a card
is placed, and a read waits for it up to the port's timeout, as on a real line. Importing
this module registers the URL scheme with pyserial.

>>> from box.ports.nfc.codec import FrameDecoder, encode_command
>>> from box.ports.nfc.commands import SAM_NORMAL_MODE, WAKE_UP, Command
>>> chip = sim_chip("doc-example")
>>> chip.place(bytes.fromhex("04a1b2c3d4e5f6"))
>>> port = serial.serial_for_url("pn532sim://doc-example", baudrate=115200, timeout=0.02)
>>> _ = port.write(WAKE_UP + encode_command(Command.SAM_CONFIGURATION, SAM_NORMAL_MODE))
>>> FrameDecoder().feed(port.read(64))
[Ack(), Response(tfi=213, payload=b'\\x15')]
>>> chip.commands[Command.SAM_CONFIGURATION]
1
>>> forget_sim_chips()
"""

from __future__ import annotations

import errno
import threading
from collections import Counter
from collections.abc import Callable

import serial

from box.ports.nfc.codec import (
    ACK,
    CHIP_TO_HOST,
    ERROR_FRAME,
    HOST_TO_CHIP,
    Ack,
    Frame,
    FrameDecoder,
    Nack,
    Response,
    encode_frame,
)
from box.ports.nfc.commands import (
    MAX_RETRIES_CONFIG_ITEM,
    PAGE_SIZE,
    POWER_UP_RATE,
    READ_SIZE,
    SERIAL_RATES,
    TAG_READ,
    TAG_WRITE,
    TARGET,
    Command,
)
from box.ports.nfc.ntag import (
    CC_PAGE,
    CC_READ_ONLY,
    FIRST_USER_PAGE,
    NTAG213,
    STATIC_LOCK_PAGE,
    NtagType,
    encode_card,
    locked_pages,
    write_plan,
)
from box.words import UID_LENGTHS

URL_SCHEME = "pn532sim"
FIRMWARE_VERSION = bytes([0x32, 0x01, 0x06, 0x07])
WAITS_FOREVER = 0xFF
"""MxRtyPassiveActivation at power-up: InListPassiveTarget never answers while no card is there."""
_ATQA_BY_UID_LENGTH = {4: b"\x00\x04", 7: b"\x00\x44", 10: b"\x00\x84"}
_ISO14443_4_SAK = 0x20
MIFARE_CLASSIC_SAK = 0x08
STATUS_TIMEOUT = 0x01
"""InDataExchange status when the tag does not answer (it left the field)."""
STATUS_NAK = 0x14
"""InDataExchange status the simulator gives for a tag's NAK (a locked page, a refused command) (verify on a Pi)."""
STATUS_NO_TARGET = 0x27
"""InDataExchange status when no target is selected (none listed, or released)."""


class SimTag:
    """A card to lay on a simulated reader that answers no Type 2 command (an ISO 14443-4 card).

    Subclasses model memory: :class:`SimNtag` and :class:`SimMifareClassic`.
    """

    def __init__(self, uid: bytes, sak: int = _ISO14443_4_SAK, ats: bytes = b"") -> None:
        if len(uid) not in UID_LENGTHS:
            raise ValueError(f"a card UID has 4, 7 or 10 bytes, not {len(uid)}")
        if ats and ats[0] != len(ats):
            raise ValueError(f"an ATS starts with its own length ({len(ats)}), not {ats[0]}")
        self.uid, self.sak, self.ats = bytes(uid), sak, bytes(ats)

    def read(self, page: int) -> bytes | None:
        """READ: 16 bytes from ``page``, or None for a NAK."""
        return None

    def write(self, page: int, data: bytes) -> bool:
        """WRITE one page; False for a NAK."""
        return False


class SimMifareClassic(SimTag):
    """A MIFARE Classic 1K: every read and write needs a sector key first, so it refuses both."""

    def __init__(self, uid: bytes) -> None:
        super().__init__(uid, MIFARE_CLASSIC_SAK)


class SimNtag(SimTag):
    """An NTAG213/215/216's memory: UID pages, lock bytes, the CC, user memory, configuration.

    Fresh from the factory: NDEF-formatted, an empty NDEF TLV. WRITE refuses pages 0-1 and
    locked pages; the lock bytes and the CC only ever gain bits (one-time programmable).

    >>> tag = SimNtag(bytes.fromhex("04a1b2c3d4e5f6"), card=("deadlines", "dl042"))
    >>> from box.ports.nfc.ntag import identify
    >>> identify(tag.user_memory(), NTAG213.data_size).card
    ('deadlines', 'dl042')
    """

    def __init__(self, uid: bytes, kind: NtagType = NTAG213, card: tuple[str, str] | None = None) -> None:
        super().__init__(uid, 0x00)
        self.kind = kind
        self.memory = kind.blank_image()
        uid = self.uid.ljust(7, b"\x00")[:7]
        self.memory[0:4] = uid[:3] + bytes([0x88 ^ uid[0] ^ uid[1] ^ uid[2]])
        self.memory[4:8] = uid[3:7]
        self.memory[8] = uid[3] ^ uid[4] ^ uid[5] ^ uid[6]
        if card is not None:
            for page, data in write_plan(encode_card(*card), kind):
                self.write(page, data)

    def user_memory(self) -> bytes:
        start = FIRST_USER_PAGE * PAGE_SIZE
        return bytes(self.memory[start : start + self.kind.data_size])

    def lock(self) -> None:
        """Make the tag read-only as a sold-locked sticker is: CC access 0F, every lock bit set."""
        self.memory[CC_PAGE * PAGE_SIZE + 3] = CC_READ_ONLY
        self.memory[STATIC_LOCK_PAGE * PAGE_SIZE + 2 : STATIC_LOCK_PAGE * PAGE_SIZE + 4] = b"\xff\xff"
        if self.kind.lock_granularity:
            lock_at = self.kind.dynamic_lock_page * PAGE_SIZE
            self.memory[lock_at : lock_at + 3] = b"\xff\xff\xff"

    def read(self, page: int) -> bytes | None:
        if page >= self.kind.pages:
            return None
        doubled = self.memory + self.memory  # READ rolls over past the last page
        return bytes(doubled[page * PAGE_SIZE : page * PAGE_SIZE + READ_SIZE])

    def write(self, page: int, data: bytes) -> bool:
        if page < STATIC_LOCK_PAGE or page >= self.kind.pages or len(data) != PAGE_SIZE or self._locked(page):
            return False
        at = page * PAGE_SIZE
        if page in (STATIC_LOCK_PAGE, CC_PAGE, self.kind.dynamic_lock_page):
            keep = 2 if page == STATIC_LOCK_PAGE else 0  # UID check byte and internal byte stay
            for index in range(keep, PAGE_SIZE):
                self.memory[at + index] |= data[index]
        else:
            self.memory[at : at + PAGE_SIZE] = data
        return True

    def _locked(self, page: int) -> bool:
        static = self.memory[STATIC_LOCK_PAGE * PAGE_SIZE : (STATIC_LOCK_PAGE + 1) * PAGE_SIZE]
        dynamic_at = self.kind.dynamic_lock_page * PAGE_SIZE
        cc_read_only = self.memory[CC_PAGE * PAGE_SIZE + 3] == CC_READ_ONLY
        if cc_read_only and FIRST_USER_PAGE <= page <= self.kind.last_user_page:
            return True  # a tag reader honours the CC; the sticker sold locked has its lock bits set too
        return page in locked_pages(bytes(static), bytes(self.memory[dynamic_at : dynamic_at + 4]), self.kind)


def card_for_uid(uid: bytes, ats: bytes = b"") -> SimTag:
    """The card a bare UID stands for: 4 bytes a MIFARE Classic, with an ATS an ISO 14443-4
    card, otherwise a blank NTAG213."""
    if ats:
        return SimTag(uid, ats=ats)
    if len(uid) == 4:
        return SimMifareClassic(uid)
    return SimNtag(uid)


class SimulatedPn532:
    """One simulated reader: a card can be placed and lifted, the cable pulled, the line dirtied.

    All methods are thread-safe: a test thread moves cards while a reader thread polls.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self.firmware_version = FIRMWARE_VERSION
        """GetFirmwareVersion's answer: IC, version, revision, support (set another IC to fake a wrong board)."""
        self.silent = False
        """When true the chip never answers (a board whose switch is not set to HSU)."""
        self.commands: Counter[int] = Counter()
        """How many commands of each code the chip has taken (after waking)."""
        self.aborts = 0
        """How many ACK frames the host sent to abort a command."""
        self.open_attempts = 0
        """How many times a port to this chip was opened (or tried while unplugged)."""
        self._lock = threading.Lock()
        self._sent = threading.Condition(self._lock)
        """Notified when the chip sends on its own (a waited-for card), is unplugged, or a read is cancelled."""
        self._cancel_read = False
        self._card: SimTag | None = None
        self._selected = False
        self._tear_after: int | None = None
        self._plugged = True
        self._connection = 0
        self._io_error: type[Exception] = serial.SerialException
        self._pending_garbage = bytearray()
        self.fastest_rate = SERIAL_RATES[-1]
        """The fastest rate the line carries (its wires, the host's adapter): above it the bytes are garbled."""
        self.host_rate = POWER_UP_RATE
        """The rate the host's port is set to (its pyserial port says it on each change)."""
        self._power_up()

    def _power_up(self) -> None:
        """Fresh from power-up: asleep, SAM not configured, default retries, nothing buffered."""
        self._asleep = True
        self._lost_after_wake = 0
        self._sam_configured = False
        self._passive_retries = WAITS_FOREVER
        self._decoder = FrameDecoder()
        self._output = bytearray()
        self._last_response = b""
        self._target_wanted = False
        """An InListPassiveTarget waits for a card: it is answered when one is placed."""
        self.rate = POWER_UP_RATE
        """The chip's own HSU rate: it hears and is heard only by a host set to it, on a line that carries it."""
        self._rate_after_ack: int | None = None  # SetSerialBaudRate answered: the rate taken at the host's ACK

    # --- what a test does to the chip -------------------------------------------------

    def place(self, card: bytes | SimTag, ats: bytes = b"") -> None:
        """Lay a card on the reader: a :class:`SimTag`, or a bare 4-, 7- or 10-byte UID
        (see :func:`card_for_uid`; ``ats``: an ISO 14443-4 card's ATS)."""
        tag = card if isinstance(card, SimTag) else card_for_uid(bytes(card), ats)
        with self._lock:
            self._card, self._selected = tag, False
            if self._target_wanted and self._plugged:
                self._target_wanted, self._selected = False, True
                self._respond(self._frame(Command.IN_LIST_PASSIVE_TARGET, self._target_data(tag)))
                self._sent.notify_all()

    def lift(self) -> None:
        """Take the card away."""
        with self._lock:
            self._card, self._selected = None, False

    def lift_during_write(self, after_pages: int = 1) -> None:
        """Lift the card during a later write: ``after_pages`` page writes succeed, the next
        one is torn (half its bytes written) and the card is gone."""
        with self._lock:
            self._tear_after = after_pages

    @property
    def card(self) -> SimTag | None:
        """The card on the reader."""
        with self._lock:
            return self._card

    def unplug(self, error: type[Exception] = serial.SerialException) -> None:
        """Pull the cable: opening fails and I/O on an open port raises ``error`` (e.g. ``termios.error``)."""
        with self._lock:
            self._plugged = False
            self._io_error = error
            self._connection += 1
            self._sent.notify_all()

    def replug(self) -> None:
        """Plug the cable back: the chip powers up asleep; ports opened before stay dead."""
        with self._lock:
            self._plugged = True
            self._power_up()

    def sleep(self, slow_wake: int = 0) -> None:
        """Put the chip back in low-power mode (its HSU rate kept); after waking it loses ``slow_wake`` more frames."""
        with self._lock:
            rate = self.rate
            self._power_up()
            self.rate, self._lost_after_wake = rate, slow_wake

    def garbage(self, data: bytes) -> None:
        """Bytes that arrive on the line just before the next response frame."""
        with self._lock:
            self._pending_garbage += data

    @property
    def passive_activation_retries(self) -> int:
        """RFConfiguration MxRtyPassiveActivation as the host last set it (0xFF: wait forever)."""
        with self._lock:
            return self._passive_retries

    # --- the serial side, used by the pyserial handler ----------------------------------

    def connect(self) -> int:
        """Open the port: a connection number, or SerialException when unplugged."""
        with self._lock:
            self.open_attempts += 1
            if not self._plugged:
                raise serial.SerialException(errno.ENOENT, f"could not open port {URL_SCHEME}://{self.name}")
            return self._connection

    def receive(self, connection: int, data: bytes) -> None:
        """Bytes the host writes: a sleeping chip loses them up to the wake-up ``55``."""
        with self._lock:
            self._check_line(connection)
            if self.silent or not self._in_tune():
                return  # garbled at the wrong rate: no frame comes out of it
            if self._asleep:
                wake_at = data.find(b"\x55")
                if wake_at < 0:
                    return
                self._asleep = False
                data = data[wake_at:]
            for frame in self._decoder.feed(data):
                self._answer(frame)

    def send(self, connection: int, size: int, timeout: float | None = 0.0) -> bytes:
        """Up to ``size`` bytes the chip has sent and the host has not read yet.

        With nothing sent yet and a card awaited, wait up to ``timeout`` seconds (None: until
        a card comes or :meth:`cancel_read`); otherwise answer at once, since nothing else
        would arrive in the meantime.
        """
        with self._lock:
            self._check_line(connection)
            if not self._in_tune():
                self._output.clear()  # garbled at the wrong rate: the host makes no frame of it
                return b""
            if not self._output and self._target_wanted and (timeout is None or timeout > 0):
                self._sent.wait_for(lambda: self._output or self._cancel_read or not self._line_ok(connection), timeout)
                self._check_line(connection)
            self._cancel_read = False
            data = bytes(self._output[:size])
            del self._output[:size]
            return data

    def waiting(self, connection: int) -> int:
        """How many sent bytes the host has not read yet."""
        with self._lock:
            self._check_line(connection)
            return len(self._output)

    def discard_output(self, connection: int) -> None:
        """Drop the sent bytes the host has not read (the host reset its input buffer)."""
        with self._lock:
            self._check_line(connection)
            self._output.clear()

    def cancel_read(self) -> None:
        """End a read that waits for a card (the next read, if none waits now)."""
        with self._lock:
            self._cancel_read = True
            self._sent.notify_all()

    def set_host_rate(self, rate: int) -> None:
        """The host's port changed its rate (pyserial's reconfigure): what it sends and hears now."""
        with self._lock:
            self.host_rate = rate

    def _in_tune(self) -> bool:
        """Whether host and chip hear each other: the same rate, one the line carries."""
        return self.host_rate == self.rate <= self.fastest_rate

    def _line_ok(self, connection: int) -> bool:
        return self._plugged and connection == self._connection

    def _check_line(self, connection: int) -> None:
        if not self._line_ok(connection):
            raise self._io_error(errno.EIO, "Input/output error")

    # --- the chip's firmware -------------------------------------------------------------

    def _answer(self, frame: Frame) -> None:
        if isinstance(frame, Ack) and self._rate_after_ack is not None:
            self.rate, self._rate_after_ack = self._rate_after_ack, None  # SetSerialBaudRate's ACK: the new rate
        elif isinstance(frame, Ack):
            self.aborts += 1
            self._target_wanted = False
        elif isinstance(frame, Nack):
            self._output += self._last_response
        elif isinstance(frame, Response) and frame.tfi == HOST_TO_CHIP and frame.payload:
            self._answer_command(frame.payload[0], frame.payload[1:])
        elif self._sam_configured:
            self._respond(ERROR_FRAME)

    def _answer_command(self, command: int, params: bytes) -> None:
        if self._lost_after_wake:
            self._lost_after_wake -= 1
            return
        if not self._sam_configured and command != Command.SAM_CONFIGURATION:
            return
        self._target_wanted, self._rate_after_ack = False, None
        self.commands[command] += 1
        self._output += ACK
        answer = self._command_answer(command, params)
        if answer is not None:
            self._respond(answer)

    def _command_answer(self, command: int, params: bytes) -> bytes | None:
        """The frame answering a command, or None when the chip keeps the host waiting."""
        match command:
            case Command.GET_FIRMWARE_VERSION:
                return self._frame(command, self.firmware_version)
            case Command.SET_SERIAL_BAUD_RATE if len(params) == 1 and params[0] < len(SERIAL_RATES):
                self._rate_after_ack = SERIAL_RATES[params[0]]
                return self._frame(command)
            case Command.SAM_CONFIGURATION if params[:1] == b"\x01":
                self._sam_configured = True
                return self._frame(command)
            case Command.RF_CONFIGURATION if params[:1] == bytes([MAX_RETRIES_CONFIG_ITEM]) and len(params) == 4:
                self._passive_retries = params[3]
                return self._frame(command)
            case Command.RF_CONFIGURATION:
                return self._frame(command)
            case Command.IN_LIST_PASSIVE_TARGET if params[:2] in (b"\x01\x00", b"\x02\x00"):
                if self._card is None:
                    self._target_wanted = self._passive_retries == WAITS_FOREVER
                    return None if self._target_wanted else self._frame(command, b"\x00")
                self._selected = True
                return self._frame(command, self._target_data(self._card))
            case Command.IN_RELEASE if len(params) == 1:
                self._selected = False
                return self._frame(command, b"\x00")
            case Command.IN_DATA_EXCHANGE if len(params) >= 2:
                return self._frame(command, self._exchange(params[0], params[1:]))
        return ERROR_FRAME

    @staticmethod
    def _target_data(card: SimTag) -> bytes:
        """``NbTg Tg ATQA SAK UIDlen UID [ATS]`` for the card on the reader."""
        return b"\x01\x01" + _ATQA_BY_UID_LENGTH[len(card.uid)] + bytes([card.sak, len(card.uid)]) + card.uid + card.ats

    def _exchange(self, target: int, tag_command: bytes) -> bytes:
        """``Status [data]``: the selected tag's answer to a READ or WRITE."""
        if target != TARGET or not self._selected:
            return bytes([STATUS_NO_TARGET])
        card = self._card
        assert card is not None  # lifting a card deselects it
        if tag_command[0] == TAG_READ and len(tag_command) == 2:
            pages = card.read(tag_command[1])
            return bytes([STATUS_NAK]) if pages is None else b"\x00" + pages
        if tag_command[0] == TAG_WRITE and len(tag_command) == 2 + PAGE_SIZE:
            page, data = tag_command[1], tag_command[2:]
            if self._tear_after is not None:
                if self._tear_after == 0:
                    self._tear_after = None
                    if isinstance(card, SimNtag) and (before := card.read(page)) is not None:
                        card.write(page, data[:2] + before[2:PAGE_SIZE])
                    self._card, self._selected = None, False
                    return bytes([STATUS_TIMEOUT])
                self._tear_after -= 1
            return b"\x00" if card.write(page, data) else bytes([STATUS_NAK])
        return bytes([STATUS_NAK])

    @staticmethod
    def _frame(command: int, data: bytes = b"") -> bytes:
        return encode_frame(CHIP_TO_HOST, bytes([command + 1]) + data)

    def _respond(self, frame: bytes) -> None:
        self._output += self._pending_garbage + frame
        self._pending_garbage.clear()
        self._last_response = frame


class SimChips:
    """A set of simulated chips by name: the other ends of ``pn532sim://NAME`` ports.

    The simulator makes one when it starts and hands it to the parts it opens (its `opener`
    opens readers wired to these chips); its chips outlive a simulated power cut.

    >>> chips = SimChips()
    >>> port = chips.opener()("pn532sim://left")
    >>> port.chips is chips, chips.chip("left").name
    (True, 'left')
    """

    def __init__(self) -> None:
        self._chips: dict[str, SimulatedPn532] = {}
        self._lock = threading.Lock()

    def chip(self, name: str) -> SimulatedPn532:
        """The chip called `name` (made on first use)."""
        with self._lock:
            return self._chips.setdefault(name, SimulatedPn532(name))

    def forget(self) -> None:
        """Drop every chip, so the next use starts from fresh ones."""
        with self._lock:
            self._chips.clear()

    def opener(self) -> Callable[[str], serial.Serial]:
        """A reader's `open_port` for ``pn532sim://`` URLs wired to these chips."""

        def open_port(url: str) -> serial.Serial:
            port = serial.serial_for_url(url, baudrate=POWER_UP_RATE, do_not_open=True)
            if not hasattr(port, "chips"):  # not protocol_pn532sim's Serial, which finds its chip there
                raise ValueError(f"{url!r} is not a {URL_SCHEME}://NAME port")
            port.chips = self  # the URL handler's Serial finds its chip here
            port.open()
            return port

        return open_port


STANDALONE = SimChips()
"""The chips of readers opened with a plain ``serial_for_url`` (tests and benches of one driver)."""


def sim_chip(name: str) -> SimulatedPn532:
    """A chip of `STANDALONE`: behind ``pn532sim://NAME`` for a reader opened without a `SimChips`."""
    return STANDALONE.chip(name)


def forget_sim_chips() -> None:
    """Drop `STANDALONE`'s chips, so the next test starts from fresh ones."""
    STANDALONE.forget()


if __package__ not in serial.protocol_handler_packages:  # let serial_for_url open pn532sim:// URLs
    serial.protocol_handler_packages.append(__package__)
