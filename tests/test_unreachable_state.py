"""A state folder the box's user cannot reach (a parent it may not enter, as after restoring a
backup as root): one line and exit 2 from the command line; on the panel, READY and the watchdog
under systemd, never a traceback nor a restart loop.

Run as root, the box is another user (nobody) in a forked child, the folder's parent closed to
it (mode 0700, root's); run as anyone else, the parent is closed to its own owner (mode 0000).
The child runs `box.cli.main.main` with everything it imports loaded beforehand (the interpreter's
own files may be closed to nobody too).
"""

from __future__ import annotations

import contextlib
import os
import pwd
import select
import shutil
import signal
import socket
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import box.cli.main

# what the child imports, loaded while the interpreter's files can still be read
import box.core.app
import box.core.fault
import box.ports.display
import box.screens.render
import box.sim.world
import box.web.server

WAIT = 60.0

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")


@pytest.fixture
def open_folder() -> Iterator[Path]:
    """A folder every user may enter (pytest's own tmp_path is closed to other users)."""
    folder = Path(tempfile.mkdtemp(prefix="gravebox-test-"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        (folder / "D").chmod(0o700)
        shutil.rmtree(folder)


@pytest.fixture
def unreachable(open_folder: Path) -> Path:
    """A state folder whose parent this test's box may not enter."""
    state = open_folder / "D" / "st"
    state.mkdir(parents=True)
    (open_folder / "D").chmod(0o700 if os.geteuid() == 0 else 0o000)
    return state


def run_as_another_user(argv: list[str], env: dict[str, str]) -> tuple[int, int]:
    """Fork, become nobody (when root), run the command; returns (pid, the read end of its stderr)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        code = 70
        try:
            os.dup2(write, 2)
            sys.stderr = open(2, "w", closefd=False)  # noqa: SIM115  (pytest's capture is not fd 2)
            if os.geteuid() == 0:
                nobody = pwd.getpwnam("nobody")
                os.setgroups([])
                os.setgid(nobody.pw_gid)
                os.setuid(nobody.pw_uid)
            os.environ.clear()
            os.environ.update(env)
            result = box.cli.main.main(argv)
            code = result if isinstance(result, int) else 71
        except BaseException:
            import traceback

            traceback.print_exc()
        finally:
            sys.stderr.flush()
            os._exit(code)
    os.close(write)
    return pid, read


def finish(pid: int, read: int) -> tuple[int, str]:
    _, status = os.waitpid(pid, 0)
    with os.fdopen(read, "rb") as stream:
        return os.waitstatus_to_exitcode(status), stream.read().decode(errors="replace")


def test_the_command_line_says_what_and_how_in_one_line_and_exits_2(unreachable: Path) -> None:
    env = {"HOME": str(unreachable.parent.parent), "PATH": "/usr/bin:/bin"}
    pid, read = run_as_another_user(["run", "--fake", "--state-dir", str(unreachable), "--config", "/nonexistent"], env)
    status, stderr = finish(pid, read)
    assert status == 2, stderr
    assert "Traceback" not in stderr and len(stderr.strip().splitlines()) == 1, stderr
    assert f"gravebox: {unreachable}: the state directory cannot be reached by user" in stderr
    assert "chmod" in stderr and "--state-dir" in stderr


def test_the_service_shows_it_and_stays_up_until_stopped(unreachable: Path, open_folder: Path) -> None:
    path = open_folder / "notify.sock"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as listener:
        listener.bind(str(path))
        path.chmod(0o777)  # nobody sends to it
        env = {"HOME": str(open_folder), "NOTIFY_SOCKET": str(path), "WATCHDOG_USEC": "2000000"}
        argv = ["run", "--fake", "--state-dir", str(unreachable), "--config", "/nonexistent"]
        pid, read = run_as_another_user(argv, env)
        got: list[str] = []
        try:
            until = time.monotonic() + WAIT
            while "WATCHDOG=1" not in got and time.monotonic() < until:
                if select.select([listener], [], [], 0.5)[0]:
                    got += listener.recv(4096).decode().splitlines()
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
            status, stderr = finish(pid, read)
        while select.select([listener], [], [], 0)[0]:
            got += listener.recv(4096).decode().splitlines()
    assert "READY=1" in got and "WATCHDOG=1" in got and "STOPPING=1" in got, (got, status, stderr)
    assert any(m.startswith("STATUS=cannot start: ") and "cannot be reached by user" in m for m in got), got
    assert status == 0 and "Traceback" not in stderr, stderr


@pytest.fixture
def decks_behind_a_closed_folder(open_folder: Path) -> Path:
    """A settings file naming a decks folder the box may not reach (as /home under ProtectHome=yes)."""
    decks = open_folder / "D" / "decks"
    decks.mkdir(parents=True)
    (open_folder / "D").chmod(0o700 if os.geteuid() == 0 else 0o000)
    config = open_folder / "config.toml"
    config.write_text(f'[box]\ndecks = "{decks}"\n')
    config.chmod(0o644)
    return config


def test_a_decks_folder_behind_a_closed_folder_is_the_fault_screen_and_one_line(
    decks_behind_a_closed_folder: Path, open_folder: Path
) -> None:
    path = open_folder / "notify.sock"
    state = open_folder / "state"
    state.mkdir(mode=0o777)
    state.chmod(0o777)
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as listener:
        listener.bind(str(path))
        path.chmod(0o777)
        env = {"HOME": str(open_folder), "NOTIFY_SOCKET": str(path), "WATCHDOG_USEC": "2000000"}
        argv = ["run", "--fake", "--state-dir", str(state), "--config", str(decks_behind_a_closed_folder)]
        pid, read = run_as_another_user(argv, env)
        got: list[str] = []
        try:
            until = time.monotonic() + WAIT
            while "WATCHDOG=1" not in got and time.monotonic() < until:
                if select.select([listener], [], [], 0.5)[0]:
                    got += listener.recv(4096).decode().splitlines()
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
            status, stderr = finish(pid, read)
    assert "READY=1" in got and "WATCHDOG=1" in got, (got, status, stderr)
    assert any(m.startswith("STATUS=cannot start: ") and "cannot reach this folder of decks" in m for m in got), got
    assert status == 0 and "Traceback" not in stderr and "PermissionError" not in stderr, stderr


def test_the_phone_page_says_the_closed_decks_folder_in_one_line(decks_behind_a_closed_folder: Path) -> None:
    env = {"HOME": "/nonexistent", "PATH": "/usr/bin:/bin"}
    pid, read = run_as_another_user(["web", "--config", str(decks_behind_a_closed_folder)], env)
    status, stderr = finish(pid, read)
    assert status == 2, stderr
    assert "Traceback" not in stderr and len(stderr.strip().splitlines()) == 1, stderr
    assert "cannot reach this folder of decks" in stderr and str(decks_behind_a_closed_folder) in stderr
