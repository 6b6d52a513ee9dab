"""Which NFC tag is which card: UID -> (game, card id).

A real box learns its tags by enrolment (`gravebox enroll GAME`) and keeps
them in `tags.csv` in the state directory. The simulator gives every card of
its decks a made-up 7-byte UID (NTAG21x-like, starting with NXP's 0x04) so
that taps go through the real PN532 driver.

>>> uid = simulated_uid("dead-set", "ds001")
>>> len(uid), uid[0]
(7, 4)
>>> tags = TagMap({uid: ("dead-set", "ds001")})
>>> tags.lookup(uid)
('dead-set', 'ds001')
"""

from __future__ import annotations

import csv
import logging
import os
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from box.cards import Deck
from box.errors import ConfigError
from box.journal import sync_folder

log = logging.getLogger(__name__)

TAGS_FILE = "tags.csv"
HEADER = ["uid", "game", "card"]
MAX_LINE = 128 * 1024  # csv's own field limit: a longer line is no tag


def simulated_uid(game: str, card_id: str) -> bytes:
    """A stable made-up UID for a card in the simulator."""
    import hashlib  # here, not at the top: only fakes need it, and it costs a start ~2 ms

    return b"\x04" + hashlib.sha1(f"{game}:{card_id}".encode()).digest()[:6]


class TagMap:
    """UIDs to cards, for all games at once (so a card of another game is recognised)."""

    def __init__(self, cards: Mapping[bytes, tuple[str, str]] | None = None):
        self._cards: dict[bytes, tuple[str, str]] = dict(cards or {})
        self._deferred: list[Callable[[], None]] = []  # steps of a lazy map, run in order on first use

    @property
    def cards(self) -> dict[bytes, tuple[str, str]]:
        """UID -> (game, card id); a lazy map is built here, on first use."""
        while self._deferred:
            self._deferred.pop(0)()
        return self._cards

    @classmethod
    def simulated(cls, decks: Iterable[Deck] | Callable[[], Iterable[Deck]]) -> TagMap:
        """Made-up UIDs for every card of `decks`; given a function, the decks are loaded on first use.

        >>> calls = []
        >>> tags = TagMap.simulated(lambda: calls.append("parsed") or [])
        >>> calls
        []
        >>> tags.cards, calls
        ({}, ['parsed'])
        """
        tags = cls()

        def build() -> None:
            loaded = decks() if callable(decks) else decks
            tags._cards.update({simulated_uid(d.game, cid): (d.game, cid) for d in loaded for cid in d.cards})

        tags._deferred.append(build)
        return tags

    def merge(self, other: TagMap) -> None:
        """Enrol every tag of `other` over these (a saved enrolment over the simulator's tags)."""
        if self._deferred:
            self._deferred.append(lambda: self.merge(other))
            return
        for uid, (game, card_id) in other.cards.items():
            self.cards.pop(uid, None)
            self.enrol(uid, game, card_id)

    def lookup(self, uid: bytes) -> tuple[str, str] | None:
        return self.cards.get(uid)

    def uid_of(self, game: str, card_id: str) -> bytes | None:
        for uid, card in self.cards.items():
            if card == (game, card_id):
                return uid
        return None

    def enrol(self, uid: bytes, game: str, card_id: str) -> None:
        """Map a tag; a tag that already belongs to another card raises ValueError naming it."""
        owner = self.cards.get(uid)
        if owner is not None and owner != (game, card_id):
            raise ValueError(f"tag {uid.hex()} is already {owner[0]} {owner[1]}")
        for other, card in list(self.cards.items()):
            if card == (game, card_id):
                del self.cards[other]
        self.cards[uid] = (game, card_id)

    def save(self, path: Path) -> None:
        """Write the map durably: a temporary file, fsynced, renamed over the old one, the folder fsynced."""
        temporary = path.with_suffix(".tmp")
        try:
            with open(temporary, "w", newline="", encoding="utf-8") as handle:
                writer = csv.writer(handle)
                writer.writerow(HEADER)
                for uid, (game, card_id) in sorted(self.cards.items(), key=lambda item: item[1]):
                    writer.writerow([uid.hex(), game, card_id])
                handle.flush()
                os.fsync(handle.fileno())  # the new map is on the card before it replaces the old one
            temporary.replace(path)
        except OSError:
            temporary.unlink(missing_ok=True)
            raise
        sync_folder(path.parent)  # ... and so is its new name

    @classmethod
    def load(cls, path: Path) -> TagMap:
        """Read a tag map CSV (`uid,game,card`); a missing file is an empty map; ConfigError at the first bad line."""
        tags, problems = cls._read(path)
        if problems:
            raise problems[0]
        return tags

    @classmethod
    def load_or_recover(cls, path: Path) -> tuple[TagMap, TagsSetAside | None]:
        """Read the tag map; one that cannot be read whole is set aside as it is, and the tags that
        could be read are saved in its place (the box starts with those, or none, and says so).

        >>> import tempfile; folder = Path(tempfile.mkdtemp())
        >>> _ = (folder / TAGS_FILE).write_bytes(b"uid,game,card\\n04a1b2,dead-set,ds001\\nzz,dead-set,ds002\\n")
        >>> tags, aside = TagMap.load_or_recover(folder / TAGS_FILE)
        >>> len(tags.cards), aside.problem.split(": ", 1)[1], aside.kept.name.startswith("tags.csv.bad-")
        (1, "uid: not a hex UID: 'zz'", True)
        """
        tags, problems = cls._read(path)
        if not problems:
            return tags, None
        kept = unique_name(path)
        try:
            path.rename(kept)
            sync_folder(path.parent)
            if tags.cards:
                tags.save(path)
        except OSError as error:
            log.error("tag map %s could not be set aside or saved again: %s", path, error.strerror or error)
        aside = TagsSetAside(kept=kept, problem=str(problems[0]), problems=len(problems), readable=len(tags.cards))
        log.error("%s", aside)
        return tags, aside

    @classmethod
    def _read(cls, path: Path) -> tuple[TagMap, list[ConfigError]]:
        """The tags of every good line, and what is wrong with the others (line by line: a tag map
        has no quoted line breaks, so one bad line costs that line only)."""
        tags = cls()
        if not path.exists() and not path.is_symlink():
            return tags, []
        try:
            data = path.read_bytes()
        except OSError as error:
            return tags, [ConfigError(path, f"cannot read the tag map: {error.strerror or error}")]
        text = data.decode("utf-8", errors="surrogateescape").removeprefix("\ufeff")  # a spreadsheet's BOM is fine
        problems = []
        for number, line in enumerate(text.splitlines(), start=1):
            try:
                row = _parse_line(path, number, line)
            except ConfigError as problem:
                problems.append(problem)
                continue
            if row is None or (number == 1 and row == HEADER):
                continue
            uid, game, card_id = row
            tags.cards[uid] = (game, card_id)
        return tags, problems


@dataclass(frozen=True)
class TagsSetAside:
    """A tag map that could not be read whole: kept as it was at `kept`; `readable` tags were used.

    `problem` is the first bad line, as one line (file, line, field, what).
    """

    kept: Path
    problem: str
    problems: int
    readable: int

    def __str__(self) -> str:
        more = f" (and {self.problems - 1} more bad lines)" if self.problems > 1 else ""
        return f"tag map unreadable: {self.problem}{more}; {self.readable} tags kept; the file is kept at {self.kept}"


def _parse_line(path: Path, number: int, line: str) -> tuple[bytes, str, str] | list[str] | None:
    """One line of the tag map as (uid, game, card), the header as a list, None for a blank line."""
    if not line.strip():
        return None
    if len(line) > MAX_LINE:
        raise ConfigError(path, f"a line of {len(line)} characters; at most {MAX_LINE}", line=number)
    try:
        line.encode("utf-8")
    except UnicodeEncodeError as error:
        raise ConfigError(path, f"not UTF-8 text (byte {error.start + 1} of the line)", line=number) from None
    try:
        row = next(csv.reader([line], strict=True))
    except csv.Error as error:
        raise ConfigError(path, f"not CSV: {error}", line=number) from None
    if number == 1 and [cell.strip() for cell in row] == HEADER:
        return HEADER
    if len(row) != 3:
        raise ConfigError(path, f"expected uid,game,card, found {len(row)} fields", line=number)
    hex_uid, game, card_id = (cell.strip() for cell in row)
    try:
        uid = bytes.fromhex(hex_uid)
    except ValueError:
        uid = b""
    if not uid:
        raise ConfigError(path, f"not a hex UID: {hex_uid!r}", line=number, field="uid")
    for field, value in (("game", game), ("card", card_id)):
        if not value:
            raise ConfigError(path, f"empty {field}", line=number, field=field)
    return uid, game, card_id


def unique_name(path: Path) -> Path:
    """`<path>.bad-<time>`, numbered where that name is taken."""
    kept = path.with_name(f"{path.name}.bad-{time.strftime('%Y%m%d-%H%M%S')}")
    candidate, number = kept, 1
    while candidate.exists() or candidate.is_symlink():
        number += 1
        candidate = kept.with_name(f"{kept.name}-{number}")
    return candidate
