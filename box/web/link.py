"""The page's line to the box: a subscription to its state dump, and one-off commands (box/links/control.py)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from pathlib import Path
from typing import Any

from box.links.client import open_box_connection
from box.links.control import REPLY_WAIT, STATE_LINE

log = logging.getLogger(__name__)

RETRY = 1.0  # seconds between tries to reach the box
ANSWER_WAIT = REPLY_WAIT + 1.0
"""Seconds the page waits for the box's first line: longer than the box's own wait before it says
"pending", so a busy box is never taken for one that is not running."""
LATE_ANSWER = 8.0  # seconds more the page waits for the verdict of a command the box said is pending


class BoxOffline(Exception):
    """The box's control socket does not answer."""


class BoxRefused(BoxOffline):
    """The box answered, and refused the command: the message is its reason, as its screen says it."""


class BoxLink:
    """A subscription to the box's state, kept up while the page runs; and one-off commands."""

    def __init__(self, path: Path, retry: float = RETRY):
        self.path = path
        self.retry = retry
        self.state: dict[str, Any] | None = None
        self.online = False
        self.version = 0
        self.changed = asyncio.Event()

    def bump(self) -> None:
        self.version += 1
        event, self.changed = self.changed, asyncio.Event()
        event.set()

    async def wait(self, seen: int, timeout: float) -> None:
        """Return when the version moved past `seen`, or after `timeout`."""
        if self.version != seen:
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.changed.wait(), timeout)

    async def run(self) -> None:
        while True:
            writer = None
            try:
                reader, writer = await open_box_connection(self.path, limit=STATE_LINE)
                writer.write(b'{"cmd": "subscribe"}\n')
                await writer.drain()
                if not json.loads(await reader.readline() or b"{}").get("ok"):
                    raise ConnectionError("the box refused the subscription")
                while line := await reader.readline():
                    self.state, self.online = json.loads(line)["state"], True
                    self.bump()
            except (OSError, ValueError, KeyError, asyncio.LimitOverrunError) as problem:
                log.debug("box link: %s", problem)
            finally:
                if writer is not None:
                    writer.close()
                if self.online:
                    self.online = False
                    self.bump()
            await asyncio.sleep(self.retry)

    async def request(self, cmd: str, **args: Any) -> dict[str, Any]:
        """The box's answer to one command (`"pending": true` when it has not judged it in time);
        BoxRefused with its reason, BoxOffline when it does not answer."""
        try:
            reader, writer = await asyncio.wait_for(open_box_connection(self.path), 2.0)
        except (OSError, TimeoutError) as problem:
            raise BoxOffline(str(problem)) from None
        try:
            writer.write(json.dumps({"cmd": cmd, **args}).encode() + b"\n")
            await writer.drain()
            reply = json.loads(await asyncio.wait_for(reader.readline(), ANSWER_WAIT) or b"{}")
            if reply.get("pending"):  # the box took it but has not judged it: its verdict may follow
                with contextlib.suppress(TimeoutError):
                    reply = json.loads(await asyncio.wait_for(reader.readline(), LATE_ANSWER) or b"{}") or reply
        except (OSError, TimeoutError, ValueError) as problem:
            raise BoxOffline(str(problem)) from None
        finally:
            writer.close()
        if reply.get("refused"):
            raise BoxRefused(str(reply.get("error", "refused")))
        if not reply.get("ok"):
            raise BoxOffline(reply.get("error", "the box did not answer"))
        return reply
