"""The box's control socket: how the phone page's process talks to the box.

A unix socket in a runtime directory only the box and the page share: systemd's
`$RUNTIME_DIRECTORY` (/run/gravebox, 0770, group gravebox) for the service, else
`$XDG_RUNTIME_DIR/gravebox` (0700) for a user's own box; never a folder another
user could have made first (box/links/trust.py checks the folder and the peer at
both ends). Each line is one JSON object with a `cmd`; each command gets one line back:

    {"cmd": "enrol", "game": "dead-set", "card": "ds001"}   -> {"ok": true}
    {"cmd": "show-code", "code": "482913", "seconds": 120}  -> {"ok": true}
    {"cmd": "state"}                                         -> {"ok": true, "state": {...}}
    {"cmd": "subscribe"}  -> {"ok": true}, then {"state": {...}} on every change
    {"cmd": "mqtt-status", "line": "MQTT: connected ..."}   -> {"ok": true}  (the MQTT process's one line)

The server's threads never touch the box: a line is bounded (`MAX_LINE`) and must
arrive whole within `IDLE_TIMEOUT`; it is decoded and checked (`decode_line`), then
handed to `enqueue` (the one loop's inbox) as a `ControlCommand`; the loop carries it
out and journals it like any input. Anything else gets one line, `{"ok": false,
"error": ...}`, and changes nothing. The loop calls `publish` with the state dump
after each change; subscribers get the newest dump (a slow one skips the ones it
missed, one that stops reading is dropped, and none holds up the loop). A new
subscriber puts a wake-up (`None`) in the inbox, so an idle loop publishes at once.

>>> check_command({"cmd": "enrol", "game": "dead-set", "card": "ds001"})
ControlCommand(name='enrol', args={'game': 'dead-set', 'card': 'ds001'})
>>> check_command({"cmd": "enrol", "game": 3})
Traceback (most recent call last):
...
ValueError: enrol: game must be text
>>> decode_line(b'[1, 2]')
Traceback (most recent call last):
...
ValueError: a command is a JSON object with "cmd"
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import select
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from box.events import EncodedEvents
from box.links.statelines import StateLines
from box.links.trust import Trust, Untrusted, make_folder
from box.messages import ControlCommand

log = logging.getLogger(__name__)

SOCKET_NAME = "control.sock"
SYSTEM_RUNTIME = Path("/run/gravebox")
MAX_LINE = 64 * 1024  # a command is small; a longer line is refused and the connection closed
STATE_LINE = 64 * MAX_LINE  # the most a subscriber reads as one state dump (a ten-player game is far less)
MAX_CLIENTS = 16
RESERVED = 2  # of those, the connections only the box's own user (the phone page's service) may take
MAX_SUBSCRIBERS = 4
IDLE_TIMEOUT = 10.0  # seconds a connection has to send a whole line (after connecting, or after its last answer)
SEND_TIMEOUT = 5.0  # seconds a client may keep the box's thread waiting to take a line
POLL = 0.25  # seconds between a reading thread's looks at the clock
REPLY_WAIT = 2.0  # seconds the box's socket waits for the loop's verdict on a command before it says "pending"
LATE_WAIT = 30.0  # seconds more it waits after "pending" to send the verdict, late, as a second line
LIVENESS = 5.0  # seconds between a quiet subscription's looks at whether its client is still there

# command -> its fields and their types; "state", "subscribe" and "mqtt-status" are answered by the server itself
COMMANDS: dict[str, dict[str, type]] = {
    "state": {},
    "subscribe": {},
    "mqtt-status": {"line": str},  # the MQTT process (box/links/mqtt/) says how it is: kept for the state dump
    "show-code": {"code": str, "seconds": int},  # show the pairing code on the OLED for a while
    "hide-code": {},
    "enrol": {"game": str, "card": str},  # the next tag laid on any reader becomes this card
    "enrol-player": {"name": str},  # the next tag becomes this roster name's player token
    "enrol-stop": {},
    "roster-changed": {},  # roster.json was replaced: read it again
    "merge": {"player": str, "into": str},  # the roster's player of id `player` becomes one with `into`'s
    "tags-changed": {},  # tags.csv was replaced (a restored backup): read it again
    "decks-changed": {},  # a deck file was replaced: load it again at the next game
    "restore": {"file": str},  # a backup the page uploaded into the state folder (its name): the box restores it
    "hotspot-up": {"ssid": str, "password": str, "page": str},  # `gravebox hotspot`: the box's own Wi-Fi is up
    "hotspot-down": {},
    # a paired phone's hands on the box, each carried out as if pressed there:
    "start": {"game": str, "names": list, "options": dict},  # start a game with these seats and options
    "undo": {"label": str},  # undo the last action, which the phone showed as `label` (refused if it changed)
    "abandon": {},  # abandon the game in play
    "end-session": {"game": str},  # end the game the phone showed as its rules declare (Phone.ends_with)
    "sound": {"volume": str, "muted": bool},  # the volume level, and mute
    "phone-time": {"ms": int},  # a paired phone's clock (ms since the epoch): the box's date while its own is not synchronised
}
WIDE = {"ms": 10**15}  # a whole number field this large (a phone's clock in ms); every other is 0 to 86400
MOST_SEATS = 10  # names a "start" may seat
MOST_OPTIONS = 20


class Refusal(Exception):
    """Why the server ends a connection, in one line for the client."""


def runtime_directory() -> Path:
    """Where the socket lives: $GRAVEBOX_RUNTIME, systemd's $RUNTIME_DIRECTORY, else /run/gravebox for
    root (or where it exists), else $XDG_RUNTIME_DIR/gravebox for a user's own box. No folder another
    user could make first (/tmp): without one of these, `Untrusted` says what to do."""
    for variable in ("GRAVEBOX_RUNTIME", "RUNTIME_DIRECTORY"):
        if os.environ.get(variable):
            return Path(os.environ[variable].split(":")[0])
    if os.geteuid() == 0 or SYSTEM_RUNTIME.is_dir():
        return SYSTEM_RUNTIME
    if os.environ.get("XDG_RUNTIME_DIR"):
        return Path(os.environ["XDG_RUNTIME_DIR"]) / "gravebox"
    raise Untrusted(
        "no safe folder for the control socket: $XDG_RUNTIME_DIR is not set (log in through a session),"
        " or set GRAVEBOX_RUNTIME to a folder only you can reach"
    )


def socket_path(directory: Path | None = None) -> Path:
    return (directory or runtime_directory()) / SOCKET_NAME


def shared(folder: Path) -> bool:
    """The service's folder (0770, group gravebox), not a user's own (0700)."""
    return folder == SYSTEM_RUNTIME or str(folder) == os.environ.get("RUNTIME_DIRECTORY", "").split(":")[0]


def check_command(data: Any) -> ControlCommand:
    """The command a decoded line holds; ValueError (one line, naming the field) when malformed."""
    if not isinstance(data, dict) or not isinstance(data.get("cmd"), str):
        raise ValueError('a command is a JSON object with "cmd"')
    name = data["cmd"]
    if name not in COMMANDS:
        raise ValueError(f"unknown command {name[:40]!r}; commands are {', '.join(COMMANDS)}")
    fields = COMMANDS[name]
    extra = sorted(str(key) for key in set(data) - set(fields) - {"cmd"})
    if extra:
        raise ValueError(f"{name}: unknown field {extra[0][:40]!r}")
    args = {key: check_field(name, key, kind, data.get(key)) for key, kind in fields.items()}
    return ControlCommand(name, args)


def check_field(command: str, key: str, kind: type, value: Any) -> Any:
    """One field's value, of its kind and bounded; ValueError (one line, naming it) otherwise.

    >>> check_field("start", "names", list, ["Ann", "Bob"]), check_field("sound", "muted", bool, True)
    (['Ann', 'Bob'], True)
    >>> check_field("start", "names", list, ["Ann", 3])
    Traceback (most recent call last):
    ...
    ValueError: start: names must be a list of 1 to 10 texts
    """
    if kind is bool:
        if not isinstance(value, bool):
            raise ValueError(f"{command}: {key} must be true or false")
        return value
    if kind is list:
        if not isinstance(value, list) or not 0 < len(value) <= MOST_SEATS or not all(isinstance(v, str) for v in value):
            raise ValueError(f"{command}: {key} must be a list of 1 to {MOST_SEATS} texts")
        return [check_field(command, key, str, item) for item in value]
    if kind is dict:
        if not isinstance(value, dict) or len(value) > MOST_OPTIONS:
            raise ValueError(f"{command}: {key} must be an object of at most {MOST_OPTIONS} texts")
        return {check_field(command, key, str, k): check_field(command, key, str, v) for k, v in value.items()}
    if not isinstance(value, kind) or isinstance(value, bool):
        raise ValueError(f"{command}: {key} must be {'text' if kind is str else 'a whole number'}")
    if isinstance(value, str) and not 0 < len(value) <= 200:
        raise ValueError(f"{command}: {key} must be 1 to 200 characters")
    if isinstance(value, str) and not value.isprintable():
        raise ValueError(f"{command}: {key} must be printable text (no control characters)")
    if isinstance(value, int) and not 0 <= value <= WIDE.get(key, 86_400):
        raise ValueError(f"{command}: {key} must be 0 to {WIDE.get(key, 86_400)}")
    return value


def decode_line(raw: bytes) -> ControlCommand:
    """The command one line of the socket holds; ValueError (one line) for any other bytes."""
    try:
        data = json.loads(raw)
    except RecursionError:
        raise ValueError("not JSON: nested too deep") from None
    except ValueError as problem:  # bad JSON, bytes that are not UTF-8, a number too long
        raise ValueError(f"not JSON: {str(problem).splitlines()[0][:200]}") from None
    return check_command(data)


def answer(ok: bool, **extra: Any) -> bytes:
    return json.dumps({"ok": ok, **extra}, separators=(",", ":")).encode() + b"\n"


class Verdict:
    """What became of one command: the loop gives it ("" taken, else the reason it was refused)."""

    def __init__(self) -> None:
        self.given, self.refused = threading.Event(), ""

    def give(self, refused: str) -> None:
        self.refused = refused
        self.given.set()


class ControlServer:
    """Accepts commands on the socket and publishes the box's state to subscribers.

    `clock` (monotonic seconds) times the idle connections out. `wait`: how long a command's answer
    waits for the loop's verdict (0: answered as soon as it is queued, for a loop that runs later).
    A refused command is answered `{"ok": false, "refused": true, "error": reason}`; one the loop has
    not judged within `wait`, `{"ok": true, "pending": true}`, and its verdict follows on a second
    line with `"late": true` when the loop judges it within LATE_WAIT more (a client that waits for it
    tells pending from done).
    """

    def __init__(
        self,
        path: Path,
        enqueue: Callable[[ControlCommand | None], None],
        clock: Callable[[], float] = time.monotonic,
        wait: float = 0.0,
    ):
        self.path = path
        self.enqueue = enqueue
        self.clock = clock
        self.wait = wait
        self.listener: socket.socket | None = None
        self.thread: threading.Thread | None = None
        self.changed = threading.Condition()
        self.version = 0
        self.latest: bytes | None = None  # the newest state dump, one JSON line
        self.encoder = StateLines()  # used on the loop's thread only (`publish`)
        self.clients: dict[socket.socket, bool] = {}  # each connection: whether it is the box's own user's
        self.subscribers = 0
        self.lock = threading.Lock()
        self.trust: Trust | None = None
        self.closing = False
        self.mqtt_line: str | None = None  # what the MQTT process last said of itself ("mqtt-status")

    # ----- the loop's side -------------------------------------------------------------------

    def publish(self, *parts: dict[str, Any], events: EncodedEvents | None = None) -> None:
        """Called by the loop after a change: remember the dump (its `parts`, with no key in common,
        and the events) and wake the subscribers (never blocks)."""
        line = self.encoder.line(*parts, events=events)
        with self.changed:
            if line == self.latest:
                return
            self.latest = line
            self.version += 1
            self.changed.notify_all()

    def subscribed(self) -> bool:
        return bool(self.clients)  # whether anyone is connected (the loop need not build dumps for no one)

    # ----- threads --------------------------------------------------------------------------

    def start(self) -> None:
        """Listen on the socket (replacing a stale one left by a killed box) and accept in a thread.

        OSError (`Untrusted` among them, one line) when the folder is not fit for it."""
        folder = self.path.parent
        folder.parent.mkdir(parents=True, exist_ok=True)
        make_folder(folder, shared(folder))
        self.trust = Trust.here()
        self.trust.check_folder(folder)
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            listener.bind(str(self.path))
            os.chmod(self.path, 0o660)  # the box's user and group (the page's service shares the group)
            if shared(folder) and os.geteuid() == 0:
                os.chown(self.path, -1, os.stat(folder).st_gid)
            listener.listen(MAX_CLIENTS)
        except OSError:
            listener.close()
            raise
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
            try:
                since = self.admit(client)
            except (OSError, Refusal) as problem:
                log.warning("control socket: connection refused: %s", problem)
                with contextlib.suppress(OSError):
                    client.settimeout(POLL)
                    client.sendall(answer(False, error=str(problem)))
                    client.setblocking(False)
                    client.recv(MAX_LINE)  # what it already sent: read, so that the close is no reset
                client.close()
                continue
            threading.Thread(target=self.serve, args=(client, since), name="control-client", daemon=True).start()

    def admit(self, client: socket.socket) -> float:
        """Take a new connection in: a trusted peer, and a free place (some are kept for the box's own
        user). Returns when (on the server's clock) it was let in."""
        assert self.trust is not None
        uid, _ = self.peer(client)
        own = uid == os.geteuid()
        with self.lock:
            others = sum(1 for mine in self.clients.values() if not mine)
            if len(self.clients) >= MAX_CLIENTS or (not own and others >= MAX_CLIENTS - RESERVED):
                raise Refusal("the box has too many connections; try again")
            self.clients[client] = own
        return self.clock()

    def peer(self, client: socket.socket) -> tuple[int, int]:
        """The connecting process's (uid, gid), once checked (`Untrusted` otherwise)."""
        assert self.trust is not None
        return self.trust.check_peer(client)

    def serve(self, client: socket.socket, since: float) -> None:
        """One connection, let in at `since`: answer its commands; after "subscribe", stream the state to it."""
        try:
            client.settimeout(POLL)
            for raw in self.lines(client, since):
                try:
                    command = decode_line(raw)
                except ValueError as problem:
                    self.send(client, answer(False, error=str(problem).splitlines()[0]))
                    continue
                if command.name == "subscribe":
                    self.stream(client)
                    return
                if command.name == "state":
                    with self.changed:
                        latest = self.latest
                    state = json.loads(latest)["state"] if latest else None
                    self.send(client, answer(True, state=state))
                    continue
                if command.name == "mqtt-status":
                    self.mqtt_line = command.args["line"]  # bounded, printable: checked
                    self.enqueue(None)  # a wake-up: the loop publishes the state with the new line
                    self.send(client, answer(True))
                    continue
                self.judge(client, command)
        except Refusal as problem:
            with contextlib.suppress(OSError):
                self.send(client, answer(False, error=str(problem)))
                drain(client)
        except OSError as problem:
            log.debug("control client gone: %s", problem)
        except Exception as problem:  # a bug must cost the one connection, never the socket or the box
            log.error("control client dropped: %r", problem)
        finally:
            with self.lock:
                self.clients.pop(client, None)
            client.close()

    def judge(self, client: socket.socket, command: ControlCommand) -> None:
        """Hand `command` to the loop and send what became of it (see the class)."""
        if not self.wait:
            self.enqueue(command)
            self.send(client, answer(True))
            return
        verdict = Verdict()
        self.enqueue(replace(command, reply=verdict.give))
        if verdict.given.wait(self.wait):
            self.send(client, answer(False, refused=True, error=verdict.refused) if verdict.refused else answer(True))
            return
        self.send(client, answer(True, pending=True))
        for _ in range(int(LATE_WAIT / POLL)):  # a look at `closing` every POLL: a stop never waits on it
            if self.closing:
                return
            if verdict.given.wait(POLL):
                late = answer(False, refused=True, error=verdict.refused, late=True) if verdict.refused else answer(True, late=True)
                self.send(client, late)
                return

    def lines(self, client: socket.socket, since: float) -> Iterator[bytes]:
        """The lines a client sends, each at most MAX_LINE bytes and whole within IDLE_TIMEOUT of
        `since` or of the last answer (`Refusal` otherwise); a last line without its newline counts too."""
        buffer = bytearray()
        deadline = since + IDLE_TIMEOUT
        while not self.closing:
            end = buffer.find(b"\n")
            if end >= 0:
                line = bytes(buffer[: end + 1])
                del buffer[: end + 1]
                yield line
                deadline = self.clock() + IDLE_TIMEOUT
                continue
            if len(buffer) > MAX_LINE:
                raise Refusal("line too long")
            try:
                chunk = client.recv(4096)
            except TimeoutError:
                if self.clock() >= deadline:
                    raise Refusal(f"timed out: send each command as one whole line within {IDLE_TIMEOUT:.0f} s") from None
                continue
            if not chunk:
                if buffer.strip():
                    yield bytes(buffer)
                return
            buffer += chunk

    def send(self, client: socket.socket, line: bytes) -> None:
        """Send one line, or give up on a client that takes none for SEND_TIMEOUT (OSError)."""
        client.settimeout(SEND_TIMEOUT)
        try:
            client.sendall(line)
        finally:
            client.settimeout(POLL)

    def stream(self, client: socket.socket) -> None:
        """Send the newest state now and after every change, until the client goes."""
        with self.lock:
            if self.subscribers >= MAX_SUBSCRIBERS:
                raise Refusal("the box has too many subscribers; try again")
            self.subscribers += 1
        try:
            self.send(client, answer(True))
            self.enqueue(None)  # a wake-up: the loop makes a pass and publishes the state now
            seen = -1
            while not self.closing:
                with self.changed:
                    if self.version == seen and not self.closing:
                        self.changed.wait(LIVENESS)
                    fresh, line = self.version != seen, self.latest
                    seen = self.version
                if not fresh:
                    if gone(client):
                        return
                    continue
                if line is not None and not self.closing:
                    self.send(client, line)
        finally:
            with self.lock:
                self.subscribers -= 1


def drain(client: socket.socket) -> None:
    """Say no more, and read a little of what the client still sends (bounded), so that closing
    does not reset the connection before it has read the refusal."""
    client.shutdown(socket.SHUT_WR)
    for _ in range(MAX_LINE // 4096):
        try:
            if not client.recv(4096):
                return
        except TimeoutError:
            return


def gone(client: socket.socket) -> bool:
    """Whether a subscriber hung up (what it sends after subscribing is read and dropped)."""
    if not select.select([client], [], [], 0)[0]:
        return False
    return not client.recv(4096)
