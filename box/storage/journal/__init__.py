"""The journal: every accepted action, written durably before its effect is shown (docs/reliability.md).

- `core`: the `Journal` (games, actions, box values; batches; storage faults);
- `judge`: a file is judged, read-only, before anything writes to it;
- `checkpoints`: saved game states, a cache whose damage is made anew, never the game's loss;
- `files`: the state folder, fsyncs, setting a bad file aside;
- `errors`, `schema`: what can go wrong, and the tables.
"""

from box.storage.journal.core import GameRecord, Journal
from box.storage.journal.errors import (
    JournalCorrupted,
    JournalDamaged,
    JournalTooNew,
    JournalUnavailable,
    StorageError,
    storage_reason,
)
from box.storage.journal.files import (
    SYSTEM_STATE,
    enter_state_directory,
    make_state_directory,
    set_aside,
    state_directory,
    sync_folder,
    unique,
)
from box.storage.journal.judge import full_check
from box.storage.journal.schema import APPLICATION_ID, VERSION

__all__ = [
    "APPLICATION_ID",
    "SYSTEM_STATE",
    "VERSION",
    "GameRecord",
    "Journal",
    "JournalCorrupted",
    "JournalDamaged",
    "JournalTooNew",
    "JournalUnavailable",
    "StorageError",
    "enter_state_directory",
    "full_check",
    "make_state_directory",
    "set_aside",
    "state_directory",
    "storage_reason",
    "sync_folder",
    "unique",
]
