"""The whole journal's integrity check, after READY and off the loop.

A start reads only what it needs (the game in play, the box's values: box/storage/journal/judge.py),
so READY does not grow with a year of games. `integrity_check` reads every page of the file, and
finds what `quick_check` cannot (an index that disagrees with its table): it runs here, on its own
read-only connection in a thread of its own (SQLite lets go of the GIL while it reads), and damage
it finds is posted to the loop as a `JournalFound`, handled as damage at a start is (the file set
aside with its copy kept, the box on a new journal: `Box.journal_damaged`).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path

from box.messages import JournalFound
from box.storage.journal import full_check

log = logging.getLogger(__name__)


def check_after_ready(path: str, post: Callable[[JournalFound], None]) -> threading.Thread | None:
    """Start the whole-file check of the journal at `path` (none for a journal in memory)."""
    if path == ":memory:":
        return None
    thread = threading.Thread(target=check, args=(Path(path), post), name="journal-check", daemon=True)
    thread.start()
    return thread


def check(path: Path, post: Callable[[JournalFound], None]) -> None:
    """`full_check` the file; damage found goes to the loop."""
    found = full_check(path)
    if found is None:
        log.debug("journal checked whole: sound")
        return
    log.error("the journal's whole-file check found damage: %s", found)
    post(JournalFound(found))
