"""The box's control socket: how the phone page's process talks to the box.

A unix socket in a runtime directory only the box and the page share
(`$RUNTIME_DIRECTORY` under systemd, else /run/gravebox). Each line is one
JSON object with a `cmd`; each command gets one line back:

    {"cmd": "enrol", "game": "dead-set", "card": "ds001"}   -> {"ok": true}
    {"cmd": "show-code", "code": "482913", "seconds": 120}  -> {"ok": true}
    {"cmd": "state"}                                         -> {"ok": true, "state": {...}}
    {"cmd": "subscribe"}  -> {"ok": true}, then {"state": {...}} on every change

The server's threads never touch the box: a command is checked for its shape,
then handed to `enqueue` (the one loop's inbox) as a `ControlCommand`; the loop
carries it out and journals it like any input. The loop calls `publish` with
the state dump after each change; subscribers get the newest dump (a slow one
skips the ones it missed, and never holds up the loop). A new subscriber puts
a wake-up (`None`) in the inbox, so an idle loop publishes its state at once.

>>> check_command({"cmd": "enrol", "game": "dead-set", "card": "ds001"})
ControlCommand(name='enrol', args={'game': 'dead-set', 'card': 'ds001'})
>>> check_command({"cmd": "enrol", "game": 3})
Traceback (most recent call last):
...
ValueError: enrol: game must be text
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import socket
import tempfile
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

SOCKET_NAME = "control.sock"
MAX_LINE = 64 * 1024  # a command is small; a longer line is refused and the connection closed
MAX_CLIENTS = 16

# command -> its fields and their types; "state" and "subscribe" are answered by the server itself
COMMANDS: dict[str, dict[str, type]] = {
    "state": {},
    "subscribe": {},
    "show-code": {"code": str, "seconds": int},  # show the pairing code on the OLED for a while
    "hide-code": {},
    "enrol": {"game": str, "card": str},  # the next tag laid on any reader becomes this card
    "enrol-player": {"name": str},  # the next tag becomes this roster name's player token
    "enrol-stop": {},
    "roster-changed": {},  # roster.json was replaced: read it again
    "tags-changed": {},  # tags.csv was replaced (a restored backup): read it again
    "decks-changed": {},  # a deck file was replaced: load it again at the next game
}
SERVER_SIDE = ("state", "subscribe")


@dataclass(frozen=True)
class ControlCommand:
    """A command from the page, for the one loop to carry out; `reply` gets what became of it
    ("" when done, else the reason it was refused), on the loop's thread."""

    name: str
    args: dict[str, Any] = field(default_factory=dict)
    reply: Callable[[str], None] | None = field(default=None, compare=False, repr=False)


def runtime_directory() -> Path:
    """Where the socket lives: $GRAVEBOX_RUNTIME, systemd's $RUNTIME_DIRECTORY, else /run/gravebox for
    root (or where it exists), else $XDG_RUNTIME_DIR/gravebox or /tmp/gravebox-UID for a user's own box."""
    for variable in ("GRAVEBOX_RUNTIME", "RUNTIME_DIRECTORY"):
        if os.environ.get(variable):
            return Path(os.environ[variable].split(":")[0])
    system = Path("/run/gravebox")
    if os.geteuid() == 0 or system.is_dir():
        return system
    if os.environ.get("XDG_RUNTIME_DIR"):
        return Path(os.environ["XDG_RUNTIME_DIR"]) / "gravebox"
    return Path(tempfile.gettempdir()) / f"gravebox-{os.geteuid()}"


def socket_path(directory: Path | None = None) -> Path:
    return (directory or runtime_directory()) / SOCKET_NAME


def check_command(data: Any) -> ControlCommand:
    """The command a decoded line holds; ValueError (one line, naming the field) when malformed."""
    if not isinstance(data, dict) or not isinstance(data.get("cmd"), str):
        raise ValueError('a command is a JSON object with "cmd"')
    name = data["cmd"]
    if name not in COMMANDS:
        raise ValueError(f"unknown command {name!r}; commands are {', '.join(COMMANDS)}")
    fields = COMMANDS[name]
    extra = sorted(set(data) - set(fields) - {"cmd"})
    if extra:
        raise ValueError(f"{name}: unknown field {extra[0]!r}")
    args = {}
    for key, kind in fields.items():
        value = data.get(key)
        if not isinstance(value, kind) or isinstance(value, bool):
            raise ValueError(f"{name}: {key} must be {'text' if kind is str else 'a whole number'}")
        if isinstance(value, str) and not 0 < len(value) <= 200:
            raise ValueError(f"{name}: {key} must be 1 to 200 characters")
        args[key] = value
    return ControlCommand(name, args)


class ControlServer:
    """Accepts commands on the socket and publishes the box's state to subscribers."""

    def __init__(self, path: Path, enqueue: Callable[[ControlCommand | None], None]):
        self.path = path
        self.enqueue = enqueue
        self.listener: socket.socket | None = None
        self.thread: threading.Thread | None = None
        self.changed = threading.Condition()
        self.version = 0
        self.latest: bytes | None = None  # the newest state dump, one JSON line
        self.clients: set[socket.socket] = set()
        self.closing = False

    # ----- the loop's side -------------------------------------------------------------------

    def publish(self, state: dict[str, Any]) -> None:
        """Called by the loop after a change: remember the dump and wake the subscribers (never blocks)."""
        line = json.dumps({"state": state}, separators=(",", ":"), sort_keys=True).encode() + b"\n"
        with self.changed:
            if line == self.latest:
                return
            self.latest = line
            self.version += 1
            self.changed.notify_all()

    def subscribed(self) -> bool:
        """Whether anyone is connected (the loop need not build dumps for no one)."""
        return bool(self.clients)

    # ----- threads --------------------------------------------------------------------------

    def start(self) -> None:
        """Listen on the socket (replacing a stale one left by a killed box) and accept in a thread."""
        self.path.parent.mkdir(mode=0o770, parents=True, exist_ok=True)
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(str(self.path))
        os.chmod(self.path, 0o660)  # the box's user and group (the page's service shares the group)
        listener.listen(MAX_CLIENTS)
        self.listener = listener
        self.thread = threading.Thread(target=self.accept, name="control", daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.closing = True
        if self.listener is not None:
            with contextlib.suppress(OSError):
                self.listener.shutdown(socket.SHUT_RDWR)
            self.listener.close()
        for client in list(self.clients):
            with contextlib.suppress(OSError):
                client.shutdown(socket.SHUT_RDWR)
        with self.changed:
            self.changed.notify_all()
        if self.thread is not None:
            self.thread.join(timeout=2)
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()

    def accept(self) -> None:
        assert self.listener is not None
        while not self.closing:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if len(self.clients) >= MAX_CLIENTS:
                client.close()
                continue
            self.clients.add(client)
            threading.Thread(target=self.serve, args=(client,), name="control-client", daemon=True).start()

    def serve(self, client: socket.socket) -> None:
        """One connection: answer its commands; after "subscribe", stream the state to it."""
        try:
            with client, client.makefile("rb") as lines:
                while not self.closing:
                    raw = lines.readline(MAX_LINE + 1)
                    if not raw:
                        return
                    if len(raw) > MAX_LINE:
                        client.sendall(answer(False, error="line too long"))
                        return
                    try:
                        command = check_command(json.loads(raw))
                    except (ValueError, UnicodeDecodeError) as problem:
                        client.sendall(answer(False, error=str(problem).splitlines()[0]))
                        continue
                    if command.name == "subscribe":
                        client.sendall(answer(True))
                        self.enqueue(None)  # a wake-up: the loop makes a pass and publishes the state now
                        self.stream(client)
                        return
                    if command.name == "state":
                        with self.changed:
                            latest = self.latest
                        state = json.loads(latest)["state"] if latest else None
                        client.sendall(answer(True, state=state))
                        continue
                    self.enqueue(command)
                    client.sendall(answer(True))
        except OSError as problem:
            log.debug("control client gone: %s", problem)
        finally:
            self.clients.discard(client)

    def stream(self, client: socket.socket) -> None:
        """Send the newest state now and after every change, until the client goes."""
        seen = -1
        while not self.closing:
            with self.changed:
                while self.version == seen and not self.closing:
                    self.changed.wait()
                seen, line = self.version, self.latest
            if line is not None and not self.closing:
                client.sendall(line)


def answer(ok: bool, **extra: Any) -> bytes:
    return json.dumps({"ok": ok, **extra}, separators=(",", ":")).encode() + b"\n"


class ControlClient:
    """The page's side, for plain (blocking) callers: one request per connection, or a subscription."""

    def __init__(self, path: Path, timeout: float = 2.0):
        self.path = path
        self.timeout = timeout

    def connect(self) -> socket.socket:
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        connection.settimeout(self.timeout)
        try:
            connection.connect(str(self.path))
        except OSError:
            connection.close()
            raise
        return connection

    def request(self, cmd: str, **args: Any) -> dict[str, Any]:
        """Send one command, return the box's answer; OSError when the box is not there."""
        with self.connect() as connection, connection.makefile("rb") as lines:
            connection.sendall(json.dumps({"cmd": cmd, **args}).encode() + b"\n")
            reply = lines.readline(MAX_LINE * 16)
        if not reply:
            raise ConnectionError("the box closed the connection")
        return json.loads(reply)

    def subscribe(self) -> Iterator[dict[str, Any]]:
        """Subscribe now; the box's state dumps then come from the iterator as they change."""
        connection = self.connect()
        lines = connection.makefile("rb")
        try:
            connection.sendall(b'{"cmd": "subscribe"}\n')
            first = json.loads(lines.readline(MAX_LINE) or b"{}")
        except (OSError, ValueError):
            lines.close()
            connection.close()
            raise
        if not first.get("ok"):
            lines.close()
            connection.close()
            raise ConnectionError(first.get("error", "refused"))
        connection.settimeout(None)
        return self._states(connection, lines)

    @staticmethod
    def _states(connection: socket.socket, lines: Any) -> Iterator[dict[str, Any]]:
        with connection, lines:
            for line in lines:
                yield json.loads(line)["state"]
