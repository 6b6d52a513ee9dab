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
import hashlib
import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from box.cards import Deck
from box.errors import ConfigError

TAGS_FILE = "tags.csv"


def simulated_uid(game: str, card_id: str) -> bytes:
    """A stable made-up UID for a card in the simulator."""
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
        temporary = path.with_suffix(".tmp")
        with open(temporary, "w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(["uid", "game", "card"])
            for uid, (game, card_id) in sorted(self.cards.items(), key=lambda item: item[1]):
                writer.writerow([uid.hex(), game, card_id])
            handle.flush()
            os.fsync(handle.fileno())  # the new map is on the card before it replaces the old one
        temporary.replace(path)

    @classmethod
    def load(cls, path: Path) -> TagMap:
        """Read a tag map CSV (`uid,game,card`); a missing file is an empty map."""
        if not path.exists():
            return cls()
        tags = cls()
        with open(path, newline="", encoding="utf-8") as handle:
            for line, row in enumerate(csv.reader(handle), start=1):
                if line == 1 or not row:
                    continue
                if len(row) != 3:
                    raise ConfigError(path, f"expected uid,game,card, found {len(row)} fields", line=line)
                try:
                    uid = bytes.fromhex(row[0])
                except ValueError:
                    raise ConfigError(path, f"not a hex UID: {row[0]!r}", line=line, field="uid") from None
                tags.cards[uid] = (row[1], row[2])
        return tags
