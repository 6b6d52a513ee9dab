"""The games played, kept as they end: one line a game in `history.jsonl`, for the phone page.

A subscriber of the box's events (box/events.py), registered by the composition root with one
line: at each `GameOver` it appends the game's summary (the journal's number of the game, the
game, its title, players, each seat's player id, winners and each player's figures, and when it ended) to the file in
the state directory, with the figures as the game declares them (key, label, how they add up).
The phone page reads these lines instead of replaying whole games. This
module is the file's one codec: `append` writes a line, `read` reads the newest lines back,
bounded in bytes whatever the history's size, and skips a line it cannot take (logged). A line
written before players had ids reads with none (`ids` empty).

>>> import tempfile
>>> from box.events import GameOver
>>> path = Path(tempfile.mkdtemp()) / HISTORY_FILE
>>> seats = {3: ["a1b2c3", None]}.get
>>> History(path, clock=lambda: "2026-12-01 21:00", seats=seats)(GameOver("dead-set", "Dead Set", ("Ann", "P2"), ("Ann",), {}, 3, 40))
>>> [(entry.number, entry.winners, entry.ids, entry.actions, entry.ended) for entry in read(path)]
[(3, ('Ann',), ('a1b2c3', None), 40, '2026-12-01 21:00')]
"""

from __future__ import annotations

import errno
import json
import logging
import math
import os
import sqlite3
import stat
import time
from collections.abc import Callable, Sequence
from contextlib import closing
from pathlib import Path
from typing import Any, NamedTuple

from box.errors import FileProblem
from box.events import Event, GameOver, Redated
from box.files.bounded import read_bounded, write_atomically
from box.games import rules_for
from box.storage.stamps import PHONE, STAMP, UNSYNCHRONISED, stamp_time

log = logging.getLogger(__name__)

HISTORY_FILE = "history.jsonl"
MAX_LINE = 16 * 1024  # one game's summary is a few hundred bytes
MAX_READ = 4 * 1024 * 1024  # the newest ~10,000 games: what the page reads at most
MAX_FILE = 32 * 1024 * 1024  # ~80,000 games: the most a correction of dates reads and writes again


class Played(NamedTuple):
    """One finished game as the history keeps it."""

    number: int
    game: str
    title: str
    players: tuple[str, ...]
    winners: tuple[str, ...]
    figures: dict[str, dict[str, int | float]]
    ended: str  # local time, "YYYY-MM-DD HH:MM:SS" (box/storage/stamps.py; to the minute in older lines)
    actions: int  # the actions in force when it ended: the page uses the line while the journal agrees
    declared: tuple[dict[str, str], ...]  # the game's figures: {"key", "label", "adds"} each
    ids: tuple[str | None, ...] = ()  # each seat's player id (box/storage/roster.py; None: a seat left as P3); () before ids
    clock: str = ""  # the clock `ended` came from (box/base/wallclock.py: network, phone, unsynchronised); "" before
    last: int = 0  # the journal's number of the game's newest action in force as it ended; 0 in an older line


Seats = Callable[[int], Sequence[str | None] | None]


class History:
    """The subscriber: appends a line for every game that ends. `seats`: each seat's player id of the
    journal's game of that number (the journal's "seats.<number>", `journaled_seats`), None when unknown;
    `source`: which clock `clock` reads (the box's wall clock's); both called on the subscriber's thread."""

    def __init__(
        self,
        path: Path,
        clock: Callable[[], str] = lambda: time.strftime("%Y-%m-%d %H:%M:%S"),
        seats: Seats = lambda number: None,
        source: Callable[[], str] = lambda: "",
    ):
        self.path, self.clock, self.seats, self.source = path, clock, seats, source

    def __call__(self, event: Event) -> None:
        if isinstance(event, Redated):
            try:
                redate(self.path, set(event.numbers), event.offset)
            except (OSError, FileProblem) as problem:  # the page still reads the journal's corrected dates
                log.error("%s: dates not corrected: %s", self.path.name, problem)
        if isinstance(event, GameOver):
            declared = tuple(
                {"key": figure.key, "label": figure.label, "adds": figure.adds} for figure in rules_for(event.game).figures
            )
            figures = {player: dict(row) for player, row in event.figures.items()}
            ids = tuple(item if isinstance(item, str) else None for item in self.seats(event.number) or ())
            append(self.path, Played(event.number, event.game, event.title, event.players, event.winners, figures,
                                     self.clock(), event.actions, declared, ids if len(ids) == len(event.players) else (),
                                     self.source(), event.last))


def journaled_seats(journal: Path) -> Seats:
    """`History`'s `seats` read from the journal file (the lobby keeps them as a game starts): a short
    read-only look of its own, as the subscriber's thread may not use the loop's connection. None
    when the journal cannot say (logged): the line goes without ids."""
    from box.storage.player_ids import SEATS

    def seats(number: int) -> list[str | None] | None:
        try:
            with closing(sqlite3.connect(f"{journal.resolve().as_uri()}?mode=ro", uri=True, timeout=0.5)) as db:
                row = db.execute("SELECT value FROM box WHERE key = ?", (f"{SEATS}{number}",)).fetchone()
            found = json.loads(row[0]) if row is not None else None
        except (sqlite3.Error, ValueError, OSError) as problem:
            log.warning("game %d's seat ids not read: %s", number, problem)
            return None
        return found if isinstance(found, list) else None

    return seats


def redate(path: Path, numbers: set[int], offset: float) -> int:
    """The lines of the games `numbers` that ended by the box's unsynchronised clock get `ended`
    `offset` seconds later and the clock `phone` (a paired phone gave the box its time); every other
    line is kept byte for byte, and the file replaced atomically. How many lines changed."""
    data = read_bounded(path, MAX_FILE, what="history", missing=b"")
    lines, changed = data.split(b"\n"), 0
    for index, line in enumerate(lines):
        try:
            found = json.loads(line) if line.startswith(b"{") else None
            if not isinstance(found, dict) or found.get("number") not in numbers or found.get("clock") != UNSYNCHRONISED:
                continue
            written = stamp_time(str(found["ended"]))
        except (ValueError, KeyError, RecursionError):  # a line its reader skips anyway: left as it is
            continue
        if written is None:
            continue
        found["ended"], found["clock"] = time.strftime(STAMP, time.localtime(written + offset)), PHONE
        lines[index] = json.dumps(found, separators=(",", ":"), ensure_ascii=False).encode()
        changed += 1
    if changed:
        write_atomically(path, b"\n".join(lines))
    return changed


def append(path: Path, played: Played) -> None:
    """Add `played` as one line, durably; never through a link nor into a FIFO (OSError when the file
    cannot be written)."""
    line = json.dumps(played._asdict(), separators=(",", ":"), ensure_ascii=False).encode() + b"\n"
    if len(line) > MAX_LINE:
        raise ValueError(f"{path.name}: game {played.number}'s summary is over {MAX_LINE} bytes")
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, 0o666)  # the umask decides
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # a FIFO or a device planted there: never blocked on
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        os.write(fd, line)
        os.fsync(fd)
    finally:
        os.close(fd)


def read(path: Path, limit: int = MAX_READ) -> list[Played]:
    """The newest games of the history, oldest first: at most `limit` bytes from the file's end are read.

    The file is a cache of the journal: a line its codec refuses (`decode`) is left out, and the page
    replays that game instead; a link, a folder or a FIFO there is read as no history (logged once).
    """
    try:
        data = read_bounded(path, limit, what="history", missing=b"", tail=True)
    except FileProblem as problem:
        log.warning("%s", problem)
        return []
    lines = data.split(b"\n")
    if len(data) == limit:
        lines = lines[1:]  # the first line may be cut by the limit
    games, skipped, first = [], 0, ""
    for line in lines:
        if not line.strip():
            continue
        if not line.startswith(b"{"):  # junk is told cheaply: megabytes of it cost milliseconds
            skipped, first = skipped + 1, first or "not an object"
            continue
        try:
            games.append(decode(json.loads(line)))
        except (ValueError, TypeError, KeyError, RecursionError) as problem:  # RecursionError: nested too deep
            skipped += 1
            first = first or str(problem)[:80]
    if skipped:
        log.warning("%s: %d line(s) left out, their games replayed (the first: %s)", path.name, skipped, first)
    return games


def decode(data: Any) -> Played:
    """A line's object as `Played`; ValueError when it is not one."""
    if not isinstance(data, dict):
        raise ValueError("not an object")
    number, game, title, ended = data["number"], data["game"], data["title"], data["ended"]
    if not isinstance(number, int) or not all(isinstance(text, str) for text in (game, title, ended)):
        raise ValueError("number, game, title or ended of the wrong kind")
    players, winners, figures, declared = data["players"], data["winners"], data["figures"], data["declared"]
    if not (isinstance(players, list) and isinstance(winners, list) and isinstance(figures, dict)):
        raise ValueError("players, winners or figures of the wrong kind")
    actions = data["actions"]
    if not isinstance(actions, int) or not isinstance(declared, list) or not all(
        isinstance(row, dict) and all(isinstance(row.get(key), str) for key in ("key", "label", "adds"))
        for row in declared
    ):
        raise ValueError("actions or declared of the wrong kind")
    if not all(isinstance(name, str) for name in (*players, *winners)) or not set(winners) <= set(players):
        raise ValueError("a winner who did not play")
    if not all(isinstance(row, dict) for row in figures.values()):
        raise ValueError("figures of the wrong kind")
    clean = {
        str(player): {str(key): value for key, value in row.items() if finite(value)}
        for player, row in figures.items()
    }
    if any(len(row) != len(figures[player]) for player, row in clean.items()):
        raise ValueError("a figure that is not a finite number")
    last = data.get("last", 0)  # none in a line written before
    if not isinstance(last, int) or isinstance(last, bool) or last < 0:
        raise ValueError("last of the wrong kind")
    figures_declared = tuple({key: row[key] for key in ("key", "label", "adds")} for row in declared)
    ids = data.get("ids", [])  # none in a line written before players had ids
    if not isinstance(ids, list) or (ids and len(ids) != len(players)) or not all(
        found is None or isinstance(found, str) for found in ids
    ):
        raise ValueError("ids of the wrong kind")
    clock = data.get("clock", "")  # none in a line written before the box kept it
    if not isinstance(clock, str):
        raise ValueError("clock of the wrong kind")
    return Played(
        number, game, title, tuple(players), tuple(winners), clean, ended, actions, figures_declared, tuple(ids), clock, last
    )


def finite(value: object) -> bool:
    """A figure's value: a whole or finite number (never a bool, NaN or infinity).

    >>> finite(3), finite(6.85), finite(float("inf")), finite(float("nan")), finite(True), finite("3")
    (True, True, False, False, False, False)
    """
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
