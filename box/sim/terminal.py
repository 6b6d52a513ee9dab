"""The simulator in a terminal: the OLED drawn in text, keys for the buttons, typed taps.

Keys: arrows or k/j = UP/DOWN, Enter or o = OK, Backspace or b = BACK, r = ROLL;
capitals (K J O B R) hold the button 1.5 s (a long press); P holds BACK+OK
(power off); `:` opens a command line that takes any script command
(`tap left Marie Curie`, `dice 6 6`, `unplug middle`, `start dead-set players=3`), and
`cards [TEXT]` lists the running game's cards;
q quits. Virtual time follows the wall clock, so the shot timer runs for real.
"""

from __future__ import annotations

import contextlib
import curses
import time
from pathlib import Path
from typing import Any

from box.service import Settings
from box.sim.script import ScriptError, ScriptRunner, parse_script
from box.sim.world import SimulatedBox

KEYS: dict[int, tuple[str, float]] = {
    curses.KEY_UP: ("up", 0.1),
    ord("k"): ("up", 0.1),
    curses.KEY_DOWN: ("down", 0.1),
    ord("j"): ("down", 0.1),
    ord("\n"): ("ok", 0.1),
    curses.KEY_ENTER: ("ok", 0.1),
    ord("o"): ("ok", 0.1),
    curses.KEY_BACKSPACE: ("back", 0.1),
    127: ("back", 0.1),
    ord("b"): ("back", 0.1),
    ord("r"): ("roll", 0.1),
    ord("K"): ("up", 1.5),
    ord("J"): ("down", 1.5),
    ord("O"): ("ok", 1.5),
    ord("B"): ("back", 1.5),
    ord("R"): ("roll", 1.5),
}
HELP = "arrows/jk UP DOWN  Enter OK  Bksp BACK  r ROLL  capitals: hold  P: power  : command  q quit"
BRAILLE_BITS = ((0x01, 0x08), (0x02, 0x10), (0x04, 0x20), (0x40, 0x80))


def braille(image: Any) -> list[str]:
    """A 1-bit image as Braille text, 2x4 pixels a character (128x64 -> 64x16)."""
    width, height = image.size
    pixels = image.load()
    rows = []
    for top in range(0, height, 4):
        row = []
        for left in range(0, width, 2):
            bits = 0
            for dy in range(4):
                for dx in range(2):
                    if top + dy < height and left + dx < width and pixels[left + dx, top + dy]:
                        bits |= BRAILLE_BITS[dy][dx]
            row.append(chr(0x2800 + bits))
        rows.append("".join(row))
    return rows


def play_in_terminal(state_dir: Path, settings: Settings, seed: int | None = None) -> int:
    world = SimulatedBox(state_dir=state_dir, decks_dir=settings.decks_dir, seed=seed, names=settings.names)
    try:
        curses.wrapper(lambda screen: Terminal(world, screen).run())
    finally:
        world.parts.close()
        world.box.journal.close()
    return 0


class Terminal:
    def __init__(self, world: SimulatedBox, screen: Any):
        self.world = world
        self.screen = screen
        self.runner = ScriptRunner(world, "terminal")
        self.message = "Welcome to Gravebox. Press : then 'tap left <card>' to tap a card."
        self.wall = time.monotonic()

    def run(self) -> None:
        curses.curs_set(0)
        self.screen.timeout(50)
        while True:
            self.catch_up()
            self.draw()
            key = self.screen.getch()
            if key == -1:
                continue
            if key == ord("q"):
                return
            if key == ord(":"):
                self.command(self.prompt())
            elif key == ord("P"):
                self.power_chord()
            elif key in KEYS:
                button, seconds = KEYS[key]
                self.world.press(button, seconds)
                self.wall = time.monotonic()

    def catch_up(self) -> None:
        """Let virtual time follow the wall clock."""
        now = time.monotonic()
        self.world.advance(max(0.0, now - self.wall))
        self.wall = now

    def power_chord(self) -> None:
        back, ok = self.world.pin("back"), self.world.pin("ok")
        back.drive_low()
        ok.drive_low()
        self.world.advance(2.2)
        back.drive_high()
        ok.drive_high()
        self.world.advance(0.1)

    def prompt(self) -> str:
        height, _ = self.screen.getmaxyx()
        curses.echo()
        curses.curs_set(1)
        self.screen.timeout(-1)
        self.screen.move(height - 1, 0)
        self.screen.clrtoeol()
        self.screen.addstr(height - 1, 0, ": ")
        text = self.screen.getstr(height - 1, 2, 200).decode("utf-8", "replace")
        curses.noecho()
        curses.curs_set(0)
        self.screen.timeout(50)
        self.wall = time.monotonic()
        return text

    def command(self, text: str) -> None:
        if text.split()[:1] == ["cards"]:
            self.message = self.cards(text[len("cards") :].strip())
            return
        try:
            for command in parse_script(text, "command"):
                self.runner.step(command)
            self.message = f"done: {text}" if text.strip() else ""
        except ScriptError as problem:
            self.message = problem.reason
        except (ValueError, KeyError) as problem:
            self.message = str(problem)

    def cards(self, wanted: str) -> str:
        """`cards [TEXT]`: the running game's cards whose id or name holds TEXT (the first dozen)."""
        session = self.world.box.session
        if session is None:
            return "Start a game first: its cards are listed here."
        deck = session.deck
        found = [f"{cid} {name}" for cid, name in deck.names.items() if wanted.casefold() in f"{cid} {name}".casefold()]
        return f"{len(found)} cards: " + " | ".join(found[:12]) if found else f"no card matches {wanted!r}"

    def draw(self) -> None:
        screen = self.screen
        screen.erase()
        height, width = screen.getmaxyx()
        image = self.world.parts.display.image
        rows = braille(image)
        lines = ["┌" + "─" * 64 + "┐", *("│" + row + "│" for row in rows), "└" + "─" * 64 + "┘"]
        view = self.world.box.screen(self.world.now)
        text = [view.title, *((">" if i == view.cursor else " ") + line for i, line in enumerate(view.lines))]
        if view.dice:
            text.append(f" dice: {view.dice[0]} {view.dice[1]}")
        if view.notice:
            text.append(f" [{view.notice}]")
        dump = self.world.dump()
        status = f"game: {dump['game'] or '-'}  player: {dump['current_player'] or '-'}  t={self.world.now:.1f}s"
        for y, line in enumerate(lines):
            self.put(y, 0, line, width, height)
        if width >= 66 + 30:
            for y, line in enumerate(text):
                self.put(1 + y, 68, line, width, height)
            below = len(lines)
        else:
            for y, line in enumerate(text):
                self.put(len(lines) + y, 0, line, width, height)
            below = len(lines) + len(text)
        self.put(below, 0, status, width, height)
        self.put(below + 1, 0, self.message, width, height)
        self.put(height - 1, 0, HELP, width, height)
        screen.refresh()

    def put(self, y: int, x: int, text: str, width: int, height: int) -> None:
        if 0 <= y < height - (0 if y == height - 1 else 1) and x < width:
            # curses refuses the screen's very last cell; everything else is drawn
            with contextlib.suppress(curses.error):
                self.screen.addstr(y, x, text[: max(0, width - x - 1)])
