"""`gravebox backup -o FILE` and `gravebox restore FILE`: the whole box in one file (box/storage/backup.py).

Both find the state folder as every command does (`--state-dir`, else the box's own), the
settings file from `--config` (default /etc/gravebox/config.toml) and the decks folder from
`--decks` or the settings. A restore refuses while a box holds the journal (stop it first).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from box.storage.backup import Manifest, Places

EXIT_BAD_FILE = 2
STOP_FIRST = (
    "the box is running and holds its journal: stop it first"
    " (sudo systemctl stop gravebox gravebox-web gravebox-mqtt), then restore, then start it again"
)


def add_backup_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-o", "--output", type=Path, required=True, metavar="FILE", help="the backup file to write")


def add_restore_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", type=Path, metavar="FILE", help="a backup written by gravebox backup")
    parser.add_argument("--state-only", action="store_true",
                        help="restore the games, roster, tags and history; leave the settings and decks as they are")


def places_of(args: argparse.Namespace, strict: bool) -> Places:
    """The state folder, the settings file and the decks folder this command acts on. `strict`: a
    settings file that cannot be read is an error (a backup); else it names no decks (a restore)."""
    from box.cli.service import configured_hardware
    from box.core.hardware import is_raspberry_pi
    from box.errors import FileProblem
    from box.storage.backup import Places
    from box.storage.config import DEFAULT_CONFIG, load_config
    from box.storage.journal import enter_state_directory, state_directory

    settings = args.config or DEFAULT_CONFIG
    decks = args.decks
    if decks is None:
        try:
            decks = load_config(settings).decks
        except FileProblem:
            if strict:
                raise
    # The installed box's state: on a Pi, or on a box told to run on simulated parts (its service
    # keeps its state in the same system folder); else the owner's own (the simulator's).
    installed = is_raspberry_pi() or configured_hardware(args) == "simulated"
    state_dir = enter_state_directory(args.state_dir or state_directory(simulated=not installed))
    return Places(state_dir, settings, decks)


def told(manifest: Manifest) -> str:
    """The parts of a backup in a few words.

    >>> from box.storage.backup import Manifest
    >>> told(Manifest("0.1.0", "now", {"journal.db": (4096, ""), "decks/dead-set.csv": (900, "")}))
    'journal.db, 1 deck file (5 kB)'
    """
    from box.storage.backup import DECKS, SETTINGS, UPLOADED

    names = ["settings" if name == SETTINGS else name for name in manifest.parts if "/" not in name or name == SETTINGS]
    for folder, one, more in ((DECKS, "deck file", "deck files"), (UPLOADED, "deck from the phone", "decks from the phone")):
        count = sum(1 for name in manifest.parts if name.startswith(folder))
        if count:
            names.append(f"{count} {one if count == 1 else more}")
    size = sum(size for size, _ in manifest.parts.values())
    return f"{', '.join(names) or 'nothing: an empty box'} ({max(1, round(size / 1000))} kB)"


def backup(args: argparse.Namespace) -> int:
    """`gravebox backup -o FILE`."""
    from box import __version__
    from box.errors import FileProblem
    from box.storage.backup import write_backup

    places = places_of(args, strict=True)
    if not places.state_dir.is_dir():
        raise FileProblem(places.state_dir, "no such state folder: no box to back up here (--state-dir names one)")
    output: Path = args.output
    if output.is_dir() or not output.parent.is_dir():
        raise FileProblem(output, "cannot write the backup there (no such folder, or a folder by that name)")
    try:
        manifest = write_backup(places, output, __version__)
    except OSError as problem:
        raise FileProblem(output, f"cannot write the backup: {problem.strerror or problem}") from None
    print(f"{output}: the box's backup: {told(manifest)}")
    if manifest.dropped:
        print(f"left out of the history: {manifest.dropped} damaged line(s) (the phone page skips them too)")
    if manifest.skipped:
        print(f"not taken from {places.decks} (not deck files): {', '.join(manifest.skipped[:10])}")
    return 0


def restore(args: argparse.Namespace) -> int:
    """`gravebox restore FILE [--state-only]`."""
    from box.storage.backup import JournalInUse
    from box.storage.backup import restore as restore_backup

    places = places_of(args, strict=False)
    try:
        restored = restore_backup(args.file, places, state_only=args.state_only, decks=args.decks)
    except JournalInUse:
        print(f"gravebox: restore: {STOP_FIRST}", file=sys.stderr)
        return 1
    except OSError as problem:
        print(f"gravebox: restore: {problem.strerror or problem}; anything already replaced is kept in"
              f" {places.state_dir}/replaced-*", file=sys.stderr)
        return 1
    manifest = restored.manifest
    kept = f"what it replaced is kept in {restored.kept}" if restored.kept is not None else "it replaced nothing"
    print(f"{args.file}: restored the backup of {manifest.made} (Gravebox {manifest.box}): {told(manifest)}; {kept}")
    return 0
