"""Finished games as the history shows them: each one's summary, and the page's cache file of them.

A summary is made once per finished game (from the box's history line, box/storage/history.py, or a
replay) and kept in `web-history.json` in the state directory, JSON lines: one game a line, read a
line at a time, its names, options and figures held once in memory (`Shared`).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from box.errors import FileProblem
from box.files.bounded import read_bounded, write_atomically
from box.games import rules_for
from box.games.base import Figure, Figures
from box.storage.history import Played, finite
from box.storage.journal import GameRecord

log = logging.getLogger(__name__)

HISTORY_FILE = "web-history.json"
SUMMARY_FORMAT = 3  # a summary kept in HISTORY_FILE by other code is made again
MAX_KEPT_LINE = 64 * 1024  # one game's summary in the cache file is a few hundred bytes
MAX_KEPT_FILE = 32 * 1024 * 1024  # some 100,000 games' summaries: a larger file is counted again


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
    def from_json(cls, data: Any) -> GameSummary:
        """A summary as `to_json` wrote it; ValueError for anything else (a line of the cache file that
        is not one: its game is counted again). Figures are finite numbers, winners among the players.

        >>> line = GameSummary(1, "g", ("Ann",), {}, True, None, 3, True, ("Ann",), {"Ann": {"k": 2}}).to_json()
        >>> GameSummary.from_json(line).figures
        {'Ann': {'k': 2}}
        >>> GameSummary.from_json({**line, "figures": {"Ann": {"k": float("inf")}}})
        Traceback (most recent call last):
        ValueError: figures: not finite numbers
        >>> GameSummary.from_json({**line, "winners": ["Zed"]})
        Traceback (most recent call last):
        ValueError: winners: not among the players
        """
        if not isinstance(data, dict) or set(data) != {item.name for item in fields(cls)}:
            raise ValueError("not a summary")
        players, winners, figures, options = data["players"], data["winners"], data["figures"], data["options"]
        if not (is_texts(players) and is_texts(winners)):
            raise ValueError("players or winners: not names")
        if not set(winners) <= set(players):
            raise ValueError("winners: not among the players")
        if not (isinstance(options, dict) and is_texts(list(options)) and is_texts(list(options.values()))):
            raise ValueError("options: not names and values")
        if not (isinstance(figures, dict) and all(isinstance(row, dict) for row in figures.values())):
            raise ValueError("figures: not a table")
        if not all(is_texts(list(row)) and all(map(finite, row.values())) for row in figures.values()):
            raise ValueError("figures: not finite numbers")
        declared = data["declared"]
        if not (isinstance(declared, list) and all(isinstance(row, dict) for row in declared)):
            raise ValueError("declared: not figures")
        try:
            figures_declared = tuple(Figure(**row) for row in declared)
        except TypeError as problem:
            raise ValueError(f"declared: {problem}") from None
        whole = (data["id"], data["actions"])
        if not all(isinstance(n, int) and not isinstance(n, bool) for n in whole) or not isinstance(data["name"], str):
            raise ValueError("id, actions or name of the wrong kind")
        if not (isinstance(data["finished"], bool) and isinstance(data["over"], bool)):
            raise ValueError("finished or over: not true or false")
        if any(data[key] is not None and not isinstance(data[key], str) for key in ("started", "ended")):
            raise ValueError("started or ended: not a date")
        return cls(
            **{**data, "players": tuple(players), "winners": tuple(winners), "declared": figures_declared}
        )


def is_texts(values: Any) -> bool:
    """A list of strings."""
    return isinstance(values, list) and all(isinstance(value, str) for value in values)


def summary_of(record: GameRecord, state: Any, actions: int) -> GameSummary:
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
        winners=tuple(rules.public(state).get("winners", ())),
        figures=rules.figures_of(state),
        declared=rules.figures,
    )


def read_kept(path: Path, share: Shared) -> dict[int, tuple[str, GameSummary]]:
    """The summaries kept in the cache file, one game a line. The file is a cache: a line that is not a
    summary (over MAX_KEPT_LINE, as an older page's one-object file has, or refused by its codec) is
    left out and its game counted again; a file over MAX_KEPT_FILE, a link, a folder or a FIFO there is
    not read at all (never blocking), and all its games are counted again."""
    try:
        data = read_bounded(path, MAX_KEPT_FILE, what="history cache", missing=b"")
    except FileProblem as problem:
        log.warning("history cache not used (its games are counted again): %s", problem)
        return {}
    kept: dict[int, tuple[str, GameSummary]] = {}
    left, first = 0, ""
    for line in data.splitlines():
        if not line.strip():
            continue
        try:
            if len(line) > MAX_KEPT_LINE:
                raise ValueError(f"a line over {MAX_KEPT_LINE} bytes")
            entry = json.loads(line)
            if not (isinstance(entry, dict) and isinstance(entry.get("id"), int) and isinstance(entry.get("key"), str)):
                raise ValueError("not a kept summary")
            summary = GameSummary.from_json(entry.get("summary"))
            if summary.id != entry["id"]:
                raise ValueError("a summary of another game")
            kept[entry["id"]] = (entry["key"], share.summary(summary))
        except (ValueError, RecursionError) as problem:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
            left += 1
            first = first or str(problem)[:80]
    if left:
        log.warning("history cache %s: %d line(s) left out, their games counted again (%s)", path.name, left, first)
    return kept


def write_kept(path: Path, summaries: Mapping[int, tuple[str, GameSummary]]) -> None:
    """Write the summaries of finished games, one a line, to the cache file (atomically; a failure is only logged)."""
    kept = sorted(summaries)
    lines = (json.dumps({"id": k, "key": summaries[k][0], "summary": summaries[k][1].to_json()}, separators=(",", ":")) for k in kept)
    try:
        write_atomically(path, chunked(lines))
    except OSError as problem:
        log.warning("history cache not written: %s", problem)


def chunked(lines: Iterable[str], size: int = 64 * 1024) -> Iterator[bytes]:
    """`lines`, each ended by a newline, as UTF-8 in chunks of about `size` bytes (a file written as
    it is made: the page's cache of 1,000 games is half a megabyte, never whole in memory).

    >>> list(chunked(["a", "é"], size=2))
    [b'a\\n', b'\\xc3\\xa9\\n']
    """
    batch: list[str] = []
    held = 0
    for line in lines:
        batch.append(line)
        held += len(line) + 1
        if held >= size:
            yield ("\n".join(batch) + "\n").encode()
            batch, held = [], 0
    if batch:
        yield ("\n".join(batch) + "\n").encode()


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


def with_date(summary: GameSummary, started: str | None, ended: object = None) -> GameSummary:
    """The summary with the journal's dates of the game (`started.<id>`, `ended.<id>`: corrected there
    when a phone gives an unsynchronised box its time), where they differ."""
    started = started if started is not None else summary.started
    ended = ended if isinstance(ended, str) else summary.ended
    if (started, ended) == (summary.started, summary.ended):
        return summary
    return replace(summary, started=started, ended=ended)
