"""The box's own Wi-Fi name and password: made at its first use (by `gravebox hotspot`) when the
state folder has none, then kept there (`own-wifi.json`), so phones that joined once join again.

>>> import tempfile; from pathlib import Path
>>> folder = Path(tempfile.mkdtemp())
>>> made = load_or_make(folder)
>>> made.ssid.startswith("Gravebox-"), len(made.password), load_or_make(folder) == made
(True, 14, True)
"""

from __future__ import annotations

import json
import secrets
from pathlib import Path

from box.errors import FileProblem
from box.files.bounded import read_bounded, write_atomically
from box.links.hotspot.network import WifiCredentials

FILE = "own-wifi.json"
LETTERS = "abcdefghjkmnpqrstuvwxyz23456789"  # no 0/o, 1/l/i: read off the OLED and typed on a phone


def made() -> WifiCredentials:
    """A new name (Gravebox- and four hex digits) and a password of three groups of four (about 60 bits)."""
    groups = ("".join(secrets.choice(LETTERS) for _ in range(4)) for _ in range(3))
    return WifiCredentials(f"Gravebox-{secrets.token_hex(2)}", "-".join(groups))


def load_or_make(state_dir: Path) -> WifiCredentials:
    """The kept name and password, else new ones, kept (group-readable: the page's process shares them
    with the box over the control socket); FileProblem for a file that is not one of them."""
    path = state_dir / FILE
    data = read_bounded(path, 4096, what="own Wi-Fi file", missing=b"")
    if not data:
        credentials = made()
        write_atomically(path, json.dumps({"ssid": credentials.ssid, "password": credentials.password}) + "\n")
        return credentials
    try:
        found = json.loads(data)
        ssid, password = found["ssid"], found["password"]
    except (ValueError, TypeError, KeyError):
        raise FileProblem(path, "not the box's own Wi-Fi name and password: move it away to make new ones") from None
    if not (isinstance(ssid, str) and 0 < len(ssid.encode()) <= 32 and ssid.isprintable()):
        raise FileProblem(path, "ssid: 1 to 32 bytes of printable text")
    if not (isinstance(password, str) and 8 <= len(password) <= 63 and password.isascii() and password.isprintable()):
        raise FileProblem(path, "password: 8 to 63 printable ASCII characters (WPA2)")
    return WifiCredentials(ssid, password)
