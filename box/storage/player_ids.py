"""Who a player is: their name as the box keeps it (`player_name`) and their id: a new player's is random and none the journal's seats hold; an old roster's is made from
the name (crc32, as older boxes made them), and still read.

`Sat` is who sat at the journal's games (their seat ids, by name): a new player is judged against
it, so no name, chosen or not, takes another player's games (box/storage/roster.py).
"""

from __future__ import annotations

import binascii
import os
import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from box.words import unshown

SEATS = "seats."  # the journal's box value "seats.<game id>": each seat's player id (null: a seat left as P3)
PERSON_ID = re.compile(r"[0-9a-z]{4,16}")
MAX_NAME_LENGTH = 16  # a name must fit a line of the OLED beside a score


def person_id(name: str, taken: Iterable[str] = ()) -> str:
    """The id an old roster's player has (a roster of names only, a game without seat ids): six letters
    and digits made from the name, so that every reader of an old roster gives its players the same
    ids; another when that one is `taken`. Never for a new player (`new_id`): names can be found that
    share one.

    >>> person_id("Ann") == person_id("ann"), len(person_id("Ann")), person_id("Ann", [person_id("Ann")]) != person_id("Ann")
    (True, 6, True)
    """
    used = set(taken)
    salt = 0
    while True:
        seed = name.casefold() if not salt else f"{name.casefold()}#{salt}"
        made = f"{binascii.crc32(seed.encode()) & 0xFFFFFF:06x}"  # not hashlib: OpenSSL at the box's start
        if made not in used:
            return made
        salt += 1


def new_id(taken: Iterable[str] = ()) -> str:
    """A new player's id: twelve random letters and digits (48 bits), none of `taken` (the roster's and
    every id the journal's seats hold), so no name, chosen or not, takes another player's games.

    >>> len(new_id()), new_id() != new_id(), PERSON_ID.fullmatch(new_id()) is not None
    (12, True, True)
    """
    used = set(taken)
    while (made := os.urandom(6).hex()) in used:
        continue
    return made


@dataclass(frozen=True)
class Sat:
    """Who sat at the journal's games: every seat's player id (a new player's id is none of them) and,
    by casefolded name, the id that name had at its newest game (a new player of that name is them)."""

    ids: frozenset[str] = frozenset()
    names: Mapping[str, str] = field(default_factory=dict)

    def id_for(self, name: str, used: set[str]) -> str:
        """The id of a new player called `name`: the one the name sat under, else a new one."""
        earlier = self.names.get(name.casefold())
        return earlier if earlier is not None and earlier not in used else new_id(used | self.ids)


def seated_ids(values: Mapping[str, Any]) -> set[str]:
    """Every player id the journal's seats hold (its box values "seats.<game id>"): a new player's id is none of them.

    >>> sorted(seated_ids({"seats.1": ["a1", None], "seats.2": ["b2"], "started.1": "x", "seats.3": 4}))
    ['a1', 'b2']
    """
    return {
        item
        for key, value in values.items()
        if key.startswith(SEATS) and isinstance(value, list)
        for item in value
        if isinstance(item, str)
    }


NOBODY = Sat()  # no game played yet: a new player's id is only random


def player_name(text: str, known: Iterable[str] = ()) -> str:
    """A player's name as the box keeps it: spaces collapsed, accents composed (NFC), 1 to 16
    characters the OLED shows (Latin, Greek, Cyrillic: box.words.SHOWN), and the spelling of the
    `known` name it matches whatever the case; ValueError says what is wrong.

    >>> player_name("  ann ", ("Ann", "Bob")), player_name("Zoë Li"), player_name("Łucja"), player_name("Ђорђе")
    ('Ann', 'Zoë Li', 'Łucja', 'Ђорђе')
    >>> player_name("Bartholomew Smithers")
    Traceback (most recent call last):
    ValueError: a player's name has at most 16 characters: 'Bartholomew Smithers' has 20
    >>> player_name("李小龍")
    Traceback (most recent call last):
    ValueError: a player's name has '李小龍', which the box's screen cannot show: Latin, Greek and Cyrillic letters only
    """
    if not isinstance(text, str):
        raise ValueError("a player's name must be text")
    name = unicodedata.normalize("NFC", " ".join(text.split()))
    if not name:
        raise ValueError("a player's name is empty")
    if len(name) > MAX_NAME_LENGTH:
        raise ValueError(
            f"a player's name has at most {MAX_NAME_LENGTH} characters: {name[:40]!r} has {len(name)}"
        )
    if not name.isprintable():
        raise ValueError(f"a player's name is letters and signs, not control characters: {name!r}")
    if missing := unshown(name):
        raise ValueError(
            f"a player's name has {missing!r}, which the box's screen cannot show: Latin, Greek and Cyrillic letters only"
        )
    folded = name.casefold()
    return next((other for other in known if other.casefold() == folded), name)
