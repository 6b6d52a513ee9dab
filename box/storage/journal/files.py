"""The journal's folder and files: where the state lives, making it, setting a bad file aside."""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path

from box.errors import FileProblem
from box.files.bounded import sync_folder
from box.storage.journal.errors import JournalUnavailable, StorageError

log = logging.getLogger("box.storage.journal")

SYSTEM_STATE = Path("/var/lib/gravebox")  # an installed box's state (install.sh, the unit's StateDirectory=)


def clear_odd_companions(path: Path) -> None:
    """A `-wal` or `-shm` that is not a file (a directory, say) holds nothing of ours: moved aside."""
    for suffix in ("-wal", "-shm"):
        companion = path.with_name(path.name + suffix)
        if companion.exists() and not companion.is_file():
            aside = unique(companion.with_name(f"{companion.name}.bad-{time.strftime('%Y%m%d-%H%M%S')}"))
            companion.rename(aside)
            log.warning("%s is not a file: moved aside to %s", companion, aside)


def set_aside(path: Path) -> Path:
    """Move the journal (and its -wal, -shm) aside as it is; returns where it went."""
    kept = unique(path.with_name(f"{path.name}.bad-{time.strftime('%Y%m%d-%H%M%S')}"))
    for suffix in ("", "-wal", "-shm"):
        source = Path(f"{path}{suffix}")
        if source.exists() or source.is_symlink():
            source.rename(f"{kept}{suffix}")
    sync_folder(path.parent)
    return kept


def set_aside_or_fault(path: Path) -> Path:
    """`set_aside`, a refusal of the storage as a `StorageError`."""
    try:
        return set_aside(path)
    except OSError as error:
        raise StorageError.of(error) from None


def sync_new(folder: Path) -> None:
    """`sync_folder`, a refusal of the storage as a `StorageError`."""
    try:
        sync_folder(folder)
    except OSError as error:
        raise StorageError.of(error) from None


def unique(path: Path) -> Path:
    """`path`, or `path-2`, `path-3`... where that name is taken."""
    candidate, number = path, 1
    while any(Path(f"{candidate}{suffix}").exists() for suffix in ("", "-wal", "-shm")):
        number += 1
        candidate = path.with_name(f"{path.name}-{number}")
    return candidate


def make_state_directory(folder: Path) -> Path:
    """Create the state folder (and missing parents), each new one fsynced into its parent.

    A folder this user may not reach (a parent it may not enter) is a `JournalUnavailable`
    that says so, not a traceback.
    """
    missing = []
    current = folder
    try:
        while not current.exists():
            missing.append(current)
            current = current.parent
        for new in reversed(missing):
            new.mkdir(exist_ok=True)
            sync_folder(new.parent)
    except OSError as error:
        raise JournalUnavailable(folder, unreachable(folder, error)) from None
    return folder


def unreachable(folder: Path, error: OSError) -> str:
    """One line for a state folder this user cannot reach or make, with how to fix it."""
    who = user_name()
    if isinstance(error, PermissionError):
        return (
            f"the state directory cannot be reached by user {who} (a folder on its path is closed to it):"
            " give it access (chown/chmod), or choose another folder with --state-dir"
        )
    return f"cannot make the state directory: {error.strerror or error}"


def user_name() -> str:
    """This process's user, by name where it has one ("nobody"), else by number."""
    import pwd

    try:
        return pwd.getpwuid(os.geteuid()).pw_name
    except KeyError:
        return str(os.geteuid())


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
    account outside the group is told so in one line instead of a traceback later. A folder on a
    path this user may not enter (a backup restored as root) is one line too (`JournalUnavailable`).
    """
    if folder == system:
        os.umask(0o007)
        if not os.access(folder, os.R_OK | os.W_OK | os.X_OK):
            raise FileProblem(
                folder,
                "no access: your account is not in the gravebox group yet "
                "(log out and in again after install.sh, or: sudo usermod -aG gravebox $USER)",
            )
    try:
        folder.exists()  # Python 3.11 and 3.13 raise PermissionError for a folder behind a closed one
    except PermissionError as error:
        raise JournalUnavailable(folder, unreachable(folder, error)) from None
    return folder
