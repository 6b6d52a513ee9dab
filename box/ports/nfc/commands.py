"""The PN532 commands the box uses, and pure parsers for their answers.

>>> Command.IN_LIST_PASSIVE_TARGET.response_code
75
>>> parse_target_uid(bytes.fromhex("01 01 0004 08 04 a1b2c3d4")).hex()
'a1b2c3d4'
>>> parse_target_uid(b"\\x00") is None
True
>>> read_params(4).hex(), write_params(4, bytes.fromhex("0300fe00")).hex()
('013004', '01a2040300fe00')
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from box.words import UID_LENGTHS


class Command(IntEnum):
    """Command codes (the byte after TFI D4)."""

    GET_FIRMWARE_VERSION = 0x02
    SET_SERIAL_BAUD_RATE = 0x10
    SAM_CONFIGURATION = 0x14
    RF_CONFIGURATION = 0x32
    IN_DATA_EXCHANGE = 0x40
    IN_LIST_PASSIVE_TARGET = 0x4A
    IN_RELEASE = 0x52

    @property
    def response_code(self) -> int:
        """The code the chip's answer starts with: the command code + 1."""
        return self + 1


WAKE_UP = b"\x55\x55" + bytes(14)
"""Sent before the first command: a sleeping chip in HSU mode loses the first bytes it hears."""
SAM_NORMAL_MODE = bytes([0x01, 0x14, 0x00])
"""SAMConfiguration: normal mode (no secure module), timeout 1 s, no IRQ pin."""
MAX_RETRIES_CONFIG_ITEM = 0x05
MAX_PASSIVE_ACTIVATION_RETRIES = 0x01
"""Two activation tries per InListPassiveTarget; the chip's default (0xFF) waits forever for a card."""
MAX_RETRIES = bytes([MAX_RETRIES_CONFIG_ITEM, 0xFF, 0x01, MAX_PASSIVE_ACTIVATION_RETRIES])
"""RFConfiguration item 5: MxRtyATR, MxRtyPSL, MxRtyPassiveActivation."""
ONE_TYPE_A_TARGET = bytes([0x01, 0x00])
"""InListPassiveTarget: at most one target, 106 kbps type A (MIFARE, NTAG)."""
RELEASE_ALL_TARGETS = bytes([0x00])
SERIAL_RATES = (9600, 19200, 38400, 57600, 115200, 230400, 460800, 921600, 1288000)
"""SetSerialBaudRate's rates, by their code (the index): the chip takes the new one after the host's ACK."""
POWER_UP_RATE = 115200
"""The HSU rate a PN532 has after power-up (and keeps until told otherwise or powered off)."""
PN532_IC = 0x32
TARGET = 0x01
"""The logical number InListPassiveTarget gives the one target it lists."""
TAG_READ = 0x30
"""NTAG/Type 2 READ: 16 bytes, the 4 pages from the one asked (wrapping past the last)."""
TAG_WRITE = 0xA2
"""NTAG/Type 2 WRITE: one 4-byte page."""
PAGE_SIZE = 4
READ_SIZE = 16
SAK_ISO14443_4 = 0x20
"""SAK bit: the card speaks ISO 14443-4 (a smart card or phone), not Type 2 READ/WRITE."""
SAK_MIFARE_CLASSIC = (0x08, 0x09, 0x18, 0x19, 0x88)
"""SAKs of MIFARE Classic 1K/Mini/4K cards: every read needs a sector key first."""


class BadAnswer(ValueError):
    """An answer that is framed correctly but does not make sense for the command."""


SHORT_READ = 0x3F
"""TagError status for a READ answer that is not 16 bytes (not a Type 2 tag)."""


class TagError(Exception):
    """The chip answered InDataExchange, but the tag did not (status byte, low 6 bits: the error)."""

    def __init__(self, status: int) -> None:
        super().__init__(f"tag error {status & 0x3F:#04x}")
        self.status = status & 0x3F


@dataclass(frozen=True)
class Target:
    """One card InListPassiveTarget found: its UID and SAK (what kind of card it is)."""

    uid: bytes
    sak: int

    @property
    def type_2(self) -> bool:
        """True when the card may be an NFC Forum Type 2 tag (NTAG), so READ/WRITE apply."""
        return self.sak & SAK_ISO14443_4 == 0 and self.sak not in SAK_MIFARE_CLASSIC

    @property
    def mifare_classic(self) -> bool:
        return self.sak in SAK_MIFARE_CLASSIC


def parse_target_uid(data: bytes) -> bytes | None:
    """The UID in an InListPassiveTarget answer (after its response code), None when no card.

    The answer is ``NbTg [Tg ATQA(2) SAK UIDlen UID [ATS]]``; anything after the UID (the
    ATS of an ISO 14443-4 card) is ignored.

    >>> parse_target_uid(bytes.fromhex("01 01 0044 00 07 04112233445566")).hex()
    '04112233445566'
    >>> parse_target_uid(bytes.fromhex("01 01 0004 08 05 0102030405"))
    Traceback (most recent call last):
    ...
    box.ports.nfc.commands.BadAnswer: InListPassiveTarget answer with a 5-byte UID: 01010004080501...
    """
    target = parse_target(data)
    return None if target is None else target.uid


def parse_target(data: bytes) -> Target | None:
    """The card in an InListPassiveTarget answer (after its response code), None when no card.

    >>> parse_target(bytes.fromhex("01 01 0004 08 04 a1b2c3d4")).mifare_classic
    True
    >>> parse_target(bytes.fromhex("01 01 0044 00 07 04112233445566")).type_2
    True
    """
    if data[:1] == b"\x00":
        return None
    if len(data) < 6 or data[0] != 1:
        raise BadAnswer(f"InListPassiveTarget answer that is not one target: {data.hex()}")
    uid_length = data[5]
    uid = data[6 : 6 + uid_length]
    if uid_length not in UID_LENGTHS or len(uid) != uid_length:
        raise BadAnswer(f"InListPassiveTarget answer with a {uid_length}-byte UID: {data[:7].hex()}...")
    return Target(bytes(uid), data[4])


def read_params(page: int) -> bytes:
    """InDataExchange parameters for an NTAG READ of the 4 pages from ``page``."""
    return bytes([TARGET, TAG_READ, page])


def write_params(page: int, data: bytes) -> bytes:
    """InDataExchange parameters for an NTAG WRITE of one 4-byte page."""
    if len(data) != PAGE_SIZE:
        raise ValueError(f"an NTAG page is {PAGE_SIZE} bytes, not {len(data)}")
    return bytes([TARGET, TAG_WRITE, page]) + data


def parse_exchange(data: bytes) -> bytes:
    """The tag's answer in an InDataExchange answer (after its response code): ``Status [data]``.

    A non-zero status raises TagError (the tag did not answer: lifted, locked, or not a Type 2 tag).

    >>> parse_exchange(bytes.fromhex("00 0102"))
    b'\\x01\\x02'
    >>> parse_exchange(bytes.fromhex("01"))
    Traceback (most recent call last):
    ...
    box.ports.nfc.commands.TagError: tag error 0x01
    """
    if not data:
        raise BadAnswer("InDataExchange answer without a status byte")
    if data[0] & 0x3F:
        raise TagError(data[0])
    return bytes(data[1:])


def parse_read(data: bytes) -> bytes:
    """The 16 bytes of an NTAG READ (InDataExchange answer after its response code); TagError otherwise."""
    pages = parse_exchange(data)
    if len(pages) != READ_SIZE:
        raise TagError(SHORT_READ)
    return pages


def parse_firmware(data: bytes) -> str:
    """Check a GetFirmwareVersion answer (after its response code) is a PN532; return its version.

    >>> parse_firmware(bytes.fromhex("32 01 06 07"))
    'PN532 v1.6'
    """
    if len(data) != 4 or data[0] != PN532_IC:
        raise BadAnswer(f"GetFirmwareVersion answer that is not a PN532: {data.hex()}")
    return f"PN532 v{data[1]}.{data[2]}"
