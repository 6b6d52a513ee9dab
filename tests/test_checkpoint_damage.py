"""Checkpoints are a cache: any damage to them costs a replay of the game's actions, never the game.

A schema changed in place (the hostile-inputs reproduction: `state BLOB` made `statf BLOB`), a
table renamed or dropped, rows of the wrong types or counts, a state whose checksum fails, a
state that will not load: the journal is never set aside for them, the game in play resumes as
the full replay of its actions gives it, new games start, and the checkpoints are made anew.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from box.base.session import GameSession, full_replay
from box.base.settings import Settings
from box.core.service import Box
from box.games import GAMES, rules_for
from box.games.base import Tap
from box.screens.tools import DiceCup
from box.storage.journal import Journal
from box.storage.journal.checkpoints import frame, table_is_sound
from box.storage.tags import TagMap
from tests.test_checkpoints import accepted, start

DAMAGE = {
    "renamed-column": [
        "PRAGMA writable_schema=ON",
        "UPDATE sqlite_master SET sql = replace(sql, 'state BLOB', 'statf BLOB') WHERE name = 'checkpoints'",
    ],
    "changed-type": [
        "PRAGMA writable_schema=ON",
        "UPDATE sqlite_master SET sql = replace(sql, 'state BLOB', 'state TEXT') WHERE name = 'checkpoints'",
    ],
    "renamed-table": [
        "PRAGMA writable_schema=ON",
        "UPDATE sqlite_master SET name = replace(name, 'checkpoints', 'checkpointz'),"
        " tbl_name = replace(tbl_name, 'checkpoints', 'checkpointz'),"
        " sql = replace(sql, 'checkpoints', 'checkpointz')",
    ],
    "dropped-table": ["DROP TABLE checkpoints"],
    "count-of-zero": ["UPDATE checkpoints SET count = 0"],
    "seq-as-text": ["UPDATE checkpoints SET seq = 'x' || seq"],
    "flipped-state-byte": ["UPDATE checkpoints SET state = substr(state, 1, 30) || x'00' || substr(state, 32)"],
    "state-not-framed": ["UPDATE checkpoints SET state = x'80055d942e'"],
    "checkpoint-of-an-undone-action": [
        "UPDATE actions SET undone = 1 WHERE seq = (SELECT MAX(seq) FROM checkpoints)"
    ],
}


def played(path: Path, actions: int = 10) -> GameSession:
    session = start("deck-of-death", every=4, journal=Journal(path))
    accepted(session, actions)
    assert session.journal.db.execute("SELECT COUNT(*) FROM checkpoints").fetchone() == (actions // 4,)
    session.journal.close()
    return session


def edit(path: Path, statements: list[str]) -> None:
    db = sqlite3.connect(path, isolation_level=None)
    for statement in statements:
        db.execute(statement)
    db.close()


def resume(path: Path, played: GameSession) -> GameSession:
    journal, damaged = Journal.open_or_recover(path)
    assert damaged is None
    record = journal.unfinished_game()
    assert record is not None
    return GameSession(played.rules, played.deck, record, journal, checkpoint_every=4)


@pytest.mark.parametrize("kind", list(DAMAGE))
@pytest.mark.parametrize("stop", ["clean", "unclean"])
def test_damaged_checkpoints_are_made_anew_and_the_game_is_kept(tmp_path: Path, kind: str, stop: str) -> None:
    path = tmp_path / "journal.db"
    session = played(path)
    edit(path, DAMAGE[kind] + (["DELETE FROM box WHERE key = 'journal.clean'"] if stop == "unclean" else []))
    again = resume(path, session)
    journal = again.journal
    count = journal.db.execute(
        "SELECT COUNT(*) FROM actions WHERE game = ? AND undone = 0", (again.record.id,)
    ).fetchone()[0]
    assert again.count == count and again.state == full_replay(again.rules, again.deck, again.record, journal)
    assert not list(tmp_path.glob("journal.db.bad-*"))
    assert table_is_sound(journal.db)  # made anew, with the resume's checkpoints in it
    assert journal.checkpoint(again.record.id) is not None
    accepted(again, 5)
    journal.close()
    assert Journal.open_or_recover(path)[1] is None
    assert resume(path, session).state == again.state


def test_the_issue_reproduction_a_renamed_column_loses_neither_the_game_nor_later_games(tmp_path: Path) -> None:
    decks = {game: rules_for(game).load_deck() for game in GAMES}
    path = tmp_path / "journal.db"

    def boot() -> Box:
        journal, damaged = Journal.open_or_recover(path)
        assert damaged is None
        box = Box(journal, TagMap(), DiceCup.seeded(1), Settings(), decks=decks)
        box.screen(0.0)
        return box

    box = boot()
    box.lobby.start_game("dead-set", 1.0, players=3)
    for n, card in enumerate(list(decks["dead-set"].cards)[:5]):
        box.game.act(Tap("middle", card), 2.0 + n)
    box.journal.close()
    edit(path, DAMAGE["renamed-column"])
    for boot_number in range(2):
        box = boot()
        assert box.session is not None, f"boot {boot_number}: the game in play was lost"
        assert (box.session.record.name, box.session.count) == (("dead-set", 5) if boot_number == 0 else ("deadlines", 1))
        box.lobby.start_game("deadlines", 20.0, players=2)
        box.game.act(Tap("left", next(iter(decks["deadlines"].cards))), 21.0)
        assert box.session.count == 1
        box.journal.close()


def test_checkpoints_lost_while_the_box_runs_are_made_anew_without_refusing_an_input(tmp_path: Path) -> None:
    path = tmp_path / "journal.db"
    session = start("deck-of-death", every=4, journal=Journal(path))
    accepted(session, 3)
    other = sqlite3.connect(path)  # another program drops the table under the running box
    other.execute("DROP TABLE checkpoints")
    other.commit()
    other.close()
    accepted(session, 6)  # a checkpoint falls due at the 4th and the 8th: the action is kept, the table made anew
    assert session.count == 9 and table_is_sound(session.journal.db)
    assert session.journal.checkpoint(session.record.id) is not None
    assert session.undo() and session.count == 8
    session.journal.start_game("dead-set", ["A", "B"], {}, None)
    assert session.journal.db.execute("SELECT COUNT(*) FROM checkpoints").fetchone() == (0,)


def test_a_state_that_will_not_load_though_its_checksum_holds_is_replayed(tmp_path: Path) -> None:
    path = tmp_path / "journal.db"
    session = played(path)
    db = sqlite3.connect(path)
    db.execute("UPDATE checkpoints SET state = ?", (frame(b"\x80\x05not a pickle"),))
    db.commit()
    db.close()
    again = resume(path, session)
    assert again.state == session.state and again.count == 10
