"""Journals for the benchmarks, as a box would have written them: a long unfinished game, weeks of finished
ones, or a year of them (64 MB).

The games are Deck of Death games played by a seeded random player straight against the rules
(a press, a tap or a roll the game accepts, through ``GameSession.apply``, so the journal holds
what the box writes, checkpoints included). Each journal is built once per version of the
journal and session code and kept under the temp directory; a benchmark works on a copy.

    python bench/journals.py    # build both and print where they are
"""

from __future__ import annotations

import hashlib
import json
import random
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from benchlib import ROOT

LONG_GAME_ACTIONS = 40_000
"""A long, busy Deck of Death night: about four hours of play."""
WEEKS, NIGHTS_PER_WEEK, GAMES_PER_NIGHT, ACTIONS_PER_GAME = 6, 3, 4, 1_500
"""Weeks of finished games: six weeks, three nights a week, four games a night (108,000 actions)."""
BUTTONS = ("up", "down", "ok", "back")
READERS = ("left", "middle", "right")
CACHE = Path(tempfile.gettempdir()) / "gravebox-bench-journals"
YEAR_BYTES = 64 * 2**20
"""A year of games on a box: the weeks' finished games copied under new ids until the file holds 64 MB."""


def fingerprint() -> str:
    """A hash of the code that writes journals and the checkpoints' states: a change there builds them again.

    The rules and the box's version are in it too: a checkpoint of other rules is not used, and a
    journal of them would be replayed in full at every open, inflating every figure read from it.
    """
    digest = hashlib.sha256()
    rules = sorted((ROOT / "box" / "games" / "deck_of_death").glob("*.py"))
    code = (*sorted((ROOT / "box" / "journal").glob("*.py")), ROOT / "box/base/session.py", ROOT / "bench/journals.py")
    for source in (*code, *rules, ROOT / "box/games/base.py", ROOT / "box/__init__.py"):
        digest.update(source.read_bytes())
    return digest.hexdigest()[:12]


def new_session(journal: Any, seed: int, players: int = 6) -> Any:
    """A Deck of Death game started in ``journal`` as the box starts one (no hardware)."""
    from box.base.session import GameSession
    from box.games import rules_for

    rules = rules_for("deck-of-death")
    deck = rules.load_deck(None)
    names = [f"P{n}" for n in range(1, players + 1)]
    values = {option.key: option.parse(option.default) for option in rules.options}
    journal.start_game("deck-of-death", names, values, None)
    record = journal.unfinished_game()
    return GameSession(rules, deck, record, journal)


def play(session: Any, actions: int, rng: random.Random) -> int:
    """Apply ``actions`` accepted actions: the game's roll when it wants one, else presses and taps; answer the tries."""
    from box.games.base import Press, Roll, Step, Tap

    cards = list(session.deck.cards)
    tries = 0
    for _ in range(actions):
        while True:
            tries += 1
            pick = rng.random()
            if session.rules.wants_roll(session.state) and pick < 0.8:
                action: Any = Roll((rng.randint(1, 6), rng.randint(1, 6)))
            elif pick < 0.5:
                button = rng.choice(BUTTONS)
                action = Press(button, long=button != "ok" and rng.random() < 0.02)  # long OK would end the night
            else:
                action = Tap(rng.choice(READERS), rng.choice(cards))
            if isinstance(session.rules.apply(session.state, action), Step):
                session.apply(action)
                break
    return tries


def build_long_game(path: Path, actions: int = LONG_GAME_ACTIONS, seed: int = 1) -> None:
    """One unfinished game of ``actions`` actions."""
    from box.storage.journal import Journal

    journal = Journal(path)
    session = new_session(journal, seed)
    with journal.batch():  # one commit for the fixture, not one fsync per action
        play(session, actions, random.Random(seed))
    journal.close()


def build_weeks(path: Path, seed: int = 2) -> None:
    """Weeks of finished games, and a short game left unfinished (the box is resumed in it)."""
    from box.storage.journal import Journal

    journal = Journal(path)
    rng = random.Random(seed)
    for _ in range(WEEKS * NIGHTS_PER_WEEK * GAMES_PER_NIGHT):
        session = new_session(journal, rng.randrange(2**31))
        with journal.batch():
            play(session, ACTIONS_PER_GAME, rng)
        journal.finish_game(session.record.id)
    session = new_session(journal, seed)
    with journal.batch():
        play(session, 200, rng)
    journal.close()


def build_year(path: Path) -> None:
    """The weeks' journal grown to YEAR_BYTES: its finished games (their actions and checkpoints) copied
    under new game ids and action numbers, as more nights of the same games; the short game stays open."""
    import sqlite3

    shutil.copyfile(journal("weeks"), path)
    db = sqlite3.connect(path)
    finished = [row[0] for row in db.execute("SELECT id FROM games WHERE finished = 1 ORDER BY id")]
    while path.stat().st_size < YEAR_BYTES:
        with db:
            for game in finished:
                seq_offset = db.execute("SELECT MAX(seq) FROM actions").fetchone()[0]
                db.execute(
                    "INSERT INTO games (name, players, options, decks, finished) SELECT name, players, options, decks, finished"
                    " FROM games WHERE id = ?", (game,),
                )
                new = db.execute("SELECT last_insert_rowid()").fetchone()[0]
                db.execute(
                    "INSERT INTO actions (seq, game, action, undone) SELECT seq + ?, ?, action, undone FROM actions WHERE game = ?",
                    (seq_offset, new, game),
                )
                db.execute(
                    "INSERT INTO checkpoints (game, seq, count, version, state) SELECT ?, seq + ?, count, version, state"
                    " FROM checkpoints WHERE game = ?", (new, seq_offset, game),
                )
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()


BUILDERS = {"long-game": build_long_game, "weeks": build_weeks, "year": build_year}


def journal(kind: str) -> Path:
    """The cached journal of this ``kind`` ("long-game", "weeks" or "year"), built when missing."""
    path = CACHE / f"{kind}-{fingerprint()}.db"
    if not path.exists():
        CACHE.mkdir(parents=True, exist_ok=True)
        scratch = path.with_suffix(".building")
        scratch.unlink(missing_ok=True)
        BUILDERS[kind](scratch)
        scratch.replace(path)
    return path


def copy_to(kind: str, directory: Path) -> Path:
    """A copy of the cached journal as ``directory/journal.db`` (what the box opens)."""
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / "journal.db"
    shutil.copyfile(journal(kind), target)
    return target


if __name__ == "__main__":
    for name in BUILDERS:
        start = time.perf_counter()
        where = journal(name)
        print(json.dumps({"journal": name, "path": str(where), "s": round(time.perf_counter() - start, 1)}))
