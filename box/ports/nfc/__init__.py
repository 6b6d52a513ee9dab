"""NFC card readers: PN532 boards over serial (HSU), watched (or polled) into card and status events.

The driver is `box.ports.nfc.reader` (`Pn532Reader`, `start_readers`); its events are in
`box.messages`. Import `box.ports.nfc.simchip` for simulated readers at ``pn532sim://NAME``
URLs. Nothing is imported here, so the loop's events come without the driver.
"""
