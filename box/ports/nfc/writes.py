"""A card record's write: the request the loop hands a reader and the answer it gets back.

Kept apart from the tag I/O that does the write (:mod:`box.ports.nfc.tagio`, with the NTAG
model and ndeflib) so the box's start imports only these types; the reader threads import the
tag I/O as they start, after READY.
"""

from __future__ import annotations

from enum import Enum
from typing import NamedTuple


class WriteOutcome(Enum):
    """How a write request ended."""

    WRITTEN = "written"
    """The record is on the tag, read back and checked."""
    TORN = "torn"
    """The tag left before the write ended or read back wrong: lay it again to redo it."""
    NOT_WRITABLE = "not writable"
    """Locked, MIFARE Classic, full or not an NTAG: the tag map keeps it."""
    OTHER_CARD = "other card"
    """The tag names another card; refused unless the request says overwrite."""
    NOT_THERE = "not there"
    """The tag was not on the reader when the request came to it."""


class WriteCard(NamedTuple):
    """A request the loop hands to the reader side: write ``card`` on the tag ``uid`` lying on ``reader``.

    ``overwrite`` allows replacing a record that names another card (the owner confirmed).
    """

    reader: str
    uid: bytes
    card: tuple[str, str]
    overwrite: bool = False


class CardWritten(NamedTuple):
    """The answer to a :class:`WriteCard`, an event from the reader side to the loop.

    ``message`` says why for every outcome but WRITTEN; ``other`` is the card the tag names
    (OTHER_CARD).
    """

    reader: str
    uid: bytes
    card: tuple[str, str]
    outcome: WriteOutcome
    message: str = ""
    other: tuple[str, str] | None = None
