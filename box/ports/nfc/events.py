"""What the readers tell the loop: a card placed or lifted, a reader online or offline.

Apart from the reader's driver so that the loop, which dispatches on them, does not import the
driver (its frames and commands) at start: the readers are built and watched after READY.
"""

from __future__ import annotations

from typing import NamedTuple

from box.ports.nfc.writes import CardWritten


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
