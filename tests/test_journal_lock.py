"""Another program holding a write lock on journal.db (a backup tool, `sqlite3` left open): the loop
never waits on it for more than LOCK_WAIT, each input is refused "Journal in use" and the journal
tried again as a storage fault is; the phone page is told pending as pending, then the real answer."""

from __future__ import annotations

import json
import socket
import sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from box.links.control import ControlCommand, ControlServer
from box.sim.world import SimulatedBox
from box.storage.journal import Journal
from box.storage.journal.core import LOCK_WAIT
from box.web.site import PENDING
from tests import test_web
from tests.test_web_control import JudgingRig

played, state_dir = test_web.played, test_web.state_dir  # the fixtures: a state directory with two games

SCENARIOS = Path(__file__).parent / "scenarios"


@pytest.fixture
def world(tmp_path: Path) -> Iterator[SimulatedBox]:
    world = SimulatedBox(state_dir=tmp_path / "state", decks_dir=SCENARIOS / "dead-set" / "decks", seed=1)
    yield world
    world.close()


@pytest.fixture
def holder(world: SimulatedBox) -> Iterator[sqlite3.Connection]:
    """A second program's connection holding the journal's write lock until the test lets go."""
    other = sqlite3.connect(world.state_dir / "journal.db", timeout=0, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    yield other
    if other.in_transaction:
        other.execute("ROLLBACK")
    other.close()


def test_the_boxs_journal_waits_at_most_50_ms_for_a_lock(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "journal.db")
    try:
        assert LOCK_WAIT <= 0.05
        assert journal.db.execute("PRAGMA busy_timeout").fetchone()[0] == int(LOCK_WAIT * 1000)
    finally:
        journal.close()


def test_a_held_lock_refuses_each_input_at_once_and_the_box_carries_on_when_it_goes(
    world: SimulatedBox, holder: sqlite3.Connection
) -> None:
    answers: list[str] = []
    longest = 0.0
    for _ in range(12):  # with SQLite's default 5 s wait, a minute of a frozen loop: the watchdog's kill
        world.loop.enqueue(ControlCommand("show-code", {"code": "123456", "seconds": 60}, reply=answers.append))
        began = time.perf_counter()
        world.advance(0.05)  # the fake clock: one pass of the loop, as its real clock would make it
        longest = max(longest, time.perf_counter() - began)
    assert answers == ["Journal in use"] * 12
    assert world.dump()["notice"] == "Journal in use" and world.dump()["screen"] == "menu"
    assert longest < 1.0, f"a pass of the loop waited {longest:.2f} s on the lock (watchdog: 20 s over a few inputs)"
    world.advance(6.0)  # still held: tried again, still refused, the box still up and saying why
    assert world.box.journal.fault is not None and world.box.screen(world.now).notice == "Journal in use"
    holder.execute("ROLLBACK")
    world.advance(6.0)  # let go: the next try finds the journal free
    world.loop.enqueue(ControlCommand("show-code", {"code": "123456", "seconds": 60}, reply=answers.append))
    world.advance(0.05)
    assert answers[-1] == "" and world.dump()["screen"] == "pair"


def lines_from(connection: socket.socket) -> Callable[[], dict]:
    stream = connection.makefile("rb")
    return lambda: json.loads(stream.readline())


def test_a_command_said_pending_gets_its_late_verdict_on_a_second_line(
    world: SimulatedBox, holder: sqlite3.Connection, tmp_path: Path
) -> None:
    control = ControlServer(tmp_path / "run" / "control.sock", world.loop.enqueue, wait=0.01)
    control.start()
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
            client.settimeout(10.0)
            client.connect(str(control.path))
            client.sendall(b'{"cmd": "show-code", "code": "123456", "seconds": 60}\n')
            read = lines_from(client)
            assert read() == {"ok": True, "pending": True}  # the loop has not run yet: not judged in time
            world.advance(0.05)  # now it runs, and the journal is held
            assert read() == {"ok": False, "refused": True, "error": "Journal in use", "late": True}
    finally:
        control.stop()


class LateRig(JudgingRig):
    """A box that judges a command only after it has said "pending" (a loop busy for a moment)."""

    def __init__(self, state_dir: Path, runtime: Path):
        super().__init__(state_dir, runtime)
        self.box = LateServer(runtime / "control.sock", self.take, wait=0.01)

    def take(self, command: ControlCommand | None) -> None:
        self.inbox.put(command)
        if command is not None and command.reply is not None:
            self.box.on_pending = lambda: command.reply(self.verdict) if self.verdict is not None else None


class LateServer(ControlServer):
    on_pending: Callable[[], object] | None = None

    def send(self, client: socket.socket, line: bytes) -> None:
        super().send(client, line)
        if b'"pending"' in line and self.on_pending is not None:
            self.on_pending()


@pytest.fixture
def late(state_dir: Path, tmp_path: Path) -> Iterator[LateRig]:
    rig = LateRig(state_dir, tmp_path / "run")
    rig.box.start()
    with rig.client:
        yield rig
    rig.box.stop()


def test_the_page_shows_the_late_refusal_not_a_start(late: LateRig) -> None:
    token = late.pair()
    late.verdict = "Journal in use"
    reply = late.client.post("/sound", data={"csrf": token, "volume": "low"},
                             headers={"origin": "http://testserver"}, follow_redirects=False)
    assert reply.status_code == 409 and "The box refused: Journal in use" in reply.text


def test_the_page_shows_pending_as_pending_when_no_answer_comes(late: LateRig, monkeypatch) -> None:
    import box.web.link

    monkeypatch.setattr(box.web.link, "LATE_ANSWER", 0.2)
    token = late.pair()
    late.verdict = None  # type: ignore[assignment]  # the loop never judges it in time
    reply = late.client.post("/sound", data={"csrf": token, "volume": "low"},
                             headers={"origin": "http://testserver"}, follow_redirects=False)
    assert reply.status_code == 202 and PENDING.split(":")[0] in reply.text
    assert "not running" not in reply.text
