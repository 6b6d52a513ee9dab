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
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from box.base.session import fold
from box.base.timer import ShotTimer
from box.decks.codec import BUILTIN_DIR, Deck
from box.errors import DeckError
from box.games import CARD_NAMES, GAMES, rules_for
from box.storage.history import Played
from box.storage.history import read as read_played
from box.storage.journal import GameRecord
from box.storage.journal.schema import CACHE_KIB
from box.storage.player_ids import Sat, seated_ids
from box.storage.roster import ENDED, STARTED
from box.web.in_play import ACTIONS_AFTER, InPlay, decoded, rebuild
from box.web.people import seats_of
from box.web.summaries import (
    SUMMARY_FORMAT,
    GameSummary,
    Shared,
    from_played,
    read_kept,
    summary_of,
    with_date,
    write_kept,
)
from box.words import digits_value

log = logging.getLogger(__name__)

JOURNAL_FILE = "journal.db"


class JournalBusy(Exception):
    """The journal cannot be read now (another program holds it locked)."""


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


GAMES_QUERY = (
    "SELECT id, name, players, options, decks, finished, {started},"
    " (SELECT seq FROM actions WHERE game = games.id AND undone = 0 ORDER BY seq DESC LIMIT 1)"
    " FROM games {which} ORDER BY id"
)  # a game's newest action in force: a step down the (game, seq) index, not a scan of its actions
IN_FORCE_NOW = "SELECT COUNT(*), MAX(seq) FROM actions WHERE game = ? AND undone = 0"  # how many, the newest
FIRST_VIEW_BUDGET = 2.0
"""Seconds a view spends summarising games it has not seen (after an upgrade, a lost cache): the
rest is counted by a worker thread while the page shows the games already counted."""
KEEP_EVERY = 100  # summaries counted between writes of the cache file while the worker counts


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

    def forget(self) -> None:
        """Another journal took this one's place (a restored backup): nothing kept of the old one's games."""
        with self.lock:
            self.summaries.clear()
            self.in_play.clear()

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
            if key.startswith(STARTED) and (number := digits_value(key[len(STARTED) :])) is not None:
                started.setdefault(number, str(values[key]))
        return Snapshot(rows, started, values)

    def sat(self) -> Sat:
        """Who sat at the journal's games (box.storage.roster.Sat): new players' ids are judged against it."""
        with self.reading() as db:
            snap = self.snapshot(db)
        seats = seats_of(snap.values)
        names: dict[str, str] = {}
        for row in snap.rows:
            ids = seats.get(row.id)
            record = row.record() if ids is not None else None
            if record is not None and ids is not None and len(ids) == len(record.players):
                names.update({n.casefold(): i for n, i in zip(record.players, ids, strict=True) if isinstance(i, str)})
        return Sat(frozenset(seated_ids(snap.values)), names)

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
        return state, summary_of(record, state, counted[0])

    def unreadable(self, record: GameRecord, problem: Exception) -> GameSummary:
        """A game that cannot be replayed (a deck that changed since): shown without figures."""
        log.warning("cannot replay game %d (%s): %s", record.id, record.name, problem)
        return GameSummary(
            record.id, record.name, tuple(record.players), dict(record.options), record.finished, None, 0, False, ()
        )

    # ----- the game in play: its newest checkpoint and the actions after it -------------------

    def rebuild(self, db: sqlite3.Connection, record: GameRecord, last: int | None) -> InPlay:
        """The game in play after action `last` (box/web/in_play.py), kept until the journal has a new action."""
        found = rebuild(db, record, last, self.in_play.get(record.id), lambda: self.deck(record.name, record.decks))
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
        """A finished game's summary: the box's history line while the journal's actions in force are
        the ones it ended with (as many, the same newest one: not a game undone across its end and
        abandoned), else a replay of its actions, streamed (finished games keep no checkpoints)."""
        count, newest = db.execute(IN_FORCE_NOW, (record.id,)).fetchone() if played is not None else (0, None)
        said = played is not None and (played.last or not played.actions)  # an older line says no newest action
        if played is not None and said and (count, newest or 0) == (played.actions, played.last):
            return from_played(record, played)  # the box kept it as it ended: no replay
        try:
            return self.replay(record, decoded(db.execute(ACTIONS_AFTER, (record.id, 0))))[1]
        except Exception as problem:  # a deck that changed since: the game without figures
            return self.unreadable(record, problem)

    def count(self, wanted: list[GameRow], until: float | None) -> list[GameRow]:
        """Summarise the finished games of `wanted` (newest first), each in its own short read
        transaction, until the clock passes `until`; the games left. Each row is decoded only when its
        game is counted (a thousand waiting games hold their rows' text, not their records). The
        cache file is written every KEEP_EVERY games and at the end."""
        played = {game.number: game for game in read_played(self.played)} if self.played is not None else {}
        done = index = 0
        while index < len(wanted) and (until is None or self.clock() < until):
            row = wanted[index]
            index += 1
            record = row.record()
            if record is None:  # logged: not shown
                continue
            with self.reading() as db:
                if db is None:
                    return []
                summary = self.count_one(db, record, played.get(record.id))
            with self.lock:
                self.summaries[record.id] = (row.key, self.share.summary(summary))
            done += 1
            if done % KEEP_EVERY == 0:
                self.keep()
        if done:
            self.keep()
        return wanted[index:]

    def count_in_background(self, wanted: list[GameRow]) -> None:
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
        wanted = [  # their rows, each decoded again when counted: the worker holds no thousand records
            row for row in reversed(shown) if row.finished and kept[row.id] is None and row.record() is not None
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
                dated = with_date(summary, snap.started.get(row.id), snap.values.get(f"{ENDED}{row.id}"))
                if dated is not summary:
                    with self.lock:  # kept with its date: the next view needs no copy
                        self.summaries[row.id] = (row.key, dated)
            else:
                known = playing.get(row.id)
                if known is not None:
                    dated = with_date(known.summary, snap.started.get(row.id), snap.values.get(f"{ENDED}{row.id}"))
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
        """Write the summaries of finished games to the cache file (a failure is only logged)."""
        if self.cache is not None:
            with self.lock:
                kept = dict(self.summaries)
            write_kept(self.cache, kept)

    def current(self) -> dict[str, Any]:
        """The state dump of the game in play, from its newest checkpoint (the box is not running)."""
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


