"""The box's own menus: pick a game, the number of players, variants and house rules.

`Menu` is pure like the games: `Menu.press(press)` returns the next menu, or a `Choice`
when the user asked for something the Box does (start a game, open a tool).
`MenuScreen` shows it (the bottom of the Box's screen stack); `Picker` and `Confirm`
are the small lists and questions the Box opens over any screen.

>>> menu = Menu.main(("deadlines", "dead-set"), titles={"deadlines": "Deadlines", "dead-set": "Dead Set"})
>>> menu.press(Press("down")).press(Press("ok"))
Choice(kind='game', game='dead-set', players=0, options=(), tool=None, names=())
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import NamedTuple

from box.games.base import Option, Press, View
from box.games.kit import set_at, wrap
from box.screens.protocol import BaseScreen
from box.words import LINE_CHARS, PressKind


class Tool(StrEnum):
    """The tools of the main menu, by the label it shows."""

    SHOT_TIMER = "Shot timer"
    SELF_TEST = "Self-test"
    ENROL = "Enrol cards"
    USB = "USB stick"
    POWER_OFF = "Power off"


TOOLS = tuple(Tool)
VISIBLE_LINES = 5
FIRST_OPTION = 2  # the setup page: START, the names, then the game's options


def window(lines: Sequence[str], cursor: int, size: int = VISIBLE_LINES) -> tuple[tuple[str, ...], int]:
    """The `size` lines around `cursor`, and the cursor's index among them.

    >>> window([str(n) for n in range(10)], 7, size=3)
    (('6', '7', '8'), 1)
    """
    start = min(max(0, cursor - size // 2), max(0, len(lines) - size))
    return tuple(lines[start : start + size]), cursor - start


class Choice(NamedTuple):
    """What the user chose: `start` a game with players and options, or a `tool` by name."""

    kind: str
    game: str = ""
    players: int = 0
    options: tuple[tuple[str, str], ...] = ()
    tool: Tool | None = None
    names: tuple[str, ...] = ()  # the players' names in seating order (a start); empty: the box's default


@dataclass(frozen=True)
class Menu:
    """The menu's screens: `main` (games, then tools), `players`, `options` (the setup: START, names, options).

    `names` are the seats' names, more than the players (as many as the game takes): the
    setup starts the game with the first `players` of them.
    """

    games: tuple[str, ...]
    titles: Mapping[str, str]
    page: str = "main"
    cursor: int = 0
    game: str = ""
    players: int = 2
    player_range: tuple[int, int] = (1, 10)
    options: tuple[Option, ...] = ()
    values: tuple[str, ...] = ()
    editing: bool = False  # UP/DOWN change the selected number option instead of moving
    names: tuple[str, ...] = ()

    @classmethod
    def main(cls, games: Sequence[str], titles: Mapping[str, str]) -> Menu:
        return cls(games=tuple(games), titles=dict(titles))

    def entries(self) -> list[str]:
        if self.page == "main":
            return [self.titles.get(g, g) for g in self.games] + list(TOOLS)
        if self.page == "players":
            return [f"Players: < {self.players} >"]
        return ["START", f"Names: {', '.join(self.seated)}"] + [
            f"{setup_label(o)}: < {v} >" if self.editing and i == self.cursor - FIRST_OPTION else f"{setup_label(o)}: {v}"
            for i, (o, v) in enumerate(zip(self.options, self.values))
        ]

    @property
    def seated(self) -> tuple[str, ...]:
        """The names of the players the game would start with."""
        return self.names[: self.players]

    def configure(
        self, game: str, options: Sequence[Option], player_range: tuple[int, int], names: Sequence[str] = ()
    ) -> Menu:
        """Enter the players page for `game` (the service knows each game's options and the names)."""
        low, high = player_range
        return replace(
            self,
            page="players",
            cursor=0,
            game=game,
            player_range=player_range,
            players=min(max(self.players, low), high),
            options=tuple(options),
            values=tuple(o.default for o in options),
            names=tuple(names) or tuple(f"P{n}" for n in range(1, high + 1)),
        )

    def press(self, press: Press) -> Menu | Choice:
        size = len(self.entries())
        if self.editing:
            return self.edit(press)
        if press.button in ("up", "down") and self.page != "players":
            step = -1 if press.button == "up" else 1
            return replace(self, cursor=(self.cursor + step) % size)
        if self.page == "main":
            if press.button != "ok":
                return self
            if self.cursor < len(self.games):
                return Choice("game", game=self.games[self.cursor])
            return Choice("tool", tool=TOOLS[self.cursor - len(self.games)])
        if press.button == "back":
            if self.page == "options":
                return replace(self, page="players", cursor=0)
            return replace(self, page="main", cursor=self.games.index(self.game))
        if self.page == "players":
            low, high = self.player_range
            if press.button in ("up", "down"):
                step = 1 if press.button == "up" else -1
                return replace(self, players=min(max(self.players + step, low), high))
            if press.button == "ok":
                return replace(self, page="options", cursor=0)
            return self
        if press.button != "ok":
            return self
        if self.cursor == 0:
            return Choice(
                "start",
                game=self.game,
                players=self.players,
                options=tuple((o.key, v) for o, v in zip(self.options, self.values)),
                names=self.seated,
            )
        if self.cursor == 1:
            return Choice("names", game=self.game, players=self.players, names=self.seated)
        index = self.cursor - FIRST_OPTION
        option = self.options[index]
        if not option.choices:  # a number: UP/DOWN change it until OK or BACK
            return replace(self, editing=True)
        return replace(self, values=set_at(self.values, index, next_value(option, self.values[index])))

    def seat(self, seat: int, name: str) -> Menu:
        """`name` takes seat `seat`; if another seat had it, the two swap.

        >>> menu = Menu(("dead-set",), {}, page="options", players=2, names=("Ann", "Bob", "P3"))
        >>> menu.seat(0, "Bob").seated, menu.seat(1, "Dee").seated
        (('Bob', 'Ann'), ('Ann', 'Dee'))
        """
        names = list(self.names)
        if name in names:
            names[names.index(name)] = names[seat]
        names[seat] = name
        return replace(self, names=tuple(names))

    def edit(self, press: Press) -> Menu:
        """A number option being set: UP one more, DOWN one less (within its range), OK or BACK done."""
        if press.button in ("ok", "back"):
            return replace(self, editing=False)
        if press.button not in ("up", "down"):
            return self
        index = self.cursor - FIRST_OPTION
        option = self.options[index]
        number = int(self.values[index]) + (1 if press.button == "up" else -1)
        number = min(max(number, option.low), option.high)
        return replace(self, values=set_at(self.values, index, str(number)))

    def view(self) -> View:
        lines, cursor = window(self.entries(), self.cursor)
        if self.page == "main":
            return View("GRAVEBOX", lines, cursor)
        title = self.titles.get(self.game, self.game)
        if self.page == "players":
            low, high = self.player_range
            return View(title, (*lines, f"UP/DOWN: {low} to {high}", "OK: next  BACK: back"), 0)
        names_at = 1 - (self.cursor - cursor)  # the names' line in the window: free text, it scrolls
        names = (names_at,) if 0 <= names_at < len(lines) else ()
        if self.editing:
            return View(title, lines, cursor, notice="UP/DOWN: value, OK: done", scrolling=names)
        return View(title, lines, cursor, notice="OK: start or change", scrolling=names)


def setup_label(option: Option) -> str:
    """The label the setup shows beside an option's value: the long one where it fits a line with
    every value the option takes (a number while it is set, "< 108 >", too), else the short one.

    >>> setup_label(Option("target", "Celebrities to win", "13", low=1, high=108, short="To win"))
    'To win'
    >>> setup_label(Option("variant", "Variant", "classic", ("classic", "death-match")))
    'Variant'
    """
    shown = option.choices or (f"< {option.low} >", f"< {option.high} >")
    return option.label if all(len(f"{option.label}: {value}") <= LINE_CHARS for value in shown) else option.short


def next_value(option: Option, value: str) -> str:
    """The value after `value`: the next choice, or the next whole number wrapping in range.

    >>> next_value(Option("streak", "Streak", "off", ("off", "must", "may")), "may")
    'off'
    """
    if option.choices:
        return option.choices[(option.choices.index(value) + 1) % len(option.choices)]
    number = int(value) + 1
    return str(option.low if number > option.high else number)


class MenuScreen(BaseScreen):
    """The main menu, the players page and the options page; `on_choice` does what was chosen."""

    name = "menu"
    global_keys = True

    def __init__(self, menu: Menu, on_choice: Callable[[Choice, float], None]):
        super().__init__()
        self.menu = menu
        self.on_choice = on_choice

    def press(self, button: str, kind: PressKind, now: float) -> None:
        result = self.menu.press(Press(button, long=kind == PressKind.LONG))
        if isinstance(result, Menu):
            self.menu = result
        else:
            self.on_choice(result, now)

    def view(self, now: float) -> View:
        return self.menu.view()


class Picker(BaseScreen):
    """A list to choose from: UP/DOWN move, OK runs the entry's action, BACK (or no action) closes.

    `name` is the screen's name in the state dump (the long-BACK menu is "box-menu").

    >>> picker = Picker("picker", "Pick", ("One", "Two"), (None, print))
    >>> picker.press("down", PressKind.SHORT, now=0.5); picker.view(0.5).cursor
    1
    >>> picker.press("ok", PressKind.SHORT, now=0.5); picker.closed
    0.5
    True
    """

    def __init__(
        self,
        name: str,
        title: str,
        entries: tuple[str, ...],
        actions: tuple[Callable[[float], None] | None, ...],
    ):
        super().__init__()
        self.name, self.title, self.entries, self.actions = name, title, entries, actions
        self.cursor = 0

    def press(self, button: str, kind: PressKind, now: float) -> None:
        if button in ("up", "down"):
            self.cursor = (self.cursor + (1 if button == "down" else -1)) % len(self.entries)
        elif button == "back":
            self.closed = True
        elif button == "ok":
            self.closed = True
            action = self.actions[self.cursor]
            if action is not None:
                action(now)

    def view(self, now: float) -> View:
        lines, cursor = window(self.entries, self.cursor)
        return View(self.title, lines, cursor)


class Confirm(BaseScreen):
    """A yes/no question: OK confirms, BACK cancels."""

    name = "confirm"

    def __init__(self, question: str, on_yes: Callable[[float], None]):
        super().__init__()
        self.question, self.on_yes = question, on_yes

    def press(self, button: str, kind: PressKind, now: float) -> None:
        if button == "ok":
            self.closed = True
            self.on_yes(now)
        elif button == "back":
            self.closed = True

    def view(self, now: float) -> View:
        """The question over up to three lines (a long undo label), then what OK and BACK do."""
        question = wrap(self.question, most=3)
        return View("Are you sure?", (*question, *("",) * (3 - len(question)), "OK: yes  BACK: no"))
