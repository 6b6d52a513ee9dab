"""The roster: the players' names and each game's default options, kept in the state directory.

The phone page edits it; the box's setup offers its names (the config file's
`names` stay as a fallback) and starts a game with its defaults. The file is
`roster.json`, replaced atomically (written, synced, renamed) so a power cut
leaves the old roster or the new one, never half of one.

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
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from box.errors import ConfigError

ROSTER_FILE = "roster.json"
PLAYER = "player"  # the tag map's "game" of a player token; its "card" is a roster name
UPLOADED_DECKS = "decks"  # decks uploaded from the phone: <state dir>/decks/<game>.csv
STARTED = "started."  # the journal's box value "started.<game id>": when that game began (local time)
MAX_NAMES = 24
MAX_NAME_LENGTH = 16  # a name must fit a line of the OLED beside a score


@dataclass(frozen=True)
class Roster:
    """Names in seating order and `defaults[game][option] = value`."""

    names: tuple[str, ...] = ()
    defaults: Mapping[str, Mapping[str, str]] = field(default_factory=dict)

    @classmethod
    def checked(cls, names: Sequence[str], defaults: Mapping[str, Mapping[str, str]]) -> Roster:
        """A roster from untrusted input; ValueError says what is wrong ("field: problem")."""
        from box.games import GAMES, rules_for

        cleaned: list[str] = []
        for raw in names:
            if not isinstance(raw, str):
                raise ValueError("names: every name must be text")
            name = " ".join(raw.split())
            if not name:
                continue
            if len(name) > MAX_NAME_LENGTH:
                raise ValueError(f"names: {name!r} is longer than {MAX_NAME_LENGTH} characters")
            if name.casefold() in (n.casefold() for n in cleaned):
                raise ValueError(f"names: {name!r} is there twice")
            cleaned.append(name)
        if len(cleaned) > MAX_NAMES:
            raise ValueError(f"names: at most {MAX_NAMES} names")
        checked: dict[str, dict[str, str]] = {}
        for game, options in defaults.items():
            if game not in GAMES:
                raise ValueError(f"defaults: unknown game {game!r}")
            if not isinstance(options, Mapping):
                raise ValueError(f"defaults.{game}: must be a table of options")
            known = {option.key: option for option in rules_for(game).options}
            values = {}
            for key, value in options.items():
                if key not in known:
                    raise ValueError(f"defaults.{game}: unknown option {key!r}")
                values[key] = known[key].parse(str(value))
            checked[game] = values
        return cls(tuple(cleaned), checked)

    def defaults_for(self, game: str) -> dict[str, str]:
        return dict(self.defaults.get(game, {}))

    def names_or(self, fallback: Sequence[str]) -> tuple[str, ...]:
        """The roster's names, or `fallback` (the config file's) while the roster has none."""
        return self.names if self.names else tuple(fallback)

    def to_json(self) -> dict[str, Any]:
        return {"names": list(self.names), "defaults": {g: dict(o) for g, o in sorted(self.defaults.items())}}


def load_roster(path: Path) -> Roster:
    """Read the roster; no file is an empty roster. A bad file raises ConfigError naming it."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Roster()
    except OSError as problem:
        raise ConfigError(path, f"cannot read: {problem.strerror}") from None
    try:
        data = json.loads(text)
        if not isinstance(data, dict):
            raise ValueError("must be a JSON object with names and defaults")
        return Roster.checked(data.get("names", []), data.get("defaults", {}))
    except json.JSONDecodeError as problem:
        raise ConfigError(path, f"not JSON ({problem.msg})", line=problem.lineno) from None
    except ValueError as problem:
        raise ConfigError(path, str(problem)) from None


def save_roster(roster: Roster, path: Path) -> None:
    """Replace the roster file atomically: the new one is on the storage before it takes the name."""
    write_atomically(path, json.dumps(roster.to_json(), indent=2, ensure_ascii=False) + "\n")


def write_atomically(path: Path, text: str) -> None:
    """Write `text` to a temporary file beside `path`, sync it, rename it over `path`, sync the folder."""
    temporary = path.with_name(f".{path.name}.tmp")
    try:
        with open(temporary, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        temporary.replace(path)
    except BaseException:  # a full disk, say: no half-written temporary is left taking its room
        temporary.unlink(missing_ok=True)
        raise
    folder = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)
