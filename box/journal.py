"""The journal: every accepted action, written durably before its effect is shown.

SQLite in WAL mode with `synchronous=FULL`: a commit returns only after its
WAL frames are on the storage, and a frame torn by a power cut fails its
checksum and is ignored on the next open, so the journal always holds a prefix
of the accepted actions (docs/reliability.md).

A game's state is the fold of the game's rules over its journaled actions, so
resuming and undoing are both a replay; the session saves a checkpoint of the
state every so many actions (box/session.py), and a replay starts from the
newest one. Checkpoints are only a shortcut: the actions are the truth.

Storage faults are not damage: a write the storage refuses (full, failing,
read-only) raises `StorageError` with a short reason for the screen, changes
nothing, and `healthy()` tells when writes work again. A file is judged before
anything writes to it (`open_or_recover`): a damaged or foreign one is set
aside untouched, a journal of a later version is refused.

>>> journal = Journal(":memory:")
>>> game = journal.start_game("dead-set", ["Ann", "Bob"], {"target": "13"}, None)
>>> journal.append(game, {"t": "press", "b": "ok"})
1
>>> [a for _, a in journal.actions(game)]
[{'t': 'press', 'b': 'ok'}]
"""

from __future__ import annotations

import errno
import json
import logging
import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from box.errors import FileProblem

log = logging.getLogger(__name__)

VERSION = 2  # PRAGMA user_version of the journals this version writes (0: written before versions; 2: checkpoints)
APPLICATION_ID = 0x47425831  # PRAGMA application_id: "GBX1", this file is a Gravebox journal
CLEAN_MARK = "journal.clean"  # a `box` row written by close(): the last stop was clean
PROBE = "journal.probe"

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
INDEX = "CREATE INDEX IF NOT EXISTS actions_by_game ON actions (game, seq)"
CHECKPOINTS = """CREATE TABLE IF NOT EXISTS checkpoints (
    game INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    count INTEGER NOT NULL,
    version TEXT NOT NULL,
    state BLOB NOT NULL,
    PRIMARY KEY (game, seq)
)"""
CACHE_KIB = 256  # SQLite's page cache: a box reads the journal's tail, so more would only grow the RSS
COLUMNS = {
    "games": {"id", "name", "players", "options", "decks", "finished"},
    "actions": {"seq", "game", "action", "undone"},
    "box": {"key", "value"},
}
SQLITE_MAGIC = b"SQLite format 3\x00"

# SQLite's primary result codes (sqlite_errorcode & 0xFF) that say the storage, not the file, failed.
STORAGE_CODES = {
    13: "Storage full",  # SQLITE_FULL
    10: "Storage failing",  # SQLITE_IOERR (and every extended SQLITE_IOERR_*)
    8: "Storage read-only",  # SQLITE_READONLY
    3: "Storage read-only",  # SQLITE_PERM
    14: "Storage unavailable",  # SQLITE_CANTOPEN
    5: "Journal in use",  # SQLITE_BUSY: another program holds the journal
    6: "Journal in use",  # SQLITE_LOCKED
    15: "Journal in use",  # SQLITE_PROTOCOL
    7: "Out of memory",  # SQLITE_NOMEM
}
OS_REASONS = {
    errno.ENOSPC: "Storage full",
    errno.EDQUOT: "Storage full",
    errno.EFBIG: "Storage full",
    errno.EROFS: "Storage read-only",
    errno.EACCES: "Storage read-only",
    errno.EPERM: "Storage read-only",
}


@dataclass(frozen=True)
class GameRecord:
    """A journaled game: what is needed to start it again."""

    id: int
    name: str
    players: list[str]
    options: dict[str, str]
    decks: str | None
    finished: bool


class StorageError(Exception):
    """The storage refused a read or a write: not damage, so nothing is moved and nothing changed.

    `reason` is short enough for the OLED's bottom line.

    >>> StorageError.of(OSError(errno.ENOSPC, "No space left on device")).reason
    'Storage full'
    >>> str(StorageError("Storage full", "database or disk is full"))
    'Storage full: database or disk is full'
    """

    def __init__(self, reason: str, detail: str):
        self.reason = reason
        self.detail = detail
        super().__init__(f"{reason}: {detail}")

    @classmethod
    def of(cls, error: BaseException) -> StorageError:
        """The storage error an SQLite or OS error stands for (an unknown one: "Storage failing")."""
        if isinstance(error, OSError):
            return cls(OS_REASONS.get(error.errno or 0, "Storage failing"), error.strerror or str(error))
        return cls(storage_reason(error) or "Storage failing", str(error))


def storage_reason(error: BaseException) -> str | None:
    """The owner-readable reason when `error` is a storage fault, None when it says the file is bad.

    >>> storage_reason(sqlite3.DatabaseError("file is not a database")) is None
    True
    """
    code = getattr(error, "sqlite_errorcode", None)
    if isinstance(error, OSError):
        return OS_REASONS.get(error.errno or 0, "Storage failing")
    return STORAGE_CODES.get(code & 0xFF) if isinstance(code, int) else None


class JournalDamaged(Exception):
    """The journal file could not be used; it was set aside, untouched, at `kept`."""

    def __init__(self, kept: Path, reason: str):
        self.kept = kept
        self.reason = reason
        super().__init__(f"journal damaged ({reason}); a copy is kept at {kept}")


class JournalUnavailable(FileProblem):
    """The journal cannot be opened at all (permissions, a missing folder): nothing is moved."""


class JournalTooNew(FileProblem):
    """A journal written by a later version of Gravebox: refused, and left as it is."""


class _Bad(Exception):
    """What the judge found wrong with a file (damage, or another program's file)."""


class Journal:
    """The box's durable log of games, actions and box-wide values (best chug).

    Every write is one transaction (or joins the open `batch`); a write the
    storage refuses raises `StorageError`, rolls back, and leaves `fault` set
    until `healthy()` finds that writes work again.
    """

    def __init__(self, path: str | Path, *, create: bool = True):
        self.path = str(path)
        self.fault: StorageError | None = None
        # Run in the next write transaction: clear the clean-stop mark, bring an older file up to date.
        self.maintenance: list[str] = []
        self._on_commit: list[tuple[Callable[[], None], Callable[[], None] | None]] = []
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
        self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
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

        - good (or no file yet): opened, and a clean stop's mark cleared with the first write;
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
            maintenance = judge(path)
        except _Bad as bad:
            damaged, maintenance = JournalDamaged(_set_aside(path), str(bad)), None
            log.error("%s", damaged)
        except OSError as error:
            raise StorageError.of(error) from None
        try:
            journal = cls(path)
        except sqlite3.Error as error:  # damage only a writer meets: set aside too
            damaged = JournalDamaged(_set_aside(path), str(error))
            log.error("%s", damaged)
            journal = cls(path)
        if maintenance:
            journal.maintenance = maintenance
        else:
            _sync_new(folder)  # a new journal: its name is on the storage too
        return journal, damaged

    # ----- writes -------------------------------------------------------------------------

    @contextmanager
    def _writing(self) -> Iterator[None]:
        """Turn an SQLite error inside into StorageError (storage) or let damage through."""
        try:
            yield
        except sqlite3.Error as error:
            reason = storage_reason(error)
            if reason is None:
                reason = "Journal damaged"
            self.fault = StorageError(reason, str(error))
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
        try:
            with self._writing():
                self.db.execute("BEGIN IMMEDIATE")
                for statement in self.maintenance:
                    self.db.execute(statement)
            yield
            with self._writing():
                self.db.execute("COMMIT")
        except BaseException:
            self._rollback()
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
            self.db.execute("DELETE FROM checkpoints")  # only an unfinished game is ever replayed
            cursor = self.db.execute(
                "INSERT INTO games (name, players, options, decks) VALUES (?, ?, ?, ?)",
                (name, json.dumps(players), json.dumps(options, sort_keys=True), decks),
            )
        return int(cursor.lastrowid)

    def finish_game(self, game: int) -> None:
        with self.batch(), self._writing():
            self.db.execute("UPDATE games SET finished = 1 WHERE id = ?", (game,))
            self.db.execute("DELETE FROM checkpoints WHERE game = ?", (game,))

    def append(self, game: int, action: dict[str, Any]) -> int:
        """Durably add an accepted action; returns its sequence number (StorageError: not added)."""
        data = json.dumps(action, separators=(",", ":"))
        return int(self._execute("INSERT INTO actions (game, action) VALUES (?, ?)", (game, data)).lastrowid)

    def undo(self, seq: int) -> None:
        """Take back one action: it stays in the file, marked undone; the checkpoints that hold it go."""
        with self.batch(), self._writing():
            self.db.execute("UPDATE actions SET undone = 1 WHERE seq = ?", (seq,))
            self.db.execute(
                "DELETE FROM checkpoints WHERE game = (SELECT game FROM actions WHERE seq = ?) AND seq >= ?", (seq, seq)
            )

    def save_checkpoint(self, game: int, seq: int, count: int, version: str, state: bytes) -> None:
        """Keep a game's state after action `seq` (its `count`-th in force), for replays to start from."""
        self._execute(
            "INSERT OR REPLACE INTO checkpoints (game, seq, count, version, state) VALUES (?, ?, ?, ?, ?)",
            (game, seq, count, version, state),
        )

    def drop_checkpoints(self, game: int) -> None:
        self._execute("DELETE FROM checkpoints WHERE game = ?", (game,))

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
        """The game's newest checkpoint, (seq, count, version, state), or None.

        A journal of version 1 gets its checkpoints table with its first write: until then, none.
        """
        try:
            return self.db.execute(
                "SELECT seq, count, version, state FROM checkpoints WHERE game = ? ORDER BY seq DESC LIMIT 1", (game,)
            ).fetchone()
        except sqlite3.OperationalError as error:
            if "no such table" in str(error):
                return None
            raise StorageError(storage_reason(error) or "Journal damaged", str(error)) from None

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

    # ----- closing --------------------------------------------------------------------------

    def close(self) -> None:
        """Mark the stop as clean (the next start then skips the full integrity check) and close."""
        if self.fault is None and self.path != ":memory:":
            try:
                self._execute("INSERT OR REPLACE INTO box (key, value) VALUES (?, 'true')", (CLEAN_MARK,))
            except StorageError as error:
                log.warning("journal closed without its clean-stop mark: %s", error)
        self._close_quietly()

    def _close_quietly(self) -> None:
        db = getattr(self, "db", None)
        if db is not None:
            try:
                db.close()
            except sqlite3.Error as error:
                log.warning("closing the journal: %s", error)


# ----- the judge ---------------------------------------------------------------------------


def clear_odd_companions(path: Path) -> None:
    """A `-wal` or `-shm` that is not a file (a directory, say) holds nothing of ours: moved aside."""
    for suffix in ("-wal", "-shm"):
        companion = path.with_name(path.name + suffix)
        if companion.exists() and not companion.is_file():
            aside = unique(companion.with_name(f"{companion.name}.bad-{time.strftime('%Y%m%d-%H%M%S')}"))
            companion.rename(aside)
            log.warning("%s is not a file: moved aside to %s", companion, aside)


def judge(path: Path) -> list[str] | None:
    """Judge the journal without writing to it; raise `_Bad`, `JournalTooNew`, `StorageError`.

    Returns what the first write must do (clear the clean-stop mark, bring an
    older journal up to date), or None where there is no journal yet.
    """
    if not path.exists():
        return None
    if not path.is_file():
        raise _Bad("not a file")
    with open(path, "rb") as handle:
        header = handle.read(100)
    if not header and not path.with_name(path.name + "-wal").exists():
        return None  # an empty file: nothing was ever written
    if not header.startswith(SQLITE_MAGIC):
        raise _Bad("not an SQLite file")
    if len(header) < 100 or header[18:20] != b"\x02\x02":
        raise _Bad("not a journal in WAL mode")
    if int.from_bytes(header[68:72], "big") not in (0, APPLICATION_ID):
        raise _Bad("another program's database")
    try:
        with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None)) as db:
            return _judge_content(db, path)
    except sqlite3.Error as error:
        reason = storage_reason(error)
        if reason is None:
            raise _Bad(str(error)) from None
        if reason in ("Storage full", "Storage failing"):
            # A full card cannot give a read-only reader its shared-memory index: read it as
            # the box does (the index in memory), still writing nothing.
            return _judge_in_memory_index(path, error)
        raise StorageError(reason, str(error)) from None
    except (UnicodeDecodeError, ValueError, TypeError, KeyError) as error:
        raise _Bad(f"unreadable row: {error}") from None


def _judge_in_memory_index(path: Path, first: sqlite3.Error) -> list[str] | None:
    try:
        with closing(sqlite3.connect(str(path), isolation_level=None)) as db:
            db.execute("PRAGMA locking_mode=EXCLUSIVE")
            db.execute("PRAGMA query_only=ON")
            return _judge_content(db, path)
    except (sqlite3.Error, UnicodeDecodeError, ValueError, TypeError, KeyError, _Bad):
        # Damage cannot be told from the storage fault here: leave the file for a later start.
        raise StorageError(storage_reason(first) or "Storage failing", str(first)) from None


def _judge_content(db: sqlite3.Connection, path: Path) -> list[str]:
    """Version, tables, columns, integrity and every value the box will read."""
    application, version = (db.execute(f"PRAGMA {name}").fetchone()[0] for name in ("application_id", "user_version"))
    if application not in (0, APPLICATION_ID):
        raise _Bad("another program's database")
    tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if not tables and version == 0:
        return []  # an empty database (a start cut short): nothing to keep
    if version > VERSION:
        raise JournalTooNew(
            path,
            f"written by a later Gravebox (journal version {version}; this one reads up to {VERSION}):"
            " update the box, or move the file away to start a new journal",
        )
    if version < 0 or (application == 0 and version != 0):
        raise _Bad(f"unknown journal version {version}")
    for table, needed in COLUMNS.items():
        if table not in tables:
            raise _Bad(f"no table {table!r}")
        columns = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
        if not needed <= columns:
            raise _Bad(f"table {table!r} lacks column(s) {', '.join(sorted(needed - columns))}")
    clean = db.execute("SELECT value FROM box WHERE key = ?", (CLEAN_MARK,)).fetchone() is not None
    check = "quick_check" if clean else "integrity_check"  # the full check only after an unclean stop
    verdict = db.execute(f"PRAGMA {check}(1)").fetchone()[0]
    if verdict != "ok":
        raise _Bad(verdict)
    _decode_what_the_box_reads(db, "checkpoints" in tables)
    maintenance = [f"DELETE FROM box WHERE key = '{CLEAN_MARK}'"]
    if version < VERSION:
        maintenance += [INDEX, CHECKPOINTS, f"PRAGMA application_id={APPLICATION_ID}", f"PRAGMA user_version={VERSION}"]
    return maintenance


def _decode_what_the_box_reads(db: sqlite3.Connection, checkpoints: bool) -> None:
    """Every value a start reads: the unfinished game, its actions after its newest checkpoint, the box's values."""

    def expect(ok: bool, what: str) -> None:
        if not ok:
            raise _Bad(f"unreadable {what}")

    unfinished = db.execute("SELECT id, name, players, options, decks FROM games WHERE finished = 0").fetchall()
    for game, name, players, options, decks in unfinished:
        expect(type(game) is int and isinstance(name, str), f"game row {game!r}")
        players, options = json.loads(players), json.loads(options)
        expect(isinstance(players, list) and all(isinstance(p, str) for p in players), f"players of game {game}")
        expect(isinstance(options, dict) and all(isinstance(v, str) for v in options.values()), f"options of {game}")
        expect(decks is None or isinstance(decks, str), f"decks of game {game}")
        newest = "SELECT COALESCE(MAX(seq), 0) FROM checkpoints WHERE game = ?" if checkpoints else "SELECT ?"
        (after,) = db.execute(newest, (game,) if checkpoints else (0,)).fetchone()
        read = "SELECT seq, action, undone FROM actions WHERE game = ? AND seq > ?"
        for seq, action, undone in db.execute(read, (game, after if type(after) is int else 0)):
            expect(type(seq) is int and type(undone) is int, f"action {seq!r}")
            expect(isinstance(json.loads(action), dict), f"action {seq}")
    for key, value in db.execute("SELECT key, value FROM box"):
        expect(isinstance(key, str), "box key")
        json.loads(value)


def _set_aside(path: Path) -> Path:
    try:
        return set_aside(path)
    except OSError as error:
        raise StorageError.of(error) from None


def _sync_new(folder: Path) -> None:
    try:
        sync_folder(folder)
    except OSError as error:
        raise StorageError.of(error) from None


def set_aside(path: Path) -> Path:
    """Move the journal (and its -wal, -shm) aside as it is; returns where it went."""
    kept = unique(path.with_name(f"{path.name}.bad-{time.strftime('%Y%m%d-%H%M%S')}"))
    for suffix in ("", "-wal", "-shm"):
        source = Path(f"{path}{suffix}")
        if source.exists() or source.is_symlink():
            source.rename(f"{kept}{suffix}")
    sync_folder(path.parent)
    return kept


def unique(path: Path) -> Path:
    """`path`, or `path-2`, `path-3`... where that name is taken."""
    candidate, number = path, 1
    while any(Path(f"{candidate}{suffix}").exists() for suffix in ("", "-wal", "-shm")):
        number += 1
        candidate = path.with_name(f"{path.name}-{number}")
    return candidate


def sync_folder(folder: Path) -> None:
    """fsync a directory: the names created, renamed or removed in it are on the storage."""
    descriptor = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def make_state_directory(folder: Path) -> Path:
    """Create the state folder (and missing parents), each new one fsynced into its parent."""
    missing = []
    current = folder
    while not current.exists():
        missing.append(current)
        current = current.parent
    try:
        for new in reversed(missing):
            new.mkdir(exist_ok=True)
            sync_folder(new.parent)
    except OSError as error:
        raise JournalUnavailable(folder, f"cannot make the state directory: {error.strerror or error}") from None
    return folder


SYSTEM_STATE = Path("/var/lib/gravebox")  # an installed box's state (install.sh, the unit's StateDirectory=)


def state_directory(simulated: bool = False, system: Path = SYSTEM_STATE) -> Path:
    """Where the journal and the tag map live: one place for every command on a box.

    $GRAVEBOX_STATE, else systemd's $STATE_DIRECTORY (the service), else the installed box's
    `system` folder when it exists: it is shared with the `gravebox` group (install.sh adds the
    owner's account), so `gravebox enroll`, `--export`, `--import` and `selftest` from a shell act
    on the state the service uses. Elsewhere, and always for `simulated` parts (the simulator,
    `--fake`), the owner's own ~/.local/state/gravebox.
    """
    for variable in ("GRAVEBOX_STATE", "STATE_DIRECTORY"):
        if os.environ.get(variable):
            return Path(os.environ[variable].split(":")[0])
    if not simulated and system.is_dir():
        return system
    return Path.home() / ".local" / "state" / "gravebox"


def enter_state_directory(folder: Path, system: Path = SYSTEM_STATE) -> Path:
    """Get a command ready to work in `folder`. In the box's own shared folder new files must stay
    readable and writable for the `gravebox` group (umask 0007, as the service's unit has), and an
    account outside the group is told so in one line instead of a traceback later."""
    if folder == system:
        os.umask(0o007)
        if not os.access(folder, os.R_OK | os.W_OK | os.X_OK):
            raise FileProblem(
                folder,
                "no access: your account is not in the gravebox group yet "
                "(log out and in again after install.sh, or: sudo usermod -aG gravebox $USER)",
            )
    return folder
