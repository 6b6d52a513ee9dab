"""sd_notify against a fake systemd: a real unix datagram socket, by path and abstract."""

from __future__ import annotations

import logging
import os
import socket
import threading
import uuid
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path

import pytest

from box.links import sdnotify


class FakeSystemd:
    """A NOTIFY_SOCKET listener that collects the datagrams the service sends."""

    def __init__(self, address: str) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind("\0" + address[1:] if address.startswith("@") else address)
        self.sock.settimeout(1.0)
        self.address = address

    def receive(self) -> str:
        return self.sock.recv(4096).decode()

    def pending(self) -> list[str]:
        """Every datagram already queued, without waiting."""
        self.sock.setblocking(False)
        try:
            messages = []
            while True:
                try:
                    messages.append(self.sock.recv(4096).decode())
                except BlockingIOError:
                    return messages
        finally:
            self.sock.settimeout(1.0)


@pytest.fixture(params=["path", "abstract"])
def systemd(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeSystemd]:
    # A filesystem socket, or an abstract one ("@name"), which is what systemd itself uses.
    address = str(tmp_path / "notify") if request.param == "path" else f"@gravebox-test-{uuid.uuid4().hex}"
    fake = FakeSystemd(address)
    monkeypatch.setenv("NOTIFY_SOCKET", address)
    monkeypatch.delenv("WATCHDOG_PID", raising=False)
    yield fake
    fake.sock.close()


def test_ready_arrives(systemd: FakeSystemd) -> None:
    assert sdnotify.ready() is True
    assert systemd.receive() == "READY=1"


def test_watchdog_status_and_stopping_arrive_in_order(systemd: FakeSystemd) -> None:
    assert sdnotify.watchdog()
    assert sdnotify.status("reader middle: no answer\nretrying")
    assert sdnotify.stopping()
    assert [systemd.receive() for _ in range(3)] == [
        "WATCHDOG=1",
        "STATUS=reader middle: no answer retrying",  # one line: newlines would start a new field
        "STOPPING=1",
    ]


def test_not_under_systemd_is_false_and_silent(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.delenv("NOTIFY_SOCKET", raising=False)
    with caplog.at_level(logging.DEBUG):
        assert sdnotify.ready() is False
    assert caplog.records == []


def test_socket_error_is_logged_not_swallowed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("NOTIFY_SOCKET", str(tmp_path / "nobody-listens"))
    with caplog.at_level(logging.WARNING, logger="box.links.sdnotify"):
        assert sdnotify.watchdog() is False
    assert "WATCHDOG=1" in caplog.text and "nobody-listens" in caplog.text


@pytest.mark.parametrize(
    ("usec", "pid", "expected"),
    [
        ("30000000", None, 15.0),
        ("0", None, None),
        ("", None, None),
        ("junk", None, None),
        ("4000000", "self", 2.0),
        ("4000000", "1", None),
    ],
)
def test_watchdog_interval(monkeypatch: pytest.MonkeyPatch, usec: str, pid: str | None, expected: float | None) -> None:
    monkeypatch.setenv("WATCHDOG_USEC", usec)
    if pid is None:
        monkeypatch.delenv("WATCHDOG_PID", raising=False)
    else:
        monkeypatch.setenv("WATCHDOG_PID", str(os.getpid()) if pid == "self" else pid)
    assert sdnotify.watchdog_interval() == expected


class FakeMainLoop:
    """The shape of the box's main loop: each pass handles input, then ticks the watchdog pinger."""

    def __init__(self) -> None:
        self.now = 0.0
        self.pinger = sdnotify.WatchdogPinger(clock=lambda: self.now)
        self.hung = False

    def run_pass(self, seconds: float) -> None:
        self.now += seconds
        if not self.hung:  # a hung loop never reaches the tick, so the pings stop
            self.pinger.tick()


def test_pings_at_half_the_watchdog_and_stop_when_the_loop_stops(
    systemd: FakeSystemd, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WATCHDOG_USEC", "2000000")  # WatchdogSec=2 -> ping every 1 s
    threads_before = threading.active_count()
    loop = FakeMainLoop()
    for _ in range(40):  # 40 passes of 0.1 s = 4 s: pings at t=0.1, 1.1, 2.1, 3.1
        loop.run_pass(0.1)
    assert systemd.pending() == ["WATCHDOG=1"] * 4
    loop.hung = True
    for _ in range(40):
        loop.run_pass(0.1)
    assert systemd.pending() == []
    assert threading.active_count() == threads_before  # no helper thread keeps a hung box alive


def test_a_loop_that_sleeps_until_the_ping_is_due_pings_on_time_whatever_wakes_it(
    systemd: FakeSystemd, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The box's loop sleeps at most IDLE_WAKE and at most until the next ping is due (`due_in`).
    Sleeping IDLE_WAKE alone, a command every 3.3 s (the own Wi-Fi's process tells the box now and
    then) put the wakes out of step with the pings: a ping every 15 s under WatchdogSec=20 (found in
    the booted container)."""
    from box.core.loop import IDLE_WAKE

    monkeypatch.setenv("WATCHDOG_USEC", "20000000")  # WatchdogSec=20 -> a ping every 10 s
    loop, pings, command = FakeMainLoop(), [], 3.3  # the next command's time
    for _ in range(200):
        due = loop.pinger.due_in()
        assert due is not None
        sleep = min(IDLE_WAKE, due, command - loop.now)  # woken by the timeout or a command
        loop.run_pass(sleep)
        if loop.now >= command:
            command += 3.3
        if systemd.pending():
            pings.append(loop.now)
    gaps = [later - earlier for earlier, later in pairwise(pings)]
    assert len(pings) > 10 and max(gaps) <= 10.0 + 1e-6, gaps


def test_pinger_without_watchdog_sends_nothing(systemd: FakeSystemd, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("WATCHDOG_USEC", raising=False)
    loop = FakeMainLoop()
    for _ in range(10):
        loop.run_pass(5.0)
    assert systemd.pending() == []


def test_the_running_box_says_what_it_does_in_its_status_line(systemd: FakeSystemd, tmp_path: Path) -> None:
    import sqlite3
    import threading

    from box.links.control import ControlCommand
    from box.sim.world import SimulatedBox

    world = SimulatedBox(state_dir=tmp_path / "state", seed=1)
    try:
        world.loop.run(threading.Event(), until=world.now)  # READY, then its status at once
        got = systemd.pending()
        assert got[:2] == ["READY=1", "STATUS=Running: the menu"], got
        world.box.lobby.start_game("dead-set", world.now, players=2)
        assert world.loop.say_status("Running: the menu") == "Running: Dead Set, 2 players"
        holder = sqlite3.connect(world.state_dir / "journal.db", timeout=0)
        holder.execute("BEGIN IMMEDIATE")
        try:
            world.loop.enqueue(ControlCommand("show-code", {"code": "123456", "seconds": 60}))
            world.advance(0.05)
        finally:
            holder.rollback()
            holder.close()
        line = world.loop.say_status("Running: Dead Set, 2 players")
        assert line == "Running, refusing inputs: Journal in use"
        assert systemd.pending()[0] == "STATUS=Running: Dead Set, 2 players"
        assert world.loop.say_status(line) == line and systemd.pending() == [], "said once, not every pass"
    finally:
        world.end()
