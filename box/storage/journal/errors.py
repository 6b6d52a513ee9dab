"""What can go wrong with the journal, and how the storage's faults are told from damage.

A fault of the storage (full, failing, read-only) is not damage: `StorageError` carries a reason
short enough for the OLED's bottom line, and nothing is moved aside. Damage (CORRUPT, NOTADB, and
whatever the judge or the full check after READY finds) sets the file aside: `JournalDamaged` says
where it went; met while the journal is in use it is first a `JournalCorrupted`.
"""

from __future__ import annotations

import errno
from pathlib import Path

from box.errors import FileProblem

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
DAMAGE_CODES = {11, 26}  # SQLITE_CORRUPT, SQLITE_NOTADB: the file itself is damaged
OS_REASONS = {
    errno.ENOSPC: "Storage full",
    errno.EDQUOT: "Storage full",
    errno.EFBIG: "Storage full",
    errno.EROFS: "Storage read-only",
    errno.EACCES: "Storage read-only",
    errno.EPERM: "Storage read-only",
}


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

    >>> import sqlite3
    >>> storage_reason(sqlite3.DatabaseError("file is not a database")) is None
    True
    """
    code = getattr(error, "sqlite_errorcode", None)
    if isinstance(error, OSError):
        return OS_REASONS.get(error.errno or 0, "Storage failing")
    return STORAGE_CODES.get(code & 0xFF) if isinstance(code, int) else None


def is_damage(error: BaseException) -> bool:
    """True when SQLite says the file itself is damaged (CORRUPT, NOTADB).

    >>> import sqlite3
    >>> is_damage(sqlite3.DatabaseError("database disk image is malformed"))
    False
    """
    code = getattr(error, "sqlite_errorcode", None)
    return isinstance(code, int) and code & 0xFF in DAMAGE_CODES


class JournalCorrupted(StorageError):
    """SQLite met damage (CORRUPT, NOTADB) in a journal already in use: not a fault that passes, so
    never retried; the box sets the file aside and starts a new one (`Journal.start_over`)."""


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


class Bad(Exception):
    """What the judge found wrong with a file (damage, or another program's file)."""
