"""Checkpoints: saved game states a replay starts from. A cache inside the journal, never the truth.

Any damage to them (the table's schema, a row, a state whose checksum fails) costs a full replay
of the game's actions, never the game: the table is dropped and made anew in the next write,
and the session saves new checkpoints as it replays. Each state is stored framed with a CRC-32,
so a flipped byte in a state is found before it is unpickled.

>>> unframe(frame(b"state")) == b"state"
True
>>> unframe(b"\\x80\\x05state") is None   # an unframed state (an older box's, or damage)
True
"""

from __future__ import annotations

import logging
import sqlite3
import zlib
from collections.abc import Callable
from typing import Any

from box.storage.journal.errors import StorageError, storage_reason
from box.storage.journal.schema import CHECKPOINT_COLUMNS, CHECKPOINTS

log = logging.getLogger("box.storage.journal")

FRAME = b"\xffGB1"  # 0xFF is no pickle opcode: older code fails to load a framed state and replays
REBUILD = ("DROP TABLE IF EXISTS checkpoints", CHECKPOINTS)
NEWEST = "SELECT seq, count, version, state FROM checkpoints WHERE game = ? ORDER BY seq DESC LIMIT 1"


def frame(state: bytes) -> bytes:
    """The state as stored: FRAME, its CRC-32, the state."""
    return FRAME + zlib.crc32(state).to_bytes(4, "big") + state


def unframe(stored: Any) -> bytes | None:
    """The state a stored value frames, None when it is not one (damaged, or not framed)."""
    if not isinstance(stored, bytes) or not stored.startswith(FRAME) or len(stored) < len(FRAME) + 4:
        return None
    crc, state = stored[len(FRAME) : len(FRAME) + 4], stored[len(FRAME) + 4 :]
    return state if zlib.crc32(state).to_bytes(4, "big") == crc else None


def table_is_sound(db: sqlite3.Connection) -> bool:
    """The checkpoints table is there, exactly as this version makes it (a read only)."""
    columns = [(name, kind, notnull, key) for _, name, kind, notnull, _, key in db.execute("PRAGMA table_info(checkpoints)")]
    return columns == CHECKPOINT_COLUMNS


def row_problem(db: sqlite3.Connection, game: int, row: tuple[Any, ...] | None) -> str | None:
    """What is wrong with a game's newest checkpoint row, None when it can be used (or there is none).

    The row must name an action of the game still in force, count at most as many actions as
    there are sequence numbers up to it, and hold a state whose checksum holds.
    """
    if row is None:
        return None
    seq, count, version, state = row
    if type(seq) is not int or type(count) is not int or not isinstance(version, str):
        return "a checkpoint row of the wrong types"
    if not 0 < count <= seq:
        return f"a checkpoint counting {count} actions at action {seq}"
    if unframe(state) is None:
        checksum = "fails its checksum" if _framed(state) else "has no checksum (an older box's, or damaged)"
        return f"the state at action {seq} {checksum}"
    in_force = "SELECT 1 FROM actions WHERE seq = ? AND game = ? AND undone = 0"
    if db.execute(in_force, (seq, game)).fetchone() is None:
        return f"a checkpoint at action {seq}, which is not in force"
    return None


def _framed(state: Any) -> bool:
    return isinstance(state, bytes) and state.startswith(FRAME)


class Checkpoints:
    """The journal's checkpoints table, kept so that its damage never reaches the game.

    `stale`: the table must be made anew before it is used (damage found, or a journal from
    before checkpoints): reads find nothing, and the next write transaction rebuilds it.
    `broken`: even that failed in this run; checkpoints are left alone until the next start.
    """

    def __init__(self, db: Callable[[], sqlite3.Connection], stale: bool = False):
        self._db = db
        self.stale = stale
        self.broken = False

    # ----- reads ---------------------------------------------------------------------------

    def newest(self, game: int) -> tuple[int, int, str, bytes] | None:
        """The game's newest usable checkpoint, (seq, count, version, state), or None."""
        if self.stale or self.broken:
            return None
        db = self._db()
        try:
            row = db.execute(NEWEST, (game,)).fetchone()
            problem = row_problem(db, game, row)
        except sqlite3.Error as error:
            if storage_reason(error) is not None:
                raise StorageError.of(error) from None
            problem = str(error)
        if problem is not None:
            self.damaged(problem)
            return None
        if row is None:
            return None
        seq, count, version, state = row
        return seq, count, version, unframe(state) or b""

    def damaged(self, problem: str) -> None:
        """Checkpoints found unusable: none is read any more, and the next write makes the table anew."""
        log.warning("checkpoints unusable (%s): replaying the game's actions, and the checkpoints made anew", problem)
        self.stale = True

    # ----- writes (inside the journal's open transaction) ---------------------------------

    def save(self, game: int, seq: int, count: int, version: str, state: bytes) -> None:
        insert = "INSERT OR REPLACE INTO checkpoints (game, seq, count, version, state) VALUES (?, ?, ?, ?, ?)"
        self._guarded(insert, (game, seq, count, version, frame(state)))

    def drop(self, game: int | None = None) -> None:
        """Forget a game's checkpoints (every game's with None)."""
        if game is None:
            self._guarded("DELETE FROM checkpoints")
        else:
            self._guarded("DELETE FROM checkpoints WHERE game = ?", (game,))

    def drop_from(self, seq: int) -> None:
        """Forget the checkpoints that hold action `seq` (it is being undone)."""
        self._guarded(
            "DELETE FROM checkpoints WHERE game = (SELECT game FROM actions WHERE seq = ?) AND seq >= ?", (seq, seq)
        )

    def rebuild_if_stale(self) -> None:
        """Make the table anew when it must be (the journal calls this at the start of each write)."""
        if self.stale and not self.broken:
            self._in_savepoint(REBUILD, on_damage=self._give_up)
            if not self.broken:
                self.stale = False
                log.info("checkpoints table made anew")

    def _guarded(self, sql: str, parameters: tuple[Any, ...] = ()) -> None:
        """One statement on the table; its damage rebuilds the table instead of failing the write."""
        if self.broken:
            return
        self.rebuild_if_stale()
        if not self._in_savepoint(((sql, parameters),), on_damage=self.damaged):
            self.rebuild_if_stale()

    def _give_up(self, problem: str) -> None:
        log.error("checkpoints cannot be made anew (%s): the game goes on without them until a restart", problem)
        self.broken = True

    def _in_savepoint(self, statements: Any, on_damage: Callable[[str], None]) -> bool:
        """Run `statements` in a savepoint of the open transaction; damage is rolled back and told
        to `on_damage` (False); a storage fault raises `StorageError` for the whole write."""
        db = self._db()
        db.execute("SAVEPOINT checkpoints")
        try:
            for statement in statements:
                sql, parameters = (statement, ()) if isinstance(statement, str) else statement
                db.execute(sql, parameters)
        except sqlite3.Error as error:
            reason = storage_reason(error)
            if db.in_transaction:
                db.execute("ROLLBACK TO checkpoints")
                db.execute("RELEASE checkpoints")
            if reason is not None or not db.in_transaction:
                raise StorageError(reason or "Journal damaged", str(error)) from None
            on_damage(str(error))
            return False
        db.execute("RELEASE checkpoints")
        return True
