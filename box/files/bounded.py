"""The one way the box reads a file from outside and the one way it writes one of its own.

`read_bounded` reads a regular file only (never through a link, never a FIFO, a device or a
folder) and never more than a limit, counting the bytes it actually reads (a size on the file
system may lie: /proc, a file still growing). `write_atomically` writes a temporary file created
afresh beside the target (it is never an existing file or link), syncs it, renames it over the
target (a link there is replaced, not followed) and syncs the folder: a power cut leaves the old
file or the new one, never half of one. Every codec (the tag map, the roster, the settings, the
decks, the board, the pin map) reads and writes through these two.

>>> import tempfile; folder = Path(tempfile.mkdtemp())
>>> write_atomically(folder / "a.txt", "hello\\n")
>>> read_bounded(folder / "a.txt", limit=100)
b'hello\\n'
>>> read_bounded(folder / "a.txt", limit=3)
Traceback (most recent call last):
box.errors.FileProblem: ...a.txt: larger than 3 bytes: not such a file
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import threading
import time
from collections.abc import Iterable
from pathlib import Path

from box.errors import FileProblem

CHUNK = 64 * 1024
_NOT_FOLLOWED = (errno.ELOOP, errno.EMLINK)  # what O_NOFOLLOW answers for a link (EMLINK: FreeBSD)


def read_bounded(
    path: Path | str,
    limit: int,
    error: type[FileProblem] = FileProblem,
    what: str = "file",
    missing: bytes | None = None,
    tail: bool = False,
) -> bytes:
    """The bytes of the regular file at `path`, at most `limit` of them; else `error`, one line.

    A missing file gives `missing` when it is not None. A link, a folder, a FIFO, a device, a
    file over the limit and a file the storage will not read are refused; a refusal caused by
    the storage itself (an I/O error, permissions) has `storage_fault` set: the file may be fine.
    With `tail`, a longer file is not refused: its last `limit` bytes are read (a log, a history).

    >>> import tempfile; path = Path(tempfile.mkdtemp()) / "log"; _ = path.write_bytes(b"one\\ntwo\\n")
    >>> read_bounded(path, 4, tail=True)
    b'two\\n'
    """
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        descriptor = os.open(path, flags)
    except FileNotFoundError:
        if missing is not None:
            return missing
        raise error(path, f"no such {what}") from None
    except OSError as problem:
        if problem.errno in _NOT_FOLLOWED:
            raise error(path, "a link, not a file: the box reads no file through a link") from None
        raise error(path, f"cannot read it: {problem.strerror or problem}", storage_fault=True) from None
    try:
        kind = os.fstat(descriptor).st_mode
        if not stat.S_ISREG(kind):
            raise error(path, f"{_kind_of(kind)}, not a file")
        if tail:
            os.lseek(descriptor, max(0, os.fstat(descriptor).st_size - limit), os.SEEK_SET)
        chunks, count = [], 0
        while count <= limit:
            chunk = os.read(descriptor, min(CHUNK, limit + 1 - count))
            if not chunk:
                break
            chunks.append(chunk)
            count += len(chunk)
        if count > limit:
            if not tail:
                raise error(path, f"larger than {limit} bytes: not such a {what}")
            return b"".join(chunks)[-limit:]  # it grew while read: its newest bytes
        return b"".join(chunks)
    except OSError as problem:
        raise error(path, f"cannot read it: {problem.strerror or problem}", storage_fault=True) from None
    finally:
        os.close(descriptor)


def _kind_of(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (a pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def temporary_name(path: Path) -> Path:
    """Where `write_atomically` writes before renaming: beside the target, one name per writer
    (process and thread), so two writers of the same file never share a temporary.

    >>> temporary_name(Path("/state/roster.json")).name.startswith(".roster.json.")
    True
    """
    return path.with_name(f".{path.name}.{os.getpid()}-{threading.get_native_id()}.tmp")


def write_atomically(path: Path, data: str | bytes | Iterable[bytes]) -> None:
    """Replace the file at `path` with `data` (text as UTF-8; or its bytes in chunks, written as they
    come: a large file is never whole in memory): durably, atomically, through no link.

    The temporary is created exclusively without following links (O_CREAT|O_EXCL|O_NOFOLLOW): a
    name already taken (a leftover, a planted link) is removed, not followed, and made again.
    OSError when the storage refuses; then no temporary is left and the old file is as it was.
    """
    chunks = (data.encode("utf-8"),) if isinstance(data, str) else (data,) if isinstance(data, bytes) else data
    temporary = temporary_name(path)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    try:
        descriptor = os.open(temporary, flags, 0o666)
    except FileExistsError:
        os.unlink(temporary)  # a link is removed itself, its target untouched
        descriptor = os.open(temporary, flags, 0o666)
    try:
        try:
            for chunk in chunks:
                view = memoryview(chunk)
                while view:
                    view = view[os.write(descriptor, view) :]
            os.fsync(descriptor)  # the new file is on the storage before it takes the name
        finally:
            os.close(descriptor)
        os.replace(temporary, path)
    except BaseException:  # a full disk, say: no half-written temporary is left taking its room
        with contextlib.suppress(FileNotFoundError):  # gone already: nothing to tidy
            os.unlink(temporary)
        raise
    sync_folder(path.parent)  # ... and so is its new name


def sync_folder(folder: Path) -> None:
    """fsync a folder: the names created, renamed or removed in it are on the storage."""
    descriptor = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def unique_name(path: Path) -> Path:
    """`<path>.bad-<time>`, numbered where that name is taken: where a damaged file is kept."""
    kept = path.with_name(f"{path.name}.bad-{time.strftime('%Y%m%d-%H%M%S')}")
    candidate, number = kept, 1
    while candidate.exists() or candidate.is_symlink():
        number += 1
        candidate = kept.with_name(f"{kept.name}-{number}")
    return candidate
