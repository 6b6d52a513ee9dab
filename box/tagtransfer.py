"""The whole tag map to and from a USB stick: the box's own menu moves its cards to a second box.

The file is ``gravebox-tags.csv`` at the stick's top, ``uid,game,card,name`` (the same columns
as ``gravebox enroll GAME --export``, every game in one file). An import is checked in full
first (every line, against this box's decks) and merged over the tag map only when all of it is
good; otherwise nothing changes and the answer names the first bad line. Both run off the loop
(D-Bus and a stick's file system take their time) and answer one line for the screen:
`Transfers` runs them on a short-lived worker thread and posts a `TagsMoved` into the loop's
inbox, where the Box applies it (box/service.py, the menu's *USB stick*).

>>> import tempfile
>>> from box.cards import Deck
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

import csv
import io
import logging
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from box.cards import Deck
from box.messages import SAVE, TagsMoved
from box.ports.usb import NoUsbService, Stick, StickError, Sticks
from box.roster import PLAYER, write_atomically
from box.tags import TagMap
from box.words import UID_LENGTHS

log = logging.getLogger(__name__)

FILE_NAME = "gravebox-tags.csv"
COLUMNS = ("uid", "game", "card", "name")
MAX_FILE_BYTES = 1_000_000
"""An export of a few thousand cards is ~100 kB: anything far larger is not one."""


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
    except OSError as problem:
        log.warning("tag map export failed: %s", problem)
        return False, f"Not saved: cannot write the stick ({problem.strerror or problem})"
    return True, f"{count} tag{'s' if count != 1 else ''} saved on {stick.label}: you may pull it"


def _write(tags: TagMap, decks: Mapping[str, Deck], path: Path) -> int:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(COLUMNS)
    rows = sorted(tags.cards.items(), key=lambda item: (item[1], item[0]))
    for uid, (game, card_id) in rows:
        deck = decks.get(game)
        name = card_id if game == PLAYER else deck.name_of(card_id) if deck is not None and card_id in deck else ""
        writer.writerow([uid.hex(), game, card_id, name])
    write_atomically(path, buffer.getvalue())  # on the stick before the old file is replaced
    return len(rows)


def import_tags(tags: TagMap, decks: Mapping[str, Deck], sticks: Sticks) -> tuple[TagMap | None, str]:
    """Read the stick's file and check all of it: the merged tag map (None: nothing changes) and one line."""
    try:
        with _mounted(sticks) as (stick, root):
            text = _read(root / FILE_NAME)
    except NoUsbService as problem:
        return None, str(problem)
    except StickError as problem:
        return None, f"Not read: {problem}"
    try:
        imported = check(text, decks)
    except ValueError as problem:
        return None, f"Not read: {FILE_NAME} {problem}"
    merged = TagMap(tags.cards)
    merged.merge(imported)
    count = len(imported.cards)
    return merged, f"{count} tag{'s' if count != 1 else ''} read from {stick.label}"


def _read(path: Path) -> str:
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            raise StickError(f"{FILE_NAME} is too big to be a tag map")
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise StickError(f"no {FILE_NAME} on the stick") from None
    except UnicodeDecodeError:
        raise StickError(f"{FILE_NAME} is not UTF-8 text") from None
    except OSError as problem:
        raise StickError(f"cannot read the stick ({problem.strerror or problem})") from None


def check(text: str, decks: Mapping[str, Deck]) -> TagMap:
    """Every line of an export, checked against the decks; ValueError naming the first bad line.

    >>> from box.cards import Deck
    >>> decks = {"demo": Deck("demo", {"a": 1}, {"a": "Ada"}, "demo.csv")}
    >>> check("uid,game,card,name\\n04a1b2c3,demo,z,Zed\\n", decks)
    Traceback (most recent call last):
    ...
    ValueError: line 2: no card 'z' in the demo deck
    """
    reader = csv.reader(text.splitlines())
    tags: dict[bytes, tuple[str, str]] = {}
    seen: dict[tuple[str, str], int] = {}
    header_seen = False
    for row in reader:
        line = reader.line_num
        if not row or not "".join(row).strip():
            continue
        cells = [cell.strip() for cell in row]
        if not header_seen:
            if tuple(cell.lower() for cell in cells[:3]) != COLUMNS[:3]:
                raise ValueError(f"line {line}: the header must be {','.join(COLUMNS)}")
            header_seen = True
            continue
        if len(cells) not in (3, 4):
            raise ValueError(f"line {line}: expected {','.join(COLUMNS)}, found {len(cells)} fields")
        uid_text, game, card_id = cells[:3]
        try:
            uid = bytes.fromhex(uid_text.replace(":", ""))
        except ValueError:
            raise ValueError(f"line {line}: not a hex UID: {uid_text!r}") from None
        if len(uid) not in UID_LENGTHS:
            raise ValueError(f"line {line}: a tag UID has 4, 7 or 10 bytes, not {len(uid)}")
        deck = decks.get(game)
        if game == PLAYER:  # a player's token: its card is a roster name, any name will do
            if not card_id:
                raise ValueError(f"line {line}: a player token needs a name")
        elif deck is None:
            raise ValueError(f"line {line}: no game {game!r} on this box")
        elif card_id not in deck:
            raise ValueError(f"line {line}: no card {card_id!r} in the {game} deck")
        if uid in tags:
            raise ValueError(f"line {line}: tag {uid.hex()} is on an earlier line too")
        if (game, card_id) in seen:
            raise ValueError(f"line {line}: {game} {card_id} is on line {seen[game, card_id]} too")
        tags[uid], seen[game, card_id] = (game, card_id), line
    if not header_seen:
        raise ValueError("is empty")
    return TagMap(tags)


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

    def __init__(self, sticks: Sticks | None, post: Callable[[Any], None], unavailable: str = "") -> None:
        self.sticks, self.post, self.unavailable = sticks, post, unavailable
        self._thread: threading.Thread | None = None

    def start(self, job: str, tags: TagMap, decks: Mapping[str, Deck]) -> None:
        """Save `tags` to the stick (SAVE) or read the stick's (LOAD) on a worker thread; returns at once.

        Called on the loop thread: the tags and decks are copied here, the worker touches no more."""
        arguments = (job, TagMap(tags.cards), dict(decks))
        self._thread = threading.Thread(target=self._run, args=arguments, name=f"usb-{job}", daemon=True)
        self._thread.start()

    def _run(self, job: str, tags: TagMap, decks: dict[str, Deck]) -> None:
        try:
            if self.sticks is None:
                result = TagsMoved(job, self.unavailable or "No USB service on this box", ok=False)
            elif job == SAVE:
                ok, answer = _export(tags, decks, self.sticks)
                result = TagsMoved(job, answer, ok)
            else:
                imported, answer = import_tags(TagMap(), decks, self.sticks)
                result = TagsMoved(job, answer, imported is not None, imported)
        except Exception as problem:  # a library's surprise: one line on the screen, the box goes on
            log.exception("USB %s failed", job)
            result = TagsMoved(job, f"USB failed: {problem}", ok=False)
        log.info("USB %s: %s", job, result.answer)
        self.post(result)

    def join(self, timeout: float | None = None) -> bool:
        """Wait for the last job's worker (tests, closing); False if it is still running."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
            return not thread.is_alive()
        return True
