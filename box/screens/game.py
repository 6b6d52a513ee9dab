"""The game in play as a screen: presses, cards and the game's dice go to its rules.

The screen turns the Box's inputs into the game's actions (`Press`, `Tap`, `Roll`) and
hands them to the `GameSession`, which journals every accepted action before the state
changes. What an accepted step asks for (sounds, the shot timer) goes back to the Box.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Protocol

from box.games.base import Action, Press, Rejected, Roll, Step, Tap, View
from box.screens.protocol import BaseScreen, Card, Host
from box.words import TEXT_LINES, PressKind

if TYPE_CHECKING:
    from box.base.session import GameSession


class GameHost(Host, Protocol):
    """What the game screen needs of the Box besides a screen's host: to show and publish an accepted step."""

    def accepted(self, step: Step, now: float, before: dict[str, Any]) -> Callable[[], None]:
        """The step just taken, told at once; the call returned shows and publishes it once journaled."""


# The state dump's game keys while no game is in play (shared: never change it), and their defaults while one is
NO_GAME: dict[str, Any] = {"game": None, "players": [], "current_player": None, "over": False, "winners": []}


class GameScreen(BaseScreen):
    """The running game: every press the Box does not keep, taps of its own deck, its dice."""

    name = "game"
    global_keys = True

    def __init__(
        self, session: GameSession, host: GameHost, dice_open: Callable[[], bool], leave: Callable[[float], None]
    ):
        """`dice_open`: the free dice are on the screen (a card then waits); `leave`: back to the menu."""
        super().__init__()
        self.session = session
        self.game_host, self.dice_open, self.leave = host, dice_open, leave
        self.dumped: tuple[Any, dict[str, Any], dict[str, Any]] | None = None  # the state last dumped, its public keys, the dump

    @property
    def game(self) -> str:
        return self.session.record.name

    def over(self) -> bool:
        return self.session.rules.is_over(self.session.state)

    def press(self, button: str, kind: PressKind, now: float) -> None:
        if button == "ok" and kind == PressKind.LONG and self.over():
            self.leave(now)
        else:
            self.act(Press(button, long=kind == PressKind.LONG), now)

    def tag(self, reader: str, uid: bytes, card: Card | None, now: float) -> None:
        if card is None or card[0] != self.game or self.dice_open():
            self.game_host.refuse_card(card, now)
        else:
            self.act(Tap(reader, card[1]), now)

    def wants_roll(self) -> bool:
        return self.session.rules.wants_roll(self.session.state)

    def roll(self, dice: tuple[int, int], now: float) -> None:
        self.act(Roll(dice), now)

    def act(self, action: Action, now: float) -> None:
        """Apply an action to the game: journaled first, then shown, heard and published."""
        before = self.session.dump()  # whose turn it was, whether it was over: for the events
        result = self.session.apply(action)  # StorageError: not journaled, nothing changed
        if isinstance(result, Rejected):
            self.game_host.reject(result.reason, now)
        else:  # inside a batch (a roll), once it is durable
            self.session.journal.on_commit(self.game_host.accepted(result, now, before))

    def view(self, now: float) -> View:
        view = self.session.view(self.session.state)
        return over_view(view) if self.over() else view

    def dump(self) -> dict[str, Any]:
        """The game's keys of the state dump but its count of actions (the Box's), made once a state:
        the same dict (never change it) until the game's public keys change, so a follower's line tells
        at once that they did not (a cursor moved in a picker: a new state, the public keys all equal)."""
        session = self.session
        dumped = self.dumped
        if dumped is None or dumped[0] is not session.state:
            public = session.public()  # the game's secrets stay at the table
            if dumped is not None and public == dumped[1]:  # a move the table does not see (a cursor)
                self.dumped = (session.state, public, dumped[2])
            else:
                game = {**NO_GAME, "game": self.game, "players": list(session.players), "options": dict(session.record.options), **public}
                self.dumped = (session.state, public, game)
            dumped = self.dumped
        return dumped[2]


GAME_OVER_HINT = "hold OK: menu"


def over_view(view: View) -> View:
    """A game-over screen says how to leave it; the game's last word moves up a line for the hint.

    >>> over_view(View("Game over", ("Ann wins!",), notice="Fewest penalties"))
    View(title='Game over', lines=('Ann wins!', 'Fewest penalties'), cursor=None, dice=None, notice='hold OK: menu', big='', scrolling=(1,))
    """
    lines, scrolling = view.lines, view.scrolling
    if view.notice and len(lines) < TEXT_LINES and view.notice not in lines:
        lines, scrolling = (*lines, view.notice), (*scrolling, len(lines))  # free text: it scrolls if it must
    return replace(view, lines=lines, notice=GAME_OVER_HINT, scrolling=scrolling)
