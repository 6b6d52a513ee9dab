"""The journal: every accepted action, written durably before its effect is shown.

SQLite in WAL mode with `synchronous=FULL`: a commit returns only after its
WAL frames are on the storage, and a frame torn by a power cut fails its
checksum and is ignored on the next open, so the journal always holds a prefix
of the accepted actions (docs/reliability.md).

A game's state is the fold of the game's rules over its journaled actions, so
resuming and undoing are both a replay; the session saves a checkpoint of the
state every so many actions (box/base/session.py), and a replay starts from the
newest one. Checkpoints are only a cache (box/storage/journal/checkpoints.py): the
actions are the truth, and damaged checkpoints are made anew.

Storage faults are not damage: a write the storage refuses (full, failing,
read-only) raises `StorageError` with a short reason for the screen, changes
nothing, and `healthy()` tells when writes work again. A file is judged before
anything writes to it (`open_or_recover`, box/storage/journal/judge.py): a damaged or
foreign one is set aside untouched, a journal of a later version is refused.

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
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from box.storage.journal.checkpoints import Checkpoints
from box.storage.journal.errors import (
    Bad,
    JournalCorrupted,
    JournalDamaged,
    JournalUnavailable,
    StorageError,
    is_damage,
    storage_reason,
)
from box.storage.journal.files import clear_odd_companions, set_aside_or_fault, sync_new
from box.storage.journal.judge import full_check, judge
from box.storage.journal.schema import APPLICATION_ID, CACHE_KIB, CHECKPOINTS, INDEX, PROBE, SCHEMA, VERSION

log = logging.getLogger("box.storage.journal")

LOCK_WAIT = 0.05
"""Seconds a write waits for another program's lock on the journal (a backup tool, `sqlite3` left
open) before it is refused "Journal in use": the loop never waits longer (SQLite's default is 5 s,
more than the watchdog allows over a few inputs); the refused input is retried as a storage fault is."""


def create_shared(path: str) -> None:
    """Make a new journal file as every state file is made, 0666 under the umask (the unit's 0007:
    the `gravebox` group may write it), not SQLite's 0644; its -wal and -shm take its mode."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666))
    except OSError as error:  # there already (or cannot be made: SQLite says why in a moment)
        log.debug("journal file not made here: %s", error)


@dataclass(frozen=True)
class GameRecord:
    """A journaled game: what is needed to start it again."""

    id: int
    name: str
    players: list[str]
    options: dict[str, str]
    decks: str | None
    finished: bool


class Journal:
    """The box's durable log of games, actions and box-wide values (best chug).

    Every write is one transaction (or joins the open `batch`); a write the
    storage refuses raises `StorageError`, rolls back, and leaves `fault` set
    until `healthy()` finds that writes work again.
    """

    def __init__(self, path: str | Path, *, create: bool = True):
        self.path = str(path)
        self._open(create)

    def _open(self, create: bool = True) -> None:
        self.fault: StorageError | None = None
        # Run in the next write transaction: bring an older file up to date.
        self.maintenance: list[str] = []
        self._on_commit: list[tuple[Callable[[], None], Callable[[], None] | None]] = []
        self.checkpoints = Checkpoints(lambda: self.db)
        try:
            try:
                self.db = self._connect(exclusive=False)  # others (the phone page) may read meanwhile
            except sqlite3.Error as error:
                if storage_reason(error) not in ("Storage full", "Storage failing"):
                    raise
                # No room for the -shm index a shared journal needs: the box holds the journal
                # alone, its WAL index in memory, and can still read the game back.
                log.warning("journal opened for this process alone (%s)", error)
                self._close_quietly()
                self.db = self._connect(exclusive=True)
            if create and not self.db.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchone():
                with self._writing():
                    self.db.executescript(
                        f"BEGIN IMMEDIATE; {SCHEMA} {INDEX}; {CHECKPOINTS};"
                        f" PRAGMA application_id={APPLICATION_ID}; PRAGMA user_version={VERSION}; COMMIT;"
                    )
        except sqlite3.Error as error:
            self._close_quietly()
            reason = storage_reason(error)
            if reason is None:
                raise
            raise StorageError(reason, str(error)) from None

    def _connect(self, exclusive: bool) -> sqlite3.Connection:
        if self.path != ":memory:":
            create_shared(self.path)
        self.db = sqlite3.connect(self.path, timeout=LOCK_WAIT, isolation_level=None, check_same_thread=False)
        if exclusive:
            self.db.execute("PRAGMA locking_mode=EXCLUSIVE")
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.execute(f"PRAGMA cache_size=-{CACHE_KIB}")
        self.db.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchone()  # the first read maps the WAL index
        return self.db

    # ----- opening: judge the file before writing to it -----------------------------------

    @classmethod
    def open_or_recover(cls, path: Path) -> tuple[Journal, JournalDamaged | None]:
        """Open the journal at `path`, judging it first without writing to it.

        - good (or no file yet): opened; the whole file is checked later (`full_check`, after READY);
        - damaged or another program's file: set aside as it is (`journal.db.bad-<time>`,
          its `-wal` too) and a new journal started, with the `JournalDamaged` to show;
        - written by a later version: `JournalTooNew`, the file left alone;
        - storage refusing to read it: `StorageError`, the file left alone;
        - no state folder, no permission: `JournalUnavailable`.
        """
        folder = path.parent
        if not folder.is_dir() or not os.access(folder, os.R_OK | os.W_OK | os.X_OK):
            raise JournalUnavailable(folder, "the state directory is missing or not writable by this user")
        if path.is_file() and not os.access(path, os.R_OK | os.W_OK):
            raise JournalUnavailable(path, "the journal is not readable and writable by this user")
        damaged = None
        try:
            clear_odd_companions(path)
            verdict = judge(path)
        except Bad as bad:
            damaged, verdict = JournalDamaged(set_aside_or_fault(path), str(bad)), None
            log.error("%s", damaged)
        except OSError as error:
            raise StorageError.of(error) from None
        try:
            journal = cls(path)
        except (sqlite3.Error, JournalCorrupted) as error:  # damage only a writer meets: set aside too
            damaged, verdict = JournalDamaged(set_aside_or_fault(path), str(error)), None
            log.error("%s", damaged)
            journal = cls(path)
        if verdict is not None:
            journal.maintenance = verdict.maintenance
            if not verdict.checkpoints_sound:
                journal.checkpoints.stale = True  # made anew with the first write
                if verdict.checkpoints_problem:
                    journal.checkpoints.damaged(verdict.checkpoints_problem)
        else:
            sync_new(folder)  # a new journal: its name is on the storage too
        return journal, damaged

    def reopen(self) -> None:
        """Open the file at this journal's path again (a restore put another there), judged first as
        at a start: damage is `JournalCorrupted` (the Box sets the file aside), a refusing storage
        `StorageError`."""
        path = Path(self.path)
        self._close_quietly()
        verdict = None
        try:
            clear_odd_companions(path)
            verdict = judge(path)
        except Bad as bad:
            self._open()
            raise JournalCorrupted("Journal damaged", str(bad)) from None
        except OSError as error:
            self._open()
            raise StorageError.of(error) from None
        self._open()
        if verdict is not None:
            self.maintenance = verdict.maintenance
            self.checkpoints.stale = not verdict.checkpoints_sound

    def start_over(self, found: str) -> JournalDamaged:
        """Damage met in the journal in use (by a read, a write, or the full check after READY):
        the file is checked fully (the reason logged is `integrity_check`'s where it has one), set
        aside as it is (`journal.db.bad-<time>`, the copy kept) and a new journal begun at its path.
        A storage refusing the move is a `StorageError`, the file left where it is."""
        path = Path(self.path)
        reason = full_check(path) or found
        self._close_quietly()
        try:
            kept = set_aside_or_fault(path)
        finally:
            self._open()  # the new journal, or the same file again where it could not be moved
        damaged = JournalDamaged(kept, reason)
        log.error("%s", damaged)
        sync_new(path.parent)
        return damaged

    # ----- writes -------------------------------------------------------------------------

    @contextmanager
    def _writing(self) -> Iterator[None]:
        """Turn an SQLite error inside into JournalCorrupted (CORRUPT, NOTADB: never tried again,
        the file is set aside) or StorageError (anything else: `fault` set, tried again)."""
        try:
            yield
        except sqlite3.Error as error:
            if is_damage(error):
                raise JournalCorrupted("Journal damaged", str(error)) from None
            self.fault = StorageError(storage_reason(error) or "Journal damaged", str(error))
            raise self.fault from None

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Make the writes inside one transaction: one durable commit (one fsync) for all.

        Inside a batch nothing is durable until it ends; `on_commit` callbacks run
        then (or are undone when the batch fails).

        >>> journal = Journal(":memory:")
        >>> with journal.batch():
        ...     journal.put("a", 1); journal.put("b", 2)
        >>> journal.get("b")
        2
        """
        if self.db.in_transaction:  # a batch inside a batch joins it
            yield
            return
        stale = self.checkpoints.stale
        try:
            with self._writing():
                self.db.execute("BEGIN IMMEDIATE")
                for statement in self.maintenance:
                    self.db.execute(statement)
                self.checkpoints.rebuild_if_stale()
            yield
            with self._writing():
                self.db.execute("COMMIT")
        except BaseException:
            self._rollback()
            self.checkpoints.stale = self.checkpoints.stale or stale  # a rebuild rolled back is still due
            raise
        self.maintenance = []
        self.fault = None
        done, self._on_commit = self._on_commit, []
        for callback, _ in done:
            callback()

    def _rollback(self) -> None:
        if self.db.in_transaction:
            try:
                self.db.execute("ROLLBACK")
            except sqlite3.Error as error:  # SQLite has rolled back by itself
                log.debug("rollback: %s", error)
        undone, self._on_commit = self._on_commit, []
        for _, undo in reversed(undone):
            if undo is not None:
                undo()

    def on_commit(self, done: Callable[[], None], undo: Callable[[], None] | None = None) -> None:
        """Run `done` once what was just written is durable (now, outside a batch); `undo` if the
        batch it belongs to fails instead."""
        if self.db.in_transaction:
            self._on_commit.append((done, undo))
        else:
            done()

    def _execute(self, sql: str, parameters: tuple[Any, ...] = ()) -> sqlite3.Cursor:
        """One write: its own durable transaction, or part of the open batch."""
        with self.batch(), self._writing():
            return self.db.execute(sql, parameters)

    def start_game(self, name: str, players: list[str], options: dict[str, str], decks: str | None) -> int:
        """Record a new game and return its id; any unfinished game is finished in the same transaction."""
        with self.batch(), self._writing():
            self.db.execute("UPDATE games SET finished = 1 WHERE finished = 0")
            self.checkpoints.drop()  # only an unfinished game is ever replayed
            cursor = self.db.execute(
                "INSERT INTO games (name, players, options, decks) VALUES (?, ?, ?, ?)",
                (name, json.dumps(players), json.dumps(options, sort_keys=True), decks),
            )
        assert cursor.lastrowid is not None, "an INSERT gives its row's id"
        return cursor.lastrowid

    def finish_game(self, game: int) -> None:
        with self.batch(), self._writing():
            self.db.execute("UPDATE games SET finished = 1 WHERE id = ?", (game,))
            self.checkpoints.drop(game)

    def append(self, game: int, action: dict[str, Any]) -> int:
        """Durably add an accepted action; returns its sequence number (StorageError: not added)."""
        data = json.dumps(action, separators=(",", ":"))
        seq = self._execute("INSERT INTO actions (game, action) VALUES (?, ?)", (game, data)).lastrowid
        assert seq is not None, "an INSERT gives its row's id"
        return seq

    def undo(self, seq: int) -> None:
        """Take back one action: it stays in the file, marked undone; the checkpoints that hold it go."""
        with self.batch(), self._writing():
            self.db.execute("UPDATE actions SET undone = 1 WHERE seq = ?", (seq,))
            self.checkpoints.drop_from(seq)

    def save_checkpoint(self, game: int, seq: int, count: int, version: str, state: bytes) -> None:
        """Keep a game's state after action `seq` (its `count`-th in force), for replays to start from."""
        with self.batch(), self._writing():
            self.checkpoints.save(game, seq, count, version, state)

    def drop_checkpoints(self, game: int) -> None:
        with self.batch(), self._writing():
            self.checkpoints.drop(game)

    def put(self, key: str, value: Any) -> None:
        self._execute("INSERT OR REPLACE INTO box (key, value) VALUES (?, ?)", (key, json.dumps(value)))

    def healthy(self) -> bool:
        """True when writes work: after a `StorageError`, a small real write tries again.

        >>> Journal(":memory:").healthy()
        True
        """
        if self.fault is None:
            return True
        try:
            with self.batch(), self._writing():
                self.db.execute("INSERT OR REPLACE INTO box (key, value) VALUES (?, '0')", (PROBE,))
                self.db.execute("DELETE FROM box WHERE key = ?", (PROBE,))
        except StorageError as error:
            log.debug("storage still refuses writes: %s", error)
            return False
        log.info("storage writes work again")
        return True

    # ----- reads ----------------------------------------------------------------------------

    def _rows(self, sql: str, parameters: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        try:
            return self.db.execute(sql, parameters).fetchall()
        except sqlite3.Error as error:
            if is_damage(error):
                raise JournalCorrupted("Journal damaged", str(error)) from None
            raise StorageError(storage_reason(error) or "Journal damaged", str(error)) from None

    def unfinished_game(self) -> GameRecord | None:
        """The game to resume after a restart, if any."""
        rows = self._rows(
            "SELECT id, name, players, options, decks, finished FROM games WHERE finished = 0 ORDER BY id DESC LIMIT 1"
        )
        if not rows:
            return None
        row = rows[0]
        return GameRecord(row[0], row[1], json.loads(row[2]), json.loads(row[3]), row[4], bool(row[5]))

    def actions(self, game: int, after: int = 0) -> list[tuple[int, dict[str, Any]]]:
        """The game's actions still in force (after sequence number `after`), oldest first, with their numbers."""
        rows = self._rows(
            "SELECT seq, action FROM actions WHERE game = ? AND seq > ? AND undone = 0 ORDER BY seq", (game, after)
        )
        return [(seq, json.loads(action)) for seq, action in rows]

    def action(self, seq: int) -> dict[str, Any]:
        """The action journaled as `seq`."""
        return json.loads(self._rows("SELECT action FROM actions WHERE seq = ?", (seq,))[0][0])

    def checkpoint(self, game: int) -> tuple[int, int, str, bytes] | None:
        """The game's newest usable checkpoint, (seq, count, version, state), or None.

        Damaged checkpoints are never returned: they are made anew with the next write.
        """
        return self.checkpoints.newest(game)

    def get(self, key: str, default: Any = None, kind: type | tuple[type, ...] = object) -> Any:
        """A box-wide value; `default` when there is none, or when it is not of `kind`.

        >>> journal = Journal(":memory:"); journal.put("best_chug", "fast")
        >>> journal.get("best_chug", None, kind=(int, float)) is None
        True
        """
        rows = self._rows("SELECT value FROM box WHERE key = ?", (key,))
        if not rows:
            return default
        value = json.loads(rows[0][0])
        if not isinstance(value, kind):
            log.warning("journal value %s is %r, not a %s: not used", key, value, kind)
            return default
        return value

    def values_under(self, prefix: str) -> dict[str, Any]:
        """The box-wide values whose keys start with `prefix` ("seats."): those that read, by key.

        >>> journal = Journal(":memory:"); journal.put("seats.1", ["a"]); journal.put("seen", 1)
        >>> journal.values_under("seats.")
        {'seats.1': ['a']}
        """
        found = {}
        for key, text in self._rows("SELECT key, value FROM box WHERE substr(key, 1, ?) = ?", (len(prefix), prefix)):
            try:
                found[key] = json.loads(text)
            except json.JSONDecodeError:
                log.warning("journal value %s is unreadable: not used", key)
        return found

    def seated_names(self, seats_prefix: str) -> dict[str, str]:
        """Each name that sat at a game with a seat id (the box values `<seats_prefix><game id>`), casefolded,
        and its id at the newest such game: a player off the roster keeps their id from game to game."""
        seats = self.values_under(seats_prefix)
        found: dict[str, str] = {}
        for game, text in self._rows("SELECT id, players FROM games ORDER BY id"):
            ids = seats.get(f"{seats_prefix}{game}")
            try:
                names = json.loads(text)
            except json.JSONDecodeError:
                continue
            if isinstance(ids, list) and isinstance(names, list) and len(ids) == len(names):
                found.update({n.casefold(): i for n, i in zip(names, ids, strict=True) if isinstance(n, str) and isinstance(i, str)})
        return found

    # ----- closing --------------------------------------------------------------------------

    def close(self) -> None:
        self._close_quietly()

    def _close_quietly(self) -> None:
        db = getattr(self, "db", None)
        if db is not None:
            try:
                db.close()
            except sqlite3.Error as error:
                log.warning("closing the journal: %s", error)
