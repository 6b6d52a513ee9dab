"""The phone link: the loop's record of the box's events for the control socket's followers (the
phone page, the MQTT process), sent with every state dump (box/core/loop.py, box/links/statelines.py)."""

from __future__ import annotations

import os
import time
from collections import deque
from collections.abc import Iterator

from box.events import EncodedEvent, EncodedEvents, Event, Standing, as_json, event_text


class PhoneLink:
    """The loop's record of the box's events for the control socket's followers (the phone page,
    the MQTT process): the newest few, sent with the state (`events`).

    It follows the bus on the loop's own thread (`EventBus.keep_on_loop`): an event taken in a pass
    is in the state that pass publishes, and the link does no more than keep it; its JSON is made
    once, when a dump first carries it (never, while no one follows). Each is numbered (`seq`, from 1,
    with the link's `run`, new at every start of the box) and stamped (`at`, UNIX time), so a
    follower that skips a dump (the MQTT process, box/links/mqtt/) takes each event once and counts
    what it missed. Of the standings only the newest is kept, unnumbered: it is state, and would
    crowd out the moments; it stays however many moments follow (a follower starting late reads
    where the game stands).

    >>> from box.events import DiceRolled
    >>> link = PhoneLink()
    >>> for faces in ((1, 2), (3, 4)): link(DiceRolled(faces, game=None))
    >>> [(entry["seq"], entry["faces"]) for entry in link.events()], link.changes
    ([(1, [1, 2]), (2, [3, 4])], 2)
    """

    KEPT = 20

    def __init__(self) -> None:
        self.recent: deque[KeptEvent] = deque()
        self.run = os.urandom(4).hex()
        self.numbered = 0
        self.changes = 0  # events taken so far, numbered or not: the loop dumps the state again when it grows
        self.standing: KeptEvent | None = None  # the newest standing, among `recent`
        self.encoded: tuple[int, EncodedEvents] = (0, KeptEvents(()))  # `events` as of that many changes

    def __call__(self, event: Event) -> None:
        kept = KeptEvent(event, round(time.time() * 1000) / 1000, None)  # to the ms (`round(t, 3)` costs a decimal conversion)
        if isinstance(event, Standing):
            if self.standing is not None:
                self.recent.remove(self.standing)
            self.standing = kept
        else:
            self.numbered += 1
            kept.seq = self.numbered
        self.recent.append(kept)
        if len(self.recent) - (self.standing is not None) > self.KEPT:  # the oldest moment goes, never the standing
            del self.recent[1 if self.recent[0] is self.standing else 0]
        self.changes += 1

    def events(self) -> EncodedEvents:
        """The events kept, as the state dump carries them: each one's entry and JSON made once (the
        newest are last: those taken since the last call)."""
        changes, encoded = self.encoded
        if changes != self.changes:
            recent = self.recent
            for index in range(-min(self.changes - changes, len(recent)), 0):
                recent[index].encode(self.run)
            encoded = KeptEvents(tuple(recent))
            self.encoded = (self.changes, encoded)
        return encoded


class KeptEvents(EncodedEvents):
    """The window as a dump carries it: the JSON joined at once (the line needs it), the entries only
    when iterated (the line does not)."""

    __slots__ = ("kept",)

    def __init__(self, kept: tuple[KeptEvent, ...]) -> None:
        self.kept = kept
        self.text = "[" + ",".join([event.text for event in kept]) + "]"

    def __iter__(self) -> Iterator[EncodedEvent]:
        return (event.entry for event in self.kept)

    def __len__(self) -> int:
        return len(self.kept)


class KeptEvent:
    """An event the phone link keeps: when it came (`at`), its number (None: a standing), and its
    JSON as the dump carries it, made when first asked for (`encode`); its entry (the JSON's object)
    only when someone iterates the window."""

    __slots__ = ("_entry", "at", "event", "run", "seq", "text")

    def __init__(self, event: Event, at: float, seq: int | None):
        self.event, self.at, self.seq = event, at, seq
        self.run = ""
        self.text = ""  # its JSON, once made
        self._entry: EncodedEvent | None = None

    def encode(self, run: str) -> None:
        if not self.text:
            self.run, self.text = run, event_text(self.event, self.at, run, self.seq)

    @property
    def entry(self) -> EncodedEvent:
        """The event as the dump's JSON object (`as_json`, with `at`, `run` and `seq`), made once."""
        if self._entry is None:
            entry = as_json(self.event)
            entry["at"], entry["run"] = self.at, self.run
            if self.seq is not None:
                entry["seq"] = self.seq
            self._entry = EncodedEvent(entry, self.text)
        return self._entry
