"""The box's own Wi-Fi as the box knows it: one part of the Box (box/core/service.py).

Whether the owner wants it: the settings' `[hotspot] enabled`, until the box menu's *Own Wi-Fi*
line turns it on or off (journaled, kept across restarts). The state dump says so (`own_wifi`),
and the process that runs it (`gravebox hotspot`, box/links/hotspot/) reads it there and tells
the box when it is up (`hotspot-up`: its name, password and the page's address on it) or down. While
it is up the box menu's *Phone page* first shows the code that joins it, then (OK) the one that opens
the page on it. The password never goes into the state dump (it is open to the network) nor into the
journal.

>>> wifi_qr("Gravebox-3f2a", 'k7;p\\\\q"m:2,x')
'WIFI:S:Gravebox-3f2a;T:WPA;P:k7\\\\;p\\\\\\\\q\\\\"m\\\\:2\\\\,x;;'
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from box.games.base import View
from box.parts.phone import ADDRESS_CHARS, PhonePage, address_rows
from box.words import PressKind

if TYPE_CHECKING:
    from box.screens.protocol import Host
    from box.storage.journal import Journal

JOURNAL_KEY = "own_wifi"


def wifi_qr(ssid: str, password: str) -> str:
    """The text of the QR code a phone's camera joins a WPA network with (`WIFI:S:…;T:WPA;P:…;;`, the
    ZXing form both phones read): backslash, semicolon, comma, colon and double quote escaped."""

    def escaped(text: str) -> str:
        return re.sub(r'([\\;,:"])', r"\\\1", text)

    return f"WIFI:S:{escaped(ssid)};T:WPA;P:{escaped(password)};;"


class JoinThenPage(PhonePage):
    """The box menu's *Phone page* while the box's own Wi-Fi is up: the code that joins it (its name and
    password beside it), then, on OK, the code that opens the page on it; BACK leaves."""

    def __init__(self, ssid: str, password: str, page: str):
        super().__init__(page)
        self.ssid, self.password = ssid, password
        self.joined = False  # OK pressed: the page's code now

    def qr_text(self) -> str:
        return self.address if self.joined else wifi_qr(self.ssid, self.password)

    def beside(self) -> list[str]:
        if self.joined:
            return super().beside()
        return ["Own Wi-Fi", *address_rows(self.ssid, ADDRESS_CHARS)[:2], *address_rows(self.password, ADDRESS_CHARS)[:2]]

    def footer(self) -> str:
        return "BACK:close" if self.joined else "OK: page"

    def view(self, now: float) -> View:
        if self.joined:
            return super().view(now)
        return View("Own Wi-Fi", ("Join with the camera:", self.ssid[:21], self.password[:21], "OK: then the page"))

    def press(self, button: str, kind: PressKind, now: float) -> None:
        if button == "ok" and not self.joined:
            self.joined, self.drawn = True, None
        else:
            super().press(button, kind, now)

    def dump(self) -> dict[str, Any]:
        return {"phone_page": self.address, "own_wifi_shown": "page" if self.joined else "join"}


class OwnWifi:
    """Whether the owner wants the box's own Wi-Fi, and whether (and as what) it is up."""

    def __init__(self, journal: Journal, host: Host, default: bool):
        self.journal, self.host = journal, host
        kept = journal.get(JOURNAL_KEY, None)
        self.wanted: bool = kept if isinstance(kept, bool) else default
        self.up: tuple[str, str, str] | None = None  # its name, password, and the page's address on it

    def label(self) -> str:
        return "on" if self.wanted else "off"

    def toggle(self, now: float) -> None:
        """The box menu's *Own Wi-Fi* line: on or off, journaled (StorageError changes nothing)."""
        self.journal.put(JOURNAL_KEY, not self.wanted)
        self.wanted = not self.wanted
        self.host.say(f"Own Wi-Fi: {self.label()}", now)

    def heard(self, name: str, args: dict[str, Any]) -> None:
        """What `gravebox hotspot` said: up (`hotspot-up`) or down."""
        self.up = (args["ssid"], args["password"], args["page"]) if name == "hotspot-up" else None

    def screen(self) -> JoinThenPage | None:
        """The *Phone page* to show while the Wi-Fi is up (None: the usual one)."""
        return JoinThenPage(*self.up) if self.up is not None else None

    def dump(self) -> dict[str, Any]:
        return {"wanted": self.wanted, "up": self.up is not None}
