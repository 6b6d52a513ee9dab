"""The journal as the page reads it: read-only, in short read transactions.

The box is the journal's one writer. The page opens the file with
`mode=ro` and `query_only`, reads what one request needs inside one
transaction and closes the connection at once, so it never holds a read
transaction that would stop the box's WAL checkpoints.

The history is a read model kept as games are played, never a replay of whole
games per view. Finished games never change: each one's summary (the box's line
in `history.jsonl` while the journal agrees with it, else a replay through the
game's own rules, `box.base.session.fold`, and the figures its rules declare) is made
once and kept by id, in memory and in `web-history.json` in the state directory
(JSON lines: one game a line, read a line at a time),
so a page that restarts imports no game's rules until a new game is finished. A
summary is used again only while its game's row and its newest action in force
are as they were. When summaries are missing (an upgrade, a lost cache file) a
view counts for at most FIRST_VIEW_BUDGET seconds and a worker thread counts the
rest, one game's actions streamed at a time, so memory stays bounded.

A game in play is rebuilt from its newest checkpoint (the box saves one every
few dozen actions, box/base/session.py) and the actions after it, and kept in memory
by its newest action in force: a view of an unchanged game costs one small
query, a view after a new action folds only that action. A checkpoint the page
cannot use (damaged, absent, other code's) costs a replay from the first action,
logged, never a wrong state.
"""

from __future__ import annotations

import csv
import json
import logging
import re
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import closing, contextmanager
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from box.base.session import StateCodec, decode, fold
from box.decks.codec import BUILTIN_DIR, Deck
from box.errors import DeckError
from box.games import CARD_NAMES, GAMES, rules_for
from box.games.base import Figure, Figures, Setup, Step
from box.storage.history import Played
from box.storage.history import read as read_played
from box.storage.journal import GameRecord
from box.storage.journal.checkpoints import NEWEST, row_problem, unframe
from box.storage.journal.schema import CACHE_KIB
from box.storage.roster import SEATS, STARTED, Roster, person_id

log = logging.getLogger(__name__)

JOURNAL_FILE = "journal.db"
UNNAMED_SEAT = re.compile(r"P\d{1,2}")  # a seat nobody named
HISTORY_FILE = "web-history.json"
SUMMARY_FORMAT = 3  # a summary kept in HISTORY_FILE by other code is made again


class JournalBusy(Exception):
    """The journal cannot be read now (another program holds it locked)."""


class Shared:
    """Equal values read from the cache file, held once: a thousand games name the same players,
    options and figures, so the kept summaries cost a fraction of their text.

    >>> share = Shared()
    >>> share("Ann" + "a") is share("Anna"), share.mapping({"k": "v"}) is share.mapping({"k": "v"})
    (True, True)
    """

    def __init__(self) -> None:
        self.values: dict[Any, Any] = {}

    def __call__(self, value: Any) -> Any:
        try:
            return self.values.setdefault(value, value)
        except TypeError:  # a value that cannot be a key is kept as it is
            return value

    def mapping(self, data: Mapping[str, Any]) -> dict[str, Any]:
        """An equal mapping held once (the summaries never change theirs); one with a value that cannot
        be a key (a list) is copied instead."""
        try:
            key = ("mapping", *sorted(data.items()))
            hash(key)
        except TypeError:
            return dict(data)
        return self.values.setdefault(key, {self(k): self(v) for k, v in data.items()})

    def summary(self, summary: GameSummary) -> GameSummary:
        """An equal summary whose names, options and figures are held once."""
        return replace(
            summary,
            name=self(summary.name),
            players=self(tuple(map(self, summary.players))),
            options=self.mapping(summary.options),
            winners=self(tuple(map(self, summary.winners))),
            figures={self(player): self.mapping(row) for player, row in summary.figures.items()},
            declared=self(summary.declared),
        )


@dataclass(frozen=True, slots=True)
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
    ended: str | None = None  # local time it ended, where the box's history line keeps it

    def to_json(self) -> dict[str, Any]:
        return {
            **{item.name: getattr(self, item.name) for item in fields(self)},
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


@dataclass(frozen=True)
class GameRow:
    """A game's row as the journal holds it (players and options still JSON text: a finished game
    whose summary is kept is never decoded), with its newest action in force."""

    id: int
    name: str
    players: str
    options: str
    decks: str | None
    finished: bool
    last: int | None

    @property
    def key(self) -> str:
        """What a finished game's kept summary must match: its row and its newest action in force."""
        return "\x1f".join((str(SUMMARY_FORMAT), self.name, self.players, self.options, str(self.decks), str(self.last)))

    def record(self) -> GameRecord | None:
        """The game as the rules start it; None (logged) when its row cannot be read."""
        try:
            return GameRecord(self.id, self.name, json.loads(self.players), json.loads(self.options), self.decks, self.finished)
        except (json.JSONDecodeError, TypeError):
            log.warning("game %s has an unreadable row; not shown", self.id)
            return None


@dataclass
class Snapshot:
    """What one read transaction saw: the games' rows, when they started, the box's values."""

    rows: list[GameRow]
    started: dict[int, str]
    values: dict[str, Any]


@dataclass(frozen=True)
class InPlay:
    """A game in play as the page last rebuilt it: its state after action `seq`, the `count`-th in force."""

    game: int
    seq: int
    count: int
    state: Any
    summary: GameSummary
    dump: dict[str, Any]


GAMES_QUERY = (
    "SELECT id, name, players, options, decks, finished, {started},"
    " (SELECT seq FROM actions WHERE game = games.id AND undone = 0 ORDER BY seq DESC LIMIT 1)"
    " FROM games {which} ORDER BY id"
)  # a game's newest action in force: a step down the (game, seq) index, not a scan of its actions
ACTIONS_AFTER = "SELECT seq, action FROM actions WHERE game = ? AND seq > ? AND undone = 0 ORDER BY seq"
COUNT_IN_FORCE = "SELECT COUNT(*) FROM actions WHERE game = ? AND undone = 0"
IN_FORCE = "SELECT 1 FROM actions WHERE seq = ? AND undone = 0"
FIRST_VIEW_BUDGET = 2.0
"""Seconds a view spends summarising games it has not seen (after an upgrade, a lost cache): the
rest is counted by a worker thread while the page shows the games already counted."""
MAX_KEPT_LINE = 64 * 1024  # one game's summary in the cache file is a few hundred bytes
KEEP_EVERY = 100  # summaries counted between writes of the cache file while the worker counts


def decoded(rows: Iterable[tuple[int, str]]) -> Iterator[tuple[int, dict[str, Any]]]:
    """Journal rows `(seq, action text)` as `(seq, action)`, one at a time (a cursor streams them)."""
    for seq, text in rows:
        yield seq, json.loads(text)


class JournalView:
    """Read the box's journal without ever writing to it or holding it open.

    The history is a read model: each finished game's summary, made once (from the box's history
    line, else a replay) and kept in `web-history.json`; the game in play is rebuilt from its
    newest checkpoint and kept in memory until the journal has a new action for it.
    """

    def __init__(
        self,
        path: Path,
        decks_dirs: tuple[Path, ...] = (),
        cache: Path | None = None,
        played: Path | None = None,
        clock: Callable[[], float] = time.monotonic,
    ):
        """`cache`: the page's own summaries (web-history.json); `played`: the box's history of finished
        games (box/storage/history.py), whose lines need no replay while the journal agrees with them."""
        self.path = path
        self.played = played
        self.decks_dirs = decks_dirs  # where uploaded or configured decks live, first match wins
        self.cache = cache
        self.clock = clock
        self.summaries: dict[int, tuple[str, GameSummary]] = {}  # game -> (its key, its summary)
        self.in_play: dict[int, InPlay] = {}  # the unfinished games, as last rebuilt
        self.decks: dict[tuple[str, str | None], Deck] = {}
        self.lists: dict[str, CardList] = {}
        self.uncounted = 0  # finished games not summarised yet (the worker is counting them)
        self.worker: threading.Thread | None = None
        self.lock = threading.Lock()  # the summaries, between the views and the worker
        self.counter = threading.Lock()  # held by the view that counts
        self.share = Shared()  # what the kept summaries have in common, held once
        if cache is not None:
            self.summaries = read_kept(cache, self.share)

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
                db.execute(f"PRAGMA cache_size=-{CACHE_KIB}")  # the box's own bound: a history read streams pages
                db.execute("BEGIN")
                try:
                    yield db
                finally:
                    db.execute("COMMIT")
        except sqlite3.OperationalError as problem:
            if "locked" in str(problem) or "busy" in str(problem):
                raise JournalBusy(str(problem)) from None
            raise

    def snapshot(self, db: sqlite3.Connection | None, unfinished: bool = False) -> Snapshot:
        """The games (only the unfinished ones with `unfinished`), when each started and the box's values."""
        if db is None:
            return Snapshot([], {}, {})
        columns = {row[1] for row in db.execute("PRAGMA table_info(games)")}
        query = GAMES_QUERY.format(
            started="started" if "started" in columns else "NULL", which="WHERE finished = 0" if unfinished else ""
        )
        rows, started = [], {}
        for row in db.execute(query):
            if not (isinstance(row[1], str) and isinstance(row[2], str) and isinstance(row[3], str)):
                log.warning("game %s has an unreadable row; not shown", row[0])
                continue
            rows.append(GameRow(row[0], row[1], row[2], row[3], row[4], bool(row[5]), row[7]))
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
        return Snapshot(rows, started, values)

    def records(self) -> list[GameRecord]:
        """Every game the journal holds (whose row can be read), oldest first."""
        with self.reading() as db:
            return [record for row in self.snapshot(db).rows if (record := row.record()) is not None]

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

    def replay(self, record: GameRecord, actions: Iterable[tuple[int, dict[str, Any]]]) -> tuple[Any, GameSummary]:
        """Fold the game's rules over its actions (box.base.session.fold) from its first state: the last
        state and the game's summary. `actions` may be a stream: one action is held at a time."""
        counted = [0]

        def counting() -> Iterator[tuple[int, dict[str, Any]]]:
            for pair in actions:
                counted[0] += 1
                yield pair

        state = fold(rules_for(record.name), self.deck(record.name, record.decks), record, counting())
        return state, self.summary_of(record, state, counted[0])

    def summary_of(self, record: GameRecord, state: Any, actions: int) -> GameSummary:
        """A game's summary from its state after `actions` actions in force (the journal holds only
        actions the rules accepted)."""
        rules = rules_for(record.name)
        return GameSummary(
            id=record.id,
            name=record.name,
            players=tuple(record.players),
            options=dict(record.options),
            finished=record.finished,
            started=None,
            actions=actions,
            over=rules.is_over(state),
            winners=tuple(rules.dump(state).get("winners", ())),
            figures=rules.figures_of(state),
            declared=rules.figures,
        )

    def unreadable(self, record: GameRecord, problem: Exception) -> GameSummary:
        """A game that cannot be replayed (a deck that changed since): shown without figures."""
        log.warning("cannot replay game %d (%s): %s", record.id, record.name, problem)
        return GameSummary(
            record.id, record.name, tuple(record.players), dict(record.options), record.finished, None, 0, False, ()
        )

    # ----- the game in play: its newest checkpoint and the actions after it -------------------

    def checkpoint(self, db: sqlite3.Connection, record: GameRecord, first: Any) -> tuple[int, int, Any] | None:
        """The game's newest checkpoint the page can use, (seq, count, state), read as the box reads it
        (box/storage/journal/checkpoints.py); None (logged) when there is none or it cannot be used: a replay then."""
        try:
            row = db.execute(NEWEST, (record.id,)).fetchone()
            problem = row_problem(db, record.id, row)
        except sqlite3.Error as error:  # no table (an older box's journal), or a damaged one
            row, problem = None, str(error)
        if problem is None and row is None:
            log.debug("game %d has no checkpoint yet: replayed from its first action", record.id)
            return None
        if problem is None:
            seq, count, version, stored = row
            codec = StateCodec(first)
            if version != codec.version:
                problem = f"its checkpoint is from other code or another deck ({version})"
            else:
                try:
                    return seq, count, codec.load(unframe(stored) or b"")
                except Exception as error:  # a damaged row: the journal's actions are the truth
                    problem = f"its checkpoint at action {seq} is unreadable ({error})"
        log.warning("game %d is replayed from its first action: %s", record.id, problem)
        return None

    def rebuild(self, db: sqlite3.Connection, record: GameRecord, last: int | None) -> InPlay:
        """The game in play after action `last`: as last rebuilt when the journal has nothing new, else
        from there (its newest action then is still in force), else from its newest checkpoint."""
        known = self.in_play.get(record.id)
        if known is not None and known.seq == (last or 0):
            return known
        rules = rules_for(record.name)
        if known is not None and known.seq and db.execute(IN_FORCE, (known.seq,)).fetchone():
            seq, count, state = known.seq, known.count, known.state
        else:
            first = rules.new(Setup(tuple(record.players), dict(record.options)), self.deck(record.name, record.decks))
            seq, count, state = self.checkpoint(db, record, first) or (0, 0, first)
        for _, action in decoded(db.execute(ACTIONS_AFTER, (record.id, seq))):  # the same read transaction
            result = rules.apply(state, decode(action))
            if isinstance(result, Step):
                state = result.state
            count += 1
        summary = self.summary_of(record, state, count)
        found = InPlay(record.id, last or 0, count, state, summary, rules.dump(state))
        self.in_play[record.id] = found
        return found

    def playing(self, db: sqlite3.Connection, rows: list[GameRow]) -> dict[int, InPlay | None]:
        """The unfinished games among `rows`, rebuilt (None when one cannot be); the view forgets the
        games no longer in play."""
        found: dict[int, InPlay | None] = {}
        for row in rows:
            if row.finished or row.name not in GAMES or (record := row.record()) is None:
                continue
            try:
                found[record.id] = self.rebuild(db, record, row.last)
            except Exception as problem:  # a deck that changed since: shown without its state
                log.warning("cannot rebuild game %d (%s): %s", record.id, record.name, problem)
                found[record.id] = None
        self.in_play = {game: known for game, known in self.in_play.items() if game in found}
        return found

    # ----- the finished games: summarised once, then kept --------------------------------------

    def count_one(self, db: sqlite3.Connection, record: GameRecord, played: Played | None) -> GameSummary:
        """A finished game's summary: the box's history line when the journal agrees with it, else a replay
        of its actions, streamed (finished games keep no checkpoints)."""
        if played is not None and db.execute(COUNT_IN_FORCE, (record.id,)).fetchone()[0] == played.actions:
            return from_played(record, played)  # the box kept it as it ended: no replay
        try:
            return self.replay(record, decoded(db.execute(ACTIONS_AFTER, (record.id, 0))))[1]
        except Exception as problem:  # a deck that changed since: the game without figures
            return self.unreadable(record, problem)

    def count(self, wanted: list[tuple[GameRecord, str]], until: float | None) -> list[tuple[GameRecord, str]]:
        """Summarise `wanted` (newest first), each in its own short read transaction, until the clock
        passes `until`; the games left. The cache file is written every KEEP_EVERY games and at the end."""
        played = {game.number: game for game in read_played(self.played)} if self.played is not None else {}
        done = 0
        while wanted and (until is None or self.clock() < until):
            record, key = wanted[0]
            with self.reading() as db:
                if db is None:
                    return []
                summary = self.count_one(db, record, played.get(record.id))
            with self.lock:
                self.summaries[record.id] = (key, self.share.summary(summary))
            wanted = wanted[1:]
            done += 1
            if done % KEEP_EVERY == 0:
                self.keep()
        if done:
            self.keep()
        return wanted

    def count_in_background(self, wanted: list[tuple[GameRecord, str]]) -> None:
        """The worker: summarise the games left, then stop (a journal the box holds locked stops it
        too; the next view starts it again)."""

        def work() -> None:
            try:
                self.count(wanted, None)
            except (JournalBusy, sqlite3.Error) as problem:
                log.warning("history not counted to the end (%s): the next view goes on", problem)
            log.info("history counted: %d games summarised", len(wanted))

        self.worker = threading.Thread(target=work, name="history-count", daemon=True)
        self.worker.start()

    def counting(self) -> bool:
        """The worker is summarising games."""
        return self.worker is not None and self.worker.is_alive()

    def history(self) -> tuple[list[GameSummary], dict[str, Any]]:
        """Every game, newest first, and the box's values.

        A finished game's summary is made once and kept; games the page has not summarised yet (after
        an upgrade, or a lost cache) are counted for at most FIRST_VIEW_BUDGET seconds, newest first,
        and the rest by a worker while the page shows the games counted (`uncounted` says how many
        wait). The games in play come from their newest checkpoint.
        """
        start = self.clock()
        with self.reading() as db:
            snap = self.snapshot(db)
            playing = self.playing(db, snap.rows) if db is not None else {}
        shown = [row for row in snap.rows if row.name in GAMES]
        with self.lock:
            kept = {row.id: self.kept(row.id, row.key) for row in shown if row.finished}
        wanted = [
            (record, row.key)
            for row in reversed(shown)
            if row.finished and kept[row.id] is None and (record := row.record()) is not None
        ]
        if wanted and not self.counting() and self.counter.acquire(blocking=False):  # one view counts at a time
            try:
                left = self.count(wanted, start + FIRST_VIEW_BUDGET)
                if left:
                    self.count_in_background(left)
            finally:
                self.counter.release()
            with self.lock:
                kept = {row.id: self.kept(row.id, row.key) for row in shown if row.finished}
        games = []
        for row in shown:
            if row.finished:
                summary = kept[row.id]
                if summary is None:
                    continue  # not counted yet
                dated = with_date(summary, snap.started.get(row.id))
                if dated is not summary:
                    with self.lock:  # kept with its date: the next view needs no copy
                        self.summaries[row.id] = (row.key, dated)
            else:
                known = playing.get(row.id)
                if known is not None:
                    dated = with_date(known.summary, snap.started.get(row.id))
                elif (record := row.record()) is not None:
                    dated = self.unreadable(record, ValueError("its state cannot be rebuilt"))
                else:
                    continue
            games.append(dated)
        self.uncounted = sum(1 for summary in kept.values() if summary is None)
        return games[::-1], snap.values

    def kept(self, game: int, key: str) -> GameSummary | None:
        """The summary kept for `game` while it still matches `key`."""
        found = self.summaries.get(game)
        return found[1] if found is not None and found[0] == key else None

    def keep(self) -> None:
        """Write the summaries of finished games to the cache file (atomically; a failure is only logged)."""
        if self.cache is None:
            return
        from box.storage.roster import write_atomically

        with self.lock:
            kept = sorted(self.summaries.items())
        lines = (json.dumps({"id": k, "key": key, "summary": s.to_json()}, separators=(",", ":")) for k, (key, s) in kept)
        try:
            write_atomically(self.cache, "".join(line + "\n" for line in lines))
        except OSError as problem:
            log.warning("history cache not written: %s", problem)

    def current(self) -> dict[str, Any]:
        """The state dump of the game in play, from its newest checkpoint (the box is not running)."""
        from box.base.timer import ShotTimer

        data: dict[str, Any] = {"game": None, "players": [], "current_player": None, "over": False, "winners": []}
        record, known = None, None
        with self.reading() as db:
            snap = self.snapshot(db, unfinished=True)
            rows = [row for row in snap.rows if row.name in GAMES]
            if rows and db is not None and (record := rows[-1].record()) is not None:
                try:
                    known = self.rebuild(db, record, rows[-1].last)
                except Exception as problem:
                    log.warning("cannot rebuild game %d: %s", record.id, problem)
        if record is not None and known is not None:
            data.update(game=record.name, players=list(record.players), options=dict(record.options), actions=known.count)
            data.update(known.dump)
        data["dice"] = {"last": snap.values.get("dice")}
        data["timer"] = ShotTimer(best_chug=snap.values.get("best_chug")).dump(0.0)
        data["screen"] = None
        data["notice"] = ""
        data["readers_offline"] = []
        return data


def read_kept(path: Path, share: Shared) -> dict[int, tuple[str, GameSummary]]:
    """The summaries kept in the cache file, one game a line, read a line at a time (a line over
    MAX_KEPT_LINE, as an older page's one-object file has, or a line that is not a summary: the
    file is not used and its games are counted again)."""
    kept: dict[int, tuple[str, GameSummary]] = {}
    try:
        with open(path, encoding="utf-8") as handle:
            while line := handle.readline(MAX_KEPT_LINE + 1):
                if len(line) > MAX_KEPT_LINE:
                    raise ValueError(f"a line over {MAX_KEPT_LINE} characters")
                data = json.loads(line)
                kept[int(data["id"])] = (str(data["key"]), share.summary(GameSummary.from_json(data["summary"])))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError, KeyError, TypeError) as problem:
        log.warning("history cache %s not used (its games are counted again): %s", path.name, problem)
        return {}
    return kept


def from_played(record: GameRecord, played: Played) -> GameSummary:
    """A finished game's summary from the box's history line (box/storage/history.py)."""
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
        ended=played.ended or None,
    )


def with_date(summary: GameSummary, started: str | None) -> GameSummary:
    if started is None or summary.started == started:
        return summary
    return replace(summary, started=started)


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
        number = key[len(SEATS) :]
        if key.startswith(SEATS) and number.isdigit() and isinstance(value, list):
            found[int(number)] = [item if isinstance(item, str) else None for item in value]
    return found


def seated(game: GameSummary, roster: Roster, seats: Mapping[int, list[str | None]]) -> Iterator[tuple[str, str, str]]:
    """Who sat at `game`: (the name they played under, their player's id, the roster's name or "") for
    each seat someone took. A game that kept its seat ids is read by them; an older one by the names,
    current or former, the roster knows, else by an id made from the name (box.storage.roster.person_id)."""
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
