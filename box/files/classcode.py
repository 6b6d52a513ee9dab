"""The dataclasses' methods kept as byte code between starts, as a module's is in its .pyc.

`dataclasses` writes each class's methods (`__init__`, `__repr__`, `__eq__`, `__hash__`, and a
frozen one's `__setattr__` and `__delattr__`) as Python source and compiles it at every start:
some 3.4 M instructions a frozen class, against 0.3 M with the code at hand, and the box makes
some 40 before READY and a game's rules a dozen more (docs/performance.md, section 10).
`ClassCode.install` hands `dataclasses` an `exec` that compiles each source once: the code is
kept in the package's `__pycache__`, keyed by the source itself (a class whose fields changed
has another source: never the wrong code), and read back at the next start.

The file is written where it can be, when a process made new code (a checkout, the simulator,
`box.cli.service.keep_class_code`, which install.sh runs as root for /opt/gravebox); a read-only install
without it starts as it would have without this module. A file that is not whole (its length or
checksum wrong: a torn write, a damaged card) or another Python's is not read: its code is made
again, as the byte code of a damaged .pyc is.
"""

from __future__ import annotations

import atexit
import builtins
import contextlib
import dataclasses
import importlib.util
import marshal
import os
import sys
import zlib
from pathlib import Path
from types import CodeType
from typing import Any

MOST = 64 * 1024  # bytes of one kept code at most (a class's methods: a few kB)
HEADER = 12  # the interpreter's magic number, then the index's length and its CRC-32 (4 bytes each)

MOST_KEPT = 2000  # sources kept at most: a checkout that kept more (old versions' classes) keeps only those it used


def kept_path() -> Path | None:
    """Where this Python's kept code lives (the package's `__pycache__`); None on an interpreter
    without byte code caches."""
    tag = sys.implementation.cache_tag
    return None if tag is None else Path(__file__).parent.parent / "__pycache__" / f"classcode.{tag}.bin"


def key_of(source: str) -> int:
    """A source's length and CRC-32 as one number: where to look (its source, kept beside, decides)."""
    data = source.encode()
    return len(data) << 32 | zlib.crc32(data)


class ClassCode:
    """The compiled methods of the dataclasses, kept in a file: an index read at start (`index`:
    each source's key to its entry's place, size and CRC-32, packed in one number), and each entry
    (the source and its code, as `marshal` writes them) read when a class asks for it; `made` holds
    this process's new ones until they are saved. Memory: the index, some 50 kB.

    >>> code = ClassCode(None)
    >>> namespace: dict[str, Any] = {}
    >>> code.exec("def f(): return 4", {}, namespace); code.exec("def f(): return 4", {}, namespace)
    >>> namespace["f"](), len(code.made)
    (4, 1)
    """

    def __init__(self, path: Path | None):
        self.path = path
        self.index: dict[int, int] = {}
        self.base = 0  # where the entries begin in the file
        self.made: dict[str, bytes] = {}  # new entries: a source, its (source, code) as marshal wrote them
        self.used: set[int] = set()  # the keys of the kept entries this process found
        self.file: int | None = None
        self.merging = True  # a save keeps what the file holds by then (`forget`: not)
        if path is not None:
            with contextlib.suppress(OSError):
                self.file = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
                self.index, self.base = read_index(self.file)

    def exec(self, source: Any, globals: dict[str, Any] | None = None, locals: dict[str, Any] | None = None) -> None:
        """`exec` as `dataclasses` calls it, with a source's code compiled once."""
        if type(source) is str:
            code = self.kept(source)
            if code is None:
                code = compile(source, "<string>", "exec")
                self.made[source] = marshal.dumps((source, code))
            source = code
        builtins.exec(source, globals, locals)

    def kept(self, source: str) -> CodeType | None:
        """The code kept for `source`; None when there is none (or its entry is not whole)."""
        place = self.index.get(key_of(source))
        if place is None or self.file is None:
            return None
        entry = entry_at(self.file, *self.unpack(place))
        if entry is None:
            return None
        kept, code = entry
        if kept != source:
            return None
        self.used.add(key_of(source))
        return code

    def save(self) -> None:
        """Add the new codes to the file as it is now (another process may have kept more since this
        one started: they are kept too), one process at a time; where it can (a read-only install:
        not at all)."""
        if not self.made or self.path is None:
            return
        import fcntl

        with contextlib.suppress(OSError), open(self.path.with_name(f"{self.path.name}.lock"), "ab") as lock:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX)  # released as the lock file closes
            now = ClassCode(self.path if self.merging else None)
            try:
                if len(now.index) + len(self.made) > MOST_KEPT:  # old versions' classes go, this one's stay
                    now.index = {key: place for key, place in now.index.items() if key in self.used}
                kept = now.entries()
            finally:
                now.close()
            write(self.path, [*kept, *self.made.values()])
            self.made = {}

    def entries(self) -> list[bytes]:
        """Every whole entry of the file, as it is written there."""
        file = self.file
        return [raw for place in self.index.values() if file is not None and (raw := raw_at(file, *self.unpack(place)))]

    def close(self) -> None:
        if self.file is not None:
            os.close(self.file)
            self.file = None

    def unpack(self, place: int) -> tuple[int, int, int]:
        """An index entry's place in the file, length and CRC-32."""
        return self.base + (place >> 64), place >> 32 & 0xFFFFFFFF, place & 0xFFFFFFFF

    def forget(self) -> None:
        """Compile every class anew from now on, and write only those (install.sh: the file then keeps
        this version's classes, none of an earlier one's)."""
        self.index, self.merging = {}, False

    @classmethod
    def install(cls) -> ClassCode:
        """Give `dataclasses` this module's `exec` (its own name for the builtin), the index read now,
        the new codes written at exit."""
        code = cls(kept_path())
        dataclasses.exec = code.exec  # type: ignore[attr-defined]
        atexit.register(code.save)
        return code


def write(path: Path, entries: list[bytes]) -> None:
    """The file of these entries (each the `marshal` of a source and its code), whole or not at all."""
    from box.files.bounded import write_atomically  # at exit only: not on the way to READY

    index: dict[int, int] = {}
    body = bytearray()
    for raw in entries:
        source, _ = marshal.loads(raw)
        key = key_of(source)
        if key not in index:  # made here while another process kept it too: once
            index[key] = len(body) << 64 | len(raw) << 32 | zlib.crc32(raw)
            body += raw
    head = marshal.dumps(index)
    write_atomically(path, importlib.util.MAGIC_NUMBER + len(head).to_bytes(4, "little") + zlib.crc32(head).to_bytes(4, "little") + head + body)


def read_index(file: int) -> tuple[dict[int, int], int]:
    """The kept file's index, and where its entries begin; none when it is not whole or another
    Python's (all is compiled again)."""
    header = os.pread(file, HEADER, 0)
    size = int.from_bytes(header[4:8], "little")
    if len(header) < HEADER or header[:4] != importlib.util.MAGIC_NUMBER or size > MOST * 16:
        return {}, 0
    head = os.pread(file, size, HEADER)
    if len(head) != size or zlib.crc32(head) != int.from_bytes(header[8:12], "little"):
        return {}, 0
    try:
        index = marshal.loads(head)
    except (EOFError, ValueError, TypeError):
        return {}, 0
    if type(index) is not dict or not all(type(key) is int and type(place) is int for key, place in index.items()):
        return {}, 0
    return index, HEADER + size


def raw_at(file: int, offset: int, length: int, crc: int) -> bytes | None:
    """One entry's bytes, when they are whole."""
    if not 0 < length <= MOST:
        return None
    with contextlib.suppress(OSError):
        raw = os.pread(file, length, offset)
        if len(raw) == length and zlib.crc32(raw) == crc:
            return raw
    return None


def entry_at(file: int, offset: int, length: int, crc: int) -> tuple[str, CodeType] | None:
    """One entry, its source and its code, when it is whole."""
    raw = raw_at(file, offset, length, crc)
    if raw is None:
        return None
    try:
        entry = marshal.loads(raw)
    except (EOFError, ValueError, TypeError):
        return None
    if type(entry) is tuple and len(entry) == 2 and type(entry[0]) is str and type(entry[1]) is CodeType:
        return entry
    return None
