"""The journal as the page reads it: read-only, in short read transactions.

The box is the journal's one writer. The page opens the file with
`mode=ro` and `query_only`, reads what one request needs inside one
transaction and closes the connection at once, so it never holds a read
transaction that would stop the box's WAL checkpoints.

Finished games never change: their summaries (a replay through the game's own
rules, `box.session.fold`, and the figures its rules declare) are kept by id, in memory and in `web-history.json` in the state directory,
so each game is replayed once, and a page that restarts imports no game's rules
until a new game is finished. A summary is used again only while its game's row
and its actions (count and last sequence number) are as they were.
"""

from __future__ import annotations

import csv
import json
import logging
import re
import sqlite3
from collections.abc import Iterator, Mapping
from contextlib import closing, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from box.cards import BUILTIN_DIR, Deck
from box.errors import DeckError
from box.games import CARD_NAMES, GAMES, rules_for
from box.games.base import Figure, Figures
from box.history import Played
from box.history import read as read_played
from box.journal import GameRecord
from box.roster import SEATS, STARTED, Roster, person_id
from box.session import fold

log = logging.getLogger(__name__)

JOURNAL_FILE = "journal.db"
UNNAMED_SEAT = re.compile(r"P\d{1,2}")  # a seat nobody named
HISTORY_FILE = "web-history.json"
SUMMARY_FORMAT = 2  # a summary kept in HISTORY_FILE by other code is made again


class JournalBusy(Exception):
    """The journal cannot be read now (another program holds it locked)."""


@dataclass(frozen=True)
class GameSummary:
    """A game as the history shows it: who played, how it ended, each player's figures."""

    id: int
    name: str
    players: tuple[str, ...]
    options: dict[str, str]
    finished: bool
    started: str | None  # ISO date and time, where the journal keeps one
    actions: int
    over: bool
    winners: tuple[str, ...]
    figures: Figures = field(default_factory=dict)  # player -> figure key -> value
    declared: tuple[Figure, ...] = ()  # the game's figures as its rules declared them: keys, labels, adding

    def to_json(self) -> dict[str, Any]:
        return {
            **self.__dict__,
            "players": list(self.players),
            "winners": list(self.winners),
            "declared": [figure.__dict__ for figure in self.declared],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GameSummary:
        return cls(
            **{
                **data,
                "players": tuple(data["players"]),
                "winners": tuple(data["winners"]),
                "declared": tuple(Figure(**figure) for figure in data["declared"]),
            }
        )


@dataclass(frozen=True)
class CardList:
    """A deck's ids and names only, read as plain CSV: enough to name cards, without the game's rules."""

    game: str
    names: dict[str, str]
    path: str

    def __contains__(self, card_id: object) -> bool:
        return card_id in self.names

    def name_of(self, card_id: str) -> str:
        return self.names[card_id]

    @property
    def cards(self) -> dict[str, str]:
        return self.names


@dataclass
class Snapshot:
    """What one read transaction saw."""

    games: list[GameRecord]
    started: dict[int, str]
    values: dict[str, Any]
    actions: dict[int, list[tuple[int, dict[str, Any]]]]
    keys: dict[int, str] = field(default_factory=dict)  # game -> what its summary must match


class JournalView:
    """Read the box's journal without ever writing to it or holding it open."""

    def __init__(
        self, path: Path, decks_dirs: tuple[Path, ...] = (), cache: Path | None = None, played: Path | None = None
    ):
        """`cache`: the page's own summaries (web-history.json); `played`: the box's history of finished
        games (box/history.py), whose lines need no replay while the journal agrees with them."""
        self.path = path
        self.played = played
        self.decks_dirs = decks_dirs  # where uploaded or configured decks live, first match wins
        self.cache = cache
        self.summaries: dict[int, tuple[str, GameSummary]] = {}  # game -> (its key, its summary)
        self.decks: dict[tuple[str, str | None], Deck] = {}
        self.lists: dict[str, CardList] = {}
        if cache is not None and cache.exists():
            try:
                data = json.loads(cache.read_text(encoding="utf-8"))
                self.summaries = {int(k): (v["key"], GameSummary.from_json(v["summary"])) for k, v in data.items()}
            except (OSError, ValueError, KeyError, TypeError) as problem:
                log.warning("history cache %s not used: %s", cache, problem)

    @contextmanager
    def reading(self) -> Iterator[sqlite3.Connection | None]:
        """One short read transaction; None when there is no journal yet."""
        if not self.path.exists():
            yield None
            return
        uri = f"{self.path.resolve().as_uri()}?mode=ro"
        try:
            with closing(sqlite3.connect(uri, uri=True, timeout=0.5, isolation_level=None)) as db:
                db.execute("PRAGMA query_only=1")
                db.execute("BEGIN")
                try:
                    yield db
                finally:
                    db.execute("COMMIT")
        except sqlite3.OperationalError as problem:
            if "locked" in str(problem) or "busy" in str(problem):
                raise JournalBusy(str(problem)) from None
            raise

    def snapshot(self, with_actions: str = "unfinished", known: Mapping[int, Played] | None = None) -> Snapshot:
        """Games, box values and the actions of the unfinished game ("unfinished") or every game not
        yet summarised ("new"; a finished game `known` to the box's history with as many actions needs
        none), read in one transaction."""
        with self.reading() as db:
            if db is None:
                return Snapshot([], {}, {}, {})
            columns = {row[1] for row in db.execute("PRAGMA table_info(games)")}
            started_column = "started" if "started" in columns else "NULL"
            rows = db.execute(
                f"SELECT id, name, players, options, decks, finished, {started_column} FROM games ORDER BY id"
            ).fetchall()
            games, started = [], {}
            for row in rows:
                try:
                    games.append(
                        GameRecord(row[0], row[1], json.loads(row[2]), json.loads(row[3]), row[4], bool(row[5]))
                    )
                except (json.JSONDecodeError, TypeError):
                    log.warning("game %s has an unreadable row; not shown", row[0])
                    continue
                if row[6] is not None:
                    started[row[0]] = str(row[6])
            values = {}
            for key, value in db.execute("SELECT key, value FROM box"):
                try:
                    values[key] = json.loads(value)
                except json.JSONDecodeError:
                    continue
                if key.startswith(STARTED) and key[len(STARTED) :].isdigit():
                    started.setdefault(int(key[len(STARTED) :]), str(values[key]))
            keys = {}
            if with_actions == "new":
                counts = {
                    game: (count, last)
                    for game, count, last in db.execute(
                        "SELECT game, COUNT(*), MAX(seq) FROM actions WHERE undone = 0 GROUP BY game"
                    )
                }
                keys = {
                    g.id: json.dumps([SUMMARY_FORMAT, g.name, g.players, g.options, g.decks, counts.get(g.id)])
                    for g in games
                }
                known = known or {}
                told = {  # finished games the box's history has, with as many actions as the journal holds
                    g.id for g in games if g.finished and g.id in known and known[g.id].actions == counts.get(g.id, (0,))[0]
                }
                wanted = [
                    g.id for g in games
                    if not g.finished or (self.summaries.get(g.id, ("",))[0] != keys[g.id] and g.id not in told)
                ]
            else:
                wanted = [g.id for g in games if not g.finished]
            actions: dict[int, list[tuple[int, dict[str, Any]]]] = {}
            for game_id in wanted:
                action_rows = db.execute(
                    "SELECT seq, action FROM actions WHERE game = ? AND undone = 0 ORDER BY seq", (game_id,)
                )
                actions[game_id] = [(seq, json.loads(text)) for seq, text in action_rows]
            return Snapshot(games, started, values, actions, keys)

    # ----- replays ----------------------------------------------------------------------------

    def folder(self, game: str, decks: str | None = None) -> Path | None:
        folders = ([Path(decks)] if decks else []) + list(self.decks_dirs)
        return next((f for f in folders if (f / f"{game}.csv").exists()), None)

    def card_list(self, game: str) -> CardList:
        """A deck's ids and names (the page's folders, else built in), without importing the game's rules."""
        if game not in self.lists:
            path = (self.folder(game) or BUILTIN_DIR) / f"{game}.csv"
            column = CARD_NAMES.get(game, "name")
            try:
                with open(path, encoding="utf-8-sig", newline="") as handle:
                    lines = (line for line in handle if line.strip() and not line.lstrip().startswith("#"))
                    names = {row["id"].strip(): (row.get(column) or "").strip() for row in csv.DictReader(lines)}
            except (OSError, UnicodeDecodeError, KeyError, csv.Error) as problem:
                raise DeckError(path, f"cannot read the deck: {problem}") from None
            self.lists[game] = CardList(game, names, str(path))
        return self.lists[game]

    def forget_decks(self) -> None:
        self.decks.clear()
        self.lists.clear()

    def deck(self, game: str, decks: str | None = None) -> Deck:
        """The deck a game was played with (its journaled folder), else the page's folders, else built in."""
        key = (game, decks)
        if key not in self.decks:
            self.decks[key] = rules_for(game).load_deck(self.folder(game, decks))
        return self.decks[key]

    def replay(self, record: GameRecord, actions: list[tuple[int, dict[str, Any]]]) -> tuple[Any, GameSummary]:
        """Fold the game's rules over its actions (box.session.fold): the last state and the game's summary."""
        rules = rules_for(record.name)
        state = fold(rules, self.deck(record.name, record.decks), record, actions)
        summary = GameSummary(
            id=record.id,
            name=record.name,
            players=tuple(record.players),
            options=dict(record.options),
            finished=record.finished,
            started=None,
            actions=len(actions),  # the journal holds only actions the rules accepted
            over=rules.is_over(state),
            winners=tuple(rules.dump(state).get("winners", ())),
            figures=rules.figures_of(state),
            declared=rules.figures,
        )
        return state, summary

    def history(self) -> tuple[list[GameSummary], dict[str, Any]]:
        """Every game, newest first (finished ones replayed once, then remembered), and the box's values."""
        played = {game.number: game for game in read_played(self.played)} if self.played is not None else {}
        snap = self.snapshot("new", played)
        games, learnt = [], False
        for record in snap.games:
            if record.name not in GAMES:
                continue
            key = snap.keys.get(record.id, "")
            cached = self.summaries.get(record.id)
            summary = cached[1] if record.finished and cached is not None and cached[0] == key else None
            if summary is None and record.finished and record.id not in snap.actions and record.id in played:
                summary = from_played(record, played[record.id])  # the box kept it as it ended: no replay
                self.summaries[record.id] = (key, summary)
                learnt = True
            if summary is None:
                try:
                    _, summary = self.replay(record, snap.actions.get(record.id, []))
                except Exception as problem:  # a deck that changed since: show the game without figures
                    log.warning("cannot replay game %d (%s): %s", record.id, record.name, problem)
                    summary = GameSummary(
                        record.id,
                        record.name,
                        tuple(record.players),
                        dict(record.options),
                        record.finished,
                        None,
                        0,
                        False,
                        (),
                    )
                if record.finished:
                    self.summaries[record.id] = (key, summary)
                    learnt = True
            games.append(with_date(summary, snap.started.get(record.id)))
        if learnt:
            self.keep()
        return games[::-1], snap.values

    def keep(self) -> None:
        """Write the summaries of finished games to the cache file (atomically; a failure is only logged)."""
        if self.cache is None:
            return
        from box.roster import write_atomically

        data = {str(k): {"key": key, "summary": s.to_json()} for k, (key, s) in self.summaries.items()}
        try:
            write_atomically(self.cache, json.dumps(data, separators=(",", ":")))
        except OSError as problem:
            log.warning("history cache not written: %s", problem)

    def current(self) -> dict[str, Any]:
        """The state dump of the game in play, rebuilt from the journal (the box is not running)."""
        from box.timer import ShotTimer

        snap = self.snapshot("unfinished")
        data: dict[str, Any] = {"game": None, "players": [], "current_player": None, "over": False, "winners": []}
        unfinished = [g for g in snap.games if not g.finished and g.name in GAMES]
        if unfinished:
            record = unfinished[-1]
            try:
                state, summary = self.replay(record, snap.actions.get(record.id, []))
                data.update(
                    game=record.name,
                    players=list(record.players),
                    options=dict(record.options),
                    actions=summary.actions,
                )
                data.update(rules_for(record.name).dump(state))
            except Exception as problem:
                log.warning("cannot replay game %d: %s", record.id, problem)
        data["dice"] = {"last": snap.values.get("dice")}
        data["timer"] = ShotTimer(best_chug=snap.values.get("best_chug")).dump(0.0)
        data["screen"] = None
        data["notice"] = ""
        data["readers_offline"] = []
        return data


def from_played(record: GameRecord, played: Played) -> GameSummary:
    """A finished game's summary from the box's history line (box/history.py)."""
    declared = tuple(Figure(row["key"], row["label"], row["adds"]) for row in played.declared)  # type: ignore[arg-type]
    return GameSummary(
        id=record.id,
        name=record.name,
        players=tuple(record.players),
        options=dict(record.options),
        finished=True,
        started=None,
        actions=played.actions,
        over=True,
        winners=played.winners,
        figures={player: {key: int(value) for key, value in row.items()} for player, row in played.figures.items()},
        declared=declared,
    )


def with_date(summary: GameSummary, started: str | None) -> GameSummary:
    if started is None or summary.started == started:
        return summary
    from dataclasses import replace

    return replace(summary, started=started)


@dataclass
class PlayerStats:
    """One player across every game: how many played and won, and each game's figures.

    `totals` adds each figure's values up as the game declares (`Figure.adds`); `declared` holds
    each game's figures (its newest game's), for their labels. `id`: the roster's id of the player
    (box/roster.py), else one made from the name; `former`: the other names they played under
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
        number = key[len(SEATS) :]
        if key.startswith(SEATS) and number.isdigit() and isinstance(value, list):
            found[int(number)] = [item if isinstance(item, str) else None for item in value]
    return found


def seated(game: GameSummary, roster: Roster, seats: Mapping[int, list[str | None]]) -> Iterator[tuple[str, str, str]]:
    """Who sat at `game`: (the name they played under, their player's id, the roster's name or "") for
    each seat someone took. A game that kept its seat ids is read by them; an older one by the names,
    current or former, the roster knows, else by an id made from the name (box.roster.person_id)."""
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
    not seats left as P1...). A player is a person of the `roster` (box/roster.py), whatever names
    they played under: `seats` (`seats_of` the journal's values) says who sat where by id; a game
    without ids counts by the names, current or former, the roster knows. The newest games first:
    a player the roster does not know goes by the name of their newest game.

    >>> figures = (Figure("goals", "goals"), Figure("best", "best", "max"))
    >>> game = GameSummary(1, "football", ("Ann", "Bob"), {}, True, None, 9, True, ("Ann",),
    ...                    {"Ann": {"goals": 1, "best": 4}, "Bob": {"goals": 3, "best": 2}}, figures)
    >>> stats = player_stats([game, game])
    >>> stats["Ann"].wins, stats["Bob"].totals
    (2, {'football': {'goals': 6, 'best': 2}})
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
