"""The real service (`gravebox run --fake` under a fake systemd notify socket) on damaged state.

Each damaged state folder is booted three times: every boot must reach READY and stop
cleanly on SIGTERM, whatever the first boot had to set aside. No sleeping: the test
waits on the socket with `select`.
"""

from __future__ import annotations

import select
import signal
import socket
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from box.storage.journal import Journal
from tests.support import environment, gravebox_command

REPO = Path(__file__).resolve().parent.parent
BOOTS = 3
WAIT = 60.0  # seconds: the most one boot may take on a loaded machine


def played_journal(state_dir: Path) -> Path:
    state_dir.mkdir(parents=True)
    path = state_dir / "journal.db"
    journal = Journal(path)
    game = journal.start_game("dead-set", ["P1", "P2"], {"target": "13"}, None)
    journal.append(game, {"t": "press", "b": "ok", "l": False})
    journal.put("best_chug", 2.5)
    journal.close()
    return path


def edit(path: Path, statement: str) -> None:
    db = sqlite3.connect(path)
    db.execute("PRAGMA writable_schema=ON")
    db.execute(statement)
    db.commit()
    db.close()


def damage(state_dir: Path, kind: str) -> None:
    path = played_journal(state_dir)
    if kind == "bad-json-in-box":
        edit(path, "UPDATE box SET value = '{2.5' WHERE key = 'best_chug'")
    elif kind == "renamed-column":
        edit(path, "UPDATE sqlite_master SET sql = replace(sql, 'options TEXT', 'optionz TEXT') WHERE name = 'games'")
    elif kind == "non-utf8-schema":
        edit(
            path,
            "UPDATE sqlite_master SET sql = replace(sql, 'decks', cast(x'64ffff6b73' as text)) WHERE name = 'games'",
        )
    elif kind == "shm-a-folder":
        (state_dir / "journal.db-shm").mkdir()
    elif kind == "foreign-database":
        path.unlink()
        with sqlite3.connect(path) as db:
            db.execute("CREATE TABLE songs (title TEXT)")
    elif kind == "bad-tag-map":
        (state_dir / "tags.csv").write_bytes(b"uid,game,card\n04a1b2c3,dead-set,ds\xff01\n" + b"x" * 200_000 + b"\n")


def boot_until_ready(
    state_dir: Path, tmp_path: Path, *more: str, wanted: tuple[str, ...] = ("READY=1",)
) -> tuple[list[str], str, int]:
    """Boot the service, wait for the `wanted` notifications (or its exit, or the time limit), SIGTERM it."""
    path = tmp_path / "notify.sock"
    path.unlink(missing_ok=True)
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as listener:
        listener.bind(str(path))
        env = environment(NOTIFY_SOCKET=str(path), WATCHDOG_USEC="2000000")
        command = [*gravebox_command(), "run", "--fake", "--state-dir", str(state_dir), "--config", "/nonexistent"]
        command += more
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, text=True)
        got: list[str] = []
        try:
            until = time.monotonic() + WAIT
            while any(w not in got for w in wanted) and process.poll() is None and time.monotonic() < until:
                ready, _, _ = select.select([listener], [], [], 0.5)
                if ready:
                    got += listener.recv(4096).decode().splitlines()
            process.send_signal(signal.SIGTERM)
            _, stderr = process.communicate(timeout=WAIT)
            while select.select([listener], [], [], 0)[0]:  # sent before it stopped, still queued
                got += listener.recv(4096).decode().splitlines()
        finally:
            if process.poll() is None:
                process.kill()
                process.wait(timeout=WAIT)
    return got, stderr, process.returncode


@pytest.mark.parametrize(
    "kind",
    ["bad-json-in-box", "renamed-column", "non-utf8-schema", "shm-a-folder", "foreign-database", "bad-tag-map"],
)
def test_the_service_reaches_ready_on_every_boot_of_a_damaged_state(tmp_path: Path, kind: str) -> None:
    state_dir = tmp_path / "state"
    damage(state_dir, kind)
    for boot in range(1, BOOTS + 1):
        got, stderr, status = boot_until_ready(state_dir, tmp_path)
        assert "READY=1" in got, f"{kind}, boot {boot}: no READY ({got}): {stderr[-2000:]}"
        assert status == 0 and "Traceback" not in stderr, f"{kind}, boot {boot}: {stderr[-2000:]}"
    set_aside = [path for path in state_dir.glob("*.bad-*") if not path.name.endswith(("-wal", "-shm"))]
    assert len(set_aside) <= 1, f"{kind}: set aside again and again: {set_aside}"


@pytest.mark.parametrize("kind", ["bad-config", "bad-pin-map", "journal-of-a-later-version"])
def test_a_service_that_cannot_start_says_why_and_stays_up_until_stopped(tmp_path: Path, kind: str) -> None:
    state_dir = tmp_path / "state"
    played_journal(state_dir)
    more: list[str] = []
    if kind == "bad-config":
        (tmp_path / "config.toml").write_text('[box]\nnames = ["Ann", "ann "]\n', encoding="utf-8")
        more, where = ["--config", str(tmp_path / "config.toml")], "config.toml:2: box.names"
    elif kind == "bad-pin-map":
        pinmap = (REPO / "wiring/pinmap.toml").read_text(encoding="utf-8").replace("middle = ", "# middle = ")
        (tmp_path / "pinmap.toml").write_text(pinmap.replace("left = ", "left = 5 #"), encoding="utf-8")
        more, where = ["--pinmap", str(tmp_path / "pinmap.toml")], "pinmap.toml:"
    else:
        edit(state_dir / "journal.db", "PRAGMA user_version=99")
        where = "journal.db: written by a later Gravebox"
    original = (state_dir / "journal.db").read_bytes()
    for boot in range(1, BOOTS + 1):
        got, stderr, status = boot_until_ready(state_dir, tmp_path, *more, wanted=("READY=1", "WATCHDOG=1"))
        assert "READY=1" in got and status == 0, f"{kind}, boot {boot}: {got} {stderr[-2000:]}"
        assert any(m.startswith("STATUS=cannot start: ") and where in m for m in got), (kind, got)
        assert "WATCHDOG=1" in got and "STOPPING=1" in got, (kind, got)
        assert "Traceback" not in stderr, stderr[-2000:]
    assert (state_dir / "journal.db").read_bytes() == original, "the journal was written to"
