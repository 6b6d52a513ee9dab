"""The roster: the players (people, not strings) and each game's default options, in the state directory.

A player is a `Person`: a short id that never changes, the current name, the names played under
before (a rename keeps the old one) and the ids of players merged into this one. Games keep who
sat where by id (the journal's box value "seats.<game id>", box/parts/lobby.py), so a renamed player keeps
their games; an older game without ids finds its players by their current or former names.
The phone page edits it; the box's setup offers its names (the config file's
`names` stay as a fallback) and starts a game with its defaults. The file is
`roster.json`, replaced atomically (written, synced, renamed) so a power cut
leaves the old roster or the new one, never half of one. This module is its one
codec, and `player_name` is the one rule for a player's name wherever it comes
from (the roster, a player token's tag, a stick, the phone, the letter picker).

>>> roster = Roster.checked(["Ann", " Bob "], {"dead-set": {"target": "13"}})
>>> roster.names
('Ann', 'Bob')
>>> bob = roster.renamed(roster.id_of("Ann"), "Bo").people[0]
>>> bob.name, bob.former, bob.id == roster.id_of("Ann")
('Bo', ('Ann',), True)
>>> Roster.checked(["Ann", "ann"], {})
Traceback (most recent call last):
...
ValueError: names: 'ann' is there twice
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from box.errors import ConfigError
from box.files.bounded import read_bounded, sync_folder, unique_name, write_atomically
from box.files.text import decode_text
from box.storage import player_ids
from box.storage.player_ids import NOBODY, PERSON_ID, Sat, player_name

log = logging.getLogger(__name__)

ROSTER_FILE = "roster.json"
PLAYER = "player"  # the tag map's "game" of a player token; its "card" is a roster name
UPLOADED_DECKS = "decks"  # decks uploaded from the phone: <state dir>/decks/<game>.csv
STARTED = "started."  # the journal's box value "started.<game id>": when that game began (local time)
DATED = "dated."  # "dated.<game id>": the clock "started.<game id>" came from (box/base/wallclock.py: network, phone, unsynchronised)
ENDED = "ended."  # "ended.<game id>": when that game reached its end (local time; corrected with "started." by a phone's time)
MAX_NAMES = 24
MAX_FORMER = 16  # names (and merged ids) a player keeps: the oldest go first
UNNAMED_SEAT = re.compile(r"P\d{1,2}")  # "P3": a seat nobody named, nobody's
MAX_ROSTER_BYTES = 64 * 1024
"""24 names and every game's options are a few hundred bytes: a file far larger is not a roster."""


@dataclass(frozen=True)
class Person:
    """One player: an `id` that never changes, the current `name`, the names played under before
    (oldest first) and the ids of the players merged into this one."""

    id: str
    name: str
    former: tuple[str, ...] = ()
    merged: tuple[str, ...] = ()

    @property
    def ids(self) -> tuple[str, ...]:
        """Every id the player's games may carry: their own and the merged players'."""
        return (self.id, *self.merged)

    def answers_to(self, name: str) -> bool:
        """Whether `name` is this player's current or a former name, whatever the case."""
        folded = name.casefold()
        return any(known.casefold() == folded for known in (self.name, *self.former))

    def to_json(self) -> dict[str, Any]:
        extra = {key: list(value) for key, value in (("former", self.former), ("merged", self.merged)) if value}
        return {"id": self.id, "name": self.name, **extra}


def kept_names(names: Iterable[str], without: str) -> tuple[str, ...]:
    """`names` each once (whatever the case), without `without`, the newest MAX_FORMER.

    >>> kept_names(["Bo", "bo", "Bob", "Robert"], "bob")
    ('Bo', 'Robert')
    """
    seen = {without.casefold()}
    kept = []
    for name in names:
        if name.casefold() not in seen:
            seen.add(name.casefold())
            kept.append(name)
    return tuple(kept[-MAX_FORMER:])


def people_for(names: Sequence[str], known: Sequence[Person] = (), sat: Sat | None = NOBODY) -> tuple[Person, ...]:
    """A player for each name: the `known` one of that (current) name, else a new one, with the id the
    name sat under at the journal's games (`sat`), else a new id none of the known players' nor the
    seats'; `sat=None`: the id an old roster of names gave (`person_id`), for a file of that form."""
    by_name = {person.name.casefold(): person for person in known}
    used = {person_id for person in known for person_id in person.ids}
    people = []
    for name in names:
        person = by_name.get(name.casefold()) if isinstance(name, str) else None
        if person is None:
            person = Person(player_ids.person_id(str(name), used) if sat is None else sat.id_for(str(name), used), name)
        used.update(person.ids)
        people.append(replace(person, name=name))
    return tuple(people)


@dataclass(frozen=True)
class Roster:
    """The players in seating order (`people`; `names` are their current names) and
    `defaults[game][option] = value`. `Roster(("Ann", "Bob"))` gives each name a player as an old roster
    of names did (`person_id`); every player added to a roster gets a random id (`new_id`)."""

    names: tuple[str, ...] = ()
    defaults: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    people: tuple[Person, ...] = ()

    def __post_init__(self) -> None:
        if self.people:
            object.__setattr__(self, "names", tuple(person.name for person in self.people))
        elif self.names:
            object.__setattr__(self, "people", people_for(self.names, sat=None))

    @classmethod
    def checked(
        cls,
        names: Sequence[str],
        defaults: Mapping[str, Mapping[str, str]],
        known: Sequence[Person] = (),
        sat: Sat | None = NOBODY,
    ) -> Roster:
        """A roster from untrusted input; ValueError says what is wrong ("field: problem"). A name
        of one of the `known` players keeps that player (their id, their former names); a new one gets
        the id its name sat under, else a new one (`people_for`; `sat`: the journal's seats)."""
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
        return cls(people=people_for(cleaned, known, sat), defaults=checked_defaults(defaults))

    @classmethod
    def of_people(cls, players: Any, defaults: Mapping[str, Mapping[str, str]]) -> Roster:
        """A roster from untrusted `players` (roster.json's list of {"id", "name", "former", "merged"});
        ValueError says what is wrong ("field: problem")."""
        if not isinstance(players, list):
            raise ValueError("players: must be a list of players")
        if len(players) > MAX_NAMES:
            raise ValueError(f"players: at most {MAX_NAMES} players")
        people = [checked_person(number, row) for number, row in enumerate(players, 1)]
        return cls(people=checked_people(people), defaults=checked_defaults(defaults))

    def defaults_for(self, game: str) -> dict[str, str]:
        return dict(self.defaults.get(game, {}))

    def names_or(self, fallback: Sequence[str]) -> tuple[str, ...]:
        """The roster's names, or `fallback` (the config file's) while the roster has none."""
        return self.names if self.names else tuple(fallback)

    def person(self, person_id: str) -> Person | None:
        """The player with this id, or the one it was merged into; None when no one has it."""
        return next((person for person in self.people if person_id in person.ids), None)

    def id_of(self, name: str) -> str | None:
        """The id of the player called `name` now (whatever the case); None when no one is."""
        folded = name.casefold()
        return next((person.id for person in self.people if person.name.casefold() == folded), None)

    def who(self, name: str) -> Person | None:
        """The player a game's `name` stands for: the one called so now, else the one called so before."""
        folded = name.casefold()
        now = next((person for person in self.people if person.name.casefold() == folded), None)
        return now or next((person for person in self.people if person.answers_to(name)), None)

    def seat_ids(self, names: Sequence[str], sat: Sat = NOBODY) -> list[str | None]:
        """Each seat's player id for a game about to start: the roster's player of that name, else the id
        the name sat under at the journal's games (`sat`), else a new id none of the roster's nor the
        seats', None for a seat left as P3.

        >>> roster = Roster(("Ann",))
        >>> ids = roster.seat_ids(["Ann", "P2", "Cid", "Dee"], Sat(frozenset(), {"cid": "c1d2e3f4a5b6"}))
        >>> ids[0] == roster.id_of("Ann"), ids[1], ids[2], len(ids[3])
        (True, None, 'c1d2e3f4a5b6', 12)
        """
        used = {person_id for person in self.people for person_id in person.ids}
        ids: list[str | None] = []
        for name in names:
            if UNNAMED_SEAT.fullmatch(name):
                ids.append(None)
                continue
            known = self.id_of(name)
            ids.append(known if known is not None else sat.id_for(name, used))
            used.add(ids[-1] or "")
        return ids

    def with_names(self, names: Sequence[str], sat: Sat = NOBODY) -> Roster:
        """The roster with these players in this order: a known name keeps its player, a new one is a new
        player, with the id its name sat under, else a new one (`sat`: the journal's seats)."""
        return replace(self, people=people_for(names, self.people, sat))

    def renamed(self, person_id: str, name: str) -> Roster:
        """Player `person_id` called `name` from now on; their old name joins their former names.
        ValueError when there is no such player or another is called so."""
        person = self.person(person_id)
        if person is None:
            raise ValueError(f"no player {person_id[:20]!r} in the roster")
        name = player_name(name)
        other = self.id_of(name)
        if other is not None and other != person.id:
            raise ValueError(f"{name!r} is another player's name")
        if name == person.name:
            return self
        changed = replace(person, name=name, former=kept_names((*person.former, person.name), name))
        return replace(self, people=tuple(changed if p is person else p for p in self.people))

    def edited(
        self, names: Sequence[tuple[str, str]], new: Sequence[str], defaults: Mapping[str, Any], sat: Sat = NOBODY
    ) -> Roster:
        """The roster as the phone page's form left it, from untrusted input: `names` (id, name) for the
        players kept, in their order (a changed name is a rename; a player left out leaves the roster),
        then the `new` names as new players (their ids as `people_for` gives them); ValueError says what is wrong.

        >>> roster = Roster(("Bo", "Cid"))
        >>> edited = roster.edited([(roster.id_of("Bo"), "Bob")], ["Dee", ""], {})
        >>> edited.names, edited.people[0].former, edited.id_of("Bob") == roster.id_of("Bo")
        (('Bob', 'Dee'), ('Bo',), True)
        """
        kept = []
        for person_id, text in names:
            person = self.person(person_id)
            if person is None or person.id != person_id:
                raise ValueError("the roster changed meanwhile: look at it again")
            if not text.strip():
                continue
            try:
                name = player_name(text)
            except ValueError as problem:
                raise ValueError(f"names: {problem}") from None
            former = kept_names((*person.former, person.name), name) if name != person.name else person.former
            kept.append(replace(person, name=name, former=former))
        added = Roster.checked(new, defaults, known=())  # the new names, judged as the names of a roster
        everyone = [person.name for person in kept]
        twice = next((name for name in added.names if name.casefold() in map(str.casefold, everyone)), None)
        if twice is not None:
            raise ValueError(f"names: {twice!r} is there twice")
        people = people_for([*everyone, *added.names], kept, sat)
        if len(people) > MAX_NAMES:
            raise ValueError(f"names: at most {MAX_NAMES} names")
        try:
            checked_people(people)
        except ValueError as problem:
            raise ValueError(str(problem).replace("players:", "names:")) from None
        return Roster(people=people, defaults=added.defaults)

    def merged(self, source_id: str, into_id: str, seats: Iterable[Sequence[str | None]] = ()) -> Roster:
        """Player `source_id` merged into `into_id`: the one left keeps the other's names as former names
        and their ids, so their games count as its own. ValueError says why not: two players who sat
        at one game (`seats`: each game's seat ids, the journal's) are two people.

        >>> roster = Roster(("Bo", "Bob")).merged(player_ids.person_id("Bo"), player_ids.person_id("Bob"))
        >>> roster.names, roster.people[0].former, roster.person(player_ids.person_id("Bo")).name
        (('Bob',), ('Bo',), 'Bob')
        >>> Roster(("Bo", "Bob")).merged(player_ids.person_id("Bo"), player_ids.person_id("Bob"), [[player_ids.person_id("Bob"), player_ids.person_id("Bo")]])
        Traceback (most recent call last):
        ValueError: Bo and Bob sat at the same game: two players
        """
        source, into = self.person(source_id), self.person(into_id)
        if source is None or into is None:
            missing = source_id if source is None else into_id
            raise ValueError(f"no player {missing[:20]!r} in the roster")
        if source is into:
            raise ValueError(f"{source.name} cannot be merged into themselves")
        if any(set(source.ids) & set(game) and set(into.ids) & set(game) for game in seats):
            raise ValueError(f"{source.name} and {into.name} sat at the same game: two players")
        kept = replace(
            into,
            former=kept_names((*into.former, *source.former, source.name), into.name),
            merged=tuple(dict.fromkeys((*into.merged, *source.ids)))[-MAX_FORMER:],
        )
        return replace(self, people=tuple(kept if p is into else p for p in self.people if p is not source))

    def to_json(self) -> dict[str, Any]:
        return {
            "players": [person.to_json() for person in self.people],
            "defaults": {g: dict(o) for g, o in sorted(self.defaults.items())},
        }


def checked_person(number: int, row: Any) -> Person:
    """One player of roster.json's list; ValueError names it ("players[2].name: ...")."""
    where = f"players[{number}]"
    if not isinstance(row, dict):
        raise ValueError(f"{where}: must be an object with id and name")
    unknown = sorted(str(key)[:40] for key in row if key not in ("id", "name", "former", "merged"))
    if unknown:
        raise ValueError(f"{where}: unknown key(s) {', '.join(unknown)}; a player has id, name, former and merged")
    ids = [row.get("id"), *checked_list(row.get("merged", []), f"{where}.merged")]
    for found in ids:
        if not isinstance(found, str) or not PERSON_ID.fullmatch(found):
            raise ValueError(f"{where}: an id is 4 to 16 small letters and digits, not {str(found)[:40]!r}")
    try:
        name = player_name(row.get("name"))  # type: ignore[arg-type]  # player_name judges any value
        former = [player_name(text) for text in checked_list(row.get("former", []), f"{where}.former")]
    except ValueError as problem:
        raise ValueError(f"{where}: {problem}") from None
    return Person(ids[0], name, kept_names(former, name), tuple(dict.fromkeys(ids[1:])))


def checked_list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list) or len(value) > MAX_FORMER:
        raise ValueError(f"{where}: must be a list of at most {MAX_FORMER}")
    return value


def checked_people(people: Sequence[Person]) -> tuple[Person, ...]:
    """The players, no name and no id twice; ValueError says which."""
    names: set[str] = set()
    ids: set[str] = set()
    for person in people:
        if person.name.casefold() in names:
            raise ValueError(f"players: {person.name!r} is there twice")
        twice = next((found for found in person.ids if found in ids), None)
        if twice is not None:
            raise ValueError(f"players: the id {twice!r} is there twice")
        names.add(person.name.casefold())
        ids.update(person.ids)
    return tuple(people)


def checked_defaults(defaults: Any) -> dict[str, dict[str, str]]:
    """Each game's default options, judged by the game's own options; ValueError says what is wrong."""
    from box.games import GAMES, rules_for

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
    return checked


def parse_roster(data: bytes, path: Path | str) -> Roster:
    """The roster in `data` (roster.json's bytes); ConfigError names the file and what is wrong.
    A roster of names only (before players had ids) gives each name a player.

    >>> parse_roster(b'{"names": 5}', "roster.json")
    Traceback (most recent call last):
    box.errors.ConfigError: roster.json: names: must be a list of names
    >>> parse_roster(b'{"names": ["Ann"]}', "roster.json").people[0].id == player_ids.person_id("Ann")
    True
    """
    return decode_roster(data, path)[0]


def decode_roster(data: bytes, path: Path | str) -> tuple[Roster, bool]:
    """`parse_roster`, and whether the file was of the old form (names, no ids)."""
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
        raise ConfigError(path, "must be a JSON object with players and defaults")
    unknown = sorted(str(key)[:40] for key in found if key not in ("players", "names", "defaults"))
    if unknown:
        raise ConfigError(path, f"unknown key(s) {', '.join(unknown)}; a roster has players and defaults")
    if "players" in found and "names" in found:
        raise ConfigError(path, "players or names (the old form), not both")
    try:
        if "players" in found:
            return Roster.of_people(found["players"], found.get("defaults", {})), False
        old_form = "names" in found  # its players get the ids every reader of it gives them
        return Roster.checked(found.get("names", []), found.get("defaults", {}), sat=None), old_form
    except ValueError as problem:
        raise ConfigError(path, str(problem)) from None


def format_roster(roster: Roster) -> str:
    """roster.json's text; ValueError for a roster `parse_roster` would refuse (never saved)."""
    # the box never saves a file it would refuse to load
    Roster.of_people([person.to_json() for person in roster.people], roster.defaults)
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
    A roster of the old form (names without ids) is written back in the new form, its players given ids.

    >>> import tempfile; folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / ROSTER_FILE).write_bytes(b'{"names": 5}')
    >>> roster, aside = load_or_recover(folder / ROSTER_FILE)
    >>> roster.names, aside.problem.endswith("names: must be a list of names"), aside.kept.name[:15]
    ((), True, 'roster.json.bad')
    """
    try:
        data = read_bounded(path, MAX_ROSTER_BYTES, ConfigError, "roster", missing=b'{}')
        roster, old_form = decode_roster(data, path)
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
    if old_form:
        try:
            save_roster(roster, path)
            log.info("roster %s written in the new form: each player has an id", path)
        except (OSError, ValueError) as problem:  # read again in the old form next time: the same ids
            log.error("roster %s not written in the new form: %s", path, getattr(problem, "strerror", None) or problem)
    return roster, None


def save_roster(roster: Roster, path: Path) -> None:
    """Replace the roster file atomically: the new one is on the storage before it takes the name."""
    write_atomically(path, format_roster(roster))
