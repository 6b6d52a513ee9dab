"""Storage faults are not damage: a full or failing card keeps the journal as it is.

Without root, a file-size limit (`resource.setrlimit(RLIMIT_FSIZE)`) in a child
process makes every write past it fail as on a full card; as root, the same runs
on a real, small tmpfs as well.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from box.storage.journal import Journal, StorageError

REPO = Path(__file__).resolve().parent.parent
FULL_REASONS = {"Storage full", "Storage failing"}  # SQLite says FULL or IOERR_WRITE, as the kernel answers

CHILD = r"""
import json, resource, signal, sys
from pathlib import Path
from box.storage.journal import Journal, StorageError

path, limit, actions = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG, as on a full card
report = {"accepted": [], "refused": None, "untouched": None}
if limit:
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))
journal, damaged = Journal.open_or_recover(path)
report["damaged"] = damaged is not None
record = journal.unfinished_game()
game = record.id if record else journal.start_game("dead-set", ["A", "B"], {}, None)
for n in range(actions):
    try:
        report["accepted"].append(journal.append(game, {"t": "press", "b": "ok", "n": n}))
    except StorageError as error:
        report["refused"] = error.reason
        break
report["healthy_while_full"] = journal.healthy()
resource.setrlimit(resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))  # space freed
report["healthy_after"] = journal.healthy()
report["accepted"].append(journal.append(game, {"t": "press", "b": "ok", "n": "after"}))
journal.close()
print(json.dumps(report))
"""


def run_child(path: Path, limit: int, actions: int) -> dict:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    result = subprocess.run(
        [sys.executable, "-c", CHILD, str(path), str(limit), str(actions)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr, result.stderr
    return json.loads(result.stdout)


def journaled(path: Path) -> list[int]:
    journal, damaged = Journal.open_or_recover(path)
    try:
        assert damaged is None
        record = journal.unfinished_game()
        assert record is not None
        return [seq for seq, _ in journal.actions(record.id)]
    finally:
        journal.close()


def test_writes_refused_past_a_file_size_limit_lose_nothing_and_carry_on_when_space_is_back(tmp_path: Path) -> None:
    path = tmp_path / "journal.db"
    report = run_child(path, limit=256 * 1024, actions=5000)
    assert report["refused"] in FULL_REASONS, report
    assert not report["healthy_while_full"] and report["healthy_after"]
    assert len(report["accepted"]) > 10
    assert journaled(path) == report["accepted"], "an accepted action is missing"
    assert not list(tmp_path.glob("*.bad-*")), "a full card was taken for damage"


def test_a_card_already_full_at_boot_is_not_damage(tmp_path: Path) -> None:
    path = tmp_path / "journal.db"
    journal = Journal(path)
    game = journal.start_game("dead-set", ["A", "B"], {}, None)
    seqs = [journal.append(game, {"t": "press", "b": "ok"}) for _ in range(20)]
    journal.close()
    before = path.read_bytes()
    report = run_child(path, limit=1, actions=3)  # not one byte more may be written
    assert not report["damaged"] and report["refused"] in FULL_REASONS, report
    assert report["accepted"][:-1] == [], "a write past the limit was accepted"
    assert journaled(path) == seqs + report["accepted"]
    assert not list(tmp_path.glob("*.bad-*"))
    assert before  # the child wrote only after the limit was lifted


def test_a_storage_error_in_a_batch_undoes_what_the_batch_did(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "journal.db")
    game = journal.start_game("dead-set", ["A", "B"], {}, None)
    journal.db.execute("CREATE TRIGGER refuse BEFORE INSERT ON box BEGIN SELECT RAISE(ABORT, 'disk I/O'); END")
    done, undone = [], []
    with pytest.raises(StorageError), journal.batch():
        journal.append(game, {"t": "roll", "d": [1, 2]})
        journal.on_commit(lambda: done.append(1), lambda: undone.append(1))
        journal.put("dice", [1, 2])
    assert journal.actions(game) == [] and done == [] and undone == [1]
    assert journal.fault is not None and not journal.healthy()
    journal.db.execute("DROP TRIGGER refuse")
    assert journal.healthy() and journal.fault is None
    journal.close()


def test_a_game_start_is_one_transaction(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "journal.db")
    old = journal.start_game("dead-set", ["A", "B"], {}, None)
    journal.db.execute("CREATE TRIGGER refuse BEFORE INSERT ON games BEGIN SELECT RAISE(ABORT, 'full'); END")
    with pytest.raises(StorageError):
        journal.start_game("deadlines", ["A", "B"], {}, None)
    record = journal.unfinished_game()
    assert record is not None and record.id == old, "the old game was finished without a new one"
    journal.close()


# ----- a real full file system (root only) --------------------------------------------------


@pytest.fixture
def small_tmpfs(tmp_path: Path) -> Iterator[Path]:
    mount = tmp_path / "card"
    mount.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    result = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=160k", "tmpfs", str(mount)], capture_output=True)
    if result.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {result.stderr.decode().strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def fill(folder: Path) -> Path:
    filler = folder / "filler"
    with open(filler, "wb", buffering=0) as handle:
        try:
            while True:
                handle.write(b"\0" * 1024)
        except OSError:
            pass
    return filler


def test_a_full_tmpfs_refuses_writes_keeps_every_action_and_writes_again_once_freed(small_tmpfs: Path) -> None:
    path = small_tmpfs / "journal.db"
    journal, _ = Journal.open_or_recover(path)
    game = journal.start_game("dead-set", ["A", "B"], {}, None)
    accepted = [journal.append(game, {"t": "press", "b": "ok"}) for _ in range(5)]
    filler = fill(small_tmpfs)
    with pytest.raises(StorageError) as refused:
        for _ in range(1000):
            accepted.append(journal.append(game, {"t": "press", "b": "ok", "pad": "x" * 500}))
    assert refused.value.reason in FULL_REASONS
    assert not journal.healthy()
    assert [seq for seq, _ in journal.actions(game)] == accepted
    journal.close()  # a power cut or a stop while full: the next boot must not call it damage

    again, damaged = Journal.open_or_recover(path)  # still full: the game is read back, not moved aside
    assert damaged is None and not list(small_tmpfs.glob("*.bad-*"))
    assert [seq for seq, _ in again.actions(game)] == accepted
    with pytest.raises(StorageError):
        again.append(game, {"t": "press", "b": "ok", "pad": "x" * 500})
    filler.unlink()
    assert again.healthy()
    accepted.append(again.append(game, {"t": "press", "b": "ok"}))
    again.close()
    assert journaled(path) == accepted


def test_a_full_tmpfs_at_boot_after_a_power_cut_is_not_damage(small_tmpfs: Path) -> None:
    path = small_tmpfs / "journal.db"
    journal, _ = Journal.open_or_recover(path)
    game = journal.start_game("dead-set", ["A", "B"], {}, None)
    accepted = [journal.append(game, {"t": "press", "b": "ok"}) for _ in range(5)]
    copies = {suffix: Path(f"{path}{suffix}").read_bytes() for suffix in ("", "-wal")}  # the power cut
    journal.close()
    for suffix, data in copies.items():
        Path(f"{path}{suffix}").write_bytes(data)
    fill(small_tmpfs)
    try:
        again, damaged = Journal.open_or_recover(path)
    except StorageError as error:  # the storage cannot even be read: left for a later start
        assert error.reason in FULL_REASONS
        assert {s: Path(f"{path}{s}").read_bytes() for s in copies} == copies
    else:
        assert damaged is None and [seq for seq, _ in again.actions(game)] == accepted
        again.close()
    assert not list(small_tmpfs.glob("*.bad-*"))


def test_sqlite_reports_what_the_journal_relies_on() -> None:
    """The codes `storage_reason` reads: a real SQLite error carries `sqlite_errorcode`."""
    db = sqlite3.connect(":memory:")
    with pytest.raises(sqlite3.Error) as caught:
        db.execute("INSERT INTO nowhere VALUES (1)")
    assert isinstance(caught.value.sqlite_errorcode, int)
