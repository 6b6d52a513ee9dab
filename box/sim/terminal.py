"""The simulator in a terminal: the OLED drawn in text, keys for the buttons, typed taps.

Keys: arrows or k/j = UP/DOWN, Enter or o = OK, Backspace or b = BACK, r = ROLL;
capitals (K J O B R) hold the button 1.5 s (a long press); P holds BACK+OK
(power off); `:` opens a command line that takes any script command
(`tap left Marie Curie`, `dice 6 6`, `unplug middle`, `start dead-set players=3`), and
`cards [TEXT]` lists the running game's cards; Ctrl-L draws the whole terminal again;
q quits. Virtual time follows the wall clock, so the shot timer runs for real.
The log goes to a file in the state folder (box/sim/logfile.py), never into the drawing.
"""

from __future__ import annotations

import contextlib
import curses
import sys
import textwrap
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from box.base.settings import Settings
from box.links.control import ControlServer
from box.ports.buzzer import BuzzerPlayer
from box.sim.logfile import logging_to_file
from box.sim.script import ScriptError, ScriptRunner, parse_script
from box.sim.world import SimulatedBox
from box.storage.journal import make_state_directory

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
CTRL_L = 12  # draw everything again
HELP = "arrows/jk UP DOWN  Enter OK  Bksp BACK  r ROLL  capitals: hold  P: power  : command  ^L redraw  q quit"
SHORT_HELP = "↑↓/jk UP DOWN  Enter OK  Bksp BACK  r ROLL  KJOBR hold  P power  : cmd  q quit"
WELCOME = "Welcome to Gravebox. Press : then 'tap left <card>' to tap a card, ':cards' lists them."
BRAILLE_BITS = ((0x01, 0x08), (0x02, 0x10), (0x04, 0x20), (0x40, 0x80))
PICTURE_COLUMNS = 66  # the OLED in Braille (64 characters) and its border
PICTURE_ROWS = 18
SIDE_TEXT_COLUMNS = 28  # room the wide layout wants beside the picture for the screen as text
BOTTOM_ROWS = 4  # notice, status, last reply, keys: always shown
SOUND_SHOWN = 2.0  # seconds a sound stays named on the status line
SOUND_WORDS = {"lap": "lap alarm", "end": "time up", "column": "column done", "fanfare": "win"}
DARK_TEXT = ("Screen dark", " a button or a card wakes it")  # the OLED shows nothing: say so


def frame(rows: Sequence[str], label: str = "") -> list[str]:
    """The OLED's Braille rows in a border; `label` (the panel dimmed or dark) on its top edge.

    >>> frame(["⠀" * 10], "dark")
    ['┌─ dark ───┐', '│⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀│', '└──────────┘']
    """
    width = len(rows[0]) if rows else 64
    top = f"─ {label} " if label else ""
    return ["┌" + top + "─" * (width - len(top)) + "┐", *("│" + row + "│" for row in rows), "└" + "─" * width + "┘"]


def picture_row(line: str) -> bool:
    """A line of the OLED's picture: its border or Braille (what is drawn dim while the panel is dimmed)."""
    return bool(line) and (line[0] in "┌│└" or 0x2800 <= ord(line[0]) <= 0x28FF)


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


def sounds_text(played: Iterable[tuple[float, str]], now: float) -> str:
    """The sounds heard in the last SOUND_SHOWN seconds, as words.

    >>> sounds_text([(0.0, "click"), (9.0, "right"), (9.5, "lap")], now=10.0)
    '♪ right ♪ lap alarm'
    """
    return " ".join(f"♪ {SOUND_WORDS.get(sound, sound)}" for when, sound in played if now - when <= SOUND_SHOWN)


def cut(text: str, width: int) -> str:
    """`text` in `width` characters, with "…" where it was cut.

    >>> cut("Wolfgang Amadeus Mozart", 12), cut("Ada", 12)
    ('Wolfgang Am…', 'Ada')
    """
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"


def pages_of(entries: Sequence[str], width: int, rows: int) -> list[list[str]]:
    """`entries` laid out in columns (read down, then across) on pages of `rows` lines.

    >>> pages_of(["a", "b", "c", "d", "e"], width=8, rows=2)
    [['a   c', 'b   d'], ['e']]
    >>> pages_of(["a", "b", "c"], width=12, rows=5)
    [['a   b   c']]
    """
    if not entries:
        return []
    column = min(max(len(entry) for entry in entries) + 3, max(1, width))
    columns = max(1, width // column)
    per_page = columns * max(1, rows)
    pages = []
    for first in range(0, len(entries), per_page):
        chunk = entries[first : first + per_page]
        tall = -(-len(chunk) // columns)  # a short page uses every column, not one long one
        lines = []
        for row in range(tall):
            cells = [cut(entry, column - 3) for entry in chunk[row::tall]]
            lines.append("".join(cell.ljust(column) for cell in cells[:-1]) + cells[-1])
        pages.append(lines)
    return pages


def oled_rows(text: Sequence[str], width: int, rows: int) -> list[str]:
    """The OLED's title and lines (`>` marks the selected one) in at most `rows` lines of `width`:
    as many of its lines as fit around the selected one (or from the first), "…" for the others.

    >>> oled_rows(["Pair a phone", " Type on the phone:", "    482 913", " ", " BACK: hide"], 79, 1)
    ['Pair a phone | Type on the phone: · 482 913 · BACK: hide']
    >>> oled_rows(["GRAVEBOX", " Deadlines", " Dead Set", " Dead Fellas", ">Deck of Death", " Shot timer"], 45, 1)
    ['GRAVEBOX | … · >Deck of Death · Shot timer']
    >>> oled_rows(["GRAVEBOX", " Deadlines", " Dead Set", " Dead Fellas", ">Deck of Death", " Shot timer"], 45, 2)
    ['GRAVEBOX | Deadlines · Dead Set · Dead Fellas', '>Deck of Death · Shot timer']
    """
    title, *lines = text
    entries = [
        (">" if line.startswith(">") else "") + " ".join(line[1:].split())
        for line in lines
        if line.startswith(">") or line[1:].strip()
    ]
    chosen = next((i for i, entry in enumerate(entries) if entry.startswith(">")), 0)

    def packed(low: int, high: int) -> list[str]:
        pieces = [*(["…"] if low > 0 else []), *entries[low:high], *(["…"] if high < len(entries) else [])]
        filled = [f"{title} |" if pieces else title]
        for n, piece in enumerate(pieces):
            joined = f"{filled[-1]}{' ' if n == 0 else ' · '}{piece}"
            if len(joined) <= width:
                filled[-1] = joined
            else:
                filled.append(piece)
        return [cut(row, width) for row in filled]

    low, high = chosen, min(chosen + 1, len(entries))
    grown = True
    while grown:  # add a line after the chosen one, then one before, while they fit
        grown = False
        if high < len(entries) and len(packed(low, high + 1)) <= rows:
            high, grown = high + 1, True
        if low > 0 and len(packed(low - 1, high)) <= rows:
            low, grown = low - 1, True
    return packed(low, high)[:rows]


def layout(
    width: int,
    height: int,
    picture: Sequence[str],
    text: Sequence[str],
    bottom: Sequence[str],
    keys: str,
) -> list[str]:
    """The whole terminal, `height` lines: the OLED and the screen as text, then `bottom`, then `keys`.

    Wide terminals get the text beside the picture; smaller ones (80x24) the picture with the
    OLED's text in a line under it (two when it needs them and the reply does not), then the
    notice, the status and the last reply; tiny ones the screen as text only. The bottom lines
    and the keys are always there.

    >>> lines = layout(80, 24, ["#" * 66] * 18, ["Title", " line"], ["notice", "status", "reply"], "keys")
    >>> len(lines), lines[18:22], lines[-1]
    (24, ['Title | line', 'notice', 'status', 'reply'], 'keys')
    >>> layout(40, 8, ["#" * 66] * 18, ["Title", ">line"], ["n", "s", "r"], "k")
    ['Title', '>line', 'n', 's', 'r', '', '', 'k']
    """
    room = height - len(bottom) - 1
    if width >= PICTURE_COLUMNS + 2 + SIDE_TEXT_COLUMNS and room >= len(picture):
        top = [
            row.ljust(PICTURE_COLUMNS + 2) + (text[y - 1] if 0 < y <= len(text) else "")
            for y, row in enumerate(picture)
        ]
        top += text[len(picture) - 1 :]
    elif width > PICTURE_COLUMNS and room >= len(picture):
        top = list(picture)
        if room > len(picture) and text:  # the OLED's text, easier read than the picture
            reply_rows = len(textwrap.wrap(bottom[-1], width - 1)) if bottom else 1
            rows = room - len(picture) - (1 if reply_rows > 1 else 0)  # the reply keeps its second line
            top += oled_rows(text, width - 1, max(1, rows))
    elif width > PICTURE_COLUMNS - 2 and room >= len(picture) - 2:
        top = [row[1:-1] for row in picture[1:-1]]  # without its border
    else:
        top = list(text)
    top = top[:room]
    spare = room - len(top)
    *steady, last = bottom or [""]
    lines = [*top, *steady, *(textwrap.wrap(last, width - 1)[: 1 + spare] or [""])]  # the reply may take two lines
    lines += [""] * (height - 1 - len(lines))
    return [cut(line, width - 1) for line in (*lines, keys)]


def play_in_terminal(
    state_dir: Path,
    settings: Settings,
    seed: int | None = None,
    control: ControlServer | None = None,
    page: str | None = None,
) -> int:
    """Play in this terminal until q; the log goes to the state folder's file. `page`: the phone page's address."""
    make_state_directory(state_dir)
    with logging_to_file(state_dir) as log_file:
        world = SimulatedBox(
            state_dir=state_dir, decks_dir=settings.decks_dir, seed=seed, names=settings.names, control=control,
            page=settings.page,
        )
        try:
            curses.wrapper(lambda screen: Terminal(world, screen, page).run())
        finally:
            world.parts.close()
            world.box.journal.close()
    print(f"gravebox: the simulator's log is in {log_file}", file=sys.stderr)
    return 0


class Terminal:
    def __init__(self, world: SimulatedBox, screen: Any, page: str | None = None):
        self.world = world
        self.screen = screen
        self.runner = ScriptRunner(world, "terminal")
        self.message = f"{WELCOME} The phone page: {page}" if page else WELCOME
        if world.control is not None:
            self.message += f" Control socket: {world.control.path}"
        self.pages: list[list[str]] = []  # a `:cards` listing on show, one page at a time
        self.page = 0
        self.listed = ("", 0)  # the TEXT of the listing on show and how many cards it holds
        self.wall = time.monotonic()

    def run(self) -> None:
        curses.curs_set(0)
        self.screen.timeout(50)
        while True:
            self.catch_up()
            self.draw()
            key = self.screen.getch()
            if key != -1 and not self.key(key):
                return

    def key(self, key: int) -> bool:
        """Do what a key says; False for q (quit)."""
        if key == CTRL_L:
            self.screen.clear()  # the next refresh draws every cell again
        elif self.pages:
            self.turn_page(key)
        elif key == ord("q"):
            return False
        elif key == ord(":"):
            self.command(self.prompt())
        elif key == ord("P"):
            self.power_chord()
        elif key in KEYS:
            button, seconds = KEYS[key]
            self.world.press(button, seconds)
            self.wall = time.monotonic()
        return True

    def turn_page(self, key: int) -> None:
        """Space or n: the next page of a `:cards` listing, p: the one before; any other key closes it."""
        if key in (ord(" "), ord("n")) and self.page + 1 < len(self.pages):
            self.page += 1
        elif key == ord("p") and self.page > 0:
            self.page -= 1
        else:
            self.pages = []
            self.message = ""
            return
        self.message = self.pages_title()

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
        """Run a typed command; its answer (or "ok") stays on the reply line."""
        text = text.strip()
        if not text:
            return
        if text.split()[0].lower() == "cards":
            self.list_cards(text[len("cards") :].strip())
            return
        try:
            for command in parse_script(text, "command"):
                self.runner.step(command)
            reply = "ok"
        except ScriptError as problem:
            reply = problem.reason
        except ValueError as problem:
            reply = str(problem)
        except KeyError as problem:
            reply = str(problem.args[0])
        self.message = f":{text}  -> {reply}"

    def list_cards(self, wanted: str) -> None:
        """`cards [TEXT]`: the running game's cards that TEXT names (all of them without TEXT), in pages."""
        session = self.world.box.session
        if session is None:
            self.message = ":cards  -> start a game first: its cards are listed here"
            return
        deck = session.deck
        found = deck.matches(wanted) if wanted else tuple(deck.names)
        if not found:
            self.message = f":cards {wanted}  -> no card {wanted!r} in the {deck.game} deck"
            return
        width, height = self.size()
        self.pages = pages_of([f"{deck.names[card]} ({card})" for card in found], width - 1, self.picture_rows(height))
        self.page = 0
        self.listed = (wanted, len(found))
        self.message = self.pages_title()

    def pages_title(self) -> str:
        wanted, count = self.listed
        more = " space: next, p: back," if len(self.pages) > 1 else ""
        return f":cards {wanted}  -> {count} cards, page {self.page + 1}/{len(self.pages)};{more} any key: close"

    def size(self) -> tuple[int, int]:
        height, width = self.screen.getmaxyx()
        return width, height

    @staticmethod
    def picture_rows(height: int) -> int:
        return max(1, min(PICTURE_ROWS, height - BOTTOM_ROWS))

    def draw(self) -> None:
        width, height = self.size()
        lines = layout(width, height, *self.parts(width, height))
        dim = self.world.box.care.dimmed
        self.screen.erase()
        for y, line in enumerate(lines):
            with contextlib.suppress(curses.error):  # curses refuses the screen's very last cell
                self.screen.addstr(y, 0, line, curses.A_DIM if dim and picture_row(line) else curses.A_NORMAL)
        self.screen.refresh()

    def parts(self, width: int, height: int) -> tuple[list[str], list[str], list[str], str]:
        """What `layout` places: the picture (or a page of cards), the screen as text, the bottom lines, the keys."""
        world = self.world
        view = world.box.screen(world.now)
        care = world.box.care  # the panel dimmed or dark, as the box drives it
        panel = "dark" if care.blank else "dimmed" if care.dimmed else ""
        if self.pages:
            picture = self.pages[self.page]
            text: list[str] = []
        elif care.blank:
            picture = frame(["⠀" * 64] * 16, panel)
            text = list(DARK_TEXT)
        else:
            picture = frame(braille(world.parts.display.image), panel)
            big = [f" {view.big}"] if view.big else []
            text = [view.title, *big, *((">" if i == view.cursor else " ") + line for i, line in enumerate(view.lines))]
        shown = [f"dice {view.dice[0]} {view.dice[1]}"] if view.dice else []
        if view.notice:
            shown.append(f"[{view.notice}]")
        dump = world.dump()
        status = f"game: {dump['game'] or '-'}  player: {dump['current_player'] or '-'}  t={world.now:.1f}s"
        status += f"  screen {panel}" if panel else ""
        buzzer = world.parts.buzzer  # the simulator's BuzzerPlayer remembers what it played; another has nothing to show
        heard = sounds_text(buzzer.played if isinstance(buzzer, BuzzerPlayer) else (), world.now)
        bottom = ["  ".join(shown), f"{status}  {heard}".rstrip(), self.message]
        return picture, text, bottom, HELP if width > len(HELP) else SHORT_HELP
