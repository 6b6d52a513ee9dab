"""The messages that cross the loop's inbox, shared by the ports that send them and the Box that takes them.

A button's raw edge, a card laid or lifted, a reader gone or back, a card record's write (the
request the loop hands a reader and its answer). They live here, below the ports and the Box,
so that neither imports the other: the ports send these, the loop and the Box read them. Small
named tuples and an enum: the box's start imports this module and nothing more for them.

>>> Edge("ok", True, 1.5).pressed, CardPlaced("left", b"\x04").lying
(True, False)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, NamedTuple


class Edge(NamedTuple):
    """A raw level change of one button, stamped with the time it was seen."""

    button: str
    pressed: bool
    at: float


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


class CardPlaced(NamedTuple):
    """A card appeared on the reader (once, however long it lies there).

    `lying` is true when the card was already there as the reader (re)connected:
    left on it through a restart or an unplug, rather than laid on it just now.
    `card` is the (game, card id) the tag's record names, read as it was placed; when
    None, `reason` says why (a blank tag, a MIFARE Classic, a damaged record...).
    """

    reader: str
    uid: bytes
    lying: bool = False
    card: tuple[str, str] | None = None
    reason: str = ""


class CardLifted(NamedTuple):
    """The card left the reader (missed by several polls in a row, or the reader went offline)."""

    reader: str
    uid: bytes


class ReaderStatus(NamedTuple):
    """The reader came online or went offline; ``message`` names the reader, the port and what to check."""

    reader: str
    online: bool
    message: str


ReaderEvent = CardPlaced | CardLifted | ReaderStatus | CardWritten


class Pressed(NamedTuple):
    """A press the press detector made of a button's edges: short, long, repeat or the combo ("back+ok")."""

    button: str
    kind: str


class JournalFound(NamedTuple):
    """The whole-file check after READY (box/core/fullcheck.py) found the journal damaged."""

    reason: str


class Refused(Exception):
    """An input the box will not take: its reason goes on the panel and back to whoever sent it."""


@dataclass(frozen=True)
class ControlCommand:
    """A command from the page, for the one loop to carry out; `reply` gets what became of it
    ("" when done, else the reason it was refused), on the loop's thread."""

    name: str
    args: dict[str, Any] = field(default_factory=dict)
    reply: Callable[[str], None] | None = field(default=None, compare=False, repr=False)
