"""Undo and resume at the end of a long game, against one durable SQLite commit (the floor).

On a copy of each bench journal (bench/journals.py: a 40,000-action Deck of Death game, and six
weeks of finished games with a short one open), in a fresh process: resume the unfinished game
(``GameSession`` as the box builds it at start: the journal read, the state rebuilt), then take
back ``--undos`` actions one by one, each a durable write and the state rebuilt, timing each.
The floor, measured in the same run on the same file system: one SQLite commit with fsync
(WAL, ``synchronous=FULL``, as the journal is opened), which every undo must make.

``k_choice`` is how the checkpoint interval K was chosen: from the long game's own actions, the
cost of replaying one action and of saving one checkpoint, and what each K would make of the
worst undo's replay, the checkpoints' share of the work per action, and their bytes per action.
While the box runs it keeps the states since the newest checkpoint, so only an undo that crosses
a checkpoint (and a resume) replays: K bounds those, at most K - 1 actions.

Run from the repository root: ``python bench/undo.py [--undos 200]``. Prints JSON.
"""

from __future__ import annotations

import argparse
import sqlite3
import tempfile
import time
from pathlib import Path
from typing import Any

from benchlib import emit, filesystem_of, summary_ms
from journals import copy_to

TARGET_UNDO_MS = 5.0


def commit_floor_ns(directory: Path, commits: int = 100) -> list[int]:
    """Times of one small durable commit, each alone, in a WAL database opened as the journal is."""
    db = sqlite3.connect(directory / "floor.db", isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute("CREATE TABLE t (n INTEGER)")
    times = []
    for n in range(commits):
        start = time.perf_counter_ns()
        db.execute("INSERT INTO t VALUES (?)", (n,))
        times.append(time.perf_counter_ns() - start)
    db.close()
    return times


def k_choice(session: Any, journal: Any) -> dict[str, Any]:
    """Replay and checkpoint costs measured on the game's last 2,000 actions, and what each K makes of them."""
    from box.base.session import decode
    from box.games.base import Step

    rows = journal.actions(session.record.id, after=max(0, (session.last_seq or 0) - 2_000))
    actions = [decode(data) for _, data in rows]
    state = session.state
    start = time.perf_counter_ns()
    for action in actions:  # the same actions again from the end state: a realistic mix of accepted and not
        result = session.rules.apply(state, action)
        state = result.state if isinstance(result, Step) else state
    apply_us = (time.perf_counter_ns() - start) / 1e3 / max(1, len(actions))
    start = time.perf_counter_ns()
    for _ in range(50):
        blob = session.codec.dump(session.state)
    dump_us = (time.perf_counter_ns() - start) / 1e3 / 50
    return {
        "apply_us_per_action": round(apply_us, 1),
        "checkpoint_dump_us": round(dump_us, 1),
        "checkpoint_bytes": len(blob),
        "by_k": {
            str(k): {
                "worst_undo_replay_ms": round((k - 1) * apply_us / 1e3, 2),
                "checkpoint_us_per_action": round(dump_us / k, 2),
                "checkpoint_bytes_per_action": round(len(blob) / k, 1),
            }
            for k in (16, 32, 64, 128, 256)
        },
        "k": session.checkpoint_every,
    }


def measure(kind: str, directory: Path, undos: int) -> dict[str, Any]:
    """Resume and undo on a copy of the ``kind`` journal."""
    from box.base.session import GameSession
    from box.games import rules_for
    from box.storage.journal import Journal

    path = copy_to(kind, directory / kind)
    start = time.perf_counter_ns()
    journal = Journal(path)
    record = journal.unfinished_game()
    assert record is not None
    rules = rules_for(record.name)
    session = GameSession(rules, rules.load_deck(None), record, journal)
    resumed_ns = time.perf_counter_ns() - start
    actions = session.count
    choice = k_choice(session, journal) if kind == "long-game" else None
    times = []
    for _ in range(undos):
        start = time.perf_counter_ns()
        assert session.undo()
        times.append(time.perf_counter_ns() - start)
    journal.close()
    return {
        "actions_in_game": actions,
        "finished_games": kind == "weeks",
        "resume_ms": round(resumed_ns / 1e6, 2),
        "undo_ms": summary_ms(times),
        **({"k_choice": choice} if choice else {}),
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Run the benchmark and print its figures as one JSON line."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--undos", type=int, default=200, help="actions taken back in each game (default 200)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="gravebox-bench-") as name:
        scratch = Path(name)
        floor = summary_ms(commit_floor_ns(scratch))
        games = {kind: measure(kind, scratch, args.undos) for kind in ("long-game", "weeks")}
        fs = filesystem_of(scratch)
    long_p50 = games["long-game"]["undo_ms"]["p50"]
    return emit(
        "undo",
        {
            **games,
            "floor_commit_ms": floor,
            "journal_fs": fs,
            "meets_target": long_p50 <= TARGET_UNDO_MS,
            "target": f"undo median <= {TARGET_UNDO_MS:.0f} ms at any game length (its p99 is the disk's commit tail)",
        },
    )


if __name__ == "__main__":
    main()
