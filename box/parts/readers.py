"""The card readers as the Box sees them: which are offline and why, said until they come back.

One part of the Box (box/core/service.py). A reader going offline is said for a while with the
error sound, then stays on the bottom line ("! reader left off"); its coming back is said
once. Both are events (box/events.py). The self-test starts from what is known here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from box.events import ReaderChanged
from box.messages import ReaderStatus
from box.parts.notices import NOTICE_SECONDS
from box.screens.protocol import StackHost
from box.words import Sound


class ReaderWatch:
    """Readers offline (name -> what to check), kept from their status messages."""

    def __init__(self, readers: Mapping[str, str], host: StackHost, wake: Callable[[float], object]):
        """`readers`: the configured readers (name -> port); `wake`: news wakes a dimmed screen."""
        self.readers, self.host, self.wake = readers, host, wake
        self.offline: dict[str, str] = {}

    def status(self, status: ReaderStatus, now: float) -> None:
        """A reader went offline or came back: said, told to the screen on top, published."""
        self.wake(now)  # news on the screen: shown awake (not an input to swallow, nothing is)
        self.host.top.reader_status(status.reader, status.online, status.message, now)
        if status.online:
            if self.offline.pop(status.reader, None) is None:
                return
            self.host.say(f"Reader {status.reader} back", now)
        else:
            self.offline[status.reader] = status.message
            self.host.say(status.message, now, seconds=NOTICE_SECONDS * 2)
            self.host.play(Sound.ERROR)
        self.host.publish(ReaderChanged(*status))

    def notice(self) -> str:
        """The bottom line while a reader is offline ("" when none is)."""
        return "! reader " + ", ".join(sorted(self.offline)) + " off" if self.offline else ""

    def open_self_test(self, now: float) -> None:
        from box.screens.selftest import SelfTest

        self.host.push(SelfTest(self.readers, now, offline=self.offline, assume_online=True))
