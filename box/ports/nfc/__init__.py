"""NFC card readers: PN532 boards over serial (HSU), watched (or polled) into card and status events.

Import :mod:`box.ports.nfc.simchip` for simulated readers at ``pn532sim://NAME`` URLs.
"""

from box.ports.nfc.reader import (
    CardLifted,
    CardPlaced,
    Pn532Reader,
    ReaderEvent,
    ReaderStatus,
    ReaderThread,
    start_readers,
)

__all__ = ["CardLifted", "CardPlaced", "Pn532Reader", "ReaderEvent", "ReaderStatus", "ReaderThread", "start_readers"]
