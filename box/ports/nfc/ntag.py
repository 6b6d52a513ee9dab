"""NTAG213/215/216 memory and the card record on it: pure functions, bytes in, bytes out.

An NTAG is an NFC Forum Type 2 tag of 4-byte pages: pages 0-2 hold the UID and the static
lock bytes, page 3 the capability container (CC), user memory starts at page 4 and holds TLVs,
the NDEF one (``03``) carrying an NDEF message. The box's message is one NFC Forum external
record, ``gravebox.example:card``, whose payload names the game and the card with a CRC:

>>> message = encode_card("deadlines", "dl042")
>>> decode_card(message)
('deadlines', 'dl042')
>>> identify(tlv_image(message, NTAG213))
Identity(card=('deadlines', 'dl042'), reason='')
>>> identify(bytes(NTAG213.blank_image()[16:]))
Identity(card=None, reason='blank tag (no record)')
"""

from __future__ import annotations

import binascii
import logging
from dataclasses import dataclass

from box.ports.nfc.commands import PAGE_SIZE

log = logging.getLogger(__name__)

RECORD_TYPE = "urn:nfc:ext:gravebox.example:card"
"""The card record's type: an NFC Forum external type (``.example`` can never be someone's domain)."""
CC_MAGIC = 0xE1
"""First CC byte of a tag formatted for NDEF."""
CC_READ_ONLY = 0x0F
"""CC access byte: no write access (a read-only tag)."""
FIRST_USER_PAGE = 4
CC_PAGE = 3
STATIC_LOCK_PAGE = 2
TLV_NULL, TLV_LOCK_CONTROL, TLV_MEMORY_CONTROL, TLV_NDEF, TLV_PROPRIETARY, TLV_TERMINATOR = (
    0x00,
    0x01,
    0x02,
    0x03,
    0xFD,
    0xFE,
)
DAMAGED = "a damaged record (torn?)"
"""Why a tag whose TLVs or record do not decode names no card."""
MAX_CARD_MESSAGE = 128
"""Longest card record (bytes): a game and a card id of up to ~100 characters together."""
EMPTY_NDEF_PAGE = bytes([TLV_NDEF, 0x00, TLV_TERMINATOR, 0x00])
"""Page 4 of a blank NTAG: an empty NDEF TLV, then the terminator."""


class BadTlv(ValueError):
    """User memory that holds no well-formed TLVs up to the NDEF one (torn or damaged)."""


class NotWritable(ValueError):
    """A tag the box cannot write its record on; the message says why (for the enrolment screen)."""


class Incomplete(Exception):
    """More user memory is needed: ``needed`` bytes from the start of user memory."""

    def __init__(self, needed: int) -> None:
        super().__init__(f"{needed} bytes of user memory needed")
        self.needed = needed


@dataclass(frozen=True)
class NtagType:
    """One NTAG21x type: its user memory (``data_size`` bytes from page 4) and lock layout."""

    name: str
    cc_size: int
    """CC byte 2: the data area in units of 8 bytes."""
    lock_granularity: int
    """Pages one dynamic lock bit locks (0: no dynamic lock bytes, user memory ends at page 15)."""

    @property
    def data_size(self) -> int:
        return self.cc_size * 8

    @property
    def last_user_page(self) -> int:
        return FIRST_USER_PAGE + self.data_size // PAGE_SIZE - 1

    @property
    def dynamic_lock_page(self) -> int:
        """The page after user memory: dynamic lock bytes 0-2 (never write it)."""
        return self.last_user_page + 1

    @property
    def pages(self) -> int:
        """All pages, configuration included (dynamic lock, CFG0, CFG1, PWD, PACK)."""
        return self.dynamic_lock_page + 5 if self.lock_granularity else self.last_user_page + 1

    def capability_container(self) -> bytes:
        return bytes([CC_MAGIC, 0x10, self.cc_size, 0x00])

    def blank_image(self) -> bytearray:
        """A new tag's memory (UID pages zero): NDEF-formatted CC, an empty NDEF TLV."""
        image = bytearray(self.pages * PAGE_SIZE)
        image[CC_PAGE * PAGE_SIZE : (CC_PAGE + 1) * PAGE_SIZE] = self.capability_container()
        image[FIRST_USER_PAGE * PAGE_SIZE : (FIRST_USER_PAGE + 1) * PAGE_SIZE] = EMPTY_NDEF_PAGE
        return image


NTAG213 = NtagType("NTAG213", 0x12, 2)
NTAG215 = NtagType("NTAG215", 0x3E, 16)
NTAG216 = NtagType("NTAG216", 0x6D, 16)
ULTRALIGHT = NtagType("MIFARE Ultralight", 0x06, 0)
"""The small Type 2 tag before the NTAGs: 48 bytes of user memory, static lock bytes only."""
NTAG_TYPES = (NTAG213, NTAG215, NTAG216, ULTRALIGHT)


def parse_cc(cc: bytes) -> NtagType:
    """The NTAG type a capability container describes; NotWritable when it is not an NTAG's.

    >>> parse_cc(bytes.fromhex("e1103e00")).name
    'NTAG215'
    >>> parse_cc(bytes(4))
    Traceback (most recent call last):
    ...
    box.ports.nfc.ntag.NotWritable: not formatted for NDEF (capability container 00000000)
    """
    if len(cc) < PAGE_SIZE or cc[0] != CC_MAGIC:
        raise NotWritable(f"not formatted for NDEF (capability container {cc[:4].hex()})")
    for kind in NTAG_TYPES:
        if cc[2] == kind.cc_size:
            return kind
    raise NotWritable(f"not an NTAG213/215/216 or Ultralight (capability container {cc[:4].hex()})")


def locate_ndef(memory: bytes, data_size: int) -> tuple[int, int] | None:
    """Where the NDEF message is in user memory: ``(offset, length)``; None when there is none.

    ``memory`` is user memory from page 4 on, as much as has been read; Incomplete says how
    much more is needed to find the NDEF TLV. BadTlv when the TLVs are not well formed
    (a reserved type, a length past the end of user memory).

    >>> locate_ndef(bytes.fromhex("0300fe00"), 144)
    (2, 0)
    >>> locate_ndef(bytes.fromhex("00 0105 ff"), 144)
    Traceback (most recent call last):
    ...
    box.ports.nfc.ntag.Incomplete: 9 bytes of user memory needed
    """
    at = 0
    while at < data_size:
        kind = _byte(memory, at)
        if kind == TLV_NULL:
            at += 1
            continue
        if kind == TLV_TERMINATOR:
            return None
        if kind not in (TLV_LOCK_CONTROL, TLV_MEMORY_CONTROL, TLV_NDEF, TLV_PROPRIETARY):
            raise BadTlv(f"reserved TLV type {kind:#04x} at byte {at}")
        length, header = _byte(memory, at + 1), 2
        if length == 0xFF:
            length, header = _byte(memory, at + 2) << 8 | _byte(memory, at + 3), 4
            if length < 0xFF:
                raise BadTlv(f"3-byte TLV length {length} below 255 at byte {at}")
        if at + header + length > data_size:
            raise BadTlv(f"TLV of {length} bytes at byte {at} runs past user memory ({data_size} bytes)")
        if kind == TLV_NDEF:
            return at + header, length
        at += header + length
    return None


def _byte(memory: bytes, at: int) -> int:
    if at >= len(memory):
        raise Incomplete(at + 1)
    return memory[at]


def read_ndef(memory: bytes, data_size: int) -> bytes | None:
    """The NDEF message in a full user memory image, None when there is none; BadTlv when torn."""
    try:
        found = locate_ndef(memory, data_size)
    except Incomplete as short:
        raise BadTlv(f"user memory ends before its TLVs ({short})") from None
    if found is None:
        return None
    offset, length = found
    if offset + length > len(memory):
        raise BadTlv("user memory ends inside the NDEF message")
    return memory[offset : offset + length]


def encode_card(game: str, card_id: str) -> bytes:
    """The NDEF message naming a card: one external record, payload ``GAME/CARD#crc``."""
    import ndef  # imported with the first card (ndeflib costs a start ~6 ms)

    text = _card_text(game, card_id)
    payload = text + f"#{_crc(text):04x}".encode()
    message = b"".join(ndef.message_encoder([ndef.Record(RECORD_TYPE, "", payload)]))
    if len(message) > MAX_CARD_MESSAGE:
        raise ValueError(f"cannot name card {game!r} {card_id!r} on a tag (longer than {MAX_CARD_MESSAGE} bytes)")
    return message


def _card_text(game: str, card_id: str) -> bytes:
    if not game or not card_id or "/" in game or "#" in game:
        raise ValueError(f"cannot name card {game!r} {card_id!r} on a tag")
    if any(not character.isprintable() for character in game + card_id):
        raise ValueError(f"cannot name card {game!r} {card_id!r} on a tag (unprintable)")
    return f"{game}/{card_id}".encode()


def _crc(text: bytes) -> int:
    return binascii.crc_hqx(text, 0xFFFF)


class NotACard(ValueError):
    """An NDEF message that names no card; the message says what it is instead."""


def decode_card(message: bytes) -> tuple[str, str]:
    """The (game, card id) a message names; NotACard otherwise.

    Only the exact bytes :func:`encode_card` makes are a card, with the CRC right, so a
    damaged record never names another card.

    >>> decode_card(bytes.fromhex("d1010455027777772e"))
    Traceback (most recent call last):
    ...
    box.ports.nfc.ntag.NotACard: a record of another kind (urn:nfc:wkt:U)
    """
    import ndef  # imported with the first card (ndeflib costs a start ~6 ms)

    if not message:
        raise NotACard("blank tag (no record)")
    try:
        records = list(ndef.message_decoder(message))
    except (ndef.DecodeError, ValueError) as error:  # ndeflib lets a non-ASCII type's UnicodeDecodeError out
        log.debug("NDEF message %s does not decode: %s", message.hex(), error)
        raise NotACard(DAMAGED) from None
    if not records:
        raise NotACard("blank tag (no record)")
    if records[0].type != RECORD_TYPE:
        raise NotACard(f"a record of another kind ({records[0].type or 'empty'})")
    payload = bytes(records[0].data)
    text, _, crc = payload.rpartition(b"#")
    try:
        game, _, card_id = text.decode().partition("/")
        card = (game, card_id)
        if int(crc, 16) != _crc(text) or encode_card(*card) != message:
            raise ValueError("not as the box writes it")
    except ValueError:
        log.debug("card record %s is not as the box writes it", payload)
        raise NotACard(DAMAGED) from None
    return card


@dataclass(frozen=True)
class Identity:
    """What a tag says it is: a (game, card id), or none and the reason why."""

    card: tuple[str, str] | None
    reason: str = ""


def identify(memory: bytes, data_size: int = NTAG213.data_size) -> Identity:
    """The card the user memory names (a damaged or torn TLV names none).

    >>> identify(bytes.fromhex("03 05 d1 01 01 55 00 fe"))
    Identity(card=None, reason='a record of another kind (urn:nfc:wkt:U)')
    >>> identify(bytes.fromhex("03 30 d1 01 01"))
    Identity(card=None, reason='a damaged record (torn?)')
    """
    try:
        message = read_ndef(memory, data_size)
    except BadTlv as error:
        log.debug("user memory %s: %s", memory.hex(), error)
        return Identity(None, DAMAGED)
    if message is None:
        return Identity(None, "blank tag (no record)")
    try:
        return Identity(decode_card(message))
    except NotACard as error:
        return Identity(None, str(error))


def tlv_image(message: bytes, kind: NtagType) -> bytes:
    """User memory from page 4 holding ``message`` in an NDEF TLV (terminated, padded to pages).

    NotWritable when it does not fit the tag's user memory.

    >>> tlv_image(b"\\x01\\x02", NTAG213).hex()
    '03020102fe000000'
    """
    length = len(message)
    header = bytes([TLV_NDEF, length]) if length < 0xFF else bytes([TLV_NDEF, 0xFF, length >> 8, length & 0xFF])
    image = header + message
    if len(image) > kind.data_size:
        raise NotWritable(f"full: the record needs {len(image)} bytes, this {kind.name} holds {kind.data_size}")
    if len(image) < kind.data_size:
        image += bytes([TLV_TERMINATOR])
    return image + bytes(-len(image) % PAGE_SIZE)


def write_plan(message: bytes, kind: NtagType) -> list[tuple[int, bytes]]:
    """The page writes that put ``message`` on a tag, in order, so a tear leaves no valid record.

    Page 4 (the TLV's length) is first set to an empty NDEF TLV and written with the real
    length last: a tag lifted in between reads as blank, never as half a record.

    >>> [(page, data.hex()) for page, data in write_plan(b"\\x01\\x02\\x03", NTAG213)]
    [(4, '0300fe00'), (5, '03fe0000'), (4, '03030102')]
    """
    image = tlv_image(message, kind)
    pages = [
        (FIRST_USER_PAGE + index, image[offset : offset + PAGE_SIZE])
        for index, offset in enumerate(range(0, len(image), PAGE_SIZE))
    ]
    first, rest = pages[0], pages[1:]
    return [(FIRST_USER_PAGE, EMPTY_NDEF_PAGE), *rest, first]


def locked_pages(static_lock: bytes, dynamic_lock: bytes, kind: NtagType) -> frozenset[int]:
    """The pages the lock bytes make read-only (CC and user memory).

    ``static_lock`` is page 2 (lock bytes 2 and 3 lock pages 3-15), ``dynamic_lock`` the page
    after user memory (each bit of bytes 0-1 locks ``lock_granularity`` pages from page 16).

    >>> sorted(locked_pages(bytes.fromhex("0000 1001"), bytes(4), NTAG213))
    [4, 8]
    >>> sorted(locked_pages(bytes(4), bytes.fromhex("0100 0000"), NTAG213))
    [16, 17]
    """
    locked = {page for page in range(CC_PAGE, 16) if _bit(static_lock, 16 + page)}
    granule = kind.lock_granularity
    for bit in range(16 if granule else 0):
        if _bit(dynamic_lock, bit):
            start = 16 + bit * granule
            locked.update(range(start, min(start + granule, kind.last_user_page + 1)))
    return frozenset(locked)


def _bit(data: bytes, index: int) -> bool:
    return bool(data[index // 8] >> (index % 8) & 1)
