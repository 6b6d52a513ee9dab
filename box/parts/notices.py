"""The bottom line's notice and the screen flashed for a moment over everything (an unknown card, a bad file).

One part of the Box (box/core/service.py): `say` puts a line up for a while, `flash` a whole screen;
either goes by itself at its time, and a new notice puts a flashed screen away. A refusal (`refuse`)
stays until it is read: the next press puts it away (and goes on to do what it does), or the next
accepted step, or another notice.

A fault's view (a bad file met while the box runs, or what stops it from starting at all,
box/core/fault.py) is drawn by `fault_view`:

>>> fault_view("/etc/gravebox/config.toml:2: box.names: names must differ").lines[:2]
('/etc/gravebox/config.', 'toml:2: box.names:')
>>> notices = Notices()
>>> notices.say("Undone", now=1.0); notices.text_at(2.0), notices.text_at(4.0)
('Undone', '')
>>> notices.refuse("No dice in Dead Set", now=1.0); notices.text_at(600.0), notices.press(601.0), notices.text_at(601.0)
('No dice in Dead Set', False, '')
"""

from __future__ import annotations

import math
import textwrap
from pathlib import Path

from box.errors import FileProblem
from box.games.base import View
from box.words import LINE_CHARS, TEXT_LINES

NOTICE_SECONDS = 3.0


class Notices:
    """What the Box says on the bottom line, and the screen it flashes."""

    def __init__(self) -> None:
        self.text, self.until = "", 0.0
        self.flashed: View | None = None
        self.flash_until = 0.0

    def say(self, text: str, now: float, seconds: float = NOTICE_SECONDS) -> None:
        """Show `text` on the bottom line for a while; it replaces any flashed screen."""
        self.text, self.until = text, now + seconds
        self.flashed = None

    def refuse(self, text: str, now: float) -> None:
        """Show a refusal on the bottom line until the next press (or accepted step, or notice)."""
        self.say(text, now, seconds=math.inf)

    def flash(self, view: View, until: float) -> None:
        """Show `view` over every screen until `until` (or the next press)."""
        self.flashed, self.flash_until = view, until

    def clear(self) -> None:
        """An accepted step: the last refusal and any flashed screen go."""
        self.text, self.flashed = "", None

    def text_at(self, now: float) -> str:
        return self.text if self.text and now < self.until else ""

    def flash_at(self, now: float) -> View | None:
        return self.flashed if self.flashed is not None and now < self.flash_until else None

    def press(self, now: float) -> bool:
        """A press puts a refusal and a flashed screen away: True when that is all it did (the flash
        was still up); a refusal's press goes on to do what it does."""
        if self.until == math.inf:
            self.text, self.until = "", 0.0
        if self.flashed is None:
            return False
        self.flashed = None
        return now < self.flash_until

    def advance(self, now: float) -> None:
        if self.text and now >= self.until:
            self.text = ""
        if self.flashed is not None and now >= self.flash_until:
            self.flashed = None

    def next_deadline(self) -> float | None:
        return self.until if self.text and self.until != math.inf else None


def panel_reason(problem: BaseException) -> str:
    """A problem as the panel shows it: a bad file by its name, not its whole path (the log has that).

    >>> panel_reason(FileProblem("/etc/gravebox/decks/dead-set.csv", "empty name", line=7, field="name"))
    'dead-set.csv:7: name: empty name'
    """
    if isinstance(problem, FileProblem):
        return str(FileProblem(Path(problem.path).name, problem.message, problem.line, problem.field))
    return str(problem)


def fault_view(reason: str, title: str = "Cannot start", notice: str = "Fix it, then restart") -> View:
    """The reason, wrapped to the panel's lines (the end is kept: it says what is wrong)."""
    lines = textwrap.wrap(reason, LINE_CHARS, break_long_words=True, break_on_hyphens=False) or [reason]
    if len(lines) > TEXT_LINES:
        lines = [*lines[: TEXT_LINES - 2], "...", lines[-1]]
    return View(title, tuple(lines), notice=notice)
