"""Damage met after a start (issue 34 row 10, issue 35): by the whole-file check after READY, by a
read or a write of the journal in use, or by the resume. Each is damage as at a start: the file
checked fully, set aside with its copy kept, the box on a new journal; never a retry loop."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from box.base.settings import Settings
from box.core.app import assemble
from box.core.service import JOURNAL_DAMAGED
from box.games.base import Tap
from box.messages import Pressed
from box.sim.world import SimulatedBox
from box.storage.journal import Journal, JournalCorrupted
from box.storage.pinmap import default_pinmap_path, load_pinmap


def kept_copies(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("journal.db.bad-*") if not p.name.endswith(("-wal", "-shm")))


def played_world(folder: Path) -> None:
    """A game in play with a few taps, the box stopped."""
    world = SimulatedBox(state_dir=folder, seed=1)
    world.box.lobby.start_game("dead-set", world.now, players=2)
    assert world.box.game is not None
    for card in list(world.decks["dead-set"].cards)[:4]:
        world.box.game.act(Tap("middle", card), world.now)
    assert world.box.session is not None and world.box.session.count == 4
    world.end()


def test_an_index_quick_check_misses_is_found_after_ready_and_set_aside(tmp_path: Path) -> None:
    state = tmp_path / "state"
    played_world(state)
    db = sqlite3.connect(state / "journal.db")
    db.execute("PRAGMA writable_schema=ON")
    db.execute("UPDATE sqlite_master SET sql = replace(sql, '(game, seq)', '(undone, seq)') WHERE type = 'index'")
    db.commit()
    db.close()
    original = (state / "journal.db").read_bytes()
    world = SimulatedBox(state_dir=state, seed=1)
    try:
        world.advance(0.05)  # the check's finding, taken by the loop
        copies = kept_copies(state)
        assert len(copies) == 1 and copies[0].read_bytes() == original, "the file as it was, kept"
        assert world.box.session is None and world.box.screen(world.now).notice == JOURNAL_DAMAGED
        assert world.box.journal.fault is None, "damage is not a storage fault: never retried"
        world.box.lobby.start_game("dead-set", world.now, players=2)
        assert world.box.session is not None, "the new journal takes a new game"
    finally:
        world.end()
    world = SimulatedBox(state_dir=state, seed=1)  # the next start is clean
    world.advance(0.05)
    assert len(kept_copies(state)) == 1 and world.box.session is not None
    world.end()


class Malformed:
    """The journal's connection, meeting a malformed page on every statement from now on."""

    def __init__(self, db: sqlite3.Connection):
        self.db = db
        self.in_transaction = False

    def execute(self, *_: object) -> object:
        error = sqlite3.DatabaseError("database disk image is malformed")
        error.sqlite_errorcode = 11  # type: ignore[attr-defined]  # SQLITE_CORRUPT, as SQLite says it
        raise error

    def close(self) -> None:
        self.db.close()


def test_damage_met_by_an_input_sets_the_file_aside_and_the_box_goes_on(tmp_path: Path) -> None:
    state = tmp_path / "state"
    world = SimulatedBox(state_dir=state, seed=1)
    try:
        world.box.lobby.start_game("dead-set", world.now, players=2)
        world.box.journal.db = Malformed(world.box.journal.db)  # type: ignore[assignment]
        refused = world.box.take(Pressed("ok", "short"), world.now)
        assert refused == JOURNAL_DAMAGED and len(kept_copies(state)) == 1
        assert world.box.journal.fault is None and world.box.session is None
        world.advance(30.0)  # no retry loop: nothing refused again, nothing more set aside
        assert len(kept_copies(state)) == 1
        world.box.lobby.start_game("dead-set", world.now, players=2)
        assert world.box.session is not None and world.box.session.record.id == 1
    finally:
        world.end()


def test_damage_met_by_the_resume_is_set_aside_at_the_start_not_retried(tmp_path: Path, monkeypatch) -> None:
    state = tmp_path / "state"
    played_world(state)
    real = Journal.unfinished_game
    met: list[bool] = []

    def unfinished_game(self: Journal):  # the first read of the game in play meets a malformed page
        if not met:
            met.append(True)
            raise JournalCorrupted("Journal damaged", "database disk image is malformed")
        return real(self)

    monkeypatch.setattr(Journal, "unfinished_game", unfinished_game)
    app = assemble(load_pinmap(default_pinmap_path()), time.monotonic, Settings(), state, simulated=True)
    try:
        assert len(kept_copies(state)) == 1 and app.box.set_aside and app.box.session is None
        assert app.box.screen(0.0).notice == JOURNAL_DAMAGED
    finally:
        app.close()


def test_damage_met_by_the_pages_undo_label_sets_the_file_aside_not_the_loop_down(tmp_path: Path) -> None:
    class Listening:
        """A control socket with one subscriber."""

        def __init__(self) -> None:
            self.dumps: list[dict[str, object]] = []

        def subscribed(self) -> bool:
            return True

        def publish(self, *parts: dict[str, object], events: object = None) -> None:
            self.dumps.append({key: value for part in parts for key, value in part.items()})

    state = tmp_path / "state"
    world = SimulatedBox(state_dir=state, seed=1)
    try:
        world.loop.attach_control(Listening())  # type: ignore[arg-type]
        world.box.lobby.start_game("dead-set", world.now, players=2)
        assert world.box.game is not None
        session = world.box.game.session
        assert session is not None

        def read_met_damage() -> str:  # past a checkpoint, the label reads the action from the journal
            raise JournalCorrupted("Journal damaged", "database disk image is malformed")

        world.box.game.act(Tap("middle", next(iter(world.decks["dead-set"].cards))), world.now)
        session.last_action = read_met_damage  # type: ignore[method-assign]
        world.loop.undo_for = None  # the label is worked out again at the next dump
        world.advance(0.05)  # ... and meets damage
        assert len(kept_copies(state)) == 1 and world.box.session is None
        world.advance(0.05)  # the loop goes on, on the new journal
        assert world.box.screen(world.now).notice == JOURNAL_DAMAGED
    finally:
        world.end()
