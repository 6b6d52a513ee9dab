"""The judge: a journal file is read, never written, before the box uses it.

The header, the version, every table and column the box needs, and every value a start decodes:
what a start reads, never the whole file, so READY does not grow with the years of games. The
whole file's `integrity_check` runs after READY, off the loop (`full_check`). Damage raises `Bad`
(the file is then set aside); a journal of a later version `JournalTooNew`; a storage that
refuses to read it `StorageError`. Damage to the checkpoints alone is not damage of the journal:
the verdict says to make them anew.
"""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path

from box.storage.journal.checkpoints import NEWEST, row_problem, table_is_sound
from box.storage.journal.errors import Bad, JournalTooNew, StorageError, storage_reason
from box.storage.journal.schema import APPLICATION_ID, COLUMNS, INDEX, SQLITE_MAGIC, VERSION


@dataclass
class Verdict:
    """A journal the box may use: what its first write must do, and whether its checkpoints are sound."""

    maintenance: list[str] = field(default_factory=list)
    checkpoints_sound: bool = True
    checkpoints_problem: str = ""


def judge(path: Path) -> Verdict | None:
    """Judge the journal without writing to it; raise `Bad`, `JournalTooNew`, `StorageError`.

    Returns the verdict (what the first write must do: bring an older journal up to date, make
    the checkpoints anew), or None where there is no journal yet.
    """
    if not path.exists():
        return None
    if not path.is_file():
        raise Bad("not a file")
    with open(path, "rb") as handle:
        header = handle.read(100)
    if not header and not path.with_name(path.name + "-wal").exists():
        return None  # an empty file: nothing was ever written
    if not header.startswith(SQLITE_MAGIC):
        raise Bad("not an SQLite file")
    if len(header) < 100 or header[18:20] != b"\x02\x02":
        raise Bad("not a journal in WAL mode")
    if int.from_bytes(header[68:72], "big") not in (0, APPLICATION_ID):
        raise Bad("another program's database")
    try:
        with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None)) as db:
            return judge_content(db, path)
    except sqlite3.Error as error:
        reason = storage_reason(error)
        if reason is None:
            raise Bad(str(error)) from None
        if reason in ("Storage full", "Storage failing"):
            # A full card cannot give a read-only reader its shared-memory index: read it as
            # the box does (the index in memory), still writing nothing.
            return _judge_in_memory_index(path, error)
        raise StorageError(reason, str(error)) from None
    except (UnicodeDecodeError, ValueError, TypeError, KeyError) as error:
        raise Bad(f"unreadable row: {error}") from None


def _judge_in_memory_index(path: Path, first: sqlite3.Error) -> Verdict:
    try:
        with closing(sqlite3.connect(str(path), isolation_level=None)) as db:
            db.execute("PRAGMA locking_mode=EXCLUSIVE")
            db.execute("PRAGMA query_only=ON")
            return judge_content(db, path)
    except (sqlite3.Error, UnicodeDecodeError, ValueError, TypeError, KeyError, Bad):
        # Damage cannot be told from the storage fault here: leave the file for a later start.
        raise StorageError(storage_reason(first) or "Storage failing", str(first)) from None


def judge_content(db: sqlite3.Connection, path: Path) -> Verdict:
    """Version, tables, columns and every value a start reads (the game in play, the box's values)."""
    application, version = (db.execute(f"PRAGMA {name}").fetchone()[0] for name in ("application_id", "user_version"))
    if application not in (0, APPLICATION_ID):
        raise Bad("another program's database")
    tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if not tables and version == 0:
        return Verdict()  # an empty database (a start cut short): nothing to keep
    if version > VERSION:
        raise JournalTooNew(
            path,
            f"written by a later Gravebox (journal version {version}; this one reads up to {VERSION}):"
            " update the box, or move the file away to start a new journal",
        )
    if version < 0 or (application == 0 and version != 0):
        raise Bad(f"unknown journal version {version}")
    for table, needed in COLUMNS.items():
        if table not in tables:
            raise Bad(f"no table {table!r}")
        columns = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
        if not needed <= columns:
            raise Bad(f"table {table!r} lacks column(s) {', '.join(sorted(needed - columns))}")
    sound = table_is_sound(db)
    problem = decode_what_the_box_reads(db, sound)
    result = Verdict([], problem is None, problem or "")
    if version < VERSION:  # a journal from before checkpoints gets them with its first write
        result.maintenance += [INDEX, f"PRAGMA application_id={APPLICATION_ID}", f"PRAGMA user_version={VERSION}"]
        result.checkpoints_problem = "" if not sound else result.checkpoints_problem
    return result


def decode_what_the_box_reads(db: sqlite3.Connection, checkpoints: bool) -> str | None:
    """Every value a start reads: the unfinished game, its actions after its newest usable checkpoint,
    the box's values. Returns what is wrong with the checkpoints (then every action is decoded)."""

    def expect(ok: bool, what: str) -> None:
        if not ok:
            raise Bad(f"unreadable {what}")

    problem = None if checkpoints else "the checkpoints table is not as this box makes it"
    unfinished = db.execute("SELECT id, name, players, options, decks FROM games WHERE finished = 0").fetchall()
    for game, name, players, options, decks in unfinished:
        expect(type(game) is int and isinstance(name, str), f"game row {game!r}")
        players, options = json.loads(players), json.loads(options)
        expect(isinstance(players, list) and all(isinstance(p, str) for p in players), f"players of game {game}")
        expect(isinstance(options, dict) and all(isinstance(v, str) for v in options.values()), f"options of {game}")
        expect(decks is None or isinstance(decks, str), f"decks of game {game}")
        after = 0
        if problem is None:
            try:
                newest = db.execute(NEWEST, (game,)).fetchone()
                problem = row_problem(db, game, newest)
            except sqlite3.Error as error:
                if storage_reason(error) is not None:
                    raise
                newest, problem = None, str(error)
            after = newest[0] if newest is not None and problem is None else 0
        read = "SELECT seq, action, undone FROM actions WHERE game = ? AND seq > ?"
        for seq, action, undone in db.execute(read, (game, after)):
            expect(type(seq) is int and type(undone) is int, f"action {seq!r}")
            expect(isinstance(json.loads(action), dict), f"action {seq}")
    for key, value in db.execute("SELECT key, value FROM box"):
        expect(isinstance(key, str), "box key")
        json.loads(value)
    return problem


def full_check(path: Path) -> str | None:
    """The whole file's `integrity_check` (what `quick_check` misses too: an index that disagrees
    with its table), read-only: what is wrong, or None when it is sound or cannot be read now (a
    storage fault is not damage). Run after READY, off the loop: it reads every page."""
    try:
        with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None, timeout=1.0)) as db:
            found = db.execute("PRAGMA integrity_check(1)").fetchone()[0]
    except sqlite3.Error as error:
        return str(error) if storage_reason(error) is None else None
    return None if found == "ok" else str(found)
