"""The control socket against hostile and broken clients (the hostile-inputs issue, rows 11 and 12).

Idle and slow connections time out on the server's clock (a fake one here: the test moves it and
waits for the answer, never sleeps); places are kept for the box's own user; the socket's folder
must be one no other user made or can enter; the process at the other end must be trusted; and
no bytes at all end the server or reach the loop unchecked.
"""

from __future__ import annotations

import contextlib
import json
import os
import pwd
import queue
import socket
import stat
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from box.links import control as control_module
from box.links.client import ControlClient, Subscription
from box.links.control import (
    IDLE_TIMEOUT,
    MAX_CLIENTS,
    MAX_SUBSCRIBERS,
    RESERVED,
    STATE_LINE,
    ControlCommand,
    ControlServer,
    decode_line,
    runtime_directory,
)
from box.links.trust import Trust, Untrusted


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def server(tmp_path: Path, clock: FakeClock) -> Iterator[tuple[ControlServer, queue.SimpleQueue[Any]]]:
    inbox: queue.SimpleQueue[Any] = queue.SimpleQueue()
    control = ControlServer(tmp_path / "run" / "control.sock", inbox.put, clock=clock)
    control.start()
    yield control, inbox
    control.stop()


def raw_connection(path: Path) -> socket.socket:
    connection = socket.socket(socket.AF_UNIX)
    connection.settimeout(5)  # a safety net only: every wait below ends on the server's answer
    connection.connect(str(path))
    return connection


def reply_of(connection: socket.socket) -> dict[str, Any]:
    data = b""
    while not data.endswith(b"\n"):
        chunk = connection.recv(4096)
        if not chunk:
            break
        data += chunk
    assert data.count(b"\n") == 1, data  # one answer, one line
    return json.loads(data)


def wait_until(condition: Any) -> None:
    """Wait for the server's threads (on a condition variable of this test, not on a clock)."""
    import threading

    done = threading.Event()
    for _ in range(200):
        if condition():
            return
        done.wait(0.025)
    raise AssertionError("the server did not get there")


# ----- row 11: idle connections time out; places kept for the box's own user -----------------


def test_idle_connections_time_out_and_the_page_reaches_the_box_again(server, clock: FakeClock) -> None:
    control, inbox = server
    idle = [raw_connection(control.path) for _ in range(MAX_CLIENTS)]
    wait_until(lambda: len(control.clients) == MAX_CLIENTS)
    refused = raw_connection(control.path)  # the 17th: refused in one line
    assert "too many connections" in reply_of(refused)["error"]
    clock.now += IDLE_TIMEOUT + 0.1
    for connection in idle:
        reply = reply_of(connection)
        assert reply["ok"] is False and "timed out" in reply["error"]
        assert connection.recv(1) == b""  # and closed
        connection.close()
    wait_until(lambda: not control.clients)
    assert ControlClient(control.path).request("hide-code") == {"ok": True}
    assert inbox.get(timeout=2) == ControlCommand("hide-code")


def test_a_client_that_never_finishes_its_line_times_out(server, clock: FakeClock) -> None:
    control, inbox = server
    slow = raw_connection(control.path)
    slow.sendall(b'{"cmd": "hide-')  # and never the rest
    wait_until(lambda: len(control.clients) == 1)
    clock.now += IDLE_TIMEOUT - 1
    good = raw_connection(control.path)  # meanwhile others are served
    good.sendall(b'{"cmd": "enrol-stop"}\n')
    assert reply_of(good) == {"ok": True}
    clock.now += 1.1
    assert "timed out" in reply_of(slow)["error"]
    assert inbox.get(timeout=2) == ControlCommand("enrol-stop") and inbox.empty()


def test_connections_of_other_users_leave_places_for_the_box_own_user(
    server, monkeypatch: pytest.MonkeyPatch
) -> None:
    control, _ = server
    other = os.geteuid() + 1
    monkeypatch.setattr(control, "peer", lambda client: (other, other))  # gravebox group members, say
    others = [raw_connection(control.path) for _ in range(MAX_CLIENTS - RESERVED)]
    wait_until(lambda: len(control.clients) == MAX_CLIENTS - RESERVED)
    assert "too many connections" in reply_of(raw_connection(control.path))["error"]
    monkeypatch.setattr(control, "peer", lambda client: (os.geteuid(), os.getegid()))  # the page's service
    assert ControlClient(control.path).request("state") == {"ok": True, "state": None}
    for connection in others:
        connection.close()


def test_subscriptions_are_limited_and_a_hung_up_subscriber_frees_its_place(
    server, monkeypatch: pytest.MonkeyPatch
) -> None:
    control, _ = server
    monkeypatch.setattr(control_module, "LIVENESS", 0.05)  # how often a quiet subscription looks
    streams = [ControlClient(control.path).subscribe() for _ in range(MAX_SUBSCRIBERS)]
    with pytest.raises(ConnectionError, match="too many subscribers"):
        ControlClient(control.path).subscribe()
    streams.pop().close()
    wait_until(lambda: control.subscribers < MAX_SUBSCRIBERS)  # noticed without a state change
    with contextlib.closing(ControlClient(control.path).subscribe()):
        pass
    for stream in streams:
        stream.close()


# ----- row 12: the socket's folder and the peer ---------------------------------------------


def test_no_safe_runtime_folder_is_refused_in_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in ("GRAVEBOX_RUNTIME", "RUNTIME_DIRECTORY", "XDG_RUNTIME_DIR"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setattr(control_module.os, "geteuid", lambda: 1000)
    monkeypatch.setattr(control_module, "SYSTEM_RUNTIME", Path("/nonexistent/gravebox"))
    with pytest.raises(Untrusted, match="no safe folder for the control socket") as refused:
        runtime_directory()
    assert "\n" not in str(refused.value) and "/tmp" not in str(refused.value)
    monkeypatch.setenv("XDG_RUNTIME_DIR", "/run/user/1000")
    assert runtime_directory() == Path("/run/user/1000/gravebox")


@pytest.mark.parametrize("mode", [0o777, 0o755, 0o707])
def test_a_folder_open_to_other_users_is_refused_by_the_box_and_the_page(tmp_path: Path, mode: int) -> None:
    folder = tmp_path / "gravebox-1000"
    folder.mkdir()
    folder.chmod(mode)  # pre-made by another user, say
    server = ControlServer(folder / "control.sock", lambda command: None)
    with pytest.raises(Untrusted, match="open to other users"):
        server.start()
    assert not (folder / "control.sock").exists()
    with pytest.raises(Untrusted, match="open to other users"):
        ControlClient(folder / "control.sock").request("state")


def test_a_folder_of_another_user_or_a_link_is_refused(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to give a folder to another user")
    folder = tmp_path / "theirs"
    folder.mkdir(mode=0o700)
    os.chown(folder, pwd.getpwnam("nobody").pw_uid, -1)
    with pytest.raises(Untrusted, match="belongs to user nobody"):
        ControlServer(folder / "control.sock", lambda command: None).start()
    (tmp_path / "mine").mkdir(mode=0o700)
    (tmp_path / "link").symlink_to(tmp_path / "mine")
    with pytest.raises(Untrusted, match="not a folder"):
        ControlServer(tmp_path / "link" / "control.sock", lambda command: None).start()


def test_the_service_folder_made_outside_systemd_is_0770_whatever_the_umask(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    system = tmp_path / "run-gravebox"
    monkeypatch.setattr(control_module, "SYSTEM_RUNTIME", system)
    old = os.umask(0o027)
    try:
        server = ControlServer(system / "control.sock", lambda command: None)
        server.start()
        server.stop()
        own = ControlServer(tmp_path / "xdg" / "gravebox" / "control.sock", lambda command: None)
        own.start()
        own.stop()
    finally:
        os.umask(old)
    assert stat.S_IMODE(system.stat().st_mode) == 0o770
    assert stat.S_IMODE((tmp_path / "xdg" / "gravebox").stat().st_mode) == 0o700


def test_a_peer_of_another_user_is_refused() -> None:
    if os.geteuid() != 0 or not hasattr(os, "fork"):
        pytest.skip("needs root to connect as another user")
    import shutil
    import tempfile

    base = Path(tempfile.mkdtemp(prefix="gravebox-test-"))
    inbox: queue.SimpleQueue[Any] = queue.SimpleQueue()
    control = ControlServer(base / "run" / "control.sock", inbox.put)
    control.start()
    base.chmod(0o755)  # let nobody reach the socket, to see the peer check itself
    control.path.parent.chmod(0o777)
    control.path.chmod(0o666)
    try:
        reply = answer_to_nobody(control.path)
    finally:
        control.stop()
        shutil.rmtree(base)
    assert reply["ok"] is False and "runs as user nobody" in reply["error"]
    assert inbox.empty()


def answer_to_nobody(path: Path) -> dict[str, Any]:
    """What the box answers a command sent by a process of the user nobody (a forked child)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            nobody = pwd.getpwnam("nobody")
            os.setgroups([])
            os.setgid(nobody.pw_gid)
            os.setuid(nobody.pw_uid)
            connection = socket.socket(socket.AF_UNIX)
            connection.settimeout(5)
            connection.connect(str(path))
            os.write(write, connection.recv(4096))  # refused at once, before it says anything
            with contextlib.suppress(OSError):
                connection.sendall(b'{"cmd": "show-code", "code": "123456", "seconds": 60}\n')
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    os.waitpid(pid, 0)
    with os.fdopen(read, "rb") as answer:
        return json.loads(answer.read() or b"{}")


def test_trust_allows_this_user_root_and_the_gravebox_group() -> None:
    trust = Trust(uids={0, 1000}, gids={997}, members={"ann"})
    assert trust.peer_allowed(0, 0) and trust.peer_allowed(1000, 1000) and trust.peer_allowed(1234, 997)
    assert not trust.peer_allowed(65534, 65534)


# ----- any bytes: one answer a line, nothing unchecked, the server never ends -----------------


@given(st.binary(max_size=2000))
def test_decode_line_answers_any_bytes_with_a_command_or_one_line(raw: bytes) -> None:
    try:
        command = decode_line(raw)
    except ValueError as problem:
        assert str(problem) and "\n" not in str(problem)
    else:
        assert command.name in control_module.COMMANDS


@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(), lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner)))
def test_check_command_answers_any_json_value(value: Any) -> None:
    with contextlib.suppress(ValueError):
        decode_line(json.dumps(value).encode())


def test_deeply_nested_json_is_one_line_not_a_recursion_error() -> None:
    with pytest.raises(ValueError, match="nested too deep"):
        decode_line(b"[" * 60_000 + b"]" * 60_000)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(chunks=st.lists(st.binary(min_size=1, max_size=300), min_size=1, max_size=8))
def test_the_server_answers_any_bytes_line_by_line_and_stays_up(server, chunks: list[bytes]) -> None:
    control, inbox = server
    data = b"".join(chunks).replace(b"\n", b"") + b"\n"
    connection = raw_connection(control.path)
    with connection:
        connection.sendall(data)
        reply = reply_of(connection)
    assert isinstance(reply.get("ok"), bool)
    while not inbox.empty():
        command = inbox.get()
        assert command is None or command.name in control_module.COMMANDS
    assert ControlClient(control.path).request("state")["ok"] is True


@pytest.mark.parametrize(
    "sent, reason",
    [
        (b'{"state": "' + b"x" * STATE_LINE + b'"}\n', "over"),
        (b'["a", "list"]\n', "no state"),
        (b"not json\n", "Expecting value"),
    ],
)
def test_a_subscriber_judges_each_state_line_before_it_is_used(sent: bytes, reason: str) -> None:
    box_end, page_end = socket.socketpair()
    with box_end:
        subscription = Subscription(page_end, page_end.makefile("rb"))
        threading.Thread(target=box_end.sendall, args=(sent,), daemon=True).start()
        with pytest.raises(ValueError, match=reason):
            next(subscription)
        subscription.close()
