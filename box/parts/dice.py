"""ROLL: the dice thrown for the game in play or as the free dice tool, and their tumble on the screen.

The `DiceTray` is one part of the Box (box/core/service.py): it throws the cup, hands a game's roll
to the screen that wants it (journaled with the last dice in one write), and shows the tumble
over every screen: a game's roll keeps its faces a moment and gives the screen back by itself,
the free dice stay until a press.

>>> from box.storage.journal import Journal
>>> from box.screens.tools import DiceCup
>>> from box.screens.protocol import BaseScreen
>>> tray = DiceTray(DiceCup(), Journal(":memory:"), None)
>>> tray.cup.queue(3, 4); tray.roll(BaseScreen(), None, now=1.0)
(3, 4)
>>> tray.view(1.0).dice != (3, 4), tray.view(2.0).dice, tray.free_open()
(True, (3, 4), True)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from box.events import DiceRolled
from box.games.base import View
from box.words import Sound

if TYPE_CHECKING:
    from box.screens.protocol import Host, Screen
    from box.screens.tools import DiceCup
    from box.storage.journal import Journal

DICE_ANIMATION = (0.08, 0.16, 0.26, 0.38, 0.52)  # frame times after a throw
DICE_HOLD = 1.0  # a game's roll keeps its real faces on the screen this long after the tumble (or until an input)
JOURNAL_KEY = "dice"  # the last dice thrown, kept across restarts


@dataclass
class DiceShow:
    """Two dice tumbling, then the result; a game's roll closes itself after the animation."""

    dice: tuple[int, int]
    thrown: float
    closes: bool

    def holding(self, now: float) -> bool:
        """A game's roll past its tumble, its real faces still shown."""
        return self.closes and now >= self.thrown + DICE_ANIMATION[-1]

    def closes_at(self) -> float:
        """When a game's roll gives the screen back: its real faces stay a moment after the tumble."""
        return self.thrown + DICE_ANIMATION[-1] + DICE_HOLD

    def face(self, now: float) -> tuple[int, int]:
        frames = [t for t in DICE_ANIMATION if self.thrown + t > now]
        if not frames:
            return self.dice
        k = len(frames)
        return ((self.dice[0] + k) % 6 + 1, (self.dice[1] + 2 * k) % 6 + 1)

    def deadlines(self, now: float) -> list[float]:
        frames = [self.thrown + t for t in DICE_ANIMATION if self.thrown + t > now]
        return [*frames, self.closes_at()] if self.closes else frames


class DiceTray:
    """The box's two dice: thrown on ROLL, shown tumbling, the last throw remembered."""

    def __init__(self, cup: DiceCup, journal: Journal, host: Host | None):
        self.cup, self.journal, self.host = cup, journal, host
        self.show: DiceShow | None = None
        self.last: list[int] | None = journal.get(JOURNAL_KEY, kind=list)
        self.rolled: tuple[int, int] | None = None  # a game's roll, its faces on the bottom line until the next input

    def roll(self, top: Screen, game: str | None, now: float) -> tuple[int, int]:
        """Throw: the game's dice when the screen on top wants them (StorageError: nothing thrown)."""
        dice = self.cup.throw()
        game_roll = top.wants_roll()
        with self.journal.batch():  # the roll and the last dice: one durable write
            if game_roll:
                top.roll(dice, now)  # what the step shows and plays waits for the commit
            self.journal.put(JOURNAL_KEY, list(dice))
        self.last = list(dice)
        self.show = DiceShow(dice, now, closes=game_roll)
        self.rolled = dice if game_roll else None
        if self.host is not None:
            self.host.play(Sound.DICE)
            self.host.publish(DiceRolled(dice, game if game_roll else None))
        return dice

    def free_open(self) -> bool:
        """The free dice are on the screen (a press puts them away)."""
        return self.show is not None and not self.show.closes

    def press(self, button: str, now: float) -> bool:
        """A press while dice show: True when it only put the free dice away."""
        self.end_hold(now)
        if self.free_open():
            self.show = None
            return button != "roll"
        return False

    def input(self, now: float, card: bool = False) -> None:
        """A press or a `card`: a game's roll gives the screen back, and its faces leave the bottom line;
        a card also puts the free dice away (it is meant for the game under them)."""
        self.end_hold(now)
        self.rolled = None
        if card and self.free_open():
            self.show = None

    def notice(self, notice: str) -> str:
        """The game's bottom line after its roll, with the faces the table just saw: "6+6: To space 12".

        >>> from box.storage.journal import Journal
        >>> from box.screens.tools import DiceCup
        >>> tray = DiceTray(DiceCup(), Journal(":memory:"), None)
        >>> tray.rolled = (6, 6); tray.notice("To space 12"), tray.notice("")
        ('6+6: To space 12', 'Rolled 6+6')
        """
        if self.rolled is None:
            return notice
        faces = f"{self.rolled[0]}+{self.rolled[1]}"
        return f"{faces}: {notice}" if notice else f"Rolled {faces}"

    def end_hold(self, now: float) -> None:
        """An input gives the screen back to the game at once after a roll's tumble."""
        if self.show is not None and self.show.holding(now):
            self.show = None

    def advance(self, now: float) -> None:
        if self.show is not None and self.show.closes and now >= self.show.closes_at():
            self.show = None

    def deadlines(self, now: float) -> list[float]:
        return self.show.deadlines(now) if self.show is not None else []

    def view(self, now: float) -> View | None:
        """The dice over every screen while they show, else None."""
        return View("Dice", dice=self.show.face(now)) if self.show is not None else None

    def dump(self) -> dict[str, Any]:
        return {"last": self.last}
