"""Reading and writing the card record on the tag a PN532 has listed, one page command at a time.

The functions take ``transceive``: send one tag command through InDataExchange and return the
answer's ``Status [data]`` (parsed here: a non-zero status is a
:class:`~box.ports.nfc.commands.TagError`), so they run on the reader's side, between InListPassiveTarget and InRelease, and are tested
against the simulated chip. The request and its answer (:class:`WriteCard`, :class:`CardWritten`)
live in :mod:`box.messages`: the box's start needs them, not this module.
"""

from __future__ import annotations

from collections.abc import Callable

from box.messages import CardWritten, WriteCard, WriteOutcome
from box.ports.nfc.commands import PAGE_SIZE, TagError, Target, parse_exchange, parse_read, read_params, write_params
from box.ports.nfc.ntag import (
    CC_READ_ONLY,
    FIRST_USER_PAGE,
    MAX_CARD_MESSAGE,
    STATIC_LOCK_PAGE,
    BadTlv,
    Identity,
    Incomplete,
    NotACard,
    NotWritable,
    NtagType,
    encode_card,
    identify,
    locate_ndef,
    locked_pages,
    parse_cc,
    write_plan,
)

Transceive = Callable[[bytes], bytes]
"""InDataExchange parameters in, the answer's ``Status [data]`` out."""
TAG_GONE = 0x01
"""InDataExchange status for a tag that did not answer: it left the field (a time-out)."""


def describe(target: Target) -> str | None:
    """Why a listed card cannot carry a record, or None when it may be an NTAG."""
    if target.mifare_classic:
        return "MIFARE Classic (needs keys: cannot carry a record)"
    if not target.type_2:
        return "not an NTAG (an ISO 14443-4 card: cannot carry a record)"
    return None


def read_identity(target: Target, transceive: Transceive) -> Identity:
    """What the listed tag names: one READ of page 3 (CC and 12 bytes), more only as the TLV needs."""
    problem = describe(target)
    if problem is not None:
        return Identity(None, problem)
    try:
        first = _read(transceive, 3)
        kind = parse_cc(first[:PAGE_SIZE])
        memory = first[PAGE_SIZE:]
        return identify(_read_message(transceive, kind, memory), kind.data_size)
    except (NotWritable, NotACard) as error:
        return Identity(None, str(error))
    except TagError as error:
        return Identity(None, f"could not read it ({error}): lifted too soon?")


def _read(transceive: Transceive, page: int) -> bytes:
    return parse_read(transceive(read_params(page)))


def _read_message(transceive: Transceive, kind: NtagType, memory: bytes) -> bytes:
    """User memory read far enough to hold the NDEF TLV (or to show it is damaged).

    A message longer than any card record is not read (NotACard): a damaged length must not
    make a tap read a whole NTAG216 (55 READs).
    """
    limit = min(kind.data_size, MAX_CARD_MESSAGE + 8)
    while True:
        try:
            found = locate_ndef(memory, kind.data_size)
        except Incomplete as short:
            wanted = short.needed
        except BadTlv:
            return memory
        else:
            if found is None:
                return memory
            wanted = sum(found)
            if found[1] > MAX_CARD_MESSAGE:
                raise NotACard(f"a record of {found[1]} bytes, longer than a card's")
        if wanted <= len(memory) or len(memory) >= limit:
            return memory
        memory += _read(transceive, FIRST_USER_PAGE + len(memory) // PAGE_SIZE)


def _encode(card: tuple[str, str]) -> bytes:
    try:
        return encode_card(*card)
    except ValueError as error:
        raise NotWritable(str(error)) from None


def write_card(target: Target, request: WriteCard, transceive: Transceive) -> CardWritten:
    """Write the request's record on the listed tag and read it back."""

    def answer(outcome: WriteOutcome, message: str = "", other: tuple[str, str] | None = None) -> CardWritten:
        return CardWritten(request.reader, request.uid, request.card, outcome, message, other)

    problem = describe(target)
    if problem is not None:
        return answer(WriteOutcome.NOT_WRITABLE, problem)
    try:
        message = _encode(request.card)
        head = _read(transceive, 0)
        kind = parse_cc(head[3 * PAGE_SIZE :])
        if head[3 * PAGE_SIZE + 3] == CC_READ_ONLY:
            raise NotWritable("locked (read-only)")
        before = read_identity(target, transceive)
        if before.card == request.card:
            return answer(WriteOutcome.WRITTEN)
        if before.card is not None and not request.overwrite:
            return answer(WriteOutcome.OTHER_CARD, f"it is already {before.card[0]} {before.card[1]}", before.card)
        plan = write_plan(message, kind)
        static = head[STATIC_LOCK_PAGE * PAGE_SIZE : (STATIC_LOCK_PAGE + 1) * PAGE_SIZE]
        dynamic = _read(transceive, kind.dynamic_lock_page)[:PAGE_SIZE] if kind.lock_granularity else bytes(4)
        if {page for page, _ in plan} & locked_pages(static, dynamic, kind):
            raise NotWritable("locked (read-only)")
    except NotWritable as error:
        return answer(WriteOutcome.NOT_WRITABLE, str(error))
    except TagError as error:
        return answer(WriteOutcome.TORN, f"could not read it ({error}): lay it again")
    for written, (page, data) in enumerate(plan):
        try:
            parse_exchange(transceive(write_params(page, data)))
        except TagError as error:
            if error.status != TAG_GONE and written == 0:
                return answer(WriteOutcome.NOT_WRITABLE, f"it refused the write ({error})")
            return answer(WriteOutcome.TORN, "lifted during the write: lay it again")
    after = read_identity(target, transceive)
    if after.card != request.card:
        return answer(WriteOutcome.TORN, f"it reads back wrong ({after.reason}): lay it again")
    return answer(WriteOutcome.WRITTEN)
