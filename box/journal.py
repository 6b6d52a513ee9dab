"""The journal: every accepted action, written durably before its effect is shown.

SQLite in WAL mode with `synchronous=FULL`: a commit returns only after its
WAL frames are on the storage, and a frame torn by a power cut fails its
checksum and is ignored on the next open, so the journal always holds a prefix
of the accepted actions (docs/reliability.md).

A game's state is never stored: it is the fold of the game's rules over its
journaled actions, so resuming and undoing are both a replay.

>>> journal = Journal(":memory:")
>>> game = journal.start_game("dead-set", ["Ann", "Bob"], {"target": "13"}, None)
>>> journal.append(game, {"t": "press", "b": "ok"})
1
>>> [a for _, a in journal.actions(game)]
[{'t': 'press', 'b': 'ok'}]
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from box.errors import FileProblem

log = logging.getLogger(__name__)

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    players TEXT NOT NULL,
    options TEXT NOT NULL,
    decks TEXT,
    finished INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS actions (
    seq INTEGER PRIMARY KEY,
    game INTEGER NOT NULL REFERENCES games(id),
    action TEXT NOT NULL,
    undone INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS box (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
"""


@dataclass(frozen=True)
class GameRecord:
    """A journaled game: what is needed to start it again."""

    id: int
    name: str
    players: list[str]
    options: dict[str, str]
    decks: str | None
    finished: bool


class JournalDamaged(Exception):
    """The journal file could not be read; `kept` is where its copy was put."""

    def __init__(self, kept: Path, reason: str):
        self.kept = kept
        super().__init__(f"journal damaged ({reason}); a copy is kept at {kept}")


class JournalUnavailable(FileProblem):
    """The journal cannot be opened at all (permissions, a missing folder): nothing is moved."""


class Journal:
    """The box's durable log of games, actions and box-wide values (best chug)."""

    def __init__(self, path: str | Path):
        self.path = str(path)
        self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.executescript(SCHEMA)

    @classmethod
    def open_or_recover(cls, path: Path) -> tuple[Journal, JournalDamaged | None]:
        """Open the journal; a damaged file is moved aside (kept) and a new one started.

        A journal that cannot be opened at all (no folder, no permission) is not
        damage: it raises `JournalUnavailable` and leaves the file where it is.
        """
        folder = path.parent
        if not folder.is_dir() or not os.access(folder, os.R_OK | os.W_OK | os.X_OK):
            raise JournalUnavailable(folder, "the state directory is missing or not writable by this user")
        if path.exists() and not os.access(path, os.R_OK | os.W_OK):
            raise JournalUnavailable(path, "the journal is not readable and writable by this user")
        try:
            journal = cls(path)
            journal.check()
            return journal, None
        except sqlite3.DatabaseError as problem:
            kept = path.with_name(f"{path.name}.bad-{time.strftime('%Y%m%d-%H%M%S')}")
            for suffix in ("", "-wal", "-shm"):
                source = Path(f"{path}{suffix}")
                if source.exists():
                    shutil.move(source, f"{kept}{suffix}")
            damaged = JournalDamaged(kept, str(problem))
            log.error("%s", damaged)
            return cls(path), damaged

    def check(self) -> None:
        """Raise sqlite3.DatabaseError unless the file is sound and the game to resume is readable.

        Finished games are not decoded: they are never replayed, and decoding every
        row ever written would make each start slower than the last.
        """
        verdict = self.db.execute("PRAGMA quick_check").fetchone()[0]
        if verdict != "ok":
            raise sqlite3.DatabaseError(verdict)
        try:
            for players, options in self.db.execute("SELECT players, options FROM games WHERE finished = 0"):
                json.loads(players), json.loads(options)
            unfinished = "SELECT action FROM actions WHERE game IN (SELECT id FROM games WHERE finished = 0)"
            for (action,) in self.db.execute(unfinished):
                json.loads(action)
        except json.JSONDecodeError as problem:
            raise sqlite3.DatabaseError(f"unreadable row: {problem}") from None

    def close(self) -> None:
        self.db.close()

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Make the writes inside one transaction: one durable commit (one fsync) for all.

        >>> journal = Journal(":memory:")
        >>> with journal.batch():
        ...     journal.put("a", 1); journal.put("b", 2)
        >>> journal.get("b")
        2
        """
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    def start_game(self, name: str, players: list[str], options: dict[str, str], decks: str | None) -> int:
        """Record a new game (finishing any unfinished one) and return its id."""
        with self.db:
            self.db.execute("UPDATE games SET finished = 1 WHERE finished = 0")
            cursor = self.db.execute(
                "INSERT INTO games (name, players, options, decks) VALUES (?, ?, ?, ?)",
                (name, json.dumps(players), json.dumps(options, sort_keys=True), decks),
            )
        return int(cursor.lastrowid)

    def finish_game(self, game: int) -> None:
        self.db.execute("UPDATE games SET finished = 1 WHERE id = ?", (game,))

    def unfinished_game(self) -> GameRecord | None:
        """The game to resume after a restart, if any."""
        row = self.db.execute(
            "SELECT id, name, players, options, decks, finished FROM games WHERE finished = 0 ORDER BY id DESC LIMIT 1"
        ).fetchone()
        if row is None:
            return None
        return GameRecord(row[0], row[1], json.loads(row[2]), json.loads(row[3]), row[4], bool(row[5]))

    def append(self, game: int, action: dict[str, Any]) -> int:
        """Durably add an accepted action; returns its sequence number."""
        cursor = self.db.execute(
            "INSERT INTO actions (game, action) VALUES (?, ?)", (game, json.dumps(action, separators=(",", ":")))
        )
        return int(cursor.lastrowid)

    def actions(self, game: int) -> list[tuple[int, dict[str, Any]]]:
        """The game's actions still in force, oldest first, with their sequence numbers."""
        rows = self.db.execute("SELECT seq, action FROM actions WHERE game = ? AND undone = 0 ORDER BY seq", (game,))
        return [(seq, json.loads(action)) for seq, action in rows]

    def undo(self, seq: int) -> None:
        """Take back one action: it stays in the file, marked undone."""
        self.db.execute("UPDATE actions SET undone = 1 WHERE seq = ?", (seq,))

    def get(self, key: str, default: Any = None) -> Any:
        row = self.db.execute("SELECT value FROM box WHERE key = ?", (key,)).fetchone()
        return default if row is None else json.loads(row[0])

    def put(self, key: str, value: Any) -> None:
        self.db.execute("INSERT OR REPLACE INTO box (key, value) VALUES (?, ?)", (key, json.dumps(value)))


def state_directory() -> Path:
    """Where the journal lives: systemd's $STATE_DIRECTORY, $GRAVEBOX_STATE, or ~/.local/state/gravebox."""
    for variable in ("GRAVEBOX_STATE", "STATE_DIRECTORY"):
        if os.environ.get(variable):
            return Path(os.environ[variable].split(":")[0])
    return Path.home() / ".local" / "state" / "gravebox"
