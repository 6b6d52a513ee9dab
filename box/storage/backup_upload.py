"""A backup uploaded from a paired phone, restored by the running box (box/storage/backup.py's reader).

The phone page's process writes the upload into the state folder under a name of this module's
(`.gravebox-restore-<32 hex digits>.tar`), checks it with the same strict reader and codecs as
`gravebox restore` (`check_upload`), asks the owner, and only then hands the box its name over the
control socket. The box, which alone writes its state, closes its journal and restores it
(`restore_upload`: the games, roster, tags, history and the decks uploaded from the phone; the
settings and the owner's decks folder are root's and stay as they are), then resumes the restored
game. The upload is removed either way.

>>> upload_name("0" * 32), is_upload_name(".gravebox-restore-" + "0" * 32 + ".tar"), is_upload_name("../journal.db")
('.gravebox-restore-00000000000000000000000000000000.tar', True, False)
"""

from __future__ import annotations

import contextlib
import re
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from box.errors import FileProblem
from box.storage.backup import JournalInUse, Manifest, NotABackup, Places, Restored, judge_parts, read_backup, restore

PREFIX = ".gravebox-restore-"
UPLOAD = re.compile(r"\.gravebox-restore-[0-9a-f]{32}\.tar")
STALE = 3600.0  # seconds after which an upload nobody confirmed is removed
IN_USE_TRIES = 5  # the page's reads are short: a restore tries this many times, IN_USE_WAIT apart
IN_USE_WAIT = 0.2


def upload_name(token: str) -> str:
    return f"{PREFIX}{token}.tar"


def is_upload_name(name: str) -> bool:
    return UPLOAD.fullmatch(name) is not None


def check_upload(path: Path) -> Manifest:
    """The uploaded backup read and judged as a restore reads it, in a scratch folder beside it
    (removed after); NotABackup names what is wrong. Nothing of the box's state is touched."""
    scratch = Path(tempfile.mkdtemp(prefix=".gravebox-check-", dir=path.parent))
    try:
        manifest = read_backup(path, scratch)
        judge_parts(scratch, manifest, path.name)
        return manifest
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def remove_stale(folder: Path, now: float | None = None, keep: str = "") -> None:
    """Uploads older than STALE (a question never answered), all but `keep`: removed."""
    now = time.time() if now is None else now
    for path in folder.glob(f"{PREFIX}*"):
        with contextlib.suppress(OSError):
            if path.name != keep and now - path.lstat().st_mtime >= STALE:
                path.unlink()


def restore_upload(state_dir: Path, name: str, wait: Callable[[float], None] = time.sleep) -> Restored:
    """Restore the box's state from the upload `name` in `state_dir` (its journal closed by the
    caller), then remove the upload. NotABackup for a name that is no upload or a file that is no
    backup; JournalInUse when another reader holds the journal through every try; FileProblem (a
    place that cannot be written): nothing changed."""
    if not is_upload_name(name):
        raise NotABackup(name, "not a backup the phone page uploaded")
    path = state_dir / name
    try:
        tries = 1
        while True:
            try:
                return restore(path, Places(state_dir), state_only=True)
            except JournalInUse:
                if tries >= IN_USE_TRIES:
                    raise
                tries += 1
                wait(IN_USE_WAIT)
    except OSError as problem:
        raise FileProblem(state_dir, f"not restored: {problem.strerror or problem}") from None
    finally:
        with contextlib.suppress(OSError):
            path.unlink()
