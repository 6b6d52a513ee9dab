"""Who sits where at a game's setup: a seat's name from the roster, or a new one spelt with the buttons.

The setup's "Names:" line opens the seats (a `Picker` the Box builds); a seat opens the roster's
names; "New name" opens the `LetterPicker`. A new name joins the roster (`roster.json` in the
state directory), and the roster keeps the last table first, so the next game offers the same
people in the same seats.

>>> picker = LetterPicker(lambda name, now: print("named", name))
>>> for button in ("down", "ok", "ok", "down", "ok"):
...     picker.press(button, PressKind.SHORT, now=0.0)
>>> picker.view(0.0).lines[0]
'Name: Bbc<c>'
>>> picker.press("ok", PressKind.LONG, now=0.0)
named Bbc
"""

from __future__ import annotations

import string
from collections.abc import Callable, Sequence

from box.games.base import View
from box.roster import MAX_NAME_LENGTH, MAX_NAMES
from box.screen import BaseScreen
from box.words import PressKind, Sound

CAPITALS = string.ascii_uppercase
SMALL = string.ascii_lowercase + " -'"  # after the first letter: small letters, a space, a hyphen, an apostrophe
PLACEHOLDER = "P"  # "P3": the box's name for seat 3 when nobody is named there


def placeholder(name: str) -> bool:
    """A seat number the box made up ("P3"), not a person's name.

    >>> placeholder("P3"), placeholder("Pat")
    (True, False)
    """
    return name.startswith(PLACEHOLDER) and name[len(PLACEHOLDER) :].isdigit()


def remembered(known: Sequence[str], seated: Sequence[str]) -> tuple[str, ...]:
    """The roster after a game started: the table's names first, in their seats, then the others.

    >>> remembered(("Ann", "Bob", "Cid"), ("Cid", "P2", "Dee"))
    ('Cid', 'Dee', 'Ann', 'Bob')
    """
    table = [name for name in seated if not placeholder(name)]
    return tuple([*table, *(name for name in known if name not in table)][:MAX_NAMES])


class LetterPicker(BaseScreen):
    """A new name, a letter at a time: UP/DOWN the letter, OK adds it, BACK rubs one out, hold OK done.

    The first letter is a capital, the others small (or a space, a hyphen, an apostrophe); after a
    space or a hyphen a capital again. Each new letter starts at the one before: a double letter is
    one OK more. BACK with nothing written leaves without a name.
    """

    name = "new-name"

    def __init__(self, on_done: Callable[[str, float], None]):
        super().__init__()
        self.on_done = on_done
        self.text = ""
        self.letter = 0  # the index in the current alphabet

    @property
    def alphabet(self) -> str:
        return CAPITALS if not self.text or self.text[-1] in " -" else SMALL

    @property
    def current(self) -> str:
        return self.alphabet[self.letter % len(self.alphabet)]

    def press(self, button: str, kind: PressKind, now: float) -> None:
        if button in ("up", "down"):
            self.letter = (self.letter + (1 if button == "down" else -1)) % len(self.alphabet)
        elif button == "ok" and kind == PressKind.LONG:
            self.done(now)
        elif button == "ok":
            self.add()
        elif button == "back" and self.text:
            self.text = self.text[:-1]
            self.letter = 0
        elif button == "back":
            self.closed = True

    def add(self) -> None:
        """The letter shown joins the name; a full name, or a space twice, is refused with the error sound."""
        letter = self.current
        if len(self.text) >= MAX_NAME_LENGTH or (letter in " -'" and (not self.text or self.text[-1] in " -'")):
            self.play(Sound.ERROR)
            return
        self.text += letter
        self.letter = max(self.alphabet.find(letter.lower()), 0)

    def done(self, now: float) -> None:
        name = " ".join(self.text.split())
        if name:
            self.closed = True
            self.on_done(name, now)
        else:
            self.play(Sound.ERROR)

    def view(self, now: float) -> View:
        alphabet, letter = self.alphabet, self.letter % len(self.alphabet)
        near = [alphabet[(letter + step) % len(alphabet)].replace(" ", "_") for step in range(-3, 4)]
        near[3] = f"[{near[3]}]"
        return View(
            "New name",
            (f"Name: {self.text}<{self.current}>", " ".join(near), "UP/DOWN: letter", "OK: add BACK: rub out"),
            notice="hold OK: done",
        )
