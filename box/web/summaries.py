"""Finished games as the history shows them: each one's summary, and the page's cache file of them.

A summary is made once per finished game (from the box's history line, box/storage/history.py, or a
replay) and kept in `web-history.json` in the state directory, JSON lines: one game a line, read a
line at a time, its names, options and figures held once in memory (`Shared`).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from box.files.bounded import write_atomically
from box.games import rules_for
from box.games.base import Figure, Figures
from box.storage.history import Played
from box.storage.journal import GameRecord

log = logging.getLogger(__name__)

HISTORY_FILE = "web-history.json"
SUMMARY_FORMAT = 3  # a summary kept in HISTORY_FILE by other code is made again
MAX_KEPT_LINE = 64 * 1024  # one game's summary in the cache file is a few hundred bytes


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


def write_kept(path: Path, summaries: Mapping[int, tuple[str, GameSummary]]) -> None:
    """Write the summaries of finished games, one a line, to the cache file (atomically; a failure is only logged)."""
    kept = sorted(summaries.items())
    lines = (json.dumps({"id": k, "key": key, "summary": s.to_json()}, separators=(",", ":")) for k, (key, s) in kept)
    try:
        write_atomically(path, "".join(line + "\n" for line in lines))
    except OSError as problem:
        log.warning("history cache not written: %s", problem)


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
    )


def with_date(summary: GameSummary, started: str | None) -> GameSummary:
    if started is None or summary.started == started:
        return summary
    return replace(summary, started=started)
