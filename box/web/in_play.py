"""A game in play as the page rebuilds it when the box is not running: from its newest checkpoint
(the box saves one every few dozen actions, box/base/session.py) and the actions after it.

A checkpoint the page cannot use (damaged, absent, other code's) costs a replay from the first
action, logged, never a wrong state.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from box.base.session import StateCodec, decode
from box.decks.codec import Deck
from box.games import rules_for
from box.games.base import Setup, Step
from box.storage.journal import GameRecord
from box.storage.journal.checkpoints import NEWEST, row_problem, unframe
from box.web.summaries import GameSummary, summary_of

log = logging.getLogger(__name__)

ACTIONS_AFTER = "SELECT seq, action FROM actions WHERE game = ? AND seq > ? AND undone = 0 ORDER BY seq"
IN_FORCE = "SELECT 1 FROM actions WHERE seq = ? AND undone = 0"


def decoded(rows: Iterable[tuple[int, str]]) -> Iterator[tuple[int, dict[str, Any]]]:
    """Journal rows `(seq, action text)` as `(seq, action)`, one at a time (a cursor streams them)."""
    for seq, text in rows:
        yield seq, json.loads(text)


@dataclass(frozen=True)
class InPlay:
    """A game in play as the page last rebuilt it: its state after action `seq`, the `count`-th in force."""

    game: int
    seq: int
    count: int
    state: Any
    summary: GameSummary
    dump: dict[str, Any]  # as the table may see it (the game's `secrets` taken out)


def checkpoint(db: sqlite3.Connection, record: GameRecord, first: Any) -> tuple[int, int, Any] | None:
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


def rebuild(db: sqlite3.Connection, record: GameRecord, last: int | None, known: InPlay | None, deck: Callable[[], Deck]) -> InPlay:
    """The game in play after action `last`: `known` (as last rebuilt) when the journal has nothing new,
    else from there (its newest action then is still in force), else from its newest checkpoint."""
    if known is not None and known.seq == (last or 0):
        return known
    rules = rules_for(record.name)
    if known is not None and known.seq and db.execute(IN_FORCE, (known.seq,)).fetchone():
        seq, count, state = known.seq, known.count, known.state
    else:
        first = rules.new(Setup(tuple(record.players), dict(record.options)), deck())
        seq, count, state = checkpoint(db, record, first) or (0, 0, first)
    for _, action in decoded(db.execute(ACTIONS_AFTER, (record.id, seq))):  # the same read transaction
        result = rules.apply(state, decode(action))
        if isinstance(result, Step):
            state = result.state
        count += 1
    return InPlay(record.id, last or 0, count, state, summary_of(record, state, count), rules.public(state))
