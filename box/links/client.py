"""The other end of the box's control socket (box/links/control.py): the phone page's, and a test's.

Before a connection is used, the socket's folder and the process at the other end are checked
(`Untrusted`, an OSError, otherwise): a page never sends a pairing code to a socket someone else
put in place.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

from box.links.control import MAX_LINE, STATE_LINE
from box.links.trust import Trust


class ControlClient:
    """The page's side, for plain (blocking) callers: one request per connection, or a subscription.

    The socket's folder and the process at the other end are checked first (`Untrusted`)."""

    def __init__(self, path: Path, timeout: float = 2.0):
        self.path = path
        self.timeout = timeout

    def connect(self) -> socket.socket:
        trust = Trust.here()
        trust.check_folder(self.path.parent)
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        connection.settimeout(self.timeout)
        try:
            connection.connect(str(self.path))
            trust.check_peer(connection)
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

    def subscribe(self) -> Subscription:
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
        return Subscription(connection, lines)


class Subscription:
    """The box's state dumps as they come; `close` hangs up (also before the first one)."""

    def __init__(self, connection: socket.socket, lines: Any):
        self.connection, self.lines = connection, lines

    def __iter__(self) -> Subscription:
        return self

    def __next__(self) -> dict[str, Any]:
        """The next dump; a line longer than STATE_LINE, or one that is no dump, is a ValueError."""
        line = self.lines.readline(STATE_LINE + 1)
        if not line:
            self.close()
            raise StopIteration
        if len(line) > STATE_LINE:
            raise ValueError(f"the box sent a state line over {STATE_LINE} bytes")
        data = json.loads(line)
        if not isinstance(data, dict) or not isinstance(data.get("state"), dict):
            raise ValueError("the box sent a line that is no state")
        return data["state"]

    def close(self) -> None:
        self.lines.close()
        self.connection.close()


async def open_box_connection(path: Path, limit: int = MAX_LINE) -> Any:
    """The phone page's asyncio connection to the box, `(reader, writer)`, once the socket's
    folder and the process at the other end are checked (`Untrusted`, an OSError, otherwise)."""
    import asyncio

    trust = Trust.here()
    trust.check_folder(path.parent)
    reader, writer = await asyncio.open_unix_connection(str(path), limit=limit)
    try:
        trust.check_peer(writer.get_extra_info("socket"))
    except OSError:
        writer.close()
        raise
    return reader, writer

