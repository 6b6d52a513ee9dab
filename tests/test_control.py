"""The box's control socket: commands only reach the inbox, checked; the state reaches subscribers."""

from __future__ import annotations

import contextlib
import json
import queue
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

import pytest

from box.links.client import ControlClient
from box.links.control import ControlCommand, ControlServer, check_command, runtime_directory


@pytest.fixture
def server(tmp_path: Path):
    inbox: queue.SimpleQueue[ControlCommand] = queue.SimpleQueue()
    control = ControlServer(tmp_path / "run" / "control.sock", inbox.put)
    control.start()
    yield control, inbox
    control.stop()



@contextlib.contextmanager
def connected(path: Path) -> Iterator[tuple[socket.socket, BinaryIO]]:
    """A raw connection to the control socket and its lines as they come."""
    with socket.socket(socket.AF_UNIX) as raw, raw.makefile("rb") as lines:
        raw.settimeout(2)
        raw.connect(str(path))
        yield raw, lines

def test_a_command_is_only_enqueued_for_the_loop(server) -> None:
    control, inbox = server
    reply = ControlClient(control.path).request("enrol", game="dead-set", card="ds001")
    assert reply == {"ok": True}
    assert inbox.get(timeout=2) == ControlCommand("enrol", {"game": "dead-set", "card": "ds001"})
    assert inbox.empty()


def test_malformed_commands_are_answered_and_never_enqueued(server) -> None:
    control, inbox = server
    with connected(control.path) as (raw, lines):
        for line, error in [
            (b"not json\n", "Expecting value"),
            (b'{"cmd": "format-disk"}\n', "unknown command 'format-disk'"),
            (b'{"cmd": "enrol", "game": "dead-set"}\n', "enrol: card must be text"),
            (b'{"cmd": "show-code", "code": "1", "seconds": true}\n', "show-code: seconds must be a whole number"),
            (b'{"cmd": "hide-code", "extra": 1}\n', "hide-code: unknown field 'extra'"),
        ]:
            raw.sendall(line)
            reply = json.loads(lines.readline())
            assert reply["ok"] is False and error in reply["error"], reply
        raw.sendall(b'{"cmd": "roster-changed"}\n')  # the connection still serves good commands
        assert json.loads(lines.readline()) == {"ok": True}
    assert inbox.get(timeout=2) == ControlCommand("roster-changed")
    assert inbox.empty()


def test_an_overlong_line_closes_the_connection(server) -> None:
    control, inbox = server
    with connected(control.path) as (raw, lines):
        raw.sendall(b'{"cmd": "enrol", "game": "' + b"x" * 70_000 + b'"}\n')
        assert json.loads(lines.readline()) == {"ok": False, "error": "line too long"}
        assert lines.readline() == b""
    assert inbox.empty()


def test_subscribers_get_the_newest_state_on_every_change(server) -> None:
    control, _ = server
    control.publish({"game": None, "n": 0})
    stream = ControlClient(control.path).subscribe()
    assert next(stream) == {"game": None, "n": 0}  # the state as it is, at once
    control.publish({"game": None, "n": 0})  # nothing changed: nothing sent
    control.publish({"game": "dead-set", "n": 1})
    assert next(stream) == {"game": "dead-set", "n": 1}
    assert control.subscribed()
    reply = ControlClient(control.path).request("state")
    assert reply == {"ok": True, "state": {"game": "dead-set", "n": 1}}
    stream.close()


def test_the_socket_is_for_the_box_and_its_group_only(server) -> None:
    control, _ = server
    assert control.path.stat().st_mode & 0o777 == 0o660


def test_a_stale_socket_from_a_killed_box_is_replaced(tmp_path: Path) -> None:
    path = tmp_path / "control.sock"
    path.write_text("left over")
    inbox: queue.SimpleQueue[ControlCommand] = queue.SimpleQueue()
    control = ControlServer(path, inbox.put)
    control.start()
    try:
        assert ControlClient(path).request("hide-code") == {"ok": True}
    finally:
        control.stop()
    assert not path.exists()


def test_no_box_is_an_os_error_for_the_client(tmp_path: Path) -> None:
    with pytest.raises(OSError):
        ControlClient(tmp_path / "nobody.sock").request("state")


def test_check_command_names_the_field() -> None:
    with pytest.raises(ValueError, match="enrol-player: name must be 1 to 200 characters"):
        check_command({"cmd": "enrol-player", "name": ""})
    assert check_command({"cmd": "show-code", "code": "123456", "seconds": 120}).args == {
        "code": "123456",
        "seconds": 120,
    }


def test_runtime_directory_follows_systemd(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GRAVEBOX_RUNTIME", raising=False)
    monkeypatch.setenv("RUNTIME_DIRECTORY", "/run/gravebox:/run/other")
    assert runtime_directory() == Path("/run/gravebox")
    monkeypatch.delenv("RUNTIME_DIRECTORY")
    assert runtime_directory() == Path("/run/gravebox")
    monkeypatch.setenv("GRAVEBOX_RUNTIME", "/tmp/x")
    assert runtime_directory() == Path("/tmp/x")
