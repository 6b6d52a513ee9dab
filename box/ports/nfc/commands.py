"""The PN532 commands the box uses, and pure parsers for their answers.

>>> Command.IN_LIST_PASSIVE_TARGET.response_code
75
>>> parse_target_uid(bytes.fromhex("01 01 0004 08 04 a1b2c3d4")).hex()
'a1b2c3d4'
>>> parse_target_uid(b"\\x00") is None
True
"""

from __future__ import annotations

from enum import IntEnum


class Command(IntEnum):
    """Command codes (the byte after TFI D4)."""

    GET_FIRMWARE_VERSION = 0x02
    SAM_CONFIGURATION = 0x14
    RF_CONFIGURATION = 0x32
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
PN532_IC = 0x32
UID_LENGTHS = (4, 7, 10)


class BadAnswer(ValueError):
    """An answer that is framed correctly but does not make sense for the command."""


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
    if data[:1] == b"\x00":
        return None
    if len(data) < 6 or data[0] != 1:
        raise BadAnswer(f"InListPassiveTarget answer that is not one target: {data.hex()}")
    uid_length = data[5]
    uid = data[6 : 6 + uid_length]
    if uid_length not in UID_LENGTHS or len(uid) != uid_length:
        raise BadAnswer(f"InListPassiveTarget answer with a {uid_length}-byte UID: {data[:7].hex()}...")
    return uid


def parse_firmware(data: bytes) -> str:
    """Check a GetFirmwareVersion answer (after its response code) is a PN532; return its version.

    >>> parse_firmware(bytes.fromhex("32 01 06 07"))
    'PN532 v1.6'
    """
    if len(data) != 4 or data[0] != PN532_IC:
        raise BadAnswer(f"GetFirmwareVersion answer that is not a PN532: {data.hex()}")
    return f"PN532 v{data[1]}.{data[2]}"
