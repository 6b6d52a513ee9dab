"""The whole tag map to and from a USB stick: the box's own menu moves its cards to a second box.

The file is ``gravebox-tags.csv`` at the stick's top, ``uid,game,card,name`` (the same columns
as ``gravebox enroll GAME --export``, every game in one file), read and written by the tag map's
one codec (box/storage/tags.py): the file must be a regular file (no link, no FIFO, no device) of at most
`MAX_TAG_BYTES`. An import is checked in full first (every line, against this box's decks) and
merged over the tag map only when all of it is good; otherwise nothing changes and the answer
names the first bad line. Both run off the loop (D-Bus, a stick's file system, checking and
merging thousands of tags take their time) and answer one line for the screen: `Transfers` runs
them on a short-lived worker thread and posts a `TagsMoved` into the loop's inbox, carrying the
merged map and how many tags it changes, so the Box only swaps it in (box/core/service.py, the
menu's *USB stick*). The same worker saves the whole box to a stick (`backup_to_stick`: the file
`gravebox backup` writes, box/storage/backup.py).

>>> import tempfile
>>> from box.decks.codec import Deck
>>> from box.ports.usb import FakeSticks
>>> decks = {"demo": Deck("demo", {"a": 1, "b": 2}, {"a": "Ada", "b": "Bob"}, "demo.csv")}
>>> sticks = FakeSticks(Path(tempfile.mkdtemp())); _ = sticks.plug("STICK")
>>> export_tags(TagMap({bytes.fromhex("04a1b2c3d4e5f6"): ("demo", "a")}), decks, sticks)
'1 tag saved on STICK: you may pull it'
>>> imported, answer = import_tags(TagMap(), decks, sticks)
>>> answer, imported.lookup(bytes.fromhex("04a1b2c3d4e5f6"))
('1 tag read from STICK', ('demo', 'a'))
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from box.base.settings import Settings
from box.decks.codec import Deck
from box.errors import ConfigError, FileProblem
from box.files.bounded import read_bounded, write_atomically
from box.parts.stick import BACKUP, KEEP, LOAD, SAVE, TagsMoved, TagsProgress
from box.ports.usb import NoUsbService, Stick, StickError, Sticks
from box.storage.roster import PLAYER
from box.storage.tags import MAX_TAG_BYTES, TagMap, format_tags, parse_tag_bytes, replaced_by

log = logging.getLogger(__name__)

NEWLINE = b"\n"

FILE_NAME = "gravebox-tags.csv"


@contextmanager
def _mounted(sticks: Sticks) -> Iterator[tuple[Stick, Path]]:
    """The one stick plugged in and where it is mounted; unmounted afterwards if the box mounted it."""
    found = sticks.find()
    if not found:
        raise StickError("no USB stick: plug one in")
    if len(found) > 1:
        raise StickError(f"{len(found)} USB sticks: leave one plugged in")
    stick = found[0]
    root = sticks.mount(stick)
    try:
        yield stick, root
    finally:
        if stick.mounted_at is None:
            sticks.unmount(stick)


def export_tags(tags: TagMap, decks: Mapping[str, Deck], sticks: Sticks) -> str:
    """Write every tag to the stick (then unmount it, if the box mounted it); one line for the screen."""
    return _export(tags, decks, sticks)[1]


def _export(tags: TagMap, decks: Mapping[str, Deck], sticks: Sticks) -> tuple[bool, str]:
    try:
        with _mounted(sticks) as (stick, root):
            count = _write(tags, decks, root / FILE_NAME)
    except NoUsbService as problem:
        return False, str(problem)
    except StickError as problem:
        return False, f"Not saved: {problem}"
    except ValueError as problem:  # a tag the codec would not read back: nothing written
        log.error("tag map export refused: %s", problem)
        return False, f"Not saved: a tag the box cannot write ({problem})"
    except OSError as problem:
        log.warning("tag map export failed: %s", problem)
        return False, f"Not saved: cannot write the stick ({problem.strerror or problem})"
    return True, f"{count} tag{'s' if count != 1 else ''} saved on {stick.label}: you may pull it"


def _write(tags: TagMap, decks: Mapping[str, Deck], path: Path) -> int:
    def name_of(game: str, card_id: str) -> str:
        deck = decks.get(game)
        return card_id if game == PLAYER else deck.name_of(card_id) if deck is not None and card_id in deck else ""

    rows = sorted(tags.cards.items(), key=lambda item: (item[1], item[0]))
    write_atomically(path, format_tags(rows, name_of))  # on the stick before the old file is replaced
    return len(rows)


def backup_to_stick(settings: Settings, sticks: Sticks) -> tuple[bool, str]:
    """Write the whole box (its state folder, settings file and decks folder, as `settings` name them)
    to the stick as `gravebox-backup-<date>-<time>.tar`; one line for the screen. The backup's
    codec loads here, on the worker, not with the box."""
    from box import __version__
    from box.storage.backup import Places, write_backup

    if settings.state_dir is None:
        return False, "Not saved: this box keeps no state folder"
    places = Places(settings.state_dir, settings.config_file, settings.decks_dir)
    try:
        with _mounted(sticks) as (stick, root):
            named = time.strftime("%Y%m%d-%H%M", time.localtime(settings.clock.now()))  # a phone's date, away from a network
            write_backup(places, root / f"gravebox-backup-{named}.tar", __version__)
    except NoUsbService as problem:
        return False, str(problem)
    except StickError as problem:
        return False, f"Not saved: {problem}"
    except FileProblem as problem:  # a file of the box that no backup could take: said, logged whole
        log.error("backup to a stick refused: %s", problem)
        return False, f"Not saved: {problem.message}"
    except OSError as problem:
        log.warning("backup to a stick failed: %s", problem)
        return False, f"Not saved: cannot write the stick ({problem.strerror or problem})"
    return True, f"Box saved on {stick.label}: you may pull it"


def import_tags(tags: TagMap, decks: Mapping[str, Deck], sticks: Sticks) -> tuple[TagMap | None, str]:
    """Read the stick's file and check all of it: the merged tag map (None: nothing changes) and one line."""
    imported, answer = read_stick(decks, sticks)
    if imported is None:
        return None, answer
    merged = TagMap(tags.cards)
    merged.merge(imported)
    return merged, answer


def read_stick(
    decks: Mapping[str, Deck], sticks: Sticks, progress: Callable[[str], None] = lambda doing: None
) -> tuple[TagMap | None, str]:
    """The stick's tags, every line checked against `decks` (None: nothing to change), and one line;
    `progress` hears each stage ("Checking 35000 lines…")."""
    try:
        with _mounted(sticks) as (stick, root):
            data = _read(root / FILE_NAME)
        progress(f"Checking {data.count(NEWLINE)} lines…")
    except NoUsbService as problem:
        return None, str(problem)
    except StickError as problem:
        return None, f"Not read: {problem}"
    except FileProblem as problem:
        return None, f"Not read: {FILE_NAME}: {problem.message}"
    try:
        rows = parse_tag_bytes(data, FILE_NAME, decks.get)
    except ConfigError as problem:
        return None, f"Not read: {problem}"
    imported = TagMap({row.uid: (row.game, row.card) for row in rows})
    count = len(imported.cards)
    return imported, f"{count} tag{'s' if count != 1 else ''} read from {stick.label}"


def _read(path: Path) -> bytes:
    """The file's bytes: a regular file of at most MAX_TAG_BYTES, read without following a link."""
    if not os.path.lexists(path):
        raise StickError(f"no {FILE_NAME} on the stick")
    return read_bounded(path, MAX_TAG_BYTES, what="tag map")


class Transfers:
    """Runs saves and loads off the loop, each on a short-lived worker thread, and posts the answer.

    `sticks` is None where the box has none (`unavailable` says why). The Box starts one job at a
    time and refuses another until the answer came.

    >>> import queue, tempfile
    >>> from box.ports.usb import FakeSticks
    >>> inbox = queue.SimpleQueue()
    >>> transfers = Transfers(FakeSticks(Path(tempfile.mkdtemp())), inbox.put)
    >>> transfers.start(SAVE, TagMap(), {}); transfers.join(10.0); inbox.get_nowait().answer
    True
    'Not saved: no USB stick: plug one in'
    """

    def __init__(
        self,
        sticks: Sticks | None,
        post: Callable[[Any], None],
        unavailable: str = "",
        keep: Path | None = None,
        settings: Settings | None = None,
    ) -> None:
        """`keep`: the box's own tag map file, which a KEEP job writes (None: the box keeps none);
        `settings`: the box's, naming what a BACKUP job saves (None: nothing to save)."""
        self.sticks, self.post, self.unavailable, self.keep = sticks, post, unavailable, keep
        self.settings = settings
        self._thread: threading.Thread | None = None

    def start(self, job: str, tags: TagMap, decks: Mapping[str, Deck]) -> None:
        """Save `tags` to the stick (SAVE), read the stick's (LOAD) or write `tags` as the box's own tag
        map (KEEP) on a worker thread; returns at once.

        Called on the loop thread: the tags and decks are copied here, the worker touches no more."""
        arguments = (job, TagMap(tags.cards), dict(decks))
        self._thread = threading.Thread(target=self._run, args=arguments, name=f"usb-{job}", daemon=True)
        self._thread.start()

    def _run(self, job: str, tags: TagMap, decks: dict[str, Deck]) -> None:
        try:
            if job == KEEP:
                result = self._keep(tags)
            elif self.sticks is None:
                result = TagsMoved(job, self.unavailable or "No USB service on this box", ok=False)
            elif job == SAVE:
                ok, answer = _export(tags, decks, self.sticks)
                result = TagsMoved(job, answer, ok)
            elif job == BACKUP:
                ok, answer = backup_to_stick(self.settings or Settings(), self.sticks)
                result = TagsMoved(job, answer, ok)
            else:
                result = self._load(tags, decks, self.sticks, lambda doing: self.post(TagsProgress(job, doing)))
        except Exception as problem:  # a library's surprise: one line on the screen, the box goes on
            log.exception("USB %s failed", job)
            result = TagsMoved(job, f"USB failed: {problem}", ok=False)
        log.info("USB %s: %s", job, result.answer)
        self.post(result)

    def _keep(self, tags: TagMap) -> TagsMoved:
        """Write `tags` as the box's tag map (a loaded stick's, the owner agreeing): off the loop, however many."""
        if self.keep is None:
            return TagsMoved(KEEP, f"{len(tags.cards)} tags taken (not kept: no state folder)", True, merged=tags)
        try:
            tags.save(self.keep)
        except (OSError, ValueError) as problem:  # ValueError: a map its own reader would refuse
            return TagsMoved(KEEP, f"Not saved: {getattr(problem, 'strerror', None) or problem}", ok=False)
        return TagsMoved(KEEP, f"{len(tags.cards)} tags kept", True, merged=tags)

    @staticmethod
    def _load(tags: TagMap, decks: dict[str, Deck], sticks: Sticks, progress: Callable[[str], None]) -> TagsMoved:
        """Read and check the stick, merge it over `tags` and count what it changes: all off the loop."""
        imported, answer = read_stick(decks, sticks, progress)
        if imported is None:
            return TagsMoved(LOAD, answer, ok=False)
        progress(f"Merging {len(imported.cards)} tags…")
        merged = TagMap(tags.cards)
        merged.merge(imported)
        replaced = replaced_by(tags.cards, merged.cards)
        return TagsMoved(LOAD, answer, True, imported, merged, replaced, tags.cards)

    def join(self, timeout: float | None = None) -> bool:
        """Wait for the last job's worker (tests, closing); False if it is still running."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
            return not thread.is_alive()
        return True
