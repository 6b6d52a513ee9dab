"""What the owner configures, as the Box and its parts read it: the names, the decks, the readers' ports.

The command line builds it from the settings file (box/storage/config.py) and the roster; the Box
and every part that needs it (the lobby, the seats, the stick, the phone) take it from here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from box.base.wallclock import WallClock
from box.storage.roster import Roster
from box.words import DEFAULT_CONTRAST, READERS


@dataclass
class Settings:
    """What the owner configures: player names and deck files."""

    names: tuple[str, ...] = ()
    decks_dir: Path | None = None
    readers: Mapping[str, str] = field(default_factory=lambda: dict.fromkeys(READERS, ""))  # name -> port
    state_dir: Path | None = None  # where enrolment saves the tag map
    roster: Roster = field(default_factory=Roster)  # the phone page's names and defaults (roster.json)
    contrast: int = DEFAULT_CONTRAST  # the OLED's contrast when awake (0..255)
    clock: WallClock = field(default_factory=WallClock)  # the date games and the history are given, and its source
    config_file: Path | None = None  # the owner's settings file, which a backup takes (box/storage/backup.py)
    page: str = ""  # the phone page's address (box.parts.phone.page_address); "": this machine's name, port 8080
    own_wifi: bool = False  # the box's own Wi-Fi is on (the settings' [hotspot] enabled) until the box menu says

    def player_names(self, count: int) -> list[str]:
        """`count` names: the roster's (else the config file's) in order, then P3, P4... for the seats left.

        >>> Settings(names=("Ann", "Bob")).player_names(3)
        ['Ann', 'Bob', 'P3']
        """
        names = list(self.roster.names_or(self.names)[:count])
        return names + [f"P{n}" for n in range(len(names) + 1, count + 1) if f"P{n}" not in names]

    @property
    def known_names(self) -> tuple[str, ...]:
        """The names the setup offers for a seat: the roster's, else the config file's."""
        return self.roster.names_or(self.names)
