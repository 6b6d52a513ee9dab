"""The players across games: who sat where (by the seats' ids, else by name) and each one's figures."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from box.games.base import Figure
from box.storage.player_ids import SEATS, person_id
from box.storage.roster import Roster
from box.web.summaries import GameSummary
from box.words import digits_value

UNNAMED_SEAT = re.compile(r"P\d{1,2}")  # a seat nobody named


@dataclass
class PlayerStats:
    """One player across every game: how many played and won, and each game's figures.

    `totals` adds each figure's values up as the game declares (`Figure.adds`); `declared` holds
    each game's figures (its newest game's), for their labels. `id`: the roster's id of the player
    (box/storage/roster.py), else one made from the name; `former`: the other names they played under
    (`seat_names`: which, at each game).
    """

    name: str
    games: int = 0
    wins: int = 0
    played: list[GameSummary] = field(default_factory=list)
    totals: dict[str, dict[str, int]] = field(default_factory=dict)  # game -> figure key -> total
    declared: dict[str, tuple[Figure, ...]] = field(default_factory=dict)  # game -> its figures
    id: str = ""
    former: tuple[str, ...] = ()
    seat_names: dict[int, str] = field(default_factory=dict)  # game id -> the name they played that game under


def seats_of(values: Mapping[str, Any]) -> dict[int, list[str | None]]:
    """Each game's seat ids from the journal's box values ("seats.<game id>", kept as a game starts).

    >>> seats_of({"seats.4": ["a1b2c3", None], "started.4": "2026-12-01 20:00", "seats.x": []})
    {4: ['a1b2c3', None]}
    """
    found = {}
    for key, value in values.items():
        number = digits_value(key[len(SEATS) :])
        if key.startswith(SEATS) and number is not None and isinstance(value, list):
            found[number] = [item if isinstance(item, str) else None for item in value]
    return found


def seated(game: GameSummary, roster: Roster, seats: Mapping[int, list[str | None]]) -> Iterator[tuple[str, str, str]]:
    """Who sat at `game`: (the name they played under, their player's id, the roster's name or "") for
    each seat someone took. A game that kept its seat ids is read by them; an older one by the names,
    current or former, the roster knows, else by the id an old roster made from the name (box.storage.player_ids.person_id)."""
    ids = seats.get(game.id)
    if ids is not None and len(ids) != len(game.players):
        ids = None
    for seat, name in enumerate(game.players):
        if UNNAMED_SEAT.fullmatch(name) or (ids is not None and ids[seat] is None):
            continue  # a seat left as P3 is nobody
        seat_id = ids[seat] if ids is not None else None
        person = roster.person(seat_id) if seat_id is not None else roster.who(name)
        if person is not None:
            yield name, person.id, person.name
        else:
            yield name, seat_id or person_id(name), ""


def player_stats(
    games: list[GameSummary], roster: Roster | None = None, seats: Mapping[int, list[str | None]] | None = None
) -> dict[str, PlayerStats]:
    """Per player, by their current name, over the games played to the end (not the abandoned ones,
    not seats left as P1...). A player is a person of the `roster` (box/storage/roster.py), whatever names
    they played under: `seats` (`seats_of` the journal's values) says who sat where by id; a game
    without ids counts by the names, current or former, the roster knows. The newest games first:
    a player the roster does not know goes by the name of their newest game.

    >>> figures = (Figure("goals", "goals"), Figure("best", "best", "max"))
    >>> game = GameSummary(1, "football", ("Ann", "Bob"), {}, True, None, 9, True, ("Ann",),
    ...                    {"Ann": {"goals": 1, "best": 4}, "Bob": {"goals": 3, "best": 2}}, figures)
    >>> from dataclasses import replace
    >>> stats = player_stats([game, replace(game, id=2)])
    >>> stats["Ann"].wins, stats["Bob"].totals
    (2, {'football': {'goals': 6, 'best': 2}})
    >>> player_stats([game], Roster(("Ann", "Bob")).merged(person_id("Bob"), person_id("Ann")))["Ann"].games
    1
    >>> player_stats([game], Roster(("Ann",)).renamed(person_id("Ann"), "Annie"))["Annie"].former
    ('Ann',)
    """
    roster = roster if roster is not None else Roster()
    seats = seats if seats is not None else {}
    by_id: dict[str, PlayerStats] = {}
    called: dict[str, list[str]] = {}  # id -> the names played under, newest first
    for game in games:
        if not game.over:  # abandoned games count in nobody's figures
            continue
        for name, key, current in seated(game, roster, seats):
            entry = by_id.setdefault(key, PlayerStats(current or name, id=key))
            if game.id in entry.seat_names:  # two seats of one person (merged after they sat together): once
                continue
            names = called.setdefault(key, [])
            if name not in names:
                names.append(name)
            entry.games += 1
            entry.wins += name in game.winners
            entry.played.append(game)
            entry.seat_names[game.id] = name
            entry.declared.setdefault(game.name, game.declared)
            totals = entry.totals.setdefault(game.name, {})
            values = game.figures.get(name, {})
            for figure in game.declared:
                if figure.key in values:
                    value = values[figure.key]
                    totals[figure.key] = figure.add(totals[figure.key], value) if figure.key in totals else value
    stats: dict[str, PlayerStats] = {}
    for key, entry in sorted(by_id.items(), key=lambda item: (-item[1].wins, -item[1].games, item[1].name.casefold())):
        person = roster.person(key)
        entry.former = person.former if person is not None else tuple(n for n in called[key] if n != entry.name)
        stats[entry.name if entry.name not in stats else f"{entry.name} ({key})"] = entry
    return stats
