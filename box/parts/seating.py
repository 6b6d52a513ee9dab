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

import logging
import string
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING

from box.games.base import View
from box.screens.menu import MenuScreen, Picker
from box.screens.protocol import BaseScreen, StackHost
from box.storage.player_ids import MAX_NAME_LENGTH, Sat, player_name
from box.storage.roster import MAX_NAMES, ROSTER_FILE, save_roster
from box.words import PressKind, Sound

if TYPE_CHECKING:
    from box.base.settings import Settings

log = logging.getLogger(__name__)

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


class Seating:
    """Who sits where at the setup on the main menu: tokens that joined, the roster's names, names spelt."""

    def __init__(
        self, settings: Settings, menu: MenuScreen, host: StackHost, sat: Callable[[], Sat] = Sat
    ):
        """`sat`: who sat at the journal's games (a new player's id is judged against it)."""
        self.settings, self.menu, self.host, self.sat = settings, menu, host, sat
        self.joined: list[str] = []  # names whose player token was laid on a reader at this setup
        self.last: tuple[str, ...] = ()  # who sat at this game last time, in their seats

    def begin(self, count: int, last: Sequence[str] = ()) -> list[str]:
        """A new setup: nobody joined yet; its first seating, the table `last` seated at this game first."""
        self.joined = []
        self.last = tuple(name for name in last if not placeholder(name))
        return self.seat(count)

    def seat(self, count: int) -> list[str]:
        """The setup's first seating: those whose token joined, the game's last table, then the roster's
        names, then P3, P4..."""
        names = list(self.joined[:count])
        for name in (*self.last, *self.settings.player_names(count + len(names) + len(self.last))):
            if len(names) == count:
                break
            if name not in names:
                names.append(name if not placeholder(name) else f"P{len(names) + 1}")
        return names

    def player_joins(self, name: str, now: float) -> None:
        """A player's token laid on a reader at a game's setup: that name takes the next seat."""
        try:
            name = player_name(name, self.settings.known_names)  # the roster's spelling, or refused
        except ValueError as problem:
            self.host.reject(str(problem), now)
            return
        menu = self.menu.menu
        if self.host.top is not self.menu or menu.page == "main":
            self.host.reject("Player tokens join at a game's setup", now)
            return
        if name in self.joined:
            self.host.reject(f"{name} is in already", now)
            return
        high = menu.player_range[1]
        if len(self.joined) >= high:
            self.host.reject(f"At most {high} players", now)
            return
        self.joined.append(name)
        menu = replace(menu, players=min(high, max(menu.players, len(self.joined))))
        self.menu.menu = replace(menu, names=tuple(self.seat(high)))  # the tokens' players first, in the order they came
        self.host.say(f"{name} joins: {len(self.joined)} seated", now)
        self.host.play(Sound.RIGHT)

    def open_seats(self, now: float, cursor: int = 0) -> None:
        """The setup's seats: OK on one chooses its name; "Done" goes back to the setup."""
        seated = self.menu.menu.seated
        entries = (*(f"{seat + 1} {name}" for seat, name in enumerate(seated)), "Done")
        actions = (*(partial(self.open_names, seat) for seat in range(len(seated))), None)
        picker = Picker("seats", "Who sits where?", entries, actions)
        picker.cursor = min(cursor, len(seated))
        self.host.push(picker)

    def open_names(self, seat: int, now: float) -> None:
        """A seat's name: one of the roster's or one spelt at this setup (a seated one swaps seats), the
        seat's number, or a new one."""
        seated = self.menu.menu.seated
        current = seated[seat]
        spelt = (name for name in seated if not placeholder(name))  # not in the roster until the game starts
        names = list(dict.fromkeys((*self.settings.known_names, *spelt, f"P{seat + 1}")))  # each once, in order
        actions = tuple(partial(self.take_seat, seat, name) for name in names)
        spell = partial(self.spell, seat)
        picker = Picker("names", f"Seat {seat + 1}: who?", (*names, "New name"), (*actions, spell))
        picker.cursor = names.index(current) if current in names else 0
        self.host.push(picker)

    def spell(self, seat: int, now: float) -> None:
        self.host.push(LetterPicker(partial(self.new_name, seat)))

    def new_name(self, seat: int, name: str, now: float) -> None:
        """A name spelt on the box: the roster's own spelling when it has it already, else a new one."""
        try:
            name = player_name(name, self.settings.known_names)  # the roster's own spelling when it has it
        except ValueError as problem:
            self.host.reject(str(problem), now)
            return
        self.take_seat(seat, name, now)

    def take_seat(self, seat: int, name: str, now: float) -> None:
        self.menu.menu = self.menu.menu.seat(seat, name)
        self.open_seats(now, cursor=seat + 1)

    def remember(self, seated: Sequence[str], now: float) -> None:
        """The roster learns the table's new names and keeps the last table first (the next game's seats)."""
        settings = self.settings
        names = remembered(settings.known_names, seated)
        if names == settings.known_names:  # nothing new (a config file's names stay the config file's)
            return
        settings.roster = settings.roster.with_names(names, self.sat())  # a known name keeps its player (their id)
        if settings.state_dir is None:
            return
        try:
            save_roster(settings.roster, settings.state_dir / ROSTER_FILE)
        except (OSError, ValueError) as problem:  # the game goes on; the names are kept until the box restarts
            log.error("roster not saved: %s", problem)  # ValueError: a name its loader would refuse
            self.host.say(f"Names not saved: {getattr(problem, 'strerror', None) or problem}", now)
