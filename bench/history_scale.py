"""History at scale: the phone page over 1,000 finished games and a 40,000-action game in progress.

The journal is made as boxes write it: the four scenario games (bench/web_cost.py's scripts, real
play of each game with its figures) and Deck of Death nights of 1,500 actions each
(bench/journals.py's "weeks", played through ``GameSession``), copied until there are
``--games`` finished games, then a 40,000-action Deck of Death game (bench/journals.py's
``build_long_game``), with its checkpoints, left unfinished. The journal is built once per
version of the code that writes it and of the games' rules (a checkpoint holds their states), and
kept under the temp directory; each run works on a copy.

Then ``gravebox web`` runs in its own process, as the service starts it, twice:

1. after an upgrade: no ``web-history.json`` (the page's read model) and no ``history.jsonl``
   (the box's lines), as an older box left its state directory. ``first_view_s`` is the first
   ``/history``; ``read_model_built_s`` is how long until every finished game is summarised,
   every page asked in turn meanwhile (``p95_ms_while_counting``, over all pages).
2. a restart with the read model on disk.

Each time every page (bench/web_cost.py's PAGES) is asked for ``--rounds`` times: the p95 per
page, and the process's peak RSS (VmHWM) over the whole run. Goals: every page's p95 <= 300 ms,
the first view after an upgrade <= 3 s, the peak RSS <= 45 MB. The floor beside the pages is the
cheapest page (``/pair``: no journal read), the floor beside the RSS the process after start-up.

Run from the repository root: ``python bench/history_scale.py [--games 1000] [--rounds 20]``.
Prints JSON.
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import sqlite3
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from benchlib import ROOT, emit, percentile
from journals import CACHE, build_long_game, fingerprint
from journals import journal as bench_journal
from web_cost import PAGES, free_port, play_games, start_web, status_kb

GOAL_P95_MS = 300.0
GOAL_FIRST_VIEW_S = 3.0
GOAL_RSS_MB = 45.0
NIGHTS_PER_SCENARIO_GAME = 2  # two Deck of Death nights for every short scenario game: about 58 kB a game


def copy_game(db: sqlite3.Connection, source: str, game: int, finished: bool, seq_offset: int | None = None) -> int:
    """Copy game `game` of the attached journal `source` into `db` (its actions, and its checkpoints
    when `seq_offset` keeps their sequence numbers apart); answers the new game's id."""
    cursor = db.execute(
        f"INSERT INTO games (name, players, options, decks, finished) SELECT name, players, options, decks, ?"
        f" FROM {source}.games WHERE id = ?",
        (int(finished), game),
    )
    new = cursor.lastrowid
    assert new is not None, "an INSERT gives its row's id"
    if seq_offset is None:
        db.execute(
            f"INSERT INTO actions (game, action, undone) SELECT ?, action, undone FROM {source}.actions"
            f" WHERE game = ? ORDER BY seq",
            (new, game),
        )
        return new
    db.execute(
        f"INSERT INTO actions (seq, game, action, undone) SELECT seq + ?, ?, action, undone FROM {source}.actions"
        f" WHERE game = ? ORDER BY seq",
        (seq_offset, new, game),
    )
    db.execute(
        f"INSERT INTO checkpoints (game, seq, count, version, state) SELECT ?, seq + ?, count, version, state"
        f" FROM {source}.checkpoints WHERE game = ?",
        (new, seq_offset, game),
    )
    return new


def build(path: Path, games: int) -> None:
    """A journal of `games` finished games and the 40,000-action game in progress."""
    from box.storage.journal import Journal

    with tempfile.TemporaryDirectory(prefix="gravebox-bench-") as scratch:
        played = Path(scratch) / "played"
        play_games(played)  # the four games, the last one left in play
        Journal(path).close()  # the schema as the box makes it
        db = sqlite3.connect(path, isolation_level=None)
        db.execute("ATTACH ? AS scenario", (str(played / "journal.db"),))
        db.execute("ATTACH ? AS weeks", (str(bench_journal("weeks")),))
        build_long_game(Path(scratch) / "long.db")  # checkpoints of this code's states: its own build
        db.execute("ATTACH ? AS long", (str(Path(scratch) / "long.db"),))
        short = [row[0] for row in db.execute("SELECT id FROM scenario.games ORDER BY id")]
        nights = [row[0] for row in db.execute("SELECT id FROM weeks.games WHERE finished = 1 ORDER BY id")]
        db.execute("BEGIN")
        for number in range(games):
            if number % (NIGHTS_PER_SCENARIO_GAME + 1) == 0:
                copy_game(db, "scenario", short[number // 3 % len(short)], finished=True)
            else:
                copy_game(db, "weeks", nights[number % len(nights)], finished=True)
        last = db.execute("SELECT MAX(seq) FROM actions").fetchone()[0]
        long_game = db.execute("SELECT id FROM long.games WHERE finished = 0").fetchone()[0]
        copy_game(db, "long", long_game, finished=False, seq_offset=last)
        db.execute("COMMIT")
        db.execute("DETACH scenario")
        db.execute("DETACH weeks")
        db.execute("DETACH long")
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        db.close()


def cached_journal(games: int) -> Path:
    """The bench journal of `games` finished games, built when missing."""
    digest = hashlib.sha256(Path(__file__).read_bytes())
    for source in sorted((ROOT / "box").glob("games/**/*")) + sorted((ROOT / "box" / "decks").glob("*")):
        if source.is_file() and source.suffix in (".py", ".csv", ".toml"):  # a checkpoint's version names the rules' states
            digest.update(source.read_bytes())
    path = CACHE / f"history-{games}-{fingerprint()}-{digest.hexdigest()[:8]}.db"
    if not path.exists():
        CACHE.mkdir(parents=True, exist_ok=True)
        scratch = path.with_suffix(".building")
        for leftover in scratch.parent.glob(scratch.name + "*"):
            leftover.unlink()
        build(scratch, games)
        scratch.replace(path)
    return path


def with_read_model(games: int) -> Path:
    """A state directory of the bench journal with the page's read model complete (web-history.json),
    as a page that has run leaves it: built when missing, kept beside the journal."""
    journal = cached_journal(games)
    state_dir = journal.with_suffix(".state")
    if not (state_dir / "web-history.json").exists():
        from box.web.journal_view import JournalView
        from box.web.summaries import HISTORY_FILE

        state_dir.mkdir(exist_ok=True)
        shutil.copyfile(journal, state_dir / "journal.db")
        view = JournalView(state_dir / "journal.db", cache=state_dir / "building")
        view.history()
        if view.worker is not None:
            view.worker.join()
        (state_dir / "building").replace(state_dir / HISTORY_FILE)
    return state_dir


def summarised(state_dir: Path) -> int:
    """How many games the page's read model (web-history.json, one game a line) holds."""
    try:
        return (state_dir / "web-history.json").read_bytes().count(b"\n")
    except OSError:
        return 0


def get_ms(port: int, page: str) -> float:
    start = time.perf_counter()
    urllib.request.urlopen(f"http://127.0.0.1:{port}{page}", timeout=120).read()
    return (time.perf_counter() - start) * 1000


def serve(state_dir: Path, runtime: Path, rounds: int, finished: int, build_timeout: float) -> dict[str, Any]:
    """Start `gravebox web`, time the first /history, wait for the read model, then every page."""
    port = free_port()
    process = start_web(state_dir, runtime, port, answered=False)
    try:
        started_kb = status_kb(process.pid, "VmRSS")
        start = time.perf_counter()
        first_ms = get_ms(port, "/history")
        meanwhile: list[float] = []  # every page asked in turn while the worker counts
        while summarised(state_dir) < finished and time.perf_counter() - start < build_timeout:
            for page in PAGES:
                meanwhile.append(get_ms(port, page))
        built_s = time.perf_counter() - start
        complete = summarised(state_dir) >= finished
        timings: dict[str, list[float]] = {page: [] for page in PAGES}
        for _ in range(rounds):
            for page in PAGES:
                timings[page].append(get_ms(port, page))
        peak_kb = status_kb(process.pid, "VmHWM")
    finally:
        process.terminate()
        process.wait(10)
    p95 = {page: round(percentile(values, 95), 1) for page, values in timings.items()}
    return {
        "first_view_s": round(first_ms / 1000, 2),
        "read_model_built_s": round(built_s, 1) if complete else None,
        "pages_while_counting": len(meanwhile),
        "p95_ms_while_counting": round(percentile(meanwhile, 95), 1) if meanwhile else None,
        "p95_ms": p95,
        "worst_p95_ms": max(p95.values()),
        "floor_p95_ms": p95.get("/pair"),
        "rss_started_mb": round(started_kb / 1024, 1),
        "rss_peak_mb": round(peak_kb / 1024, 1),
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=1000, help="finished games in the journal (default 1000)")
    parser.add_argument("--rounds", type=int, default=20, help="times each page is asked for (default 20)")
    parser.add_argument("--build-timeout", type=float, default=300.0, help="seconds to wait for the read model")
    args = parser.parse_args(argv)
    import logging

    logging.disable(logging.WARNING)  # the scenario boxes resume each other's games with other decks
    start = time.perf_counter()
    journal = cached_journal(args.games)
    built_s = time.perf_counter() - start
    with tempfile.TemporaryDirectory(prefix="gravebox-bench-") as scratch:
        state_dir, runtime = Path(scratch) / "state", Path(scratch) / "run"
        state_dir.mkdir()
        shutil.copyfile(journal, state_dir / "journal.db")
        size_mb = (state_dir / "journal.db").stat().st_size / 1e6
        db = sqlite3.connect(state_dir / "journal.db")
        in_play = db.execute("SELECT COUNT(*) FROM actions WHERE game = (SELECT MAX(id) FROM games)").fetchone()[0]
        db.close()
        upgrade = serve(state_dir, runtime, args.rounds, args.games, args.build_timeout)
        restart = serve(state_dir, runtime, args.rounds, args.games, args.build_timeout)
    worst_p95 = max(upgrade["worst_p95_ms"], restart["worst_p95_ms"])
    peak = max(upgrade["rss_peak_mb"], restart["rss_peak_mb"])
    figures = {
        "finished_games": args.games,
        "actions_in_play": in_play,
        "journal_mb": round(size_mb, 1),
        "journal_built_s": round(built_s, 1),
        "after_upgrade": upgrade,
        "after_restart": restart,
        "page_p95_ms": {"now": worst_p95, "goal": GOAL_P95_MS, "floor": restart["floor_p95_ms"]},
        "first_view_after_upgrade_s": {"now": upgrade["first_view_s"], "goal": GOAL_FIRST_VIEW_S},
        "web_rss_peak_mb": {"now": peak, "goal": GOAL_RSS_MB, "floor": upgrade["rss_started_mb"]},
        "meets_target": {
            "page_p95": worst_p95 <= GOAL_P95_MS,
            "first_view": upgrade["first_view_s"] <= GOAL_FIRST_VIEW_S,
            "rss": peak <= GOAL_RSS_MB,
        },
        "target": (
            f"every page's p95 <= {GOAL_P95_MS:.0f} ms, the first view after an upgrade <= {GOAL_FIRST_VIEW_S:.0f} s,"
            f" the web process <= {GOAL_RSS_MB:.0f} MB"
        ),
    }
    return emit("history_scale", figures)


if __name__ == "__main__":
    main()
