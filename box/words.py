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

from bisect import bisect_right
from enum import StrEnum


class Word(StrEnum):
    """A named string: equal to its text, and shown as that text (`'right'`, not `<Sound.RIGHT>`)."""

    def __repr__(self) -> str:
        return repr(self.value)

BUTTONS = ("up", "down", "ok", "back", "roll")
READERS = ("left", "middle", "right")
UID_LENGTHS = (4, 7, 10)  # bytes: the UIDs a PN532 reads from type A tags

SCREEN_WIDTH, SCREEN_HEIGHT = 128, 64  # the panel, in pixels
LINE_CHARS = 21  # characters on a text line (the OLED's 6x9 font: 6 px each)
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



# The characters the OLED's font (X11 misc-fixed 6x9, box/screens/font_data.py) draws: Latin with
# Latin-1, Extended-A and some of Extended-B, Greek, Cyrillic, punctuation, arrows, box drawing.
# SHOWN: written by scripts/font_data.py
SHOWN = (
    (0x0020, 0x007E), (0x00A0, 0x00AC), (0x00AE, 0x017F), (0x018F, 0x018F), (0x0192, 0x0192),
    (0x01A0, 0x01A1), (0x01AF, 0x01B0), (0x01B5, 0x01B6), (0x01D1, 0x01D2), (0x01E6, 0x01E7),
    (0x01FA, 0x01FF), (0x0218, 0x021B), (0x0258, 0x0259), (0x02BB, 0x02BD), (0x02C6, 0x02C7),
    (0x02C9, 0x02C9), (0x02D8, 0x02DD), (0x0374, 0x0375), (0x037A, 0x037A), (0x037E, 0x037E),
    (0x0384, 0x038A), (0x038C, 0x038C), (0x038E, 0x03A1), (0x03A3, 0x03CE), (0x03D0, 0x03D7),
    (0x03DA, 0x03F5), (0x0400, 0x045F), (0x0462, 0x0463), (0x0470, 0x0475), (0x0490, 0x0493),
    (0x0496, 0x0497), (0x049A, 0x049B), (0x04AE, 0x04B3), (0x04BA, 0x04BB), (0x04D8, 0x04D9),
    (0x04E2, 0x04E3), (0x04E8, 0x04E9), (0x04EE, 0x04EF), (0x1E02, 0x1E03), (0x1E0A, 0x1E0B),
    (0x1E1E, 0x1E1F), (0x1E40, 0x1E41), (0x1E56, 0x1E57), (0x1E60, 0x1E61), (0x1E6A, 0x1E6B),
    (0x1E80, 0x1E85), (0x1EF2, 0x1EF3), (0x2010, 0x2027), (0x2030, 0x2030), (0x2032, 0x2037),
    (0x2039, 0x203A), (0x203C, 0x203C), (0x203E, 0x203E), (0x2044, 0x2044), (0x2070, 0x2071),
    (0x2074, 0x208E), (0x20A3, 0x20A4), (0x20A7, 0x20A7), (0x20AB, 0x20AC), (0x20AF, 0x20AF),
    (0x2102, 0x2102), (0x2105, 0x2105), (0x2113, 0x2113), (0x2115, 0x2116), (0x211A, 0x211A),
    (0x211D, 0x211D), (0x2122, 0x2122), (0x2124, 0x2124), (0x2126, 0x2126), (0x212E, 0x212E),
    (0x215B, 0x215E), (0x2190, 0x2195), (0x21A4, 0x21A8), (0x21D0, 0x21D5), (0x2200, 0x2209),
    (0x220B, 0x220C), (0x220F, 0x2213), (0x2215, 0x2215), (0x2218, 0x221A), (0x221D, 0x221F),
    (0x2221, 0x2221), (0x2224, 0x222B), (0x222E, 0x222E), (0x2234, 0x223D), (0x2243, 0x2243),
    (0x2245, 0x2245), (0x2248, 0x2249), (0x2259, 0x2259), (0x225F, 0x2265), (0x226A, 0x226B),
    (0x2282, 0x228B), (0x2295, 0x2299), (0x22A2, 0x22A8), (0x22C0, 0x22C3), (0x22C5, 0x22C5),
    (0x22EE, 0x22F1), (0x2300, 0x2300), (0x2302, 0x2302), (0x2308, 0x230B), (0x2310, 0x2310),
    (0x2320, 0x2321), (0x23BA, 0x23BD), (0x2409, 0x240D), (0x2424, 0x2424), (0x2500, 0x2503),
    (0x250C, 0x250C), (0x2510, 0x2510), (0x2514, 0x2514), (0x2518, 0x2518), (0x251C, 0x251C),
    (0x2524, 0x2524), (0x252C, 0x252C), (0x2534, 0x2534), (0x253C, 0x253C), (0x254C, 0x2573),
    (0x2580, 0x25A3), (0x25AA, 0x25C6), (0x25CA, 0x25CB), (0x25CF, 0x25CF), (0x25D8, 0x25D9),
    (0x25E6, 0x25E6), (0x2600, 0x2600), (0x2639, 0x263C), (0x263F, 0x2642), (0x2660, 0x2666),
    (0x2669, 0x266B), (0x27E8, 0x27E9), (0xFB01, 0xFB02),
)
_FIRSTS = tuple(first for first, _ in SHOWN)


def unshown(text: str) -> str:
    """The characters of `text` the OLED cannot draw, each once, in order ('' when it draws them all).

    >>> unshown("Łucja Дмитрий Νίκος Zoë"), unshown("李小龍 Lee")
    ('', '李小龍')
    """
    missing: list[str] = []
    for char in text:
        at = bisect_right(_FIRSTS, ord(char)) - 1
        if (at < 0 or ord(char) > SHOWN[at][1]) and char not in missing:
            missing.append(char)
    return "".join(missing)

CONTROLLERS = ("ssd1306", "sh1106")
"""The OLED controllers the box drives (the pin map's `controller`)."""


def digits_value(text: str | None) -> int | None:
    """The whole number `text` writes in ASCII digits, else None: what comes from outside (an address,
    a header, a form, a script, the environment) is read so. `str.isdigit` alone takes "²", which
    `int` refuses, and "٣", which it reads as 3.

    >>> digits_value("042"), digits_value("²"), digits_value("٣"), digits_value("-1"), digits_value(""), digits_value(None)
    (42, None, None, None, None, None)
    """
    return int(text) if text is not None and text.isascii() and text.isdigit() else None
