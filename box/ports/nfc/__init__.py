"""NFC card readers: PN532 boards over serial (HSU), polled into card and status events.

Import :mod:`box.ports.nfc.simchip` for simulated readers at ``pn532sim://NAME`` URLs.
"""

from box.ports.nfc.reader import CardLifted, CardPlaced, Pn532Reader, ReaderEvent, ReaderStatus, ReaderThread

__all__ = ["CardLifted", "CardPlaced", "Pn532Reader", "ReaderEvent", "ReaderStatus", "ReaderThread"]
