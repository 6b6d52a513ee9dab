"""The journal: durable actions, resume, undo, and a damaged file kept aside."""

import os

from box.journal import Journal


def test_actions_survive_closing_and_reopening(tmp_path):
    path = tmp_path / "journal.db"
    journal = Journal(path)
    game = journal.start_game("dead-set", ["A", "B"], {"target": "13"}, None)
    journal.append(game, {"t": "press", "b": "ok", "l": False})
    journal.append(game, {"t": "tap", "r": "left", "c": "ds001"})
    journal.close()

    again = Journal(path)
    record = again.unfinished_game()
    assert record is not None and record.id == game and record.players == ["A", "B"]
    assert [a for _, a in again.actions(game)] == [
        {"t": "press", "b": "ok", "l": False},
        {"t": "tap", "r": "left", "c": "ds001"},
    ]


def test_the_journal_uses_wal_and_full_sync(tmp_path):
    journal = Journal(tmp_path / "j.db")
    assert journal.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert journal.db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_undo_marks_an_action_and_hides_it(tmp_path):
    journal = Journal(tmp_path / "j.db")
    game = journal.start_game("dead-set", ["A"], {}, None)
    first = journal.append(game, {"t": "press", "b": "ok"})
    second = journal.append(game, {"t": "press", "b": "up"})
    journal.undo(second)
    assert [seq for seq, _ in journal.actions(game)] == [first]


def test_starting_a_game_finishes_the_previous_one(tmp_path):
    journal = Journal(tmp_path / "j.db")
    journal.start_game("dead-set", ["A"], {}, None)
    newer = journal.start_game("deadlines", ["A"], {}, None)
    assert journal.unfinished_game().id == newer
    journal.finish_game(newer)
    assert journal.unfinished_game() is None


def test_box_values_persist(tmp_path):
    journal = Journal(tmp_path / "j.db")
    journal.put("best_chug", 3.25)
    journal.close()
    assert Journal(tmp_path / "j.db").get("best_chug") == 3.25


def test_a_damaged_file_is_kept_and_a_new_journal_started(tmp_path):
    path = tmp_path / "journal.db"
    path.write_bytes(b"SQLite format 3\x00" + b"\xff" * 3000)
    journal, damaged = Journal.open_or_recover(path)
    assert damaged is not None
    assert damaged.kept.exists()
    assert damaged.kept.read_bytes().startswith(b"SQLite format 3")
    assert journal.unfinished_game() is None
    journal.start_game("dead-set", ["A"], {}, None)


def test_a_truncated_journal_is_recovered(tmp_path):
    path = tmp_path / "journal.db"
    journal = Journal(path)
    game = journal.start_game("dead-set", ["A"], {}, None)
    for n in range(200):
        journal.append(game, {"t": "press", "b": "ok", "n": n})
    journal.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    journal.close()
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 3])
    reopened, damaged = Journal.open_or_recover(path)
    assert damaged is not None
    assert reopened.unfinished_game() is None


def test_garbage_in_a_row_counts_as_damage(tmp_path):
    path = tmp_path / "journal.db"
    journal = Journal(path)
    game = journal.start_game("dead-set", ["A"], {}, None)
    journal.db.execute("INSERT INTO actions (game, action) VALUES (?, ?)", (game, "{not json"))
    journal.close()
    _, damaged = Journal.open_or_recover(path)
    assert damaged is not None
    assert "unreadable row" in str(damaged)


def test_a_journal_that_cannot_be_opened_is_not_treated_as_damage(tmp_path):
    import pytest

    from box.journal import JournalUnavailable

    with pytest.raises(JournalUnavailable, match="state directory"):
        Journal.open_or_recover(tmp_path / "missing" / "journal.db")
    path = tmp_path / "journal.db"
    Journal(path).close()
    path.chmod(0o000)
    try:
        if os.access(path, os.R_OK):  # root reads anything: nothing to test there
            return
        with pytest.raises(JournalUnavailable, match="not readable"):
            Journal.open_or_recover(path)
        assert path.exists() and not list(tmp_path.glob("journal.db.bad-*"))
    finally:
        path.chmod(0o600)
