"""The words every layer shares: buttons, readers, sounds, press kinds and the screen's size.

This module sits below everything else (games, the Box and its screens, the ports, the
simulator) and imports nothing of the box, so any of them can use it without pulling in
another layer.

>>> Sound.RIGHT == "right", PressKind.LONG == "long"
(True, True)
>>> LINE_CHARS, TEXT_LINES, (SCREEN_WIDTH, SCREEN_HEIGHT)
(21, 5, (128, 64))
"""

from __future__ import annotations

from enum import StrEnum


class Word(StrEnum):
    """A named string: equal to its text, and shown as that text (`'right'`, not `<Sound.RIGHT>`)."""

    def __repr__(self) -> str:
        return repr(self.value)

BUTTONS = ("up", "down", "ok", "back", "roll")
READERS = ("left", "middle", "right")
UID_LENGTHS = (4, 7, 10)  # bytes: the UIDs a PN532 reads from type A tags

SCREEN_WIDTH, SCREEN_HEIGHT = 128, 64  # the panel, in pixels
LINE_CHARS = 21  # characters on a text line (Pillow's default font: 6 px each)
TEXT_LINES = 5  # text lines under the title bar; the notice takes the row below them
DEFAULT_CONTRAST = 160  # the OLED's contrast when awake, of 255: bright enough indoors, and easier on the panel than full
VOLUME_LEVELS = ("low", "medium", "high")  # the box menu's volumes, quietest first (the buzzer maps each to a duty)


class Sound(Word):
    """Named sounds the box plays; the buzzer port knows how to play each."""

    RIGHT = "right"
    WRONG = "wrong"
    COLUMN = "column"  # a column completed (fanfare)
    LAP = "lap"  # lap alarm: everyone drinks
    TICK = "tick"  # shot timer, last seconds
    END = "end"  # shot timer at zero
    DICE = "dice"
    FANFARE = "fanfare"  # a win
    CLICK = "click"  # a cursor move or a confirmation
    ERROR = "error"  # a rejected input


class PressKind(Word):
    """What a button did, as the press detector tells it."""

    SHORT = "short"
    LONG = "long"
    REPEAT = "repeat"  # auto-repeat of a held UP/DOWN; screens take it as a short press
    COMBO = "combo"  # BACK and OK held together (the power-off combination)


CONTROLLERS = ("ssd1306", "sh1106")
"""The OLED controllers the box drives (the pin map's `controller`)."""
