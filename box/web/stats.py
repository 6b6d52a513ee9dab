"""The Stats page's numbers, gathered in one pass over the games' summaries: wins per player on
each game night, each game's records from the figures it declares, and who beat whom.

A game counts once it was played to the end (`GameSummary.over`); a seat nobody named (P3) is
nobody. A player is a person of the roster, whatever names they played under (`people_of` is the
one place that says so).
A game night is the date a game started on; a game the journal kept no start of is in no night.

>>> figures = (Figure("goals", "goals"), Figure("fastest", "fastest goal", "min"))
>>> game = GameSummary(1, "football", ("Ann", "Bob"), {}, True, "2026-11-27 20:15", 9, True, ("Ann",),
...                    {"Ann": {"goals": 1, "fastest": 40}, "Bob": {"goals": 3, "fastest": 12}}, figures)
>>> stats = gather([game, game])
>>> stats.wins_on["Ann"], stats.nights
({'2026-11-27': 2}, ['2026-11-27'])
>>> [(r.figure.label, r.value, r.holders) for r in stats.records["football"]]
[('goals', 3, ('Bob',)), ('fastest goal', 12, ('Bob',))]
>>> [(r.figure.label, r.value, r.holders) for r in stats.totals["football"]]
[('goals', 6, ('Bob',))]
>>> pair = stats.head_to_head[0]
>>> (pair.first, pair.second, pair.games, pair.first_wins, pair.second_wins)
('Ann', 'Bob', 2, 2, 0)
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from itertools import combinations

from box.games.base import Figure
from box.storage.roster import Roster
from box.web.people import UNNAMED_SEAT, seated
from box.web.summaries import GameSummary

NIGHT = re.compile(r"\d{4}-\d{2}-\d{2}")  # the date a game started on: its game night
CHARTED_NIGHTS = 30  # the wins chart shows this many nights at most, the newest


def people_of(
    game: GameSummary, roster: Roster | None = None, seats: Mapping[int, list[str | None]] | None = None
) -> dict[str, str]:
    """The players of `game` who count: the name each played under -> the name the page gives them,
    their roster name now (a renamed or merged player is one person; a seat left as P3 is nobody).

    >>> from box.storage.player_ids import person_id
    >>> game = GameSummary(1, "g", ("Bo", "P2"), {}, True, None, 0, True, ())
    >>> people_of(game), people_of(game, Roster(("Bo",)).renamed(person_id("Bo"), "Bob"))
    ({'Bo': 'Bo'}, {'Bo': 'Bob'})
    """
    if roster is None:
        return {name: name for name in game.players if not UNNAMED_SEAT.fullmatch(name)}
    return {played: now or played for played, _, now in seated(game, roster, seats or {})}


def night_of(game: GameSummary) -> str | None:
    """The game night `game` belongs to: the date it started on, if the journal kept it.

    >>> night_of(GameSummary(1, "g", (), {}, True, "2026-11-27 23:50", 0, True, ()))
    '2026-11-27'
    """
    found = NIGHT.match(game.started or "")
    return found[0] if found else None


def lowest_is_best(figure: Figure) -> bool:
    """A figure whose record is its lowest value: one that adds up by keeping the least."""
    return figure.adds == "min"


@dataclass
class Record:
    """The best value of one figure and who holds it (everyone who reached it, in the order they did)."""

    figure: Figure
    value: int
    holders: tuple[str, ...]

    def offer(self, name: str, value: int) -> None:
        """One more player's value: a better one takes the record, an equal one shares it."""
        better = value < self.value if lowest_is_best(self.figure) else value > self.value
        if better:
            self.value, self.holders = value, (name,)
        elif value == self.value and name not in self.holders:
            self.holders += (name,)


@dataclass
class Pair:
    """Two players who finished games together: how many, and how many each won."""

    first: str
    second: str
    games: int = 0
    first_wins: int = 0
    second_wins: int = 0


@dataclass
class Stats:
    """What the Stats page shows. Players are listed most wins first."""

    players: list[str] = field(default_factory=list)
    games: dict[str, int] = field(default_factory=dict)  # player -> games finished
    wins: dict[str, int] = field(default_factory=dict)  # player -> games won
    nights: list[str] = field(default_factory=list)  # every game night, oldest first
    wins_on: dict[str, dict[str, int]] = field(default_factory=dict)  # player -> night -> wins
    played_on: dict[str, dict[str, int]] = field(default_factory=dict)  # player -> night -> games
    declared: dict[str, tuple[Figure, ...]] = field(default_factory=dict)  # game -> its figures (newest game's)
    records: dict[str, list[Record]] = field(default_factory=dict)  # game -> best in one game, per figure
    totals: dict[str, list[Record]] = field(default_factory=dict)  # game -> most over all games, per summed figure
    head_to_head: list[Pair] = field(default_factory=list)

    @property
    def charted(self) -> list[str]:
        """The nights the wins chart draws: the newest `CHARTED_NIGHTS`."""
        return self.nights[-CHARTED_NIGHTS:]

    def most_games_in_a_night(self) -> int:
        """The most games one player finished on one night (the wins chart's scale)."""
        return max((games for nights in self.played_on.values() for games in nights.values()), default=0)


def gather(
    games: Iterable[GameSummary], roster: Roster | None = None, seats: Mapping[int, list[str | None]] | None = None
) -> Stats:
    """The Stats page's numbers from the games' summaries (any order), in one pass over them by id;
    players as `people_of` names them."""
    stats = Stats()
    best: dict[str, dict[str, Record]] = {}  # game -> figure key -> best in one game
    summed: dict[str, dict[str, dict[str, int]]] = {}  # game -> figure key -> player -> total so far
    pairs: dict[tuple[str, str], Pair] = {}
    nights: set[str] = set()
    for game in sorted(games, key=lambda summary: summary.id):  # oldest first: a record goes to who reached it first
        if not game.over:
            continue
        playing = people_of(game, roster, seats)  # the name played under -> the player's name now
        people = tuple(playing.values())
        winners = {playing[name] for name in game.winners if name in playing}
        night = night_of(game)
        if night is not None:
            nights.add(night)
        for name in people:
            stats.games[name] = stats.games.get(name, 0) + 1
            stats.wins[name] = stats.wins.get(name, 0) + (name in winners)
            if night is not None:
                played = stats.played_on.setdefault(name, {})
                played[night] = played.get(night, 0) + 1
                won = stats.wins_on.setdefault(name, {})
                won[night] = won.get(night, 0) + (name in winners)
        stats.declared[game.name] = game.declared  # the newest game's declaration names the figures
        records = best.setdefault(game.name, {})
        sums = summed.setdefault(game.name, {})
        for figure in game.declared:
            for played_as, name in playing.items():
                value = game.figures.get(played_as, {}).get(figure.key)
                if value is None:
                    continue
                if figure.key in records:
                    records[figure.key].offer(name, value)
                else:
                    records[figure.key] = Record(figure, value, (name,))
                if figure.adds == "sum":
                    totals = sums.setdefault(figure.key, {})
                    totals[name] = totals.get(name, 0) + value
        for first, second in combinations(sorted(set(people), key=str.casefold), 2):
            pair = pairs.setdefault((first, second), Pair(first, second))
            pair.games += 1
            pair.first_wins += first in winners
            pair.second_wins += second in winners
    stats.players = sorted(stats.games, key=lambda name: (-stats.wins[name], -stats.games[name], name.casefold()))
    stats.nights = sorted(nights)
    for game_name, figures in stats.declared.items():
        stats.records[game_name] = [
            Record(f, best[game_name][f.key].value, best[game_name][f.key].holders) for f in figures if f.key in best[game_name]
        ]  # each as the newest declaration labels it
        stats.totals[game_name] = [
            most(f, summed[game_name][f.key]) for f in figures if f.adds == "sum" and summed[game_name].get(f.key)
        ]
    stats.head_to_head = sorted(pairs.values(), key=lambda p: (-p.games, p.first.casefold(), p.second.casefold()))
    return stats


def most(figure: Figure, totals: dict[str, int]) -> Record:
    """The highest total of a summed figure over all games, and who has it."""
    top = max(totals.values())
    return Record(figure, top, tuple(name for name, total in totals.items() if total == top))
