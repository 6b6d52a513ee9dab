"""The roster: the players' names and each game's default options, kept in the state directory.

The phone page edits it; the box's setup offers its names (the config file's
`names` stay as a fallback) and starts a game with its defaults. The file is
`roster.json`, replaced atomically (written, synced, renamed) so a power cut
leaves the old roster or the new one, never half of one. This module is its one
codec, and `player_name` is the one rule for a player's name wherever it comes
from (the roster, a player token's tag, a stick, the phone, the letter picker).

>>> roster = Roster.checked(["Ann", " Bob "], {"dead-set": {"target": "13"}})
>>> roster.names
('Ann', 'Bob')
>>> Roster.checked(["Ann", "ann"], {})
Traceback (most recent call last):
...
ValueError: names: 'ann' is there twice
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from box.errors import ConfigError, decode_text
from box.files import read_bounded, sync_folder, unique_name, write_atomically

log = logging.getLogger(__name__)

ROSTER_FILE = "roster.json"
PLAYER = "player"  # the tag map's "game" of a player token; its "card" is a roster name
UPLOADED_DECKS = "decks"  # decks uploaded from the phone: <state dir>/decks/<game>.csv
STARTED = "started."  # the journal's box value "started.<game id>": when that game began (local time)
MAX_NAMES = 24
MAX_NAME_LENGTH = 16  # a name must fit a line of the OLED beside a score
MAX_ROSTER_BYTES = 64 * 1024
"""24 names and every game's options are a few hundred bytes: a file far larger is not a roster."""


def player_name(text: str, known: Iterable[str] = ()) -> str:
    """A player's name as the box keeps it: spaces collapsed, 1 to 16 printable characters, and
    the spelling of the `known` name it matches whatever the case; ValueError says what is wrong.

    >>> player_name("  ann ", ("Ann", "Bob")), player_name("Zoë Li")
    ('Ann', 'Zoë Li')
    >>> player_name("Bartholomew Smithers")
    Traceback (most recent call last):
    ValueError: a player's name has at most 16 characters: 'Bartholomew Smithers' has 20
    """
    if not isinstance(text, str):
        raise ValueError("a player's name must be text")
    name = " ".join(text.split())
    if not name:
        raise ValueError("a player's name is empty")
    if len(name) > MAX_NAME_LENGTH:
        raise ValueError(
            f"a player's name has at most {MAX_NAME_LENGTH} characters: {name[:40]!r} has {len(name)}"
        )
    if not name.isprintable():
        raise ValueError(f"a player's name is letters and signs, not control characters: {name!r}")
    folded = name.casefold()
    return next((other for other in known if other.casefold() == folded), name)


@dataclass(frozen=True)
class Roster:
    """Names in seating order and `defaults[game][option] = value`."""

    names: tuple[str, ...] = ()
    defaults: Mapping[str, Mapping[str, str]] = field(default_factory=dict)

    @classmethod
    def checked(cls, names: Sequence[str], defaults: Mapping[str, Mapping[str, str]]) -> Roster:
        """A roster from untrusted input; ValueError says what is wrong ("field: problem")."""
        from box.games import GAMES, rules_for

        if isinstance(names, (str, bytes)) or not isinstance(names, Sequence):
            raise ValueError("names: must be a list of names")
        cleaned: list[str] = []
        for raw in names:
            if isinstance(raw, str) and not raw.strip():
                continue
            try:
                name = player_name(raw)
            except ValueError as problem:
                raise ValueError(f"names: {problem}") from None
            if name.casefold() in (n.casefold() for n in cleaned):
                raise ValueError(f"names: {name!r} is there twice")
            cleaned.append(name)
            if len(cleaned) > MAX_NAMES:
                raise ValueError(f"names: at most {MAX_NAMES} names")
        if not isinstance(defaults, Mapping):
            raise ValueError("defaults: must be a table of games")
        checked: dict[str, dict[str, str]] = {}
        for game, options in defaults.items():
            if game not in GAMES:
                raise ValueError(f"defaults: unknown game {str(game)[:40]!r}")
            if not isinstance(options, Mapping):
                raise ValueError(f"defaults.{game}: must be a table of options")
            known = {option.key: option for option in rules_for(game).options}
            values = {}
            for key, value in options.items():
                if key not in known:
                    raise ValueError(f"defaults.{game}: unknown option {str(key)[:40]!r}")
                if isinstance(value, bool) or not isinstance(value, (str, int)):
                    raise ValueError(f"defaults.{game}.{key}: must be a word or a whole number")
                values[key] = known[key].parse(str(value)[:40])
            checked[game] = values
        return cls(tuple(cleaned), checked)

    def defaults_for(self, game: str) -> dict[str, str]:
        return dict(self.defaults.get(game, {}))

    def names_or(self, fallback: Sequence[str]) -> tuple[str, ...]:
        """The roster's names, or `fallback` (the config file's) while the roster has none."""
        return self.names if self.names else tuple(fallback)

    def to_json(self) -> dict[str, Any]:
        return {"names": list(self.names), "defaults": {g: dict(o) for g, o in sorted(self.defaults.items())}}


def parse_roster(data: bytes, path: Path | str) -> Roster:
    """The roster in `data` (roster.json's bytes); ConfigError names the file and what is wrong.

    >>> parse_roster(b'{"names": 5}', "roster.json")
    Traceback (most recent call last):
    box.errors.ConfigError: roster.json: names: must be a list of names
    """
    text = decode_text(data, path, ConfigError)
    try:
        found = json.loads(text)
    except json.JSONDecodeError as problem:
        raise ConfigError(path, f"not JSON ({problem.msg})", line=problem.lineno) from None
    except RecursionError:
        raise ConfigError(path, "not a roster: nested too deep") from None
    except ValueError as problem:  # a number of more than 4300 digits, say
        raise ConfigError(path, f"not a roster: {str(problem)[:80]}") from None
    if not isinstance(found, dict):
        raise ConfigError(path, "must be a JSON object with names and defaults")
    unknown = sorted(str(key)[:40] for key in found if key not in ("names", "defaults"))
    if unknown:
        raise ConfigError(path, f"unknown key(s) {', '.join(unknown)}; a roster has names and defaults")
    try:
        return Roster.checked(found.get("names", []), found.get("defaults", {}))
    except ValueError as problem:
        raise ConfigError(path, str(problem)) from None


def format_roster(roster: Roster) -> str:
    """roster.json's text; ValueError for a roster `parse_roster` would refuse (never saved)."""
    Roster.checked(roster.names, roster.defaults)  # the box never saves a file it would refuse to load
    return json.dumps(roster.to_json(), indent=2, ensure_ascii=False) + "\n"


def load_roster(path: Path) -> Roster:
    """Read the roster; no file is an empty roster. A bad file raises ConfigError naming it."""
    return parse_roster(read_bounded(path, MAX_ROSTER_BYTES, ConfigError, "roster", missing=b'{}'), path)


@dataclass(frozen=True)
class RosterSetAside:
    """A roster.json that could not be read: kept as it was at `kept` (None: left in place, the
    storage would not read it); the box started with an empty roster."""

    kept: Path | None
    problem: str

    def __str__(self) -> str:
        where = f"the file is kept at {self.kept}" if self.kept else "the file is left as it is"
        return f"roster unreadable: {self.problem}; the box starts with no names; {where}"


def load_or_recover(path: Path) -> tuple[Roster, RosterSetAside | None]:
    """Read the roster; a damaged one is set aside as it is (renamed roster.json.bad-<time>) and
    the box goes on with an empty roster, once: the next start finds no roster and is clean.
    A roster the storage will not read (an I/O error) is not damage: it is left where it is.

    >>> import tempfile; folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / ROSTER_FILE).write_bytes(b'{"names": 5}')
    >>> roster, aside = load_or_recover(folder / ROSTER_FILE)
    >>> roster.names, aside.problem.endswith("names: must be a list of names"), aside.kept.name[:15]
    ((), True, 'roster.json.bad')
    """
    try:
        return load_roster(path), None
    except ConfigError as problem:
        kept: Path | None = None
        if not problem.storage_fault:
            kept = unique_name(path)
            try:
                path.rename(kept)
                sync_folder(path.parent)
            except OSError as error:
                log.error("roster %s could not be set aside: %s", path, error.strerror or error)
                kept = None
        aside = RosterSetAside(kept, str(problem))
        log.error("%s", aside)
        return Roster(), aside


def save_roster(roster: Roster, path: Path) -> None:
    """Replace the roster file atomically: the new one is on the storage before it takes the name."""
    write_atomically(path, format_roster(roster))
