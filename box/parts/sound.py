"""The owner's sound settings: a volume level, or muted; kept in the journal across restarts.

One part of the Box (box/core/service.py): the box menu's *Sound* line opens its picker; the loop
hands `volume` and `muted` to the buzzer when they change.

>>> from box.storage.journal import Journal
>>> sound = SoundSettings(Journal(":memory:"), None)
>>> sound.label(), sound.set("low", True, now=0.0), sound.label()
('high', None, 'muted')
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

from box.screens.menu import Picker
from box.words import VOLUME_LEVELS, Sound

if TYPE_CHECKING:
    from box.screens.protocol import Host
    from box.storage.journal import Journal

JOURNAL_KEY = "sound"


class SoundSettings:
    """The volume level and mute; `set` keeps them, `open` offers them on the panel."""

    def __init__(self, journal: Journal, host: Host | None):
        self.journal, self.host = journal, host
        kept = journal.get(JOURNAL_KEY, {}, kind=dict)
        volume = kept.get("volume")
        self.volume: str = volume if isinstance(volume, str) and volume in VOLUME_LEVELS else VOLUME_LEVELS[-1]
        self.muted: bool = kept.get("muted") is True

    def label(self) -> str:
        """What the box menu's line says: the level, or muted."""
        return "muted" if self.muted else self.volume

    def open(self, now: float) -> None:
        """The sound picker: a volume level, or mute (which keeps the level for later)."""
        assert self.host is not None
        levels = tuple(level.capitalize() for level in VOLUME_LEVELS)
        actions = tuple(partial(self.set, level, False) for level in VOLUME_LEVELS)
        toggle = partial(self.set, self.volume, not self.muted)
        picker = Picker("sound", "Sound", (*levels, "Unmute" if self.muted else "Mute", "Back"), (*actions, toggle, None))
        picker.cursor = len(levels) if self.muted else VOLUME_LEVELS.index(self.volume)
        self.host.push(picker)

    def set(self, volume: str, muted: bool, now: float) -> None:
        """Set the volume level and mute (journaled: StorageError changes nothing); a click at the new level."""
        self.journal.put(JOURNAL_KEY, {"volume": volume, "muted": muted})
        self.volume, self.muted = volume, muted
        if self.host is not None:
            self.host.say(f"Sound: {self.label()}", now)
            if not muted:
                self.host.play(Sound.CLICK)

    def dump(self) -> dict[str, Any]:
        return {"volume": self.volume, "muted": self.muted}
