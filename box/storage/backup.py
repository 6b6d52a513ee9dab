"""The whole box in one file: what `gravebox backup` writes and `gravebox restore` reads back.

A backup is a plain tar (POSIX ustar, no compression: any `tar tf` lists it) of regular files
with known names: `manifest.json` first (the format and its version, the box's version, when,
and each part's name, size and sha256), then the parts: `journal.db` (SQLite's online backup of
the journal, taken while the box runs), `roster.json`, `tags.csv`, `history.jsonl`,
`uploaded-decks/<game>.csv` (decks uploaded from the phone, the state folder's `decks/`),
`settings/config.toml` and `decks/<file>` (the owner's decks folder). Phone pairings
(web-sessions.json) are secrets of this box and stay out; the phone page's cache is made again.

A file to restore is read by this module's own strict reader, never unpacked by a general tool:
bounded in size, in members and in each part's size; only regular files under the manifest's
names (no link, no folder, no absolute path, no `..`); every checksum, then every part judged by
its own codec (the journal read-only as box/storage/journal/judge.py does, the roster, tag map,
history, settings and decks by their loaders) before anything is replaced. What a restore
replaces is kept in the state folder's `replaced-<time>/`.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import re
import shutil
import sqlite3
import stat
import tarfile
import time
from collections.abc import Callable, Iterator
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from box.errors import FileProblem
from box.files.bounded import read_bounded, sync_folder, write_atomically
from box.files.text import MAX_SETTINGS_BYTES
from box.storage.config import MAX_CONFIG_BYTES, load_config
from box.storage.history import HISTORY_FILE
from box.storage.history import decode as decode_played
from box.storage.journal import StorageError, unique
from box.storage.journal.errors import Bad, JournalTooNew
from box.storage.journal.judge import judge
from box.storage.roster import MAX_ROSTER_BYTES, ROSTER_FILE, UPLOADED_DECKS, load_roster
from box.storage.tags import MAX_TAG_BYTES, TAGS_FILE, TagMap

FORMAT = "gravebox-backup"
VERSION = 1
MANIFEST = "manifest.json"
JOURNAL = "journal.db"
SETTINGS = "settings/config.toml"
DECKS = "decks/"
UPLOADED = "uploaded-decks/"  # the state folder's decks/ (box/storage/roster.py's UPLOADED_DECKS)
MAX_MANIFEST = 64 * 1024
MAX_JOURNAL = 256 * 1024 * 1024  # years of games are a few MB
MAX_HISTORY = 32 * 1024 * 1024  # ~80,000 games of a few hundred bytes
MAX_DECK_FILES = 64
MAX_BACKUP = 512 * 1024 * 1024
"""A file larger than this is not a backup: refused before it is read."""
LIMITS = {JOURNAL: MAX_JOURNAL, ROSTER_FILE: MAX_ROSTER_BYTES, TAGS_FILE: MAX_TAG_BYTES, HISTORY_FILE: MAX_HISTORY,
          SETTINGS: MAX_CONFIG_BYTES}
MAX_PARTS = len(LIMITS) + 2 * MAX_DECK_FILES
STATE_PARTS = (JOURNAL, ROSTER_FILE, TAGS_FILE, HISTORY_FILE)
SET_ASIDE = (*STATE_PARTS, f"{JOURNAL}-wal", f"{JOURNAL}-shm", "web-history.json", UPLOADED_DECKS)
"""What a restore moves from the state folder into replaced-<time>/ (the page's cache is made again)."""
DECK_FILE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}\.(csv|toml)")
BLOCK = 512
CHUNK = 64 * 1024


class NotABackup(FileProblem):
    """A file that is not a backup this box can restore (damaged, truncated, tampered, foreign, too large)."""


class JournalInUse(Exception):
    """A running box (or its phone page) holds the journal: a restore must wait until it is stopped."""


@dataclass(frozen=True)
class Places:
    """Where a box keeps what a backup holds: its state folder, its settings file, its decks folder."""

    state_dir: Path
    settings: Path | None = None
    decks: Path | None = None


@dataclass
class Manifest:
    """A backup's table of contents: each part's name, size and sha256, in the file's order."""

    box: str
    made: str
    parts: dict[str, tuple[int, str]] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)  # files of the decks folder a backup does not take
    dropped: int = 0  # lines of the history its reader skips (damaged), left out

    def to_json(self) -> bytes:
        parts = [{"name": name, "size": size, "sha256": digest} for name, (size, digest) in self.parts.items()]
        data = {"format": FORMAT, "version": VERSION, "box": self.box, "made": self.made, "parts": parts}
        return json.dumps(data, indent=2).encode() + b"\n"


def limit_of(name: str) -> int | None:
    """A part's largest size, or None for a name no backup holds.

    >>> limit_of("decks/dead-set.csv") > 0, limit_of("decks/../x.csv"), limit_of("/etc/passwd")
    (True, None, None)
    """
    folder, _, file = name.rpartition("/")
    if f"{folder}/" in (DECKS, UPLOADED):
        return MAX_SETTINGS_BYTES if DECK_FILE.fullmatch(file) else None
    return LIMITS.get(name)


def parse_manifest(data: bytes, source: object) -> Manifest:
    """The manifest's bytes as a `Manifest`; NotABackup says what is wrong."""
    try:
        found = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise NotABackup(source, "not a Gravebox backup (its manifest is not JSON)") from None
    if not isinstance(found, dict) or found.get("format") != FORMAT:
        raise NotABackup(source, "not a Gravebox backup (a tar file of something else)")
    version = found.get("version")
    if type(version) is not int or version < 1:
        raise NotABackup(source, "a backup of unknown format version")
    if version > VERSION:
        raise NotABackup(source, f"made by a later Gravebox (backup format {version}; this box reads {VERSION}): update it")
    parts, rows = {}, found.get("parts")
    if not isinstance(rows, list) or len(rows) > MAX_PARTS:
        raise NotABackup(source, "its manifest lists no parts, or too many")
    for row in rows:
        name, size, digest = (row.get(key) if isinstance(row, dict) else None for key in ("name", "size", "sha256"))
        if not isinstance(name, str) or (limit := limit_of(name)) is None or name in parts:
            raise NotABackup(source, f"its manifest names a part no backup holds: {str(name)[:60]!r}")
        if type(size) is not int or not 0 <= size <= limit:
            raise NotABackup(source, f"{name}: a size over its bound ({limit} bytes)")
        if not isinstance(digest, str) or not re.fullmatch(r"[0-9a-f]{64}", digest):
            raise NotABackup(source, f"{name}: no sha256 in the manifest")
        parts[name] = (size, digest)
    box, made = found.get("box"), found.get("made")
    return Manifest(str(box)[:40] if box is not None else "?", str(made)[:40] if made is not None else "?", parts)


# ----- writing --------------------------------------------------------------------------------


def copy_journal(journal: Path, target: Path) -> None:
    """The journal as it is now, through SQLite's online backup on a connection of its own: the box
    writes on meanwhile, and the copy is one consistent moment of it (in WAL mode, as the box keeps it)."""
    try:
        reading = sqlite3.connect(f"{journal.resolve().as_uri()}?mode=ro", uri=True, timeout=5)
        with closing(reading) as source, closing(sqlite3.connect(target, isolation_level=None)) as copy:
            source.backup(copy)
            copy.execute("PRAGMA journal_mode=WAL")
    except sqlite3.Error as error:
        raise FileProblem(journal, f"the journal could not be copied: {error}") from None


def deck_files(folder: Path) -> tuple[list[Path], list[str]]:
    """The decks folder's deck files (`<name>.csv`, `<name>.toml`), and the names of what else it holds."""
    taken, skipped = [], []
    for path in sorted(folder.iterdir()):
        if DECK_FILE.fullmatch(path.name) and path.is_file() and not path.is_symlink():
            taken.append(path)
        else:
            skipped.append(path.name)
    if len(taken) > MAX_DECK_FILES:
        raise FileProblem(folder, f"more than {MAX_DECK_FILES} deck files: not a folder of decks")
    return taken, skipped


def write_backup(places: Places, output: Path, box_version: str, now: Callable[[], str] | None = None) -> Manifest:
    """Write the backup of the box at `places` to `output`: read back and judged as a restore would
    before it takes the name (atomically), so no backup is written that cannot be restored."""
    manifest = Manifest(box_version, now() if now is not None else time.strftime("%Y-%m-%dT%H:%M:%S%z"))
    blobs: dict[str, bytes] = {}
    journal = places.state_dir / JOURNAL
    with _scratch(output.parent) as scratch:
        copied = scratch / JOURNAL
        if journal.is_file():
            copy_journal(journal, copied)
            if copied.stat().st_size > MAX_JOURNAL:
                raise FileProblem(journal, f"larger than {MAX_JOURNAL} bytes: too large for a backup")
            manifest.parts[JOURNAL] = (copied.stat().st_size, _digest_of(copied))
        for name in (ROSTER_FILE, TAGS_FILE, HISTORY_FILE):
            if (places.state_dir / name).exists() or (places.state_dir / name).is_symlink():
                blobs[name] = read_bounded(places.state_dir / name, LIMITS[name])
        if HISTORY_FILE in blobs:
            blobs[HISTORY_FILE], manifest.dropped = readable_history(blobs[HISTORY_FILE])
        if places.settings is not None and places.settings.exists():
            blobs[SETTINGS] = read_bounded(places.settings, MAX_CONFIG_BYTES, what="settings file")
        if places.decks is not None:
            taken, manifest.skipped = deck_files(places.decks)
            blobs |= {DECKS + path.name: read_bounded(path, MAX_SETTINGS_BYTES, what="deck file") for path in taken}
        if (places.state_dir / UPLOADED_DECKS).is_dir():
            taken, _ = deck_files(places.state_dir / UPLOADED_DECKS)
            blobs |= {UPLOADED + path.name: read_bounded(path, MAX_SETTINGS_BYTES, what="deck file") for path in taken}
        for name, data in blobs.items():
            manifest.parts[name] = (len(data), hashlib.sha256(data).hexdigest())
        written = scratch / "backup.tar"
        with open(written, "xb") as handle:
            with tarfile.open(fileobj=handle, mode="w", format=tarfile.USTAR_FORMAT) as tar:
                _add(tar, MANIFEST, io.BytesIO(manifest.to_json()), len(manifest.to_json()))
                for name, (size, _) in manifest.parts.items():
                    with open(copied, "rb") if name == JOURNAL else io.BytesIO(blobs[name]) as part:
                        _add(tar, name, part, size)
            handle.flush()
            os.fsync(handle.fileno())
        (scratch / "check").mkdir()
        judge_parts(scratch / "check", read_backup(written, scratch / "check"), output)
        os.replace(written, output)
    sync_folder(output.parent)
    return manifest


def readable_history(data: bytes) -> tuple[bytes, int]:
    """history.jsonl's lines its reader takes (as the page shows them), and how many it would skip."""
    kept, dropped = [], 0
    for line in data.splitlines(keepends=True):
        try:
            if line.endswith(b"\n") and line.strip():
                decode_played(json.loads(line))
                kept.append(line)
        except (ValueError, TypeError, KeyError, RecursionError):
            dropped += 1
    return b"".join(kept), dropped


def _add(tar: tarfile.TarFile, name: str, data: IO[bytes], size: int) -> None:
    info = tarfile.TarInfo(name)
    info.size, info.mode, info.mtime = size, 0o640, int(time.time())
    tar.addfile(info, data)


def _digest_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest()


@contextlib.contextmanager
def _scratch(folder: Path) -> Iterator[Path]:
    """A new folder beside `folder`'s files (the same file system: a rename moves it), removed after."""
    import tempfile

    path = Path(tempfile.mkdtemp(prefix=".gravebox-backup-", dir=folder))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


# ----- reading --------------------------------------------------------------------------------


def read_backup(path: Path, staging: Path) -> Manifest:
    """Check the backup at `path` and copy its parts into the empty folder `staging` (decks in
    staging/decks, the settings in staging/settings); NotABackup names what is wrong."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        descriptor = os.open(path, flags)
    except FileNotFoundError:
        raise NotABackup(path, "no such file") from None
    except OSError as problem:
        raise NotABackup(path, f"cannot read it: {problem.strerror or problem}") from None
    with os.fdopen(descriptor, "rb") as handle:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            raise NotABackup(path, "not a file")
        if os.fstat(descriptor).st_size == 0:
            raise NotABackup(path, "an empty file: not a Gravebox backup")
        if os.fstat(descriptor).st_size > MAX_BACKUP:
            raise NotABackup(path, f"larger than {MAX_BACKUP} bytes: not a Gravebox backup")
        return _read_members(handle, path, staging)


def _read_members(handle: IO[bytes], path: Path, staging: Path) -> Manifest:
    members = _members(handle, path)
    name, size = next(members, (None, 0))
    if name != MANIFEST or size > MAX_MANIFEST:
        raise NotABackup(path, "not a Gravebox backup (no manifest first)")
    manifest = parse_manifest(_exactly(handle, size, path), path)
    _skip_padding(handle, size, path)
    seen: set[str] = set()
    for name, size in members:
        if name not in manifest.parts or name in seen:
            raise NotABackup(path, f"a part its manifest does not list: {name[:60]!r}")
        wanted, digest = manifest.parts[name]
        if size != wanted:
            raise NotABackup(path, f"{name}: {size} bytes where the manifest says {wanted}")
        target = staging / name
        target.parent.mkdir(exist_ok=True)
        found = hashlib.sha256()
        with open(target, "xb") as out:
            left = size
            while left:
                chunk = _exactly(handle, min(CHUNK, left), path)
                found.update(chunk)
                out.write(chunk)
                left -= len(chunk)
        if found.hexdigest() != digest:
            raise NotABackup(path, f"{name}: its checksum does not match (the file was changed or damaged)")
        _skip_padding(handle, size, path)
        seen.add(name)
    missing = sorted(set(manifest.parts) - seen)
    if missing:
        raise NotABackup(path, f"truncated: {', '.join(missing[:3])} missing")
    return manifest


def _members(handle: IO[bytes], path: Path) -> Iterator[tuple[str, int]]:
    """Each member's name and size (its header read and judged), until the end of the archive."""
    for _ in range(MAX_PARTS + 2):
        header = _exactly(handle, BLOCK, path)
        if header == bytes(BLOCK):
            for rest in iter(lambda: handle.read(CHUNK), b""):  # only zeros may follow (the archive's padding)
                if rest.strip(b"\0"):
                    raise NotABackup(path, "something follows the end of the archive")
            return
        yield _header(header, path)
    raise NotABackup(path, "too many members for a Gravebox backup")


def _header(header: bytes, path: Path) -> tuple[str, int]:
    """A ustar header's name and size; NotABackup for anything but a regular file of a plain name."""
    if header[257:263] != b"ustar\0" or header[263:265] != b"00":
        raise NotABackup(path, "not a Gravebox backup (not a POSIX tar file)")
    try:
        checksum = int(header[148:156].strip(b" \0") or b"-1", 8)
        size = int(header[124:136].strip(b" \0") or b"0", 8)
    except ValueError:
        raise NotABackup(path, "damaged (a member's header is unreadable)") from None
    if checksum != sum(header[:148]) + 8 * 32 + sum(header[156:]):
        raise NotABackup(path, "damaged (a member's header fails its checksum)")
    raw = header[:100].split(b"\0", 1)[0]
    name = raw.decode("ascii", errors="replace")
    if header[156:157] not in (b"0", b"\0") or header[345:500].strip(b"\0"):
        raise NotABackup(path, f"{name[:60]!r}: not a plain file (a link, a folder or a long name)")
    if name != MANIFEST and limit_of(name) is None:
        raise NotABackup(path, f"a member no backup holds: {name[:60]!r}")
    return name, size


def _exactly(handle: IO[bytes], size: int, path: Path) -> bytes:
    data = handle.read(size)
    if len(data) != size:
        raise NotABackup(path, "truncated (the file ends inside a part)")
    return data


def _skip_padding(handle: IO[bytes], size: int, path: Path) -> None:
    if _exactly(handle, -size % BLOCK, path).strip(b"\0"):
        raise NotABackup(path, "damaged (bytes between its parts)")


def judge_parts(staging: Path, manifest: Manifest, source: object) -> None:
    """Every part judged by its own codec; NotABackup names the part and what is wrong."""
    try:
        if JOURNAL in manifest.parts:
            judge(staging / JOURNAL)
        load_roster(staging / ROSTER_FILE)
        TagMap.load(staging / TAGS_FILE)
        judge_history(read_bounded(staging / HISTORY_FILE, MAX_HISTORY, missing=b""), source)
        if SETTINGS in manifest.parts:
            load_config(staging / SETTINGS)
        from box.games import load_decks

        for folder in (DECKS, UPLOADED):
            if any(name.startswith(folder) for name in manifest.parts):
                load_decks(staging / folder)
    except (Bad, JournalTooNew) as problem:
        raise NotABackup(source, f"journal.db: {problem}") from None
    except StorageError as problem:
        raise NotABackup(source, f"journal.db: unreadable here ({problem})") from None
    except FileProblem as problem:
        raise NotABackup(source, str(problem).replace(str(staging) + os.sep, "")) from None


def judge_history(data: bytes, source: object) -> None:
    """Every whole line of history.jsonl as its reader takes it (a last line a power cut left
    unfinished is skipped, as the box does)."""
    for number, line in enumerate(data.splitlines()[: data.count(b"\n")], 1):
        try:
            if line.strip():
                decode_played(json.loads(line))
        except (ValueError, TypeError, KeyError, RecursionError) as problem:
            raise NotABackup(source, f"{HISTORY_FILE}:{number}: unreadable ({str(problem)[:80]})") from None


# ----- restoring ------------------------------------------------------------------------------


def journal_in_use(journal: Path) -> bool:
    """Whether another connection (a running box, its phone page) holds the journal open: SQLite's
    own locks answer (a reader in WAL mode keeps a shared lock), in this process too."""
    if not journal.is_file():
        return False
    try:
        with closing(sqlite3.connect(journal, isolation_level=None, timeout=0)) as db:
            db.execute("PRAGMA locking_mode=EXCLUSIVE")
            db.execute("BEGIN EXCLUSIVE")
            db.execute("ROLLBACK")
    except sqlite3.Error as error:
        return getattr(error, "sqlite_errorcode", 0) & 0xFF in (5, 6)  # SQLITE_BUSY, SQLITE_LOCKED
    return False


@dataclass(frozen=True)
class Restored:
    """What a restore did: the backup's manifest, and where what it replaced is kept."""

    manifest: Manifest
    kept: Path | None  # None: nothing was there to replace


def restore(source: Path, places: Places, state_only: bool = False, decks: Path | None = None) -> Restored:
    """Replace the box at `places` with the backup `source`, once every part is checked; what it
    replaces goes to state_dir/replaced-<time>/. `state_only`: the settings and decks stay as they
    are. The decks go to `decks`, else the restored settings' decks folder, else `places.decks`.
    NotABackup, JournalInUse and FileProblem (a place that cannot be written) change nothing."""
    state = places.state_dir
    if journal_in_use(state / JOURNAL):
        raise JournalInUse(state / JOURNAL)
    state.mkdir(parents=True, exist_ok=True)
    with _scratch(state) as staging:
        manifest = read_backup(source, staging)
        judge_parts(staging, manifest, source)
        settings = places.settings if SETTINGS in manifest.parts and not state_only else None
        names = [] if state_only else [name.removeprefix(DECKS) for name in manifest.parts if name.startswith(DECKS)]
        if decks is None and settings is not None:
            decks = load_config(staging / SETTINGS).decks
        decks = decks or places.decks
        _writable(state, "state folder")
        if settings is not None:
            _writable(settings.parent, "settings' folder (restore with --state-only to leave the settings)")
        if names and decks is None:
            raise FileProblem(source, "it holds decks but no decks folder is named: give one with --decks FOLDER")
        if names and decks is not None:
            _writable(decks, "decks folder (restore with --state-only to leave the decks)")
        if journal_in_use(state / JOURNAL):  # a box started meanwhile
            raise JournalInUse(state / JOURNAL)
        kept = unique(state / f"replaced-{time.strftime('%Y%m%d-%H%M%S')}")
        kept.mkdir()
        for name in SET_ASIDE:
            if (state / name).exists() or (state / name).is_symlink():
                (state / name).rename(kept / name)
        for name in STATE_PARTS:
            if name in manifest.parts:
                (staging / name).rename(state / name)
        if any(name.startswith(UPLOADED) for name in manifest.parts):
            (staging / UPLOADED).rename(state / UPLOADED_DECKS)
        sync_folder(state)
        if settings is not None:
            _replace(settings, (staging / SETTINGS).read_bytes(), kept / "settings")
        if names and decks is not None:
            _replace_decks(decks, staging / DECKS, names, kept / "owner-decks")
        if any(kept.iterdir()):
            sync_folder(kept)
            return Restored(manifest, kept)
        kept.rmdir()
    return Restored(manifest, None)


def _writable(folder: Path, what: str) -> None:
    if not folder.is_dir() or not os.access(folder, os.W_OK | os.X_OK):
        raise FileProblem(folder, f"cannot write the {what}")


def _replace(target: Path, data: bytes, kept: Path | None) -> None:
    """Write `data` over `target` (its mode kept), a copy of the old file first kept in the folder `kept`."""
    mode = 0o644
    if target.is_file() and not target.is_symlink():
        mode = target.stat().st_mode & 0o777
        if kept is not None:
            kept.mkdir(exist_ok=True)
            shutil.copy2(target, kept / target.name)
    write_atomically(target, data)
    os.chmod(target, mode)


def _replace_decks(folder: Path, staged: Path, names: list[str], kept: Path) -> None:
    """The decks folder holds the backup's deck files: those it held before are kept in `kept`."""
    taken, _ = deck_files(folder)
    for path in taken:
        kept.mkdir(exist_ok=True)
        shutil.copy2(path, kept / path.name)
        if path.name not in names:
            path.unlink()
    for name in names:
        _replace(folder / name, (staged / name).read_bytes(), None)
    sync_folder(folder)

