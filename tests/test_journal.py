"""The journal: durable actions, resume, undo, and a damaged file kept aside."""

import os
import sqlite3
from pathlib import Path

import pytest

from box.storage.journal import VERSION, Journal, JournalTooNew, StorageError, make_state_directory


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

    from box.storage.journal import JournalUnavailable

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


# ----- judged before anything writes to it -------------------------------------------------


def played(path: Path, clean: bool = True) -> int:
    journal = Journal(path)
    game = journal.start_game("dead-set", ["A", "B"], {"target": "13"}, None)
    for n in range(5):
        journal.append(game, {"t": "press", "b": "ok", "n": n})
    journal.put("best_chug", 3.5)
    if clean:
        journal.close()
    else:  # a power cut: the files as they are, the connection dropped without a close
        copies = {suffix: Path(f"{path}{suffix}").read_bytes() for suffix in ("", "-wal")}
        journal.close()
        for suffix, data in copies.items():
            Path(f"{path}{suffix}").write_bytes(data)
    return game


def edit(path: Path, *statements: str) -> None:
    db = sqlite3.connect(path)
    db.execute("PRAGMA writable_schema=ON")
    for statement in statements:
        db.execute(statement)
    db.commit()
    db.close()


def assert_set_aside(path: Path, original: bytes, damaged) -> None:
    assert damaged is not None
    assert damaged.kept.read_bytes() == original, "the kept copy is not the file as it was"


@pytest.mark.parametrize(
    "statements",
    [
        ["UPDATE box SET value = '{3.5' WHERE key = 'best_chug'"],
        ["UPDATE sqlite_master SET sql = replace(sql, 'players TEXT', 'playerz TEXT') WHERE name = 'games'"],
        [
            "UPDATE sqlite_master SET sql = replace(sql, 'decks TEXT', cast(x'64ff636b73' as text) || ' TEXT')"
            " WHERE name = 'games'"
        ],
        ["UPDATE games SET players = cast(x'5b22ff225d' as text)"],
        ["UPDATE games SET options = '[1, 2]'"],
        ["UPDATE actions SET action = '[\"press\"]' WHERE seq = 2"],
    ],
    ids=[
        "bad-json-in-box",
        "renamed-column",
        "non-utf8-schema",
        "non-utf8-value",
        "options-not-a-map",
        "action-not-a-map",
    ],
)
def test_damage_the_integrity_check_cannot_see_is_set_aside(tmp_path, statements) -> None:
    path = tmp_path / "journal.db"
    played(path)
    edit(path, *statements)
    original = path.read_bytes()
    journal, damaged = Journal.open_or_recover(path)
    assert_set_aside(path, original, damaged)
    assert journal.unfinished_game() is None
    journal.close()
    again, damaged = Journal.open_or_recover(path)
    assert damaged is None
    again.close()


def test_another_programs_database_is_set_aside_without_a_write(tmp_path) -> None:
    path = tmp_path / "journal.db"
    db = sqlite3.connect(path)  # rollback journal mode, another application's tables
    db.execute("CREATE TABLE songs (title TEXT)")
    db.execute("INSERT INTO songs VALUES ('Danse macabre')")
    db.commit()
    db.close()
    original = path.read_bytes()
    journal, damaged = Journal.open_or_recover(path)
    assert_set_aside(path, original, damaged)
    journal.close()
    foreign = tmp_path / "other.db"  # in WAL mode, with an application id of its own
    db = sqlite3.connect(foreign)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA application_id=1234")
    db.execute("CREATE TABLE games (id)")
    db.commit()
    db.close()
    foreign.replace(path)
    original = path.read_bytes()
    journal, damaged = Journal.open_or_recover(path)
    assert_set_aside(path, original, damaged)
    assert "another program" in damaged.reason
    journal.close()


def test_a_journal_of_a_later_version_is_refused_and_left_alone(tmp_path) -> None:
    path = tmp_path / "journal.db"
    played(path)
    edit(path, f"PRAGMA user_version={VERSION + 1}")
    original = path.read_bytes()
    with pytest.raises(JournalTooNew, match="later Gravebox"):
        Journal.open_or_recover(path)
    assert path.read_bytes() == original and not list(tmp_path.glob("*.bad-*"))
    db = sqlite3.connect(path)
    assert db.execute("SELECT count(*) FROM games WHERE finished = 0").fetchone()[0] == 1, "marked finished"
    db.close()


def test_a_journal_written_before_versions_is_kept_and_brought_up_to_date(tmp_path) -> None:
    path = tmp_path / "journal.db"
    game = played(path)
    edit(path, "PRAGMA user_version=0", "PRAGMA application_id=0", "DROP INDEX actions_by_game")
    journal, damaged = Journal.open_or_recover(path)
    assert damaged is None and journal.unfinished_game().id == game
    journal.append(game, {"t": "press", "b": "up"})  # the first write brings it up to date
    assert journal.db.execute("PRAGMA user_version").fetchone()[0] == VERSION
    indexes = {row[1] for row in journal.db.execute("PRAGMA index_list(actions)")}
    assert "actions_by_game" in indexes
    journal.close()


def test_a_shm_or_wal_that_is_a_directory_does_not_stop_the_journal(tmp_path) -> None:
    path = tmp_path / "journal.db"
    game = played(path)
    (tmp_path / "journal.db-shm").mkdir()
    journal, damaged = Journal.open_or_recover(path)
    assert damaged is None and len(journal.actions(game)) == 5
    journal.append(game, {"t": "press", "b": "ok"})
    journal.close()
    (tmp_path / "journal.db-wal").mkdir()
    journal, damaged = Journal.open_or_recover(path)
    assert damaged is None and len(journal.actions(game)) == 6
    journal.close()


def test_a_start_reads_what_it_needs_and_the_whole_file_is_checked_after(tmp_path) -> None:
    """An index that disagrees with its table: `quick_check` passes it, `integrity_check` does not.
    A start does not read the whole file (READY must not grow with the years); `full_check`,
    run after READY, finds it, whether the last stop was clean or not."""
    from box.storage.journal import full_check

    for clean in (True, False):
        path = tmp_path / f"{clean}" / "journal.db"
        path.parent.mkdir()
        played(path, clean=clean)
        edit(path, "UPDATE sqlite_master SET sql = replace(sql, '(game, seq)', '(undone, seq)') WHERE type = 'index'")
        journal, damaged = Journal.open_or_recover(path)
        assert damaged is None, "the start read the whole file"
        journal.close()
        found = full_check(path)
        assert found is not None and "index" in found, found
    fresh = tmp_path / "fresh.db"
    played(fresh)
    assert full_check(fresh) is None


def test_damage_met_by_the_journal_in_use_sets_it_aside_and_starts_a_new_one(tmp_path) -> None:
    from box.storage.journal import JournalCorrupted

    path = tmp_path / "journal.db"
    game = played(path)
    journal, _ = Journal.open_or_recover(path)
    original = path.read_bytes()
    damaged = journal.start_over("database disk image is malformed")
    assert damaged.kept.read_bytes() == original and damaged.reason == "database disk image is malformed"
    assert journal.unfinished_game() is None and journal.fault is None
    assert journal.start_game("dead-set", ["A", "B"], {}, None) == 1, "a new journal, written at once"
    journal.close()
    assert issubclass(JournalCorrupted, StorageError) and game == 1


def test_two_set_asides_in_one_second_keep_both_files(tmp_path) -> None:
    path = tmp_path / "journal.db"
    kept = []
    for text in (b"first", b"second"):
        path.write_bytes(text * 100)
        journal, damaged = Journal.open_or_recover(path)
        kept.append(damaged.kept)
        journal.close()
        path.unlink()
    assert kept[0] != kept[1] and kept[0].read_bytes() != kept[1].read_bytes()


def test_a_fresh_state_folder_is_made_with_its_parents(tmp_path) -> None:
    folder = make_state_directory(tmp_path / "var" / "lib" / "gravebox")
    assert folder.is_dir()
    journal, damaged = Journal.open_or_recover(folder / "journal.db")
    assert damaged is None
    journal.close()


def test_another_process_may_read_the_journal_while_the_box_writes(tmp_path) -> None:
    """The phone page reads the history read-only while a game is played."""
    path = tmp_path / "journal.db"
    journal, _ = Journal.open_or_recover(path)
    game = journal.start_game("dead-set", ["A", "B"], {}, None)
    journal.append(game, {"t": "press", "b": "ok"})
    reader = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        assert reader.execute("SELECT count(*) FROM actions").fetchone()[0] == 1
        journal.append(game, {"t": "press", "b": "up"})
        assert reader.execute("SELECT count(*) FROM actions").fetchone()[0] == 2
    finally:
        reader.close()
        journal.close()
