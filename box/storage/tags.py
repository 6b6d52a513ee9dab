"""Which NFC tag is which card: UID -> (game, card id), and the one codec of the tag-map CSV.

A real box learns its tags by enrolment (`gravebox enroll GAME`) and keeps
them in `tags.csv` in the state directory. The simulator gives every card of
its decks a made-up 7-byte UID (NTAG21x-like, starting with NXP's 0x04) so
that taps go through the real PN532 driver.

Every tag-map file is read by `parse_tags`/`scan_tags` and written by `format_tags`: the box's
own `tags.csv`, `gravebox enroll --export/--import`, the stick's `gravebox-tags.csv`, the phone
page's backup and restore. One rule set: a header line `uid,game,card` (a `name` column is
optional and only informative; any order, any case), then a line per tag: a hex UID of 4, 7 or
10 bytes (colons and spaces allowed), a game, a card (a player token's card is a player's name,
`box.storage.player_ids.player_name`); no tag and no card twice; `#` starts a comment line.

>>> uid = simulated_uid("dead-set", "ds001")
>>> len(uid), uid[0]
(7, 4)
>>> tags = TagMap({uid: ("dead-set", "ds001")})
>>> tags.lookup(uid)
('dead-set', 'ds001')
>>> [row.card for row in parse_tags(format_tags(tags.cards.items()), "tags.csv")]
['ds001']
"""

from __future__ import annotations

import csv
import logging
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from box.decks.codec import Deck
from box.errors import ConfigError
from box.files.bounded import read_bounded, sync_folder, unique_name, write_atomically
from box.files.text import MAX_FIELD, decode_text
from box.storage.player_ids import player_name
from box.storage.roster import PLAYER
from box.words import UID_LENGTHS

log = logging.getLogger(__name__)

TAGS_FILE = "tags.csv"
HEADER = ("uid", "game", "card")
NAME = "name"  # the optional column: the card's name, for people reading the file
MAX_LINE = MAX_FIELD  # csv's own field limit: a longer line is no tag
MAX_TAG_BYTES = 8 * 1024 * 1024
"""A tag map of 35,000 tags with their names is about 3 MB: a file far larger is not one."""

DeckOf = Callable[[str], Any]
"""A game's deck (`in` for its card ids, `find` for a name), None when the box has no such game, or
ValueError whose message is the refusal (a row for another game than the one imported)."""


@dataclass(frozen=True)
class TagRow:
    """One tag of a tag-map file, checked, with the line it is on."""

    line: int
    uid: bytes
    game: str
    card: str


def parse_uid(text: str) -> bytes:
    """A tag UID in hex (colons and spaces allowed): 4, 7 or 10 bytes; ValueError says why not.

    >>> parse_uid("04:a1:b2:c3").hex(), parse_uid("04a1b2c3d4e5f6").hex()
    ('04a1b2c3', '04a1b2c3d4e5f6')
    >>> parse_uid("04a1b2c3d4")
    Traceback (most recent call last):
    ValueError: a tag UID has 4, 7 or 10 bytes, not 5
    """
    cleaned = text.replace(":", "").replace(" ", "")
    try:
        uid = bytes.fromhex(cleaned) if cleaned.isascii() else b""
    except ValueError:
        uid = b""
    if not uid:
        raise ValueError(f"not a hex UID: {text[:40]!r}")
    if len(uid) not in UID_LENGTHS:
        raise ValueError(f"a tag UID has 4, 7 or 10 bytes, not {len(uid)}")
    return uid


def check_entry(uid: bytes, game: str, card: str) -> str:
    """The card as a tag map keeps it, if a tag map may hold (uid, game, card); else ValueError
    "field: problem". The same rule for what is read and what is written.

    >>> check_entry(bytes(7), "player", " ann  lee "), check_entry(bytes(7), "dead-set", "ds001")
    ('ann lee', 'ds001')
    """
    if len(uid) not in UID_LENGTHS:
        raise ValueError(f"uid: a tag UID has 4, 7 or 10 bytes, not {len(uid)}")
    if game == PLAYER:
        try:
            return player_name(card)
        except ValueError as problem:
            raise ValueError(f"card: {problem}") from None
    for field, value in (("game", game), ("card", card)):
        if not value.strip():
            raise ValueError(f"{field}: empty {field}")
        if not value.isprintable():
            raise ValueError(f"{field}: not printable text: {value[:40]!r}")
    if game != game.strip():
        raise ValueError(f"game: spaces around {game[:40]!r}")
    if card != card.strip():
        raise ValueError(f"card: spaces around {card[:40]!r}")
    return card


def _header(cells: list[str]) -> tuple[str, ...] | None:
    """The columns a header line names, or None when it is not a tag map's header."""
    columns = tuple(cell.strip().lower() for cell in cells)
    if len(set(columns)) != len(columns) or not set(HEADER) <= set(columns) <= {*HEADER, NAME}:
        return None
    return columns


def scan_tags(
    text: str, source: object, deck_of: DeckOf | None = None, by_name: bool = False
) -> Iterator[TagRow | ConfigError]:
    """Every tag of a tag-map file, and a ConfigError for every line that is not one (line by
    line: a tag map has no quoted line breaks, so a bad line costs that line only).

    `deck_of` checks each card against its game's deck (`by_name`: a card may be given by its
    name); without it any game and card will do. A tag or a card given again on a later line is an error.
    """
    columns: tuple[str, ...] | None = None
    uid_line: dict[bytes, int] = {}
    card_line: dict[tuple[str, str], int] = {}
    for number, line in enumerate(text.removeprefix("\ufeff").splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            if len(line) > MAX_LINE:
                raise ConfigError(source, f"a line of {len(line)} characters; at most {MAX_LINE}", line=number)
            if not line.isascii():
                _utf8(line, source, number)
            try:
                cells = next(csv.reader([line], strict=True))
            except csv.Error as problem:
                raise ConfigError(source, f"not CSV: {problem}", line=number) from None
            if columns is None:
                columns = _header(cells)
                if columns is not None:
                    continue
                columns = HEADER  # this line and the next are read as uid,game,card: a box keeps their tags
                yield ConfigError(
                    source, f"the first line must be the header {','.join(HEADER)} ({NAME} optional)", line=number
                )
            row = _row(cells, columns, source, number, deck_of, by_name)
        except ConfigError as problem:
            yield problem
            continue
        key = (row.game, row.card.casefold() if row.game == PLAYER else row.card)
        if row.uid in uid_line:
            yield ConfigError(source, f"tag {row.uid.hex()} is also on line {uid_line[row.uid]}", line=number, field="uid")
        elif key in card_line:
            yield ConfigError(source, f"{row.game} {row.card} is also on line {card_line[key]}", line=number, field="card")
        else:
            uid_line[row.uid], card_line[key] = number, number
            yield row
    if columns is None:
        yield ConfigError(source, f"the file is empty: it needs the header line {','.join(HEADER)}")


def _utf8(line: str, source: object, number: int) -> None:
    """A line read with surrogateescape: its undecodable bytes are an error on that line."""
    try:
        line.encode("utf-8")
    except UnicodeEncodeError as error:
        raise ConfigError(source, f"not UTF-8 text (byte {error.start + 1} of the line)", line=number) from None


def _row(
    cells: list[str], columns: tuple[str, ...], source: object, number: int, deck_of: DeckOf | None, by_name: bool
) -> TagRow:
    if len(cells) != len(columns) and not (columns[-1] == NAME and len(cells) == len(columns) - 1):
        raise ConfigError(source, f"expected {','.join(columns)}, found {len(cells)} fields", line=number)
    values = {key: cell.strip() for key, cell in zip(columns, cells)}
    try:
        uid = parse_uid(values["uid"])
    except ValueError as problem:
        raise ConfigError(source, str(problem), line=number, field="uid") from None
    game, card = values["game"], values["card"]
    try:
        card = check_entry(uid, game, card)
    except ValueError as problem:
        field, message = str(problem).split(": ", 1)
        raise ConfigError(source, message, line=number, field=field) from None
    if deck_of is None or game == PLAYER:
        return TagRow(number, uid, game, card)
    try:
        deck = deck_of(game)
    except ValueError as problem:
        raise ConfigError(source, str(problem), line=number, field="game") from None
    if deck is None:
        raise ConfigError(source, f"no game {game[:40]!r} on this box", line=number, field="game")
    found = deck.find(card) if by_name else card if card in deck else None
    if found is None:
        raise ConfigError(source, f"no card {card[:40]!r} in the {game} deck", line=number, field="card")
    return TagRow(number, uid, game, found)


def parse_tags(text: str, source: object, deck_of: DeckOf | None = None, by_name: bool = False) -> list[TagRow]:
    """Every tag of a tag-map file, in file order; ConfigError (file, line, field) at the first bad line.

    >>> parse_tags("uid,game,card,name\\n04a1b2c3,dead-set,ds001,Marilyn\\n", "x.csv")
    [TagRow(line=2, uid=b'\\x04\\xa1\\xb2\\xc3', game='dead-set', card='ds001')]
    >>> parse_tags("uid,game,card\\n04a1b2c3d4,dead-set,ds001\\n", "x.csv")
    Traceback (most recent call last):
    box.errors.ConfigError: x.csv:2: uid: a tag UID has 4, 7 or 10 bytes, not 5
    """
    rows = []
    for found in scan_tags(text, source, deck_of, by_name):
        if isinstance(found, ConfigError):
            raise found
        rows.append(found)
    return rows


def parse_tag_bytes(
    data: bytes, source: object, deck_of: DeckOf | None = None, by_name: bool = False
) -> list[TagRow]:
    """`parse_tags` of a file's bytes (UTF-8, a byte-order mark allowed): an upload, a stick's file."""
    return parse_tags(decode_text(data, source, ConfigError), source, deck_of, by_name)


def format_tags(entries: Iterable[tuple[bytes, tuple[str, str]]], name_of: Callable[[str, str], str] | None = None) -> str:
    """A tag-map file of `entries` (uid, (game, card)) in the order given, with a `name` column when
    `name_of` names the cards; ValueError for an entry the reader would refuse (nothing is written).

    >>> print(format_tags([(bytes.fromhex("04a1b2c3"), ("player", "Zoë"))], lambda game, card: card), end="")
    uid,game,card,name
    04a1b2c3,player,Zoë,Zoë
    """
    lines = [",".join((*HEADER, NAME) if name_of else HEADER)]
    quoted = csv.writer(_LineSink(lines), lineterminator="")
    uids: set[bytes] = set()
    cards: set[tuple[str, str]] = set()
    for uid, (game, card) in entries:
        if check_entry(uid, game, card) != card:
            raise ValueError(f"card: {card!r} is not how the box keeps this name")
        key = (game, card.casefold() if game == PLAYER else card)
        if uid in uids or key in cards:
            raise ValueError(f"{'uid: tag ' + uid.hex() if uid in uids else 'card: ' + game + ' ' + card} twice")
        uids.add(uid)
        cards.add(key)
        row = [uid.hex(), game, card]
        if name_of is not None:  # informative: one line of printable text, whatever the deck says
            row.append(" ".join("".join(c if c.isprintable() else " " for c in str(name_of(game, card))).split()))
        quoted.writerow(row)
    return "\n".join(lines) + "\n"


class _LineSink:
    """A file-like end for csv.writer collecting each row as one string."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines

    def write(self, text: str) -> None:
        self.lines.append(text)


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
        """Enrol every tag of `other` over these (a saved enrolment over the simulator's tags): a tag of
        `other` replaces what it was here, and a card of `other` loses the tag it had here. Linear.

        >>> here = TagMap({b"A": ("g", "1"), b"B": ("g", "2")})
        >>> here.merge(TagMap({b"C": ("g", "1")})); here.cards
        {b'B': ('g', '2'), b'C': ('g', '1')}
        """
        if self._deferred:
            self._deferred.append(lambda: self.merge(other))
            return
        incoming = other.cards
        latest = {card: uid for uid, card in incoming.items()}  # a card twice in `other`: its last tag
        kept = {uid: card for uid, card in self.cards.items() if uid not in incoming and card not in latest}
        kept.update((uid, card) for card, uid in latest.items())
        self._cards.clear()  # the same dict: whoever holds it sees the merge
        self._cards.update(kept)

    def lookup(self, uid: bytes) -> tuple[str, str] | None:
        return self.cards.get(uid)

    def uid_of(self, game: str, card_id: str) -> bytes | None:
        for uid, card in self.cards.items():
            if card == (game, card_id):
                return uid
        return None

    def enrolled_uid(self, game: str, card_id: str) -> bytes | None:
        """The card's tag as the tag map file holds it: not the simulator's made-up one (never saved).

        >>> tags = TagMap({simulated_uid("g", "1"): ("g", "1"), b"A": ("g", "2")})
        >>> tags.enrolled_uid("g", "1"), tags.enrolled_uid("g", "2")
        (None, b'A')
        """
        uid = self.uid_of(game, card_id)
        return None if uid is None or uid == simulated_uid(game, card_id) else uid

    def enrol(self, uid: bytes, game: str, card_id: str) -> None:
        """Map a tag; a tag that already belongs to another card raises ValueError naming it."""
        owner = self.cards.get(uid)
        if owner is not None and owner != (game, card_id):
            raise ValueError(f"tag {uid.hex()} is already {owner[0]} {owner[1]}")
        for other, card in list(self.cards.items()):
            if card == (game, card_id):
                del self.cards[other]
        self.cards[uid] = (game, card_id)

    def enrolled(self) -> TagMap:
        """A copy of the tags really enrolled: without the simulator's made-up ones, which stand in for
        enrolment on this box only and are never saved or moved to a stick.

        >>> TagMap({simulated_uid("g", "1"): ("g", "1"), b"A": ("g", "2")}).enrolled().cards
        {b'A': ('g', '2')}
        """
        return TagMap({uid: card for uid, card in self.cards.items() if uid != simulated_uid(*card)})

    def save(self, path: Path) -> None:
        """Write the tags enrolled durably (`box.files.bounded.write_atomically`); ValueError, writing nothing,
        for a tag the map's reader would refuse: the box never saves a file it cannot load."""
        write_atomically(path, format_tags(sorted(self.enrolled().cards.items(), key=lambda item: item[1])))

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
        A file the storage will not read (an I/O error) is not damage: it is left where it is.

        >>> import tempfile; folder = Path(tempfile.mkdtemp())
        >>> _ = (folder / TAGS_FILE).write_bytes(b"uid,game,card\\n04a1b2c3,dead-set,ds001\\nzz,dead-set,ds002\\n")
        >>> tags, aside = TagMap.load_or_recover(folder / TAGS_FILE)
        >>> len(tags.cards), aside.problem.split(": ", 1)[1], aside.kept.name.startswith("tags.csv.bad-")
        (1, "uid: not a hex UID: 'zz'", True)
        """
        tags, problems = cls._read(path)
        if not problems:
            return tags, None
        kept: Path | None = None
        if not problems[0].storage_fault:
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
        """The tags of every good line, and what is wrong with the others."""
        tags = cls()
        try:
            data = read_bounded(path, MAX_TAG_BYTES, ConfigError, "tag map", missing=b"")
        except ConfigError as problem:
            return tags, [problem]
        if not data:  # no file (or an empty one): no tags
            return tags, []
        text = data.decode("utf-8", errors="surrogateescape")  # a bad byte costs its line only
        problems = []
        for found in scan_tags(text, path):
            if isinstance(found, ConfigError):
                problems.append(found)
            else:
                tags.cards[found.uid] = (found.game, found.card)
        return tags, problems


@dataclass(frozen=True)
class TagsSetAside:
    """A tag map that could not be read whole: kept as it was at `kept`; `readable` tags were used.

    `problem` is the first bad line, as one line (file, line, field, what).
    """

    kept: Path | None
    """None: left where it was (the storage would not read it)."""
    problem: str
    problems: int
    readable: int

    def __str__(self) -> str:
        more = f" (and {self.problems - 1} more bad lines)" if self.problems > 1 else ""
        where = f"the file is kept at {self.kept}" if self.kept else "the file is left as it is"
        return f"tag map unreadable: {self.problem}{more}; {self.readable} tags kept; {where}"


def replaced_by(before: Mapping[bytes, tuple[str, str]], after: Mapping[bytes, tuple[str, str]]) -> int:
    """How many tags of `before` are gone or changed in `after` (the simulator's made-up tags do not
    count): the question the Box asks before an import replaces them. Linear.

    >>> replaced_by({b"A": ("g", "1"), b"B": ("g", "2")}, {b"B": ("g", "2"), b"C": ("g", "1")})
    1
    """
    return sum(1 for uid, card in before.items() if after.get(uid) != card and uid != simulated_uid(*card))
