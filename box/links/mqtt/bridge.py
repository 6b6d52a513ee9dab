"""The box's control socket to the broker: follow the box's state dumps (`Bridge`), take each event
once by its run and number (`Window`, with the catch-up at start), and `main`, the process itself."""

from __future__ import annotations

import hashlib
import json
import logging
import socket
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from box.links import sdnotify
from box.links.client import ControlClient, Subscription
from box.links.mqtt.publisher import MqttPublisher
from box.links.mqtt.topics import META, event_from_entry
from box.storage.config import MqttConfig

log = logging.getLogger(__name__)

BOX_RETRY = 1.0  # seconds between tries to reach the box's control socket
CATCH_UP = 60.0  # seconds: at its start, the process publishes the events in the box's window this recent
STATUS_LINE = 200  # characters of the status line the box takes (box/links/control.py's bound for a text)
MARKER_WAIT = 3.0  # seconds at start to read back the broker's marker (then the catch-up rule)
REPORT_EVERY = 5.0  # seconds between looks at whether the status line changed (it is sent when it does)


class Window:
    """Which events of the box's window (the state dump's `events`) are new: each taken once, by its
    run (a start of the box) and number; the ones that left the window unseen are counted (`missed`).

    A fresh process that read back the broker's marker (`told`: the run and number a process before
    it published last) publishes what came after it; without one, or for another run of the box, it
    publishes what the window holds of the last `catch_up` seconds and takes the older as told.

    >>> window = Window(clock=lambda: 100.0)
    >>> old, new = {"event": "storage-back", "seq": 1, "run": "a", "at": 1.0}, {"event": "storage-back", "seq": 2, "run": "a", "at": 99.0}
    >>> [e["seq"] for e in window.new([old, new])], [e["seq"] for e in window.new([old, new])]
    ([2], [])
    >>> [e["seq"] for e in window.new([{**new, "seq": 5}])], window.missed
    ([5], 2)
    """

    def __init__(self, clock: Callable[[], float] = time.time, catch_up: float = CATCH_UP,
                 told: tuple[str, int] | None = None):
        self.clock, self.catch_up = clock, catch_up
        self.told = told  # the marker read back from the broker: what a process before published
        self.resumed = False  # the box's run is the marker's: everything after it is news, however old
        self.run: str | None = None
        self.seq = 0
        self.missed = 0
        self.standing: str | None = None
        self.fresh = True

    def new(self, events: Any) -> list[dict[str, Any]]:
        """The entries of `events` not taken before, in order (a standing when it changed)."""
        if not isinstance(events, list):
            return []
        taken, fresh = [], self.fresh
        for entry in events:
            if not isinstance(entry, dict):
                continue
            if entry.get("event") == "standing":
                key = json.dumps({k: v for k, v in entry.items() if k not in META}, sort_keys=True)
                if key != self.standing:
                    self.standing = key
                    taken.append(entry)
                continue
            run, seq = entry.get("run"), entry.get("seq")
            if not isinstance(seq, int) or not isinstance(run, str):
                continue
            if run != self.run and fresh and self.told is not None and self.told[0] == run:
                self.run, self.seq, self.resumed = run, self.told[1], True
            elif run != self.run:  # the box started again (or this process did): its numbers begin anew
                self.run, self.seq = run, seq - 1 if fresh else 0
            if fresh and not self.resumed and self.told_before(entry):
                self.seq = max(self.seq, seq)
                continue
            if seq <= self.seq:
                continue
            self.missed += seq - self.seq - 1
            self.seq = seq
            taken.append(entry)
        self.fresh = self.fresh and self.run is None
        return taken

    def told_before(self, entry: dict[str, Any]) -> bool:
        """At the process's start, whether an event is older than `catch_up` (what an earlier
        process of this kind would have published already)."""
        at = entry.get("at")
        return not isinstance(at, (int, float)) or self.clock() - at > self.catch_up

    def newest(self) -> tuple[str | None, int]:
        return self.run, self.seq


def fingerprint(state: Any) -> str:
    """A short fingerprint of a state dump as read from its line: the same dump gives the same one,
    in the box's process and in this one (the simulator waits for the child to take its last dump).

    >>> fingerprint({"b": [1, 2], "a": None}) == fingerprint({"a": None, "b": [1, 2]})
    True
    """
    text = json.dumps(state, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()


class Bridge:
    """The box's control socket to the broker: follow the box's state dumps, publish each new event
    once, tell the box how MQTT is doing ("mqtt-status"). `acks`: a stream that hears "seen RUN SEQ
    FINGERPRINT" after every dump is taken, its state settled with the publisher (the simulator
    paces itself on it, and ends once the last dump is taken)."""

    def __init__(self, publisher: MqttPublisher, path: Path, acks: IO[str] | None = None,
                 retry: float = BOX_RETRY):
        self.publisher, self.path, self.acks, self.retry = publisher, path, acks, retry
        self.window = Window(clock=publisher.clock)
        self.subscription: Subscription | None = None
        self.stop = threading.Event()
        self.reported: str | None = None  # the line the box last took
        self.told = threading.Condition()

    def run(self) -> None:
        """Follow the box until `hang_up`: reconnected every `retry` seconds while it is away."""
        self.window.told = self.publisher.wait_marker(MARKER_WAIT)
        if self.publisher.rival is not None:  # another publisher has these topics: this one does not start
            return
        reporter = threading.Thread(target=self.report_changes, name="mqtt-status", daemon=True)
        reporter.start()
        said_away = False
        while not self.stop.is_set():
            try:
                self.subscription = ControlClient(self.path).subscribe()
            except (OSError, ValueError) as problem:  # not running (yet), or refusing: try again
                if not said_away:
                    log.warning("MQTT: cannot reach the box at %s (%s); trying again", self.path, problem)
                    said_away = True
                self.stop.wait(self.retry)
                continue
            said_away = False
            if self.stop.is_set():  # hung up while it was connecting
                self.subscription.close()
                break
            self.publisher.box_online(True)
            self.ack("subscribed")
            try:
                for state in self.subscription:
                    self.take(state)
            except (OSError, ValueError, KeyError, TypeError) as problem:
                log.warning("MQTT: lost the box: %s", problem)
            finally:
                self.subscription.close()
                self.subscription = None
                self.publisher.box_online(False)
            if not self.stop.is_set():
                log.warning("MQTT: the box went away; trying again")
                self.stop.wait(self.retry)
        with self.publisher.changed:
            self.publisher.changed.notify_all()
        reporter.join(2)

    def take(self, state: Any) -> None:
        """One state dump: its new events to the broker."""
        events = state.get("events") if isinstance(state, dict) else None
        for entry in self.window.new(events):
            try:
                event = event_from_entry(entry)
            except ValueError as problem:  # another version of the box: one line, the others go on
                log.warning("MQTT: event not published: %s", problem)
                continue
            at, run, seq = entry.get("at"), entry.get("run"), entry.get("seq")
            mark = (run, seq) if isinstance(run, str) and type(seq) is int else None
            self.publisher.publish(event, at if isinstance(at, (int, float)) else None, mark)
        self.publisher.settle(state)
        with self.publisher.changed:  # the lock's condition: the dump is taken (tests wait on it)
            self.publisher.missed = self.window.missed
            self.publisher.changed.notify_all()
        if self.acks is not None:
            run, seq = self.window.newest()
            self.ack(f"seen {run} {seq} {fingerprint(state)}")

    def ack(self, line: str) -> None:
        if self.acks is not None:
            try:
                self.acks.write(line + "\n")
                self.acks.flush()
            except OSError as problem:  # the box beside it ended first
                log.debug("MQTT: no one hears the acks: %s", problem)
                self.acks = None

    def report_changes(self) -> None:
        """Tell the box the status line whenever it changes (the Box page shows it)."""
        while not self.stop.is_set():
            line = self.publisher.status()
            if line != self.reported and self.publisher.box_up:
                try:
                    told = "".join(c if c.isprintable() else " " for c in line)[:STATUS_LINE]
                    ControlClient(self.path).request("mqtt-status", line=told)
                    with self.told:
                        self.reported = line
                        self.told.notify_all()
                except (OSError, ValueError) as problem:
                    log.debug("MQTT: status not told to the box: %s", problem)
            with self.publisher.changed:
                self.publisher.changed.wait(REPORT_EVERY)

    def wait_told(self, condition: Callable[[str], bool], timeout: float) -> bool:
        """Wait until the box took a status line that meets `condition`; False on time-out."""
        with self.told:
            return self.told.wait_for(lambda: self.reported is not None and condition(self.reported), timeout)

    def hang_up(self) -> None:
        """End `run` (from a signal handler too): the subscription is cut, no new one is made."""
        self.stop.set()
        subscription = self.subscription
        if subscription is not None:
            subscription.connection.shutdown(socket.SHUT_RDWR)  # the blocked read ends


def main(settings: MqttConfig, path: Path, acks: IO[str] | None = None) -> int:
    """`gravebox mqtt`: publish the box's events until SIGTERM or SIGINT; then say goodbye."""
    import signal

    publisher = MqttPublisher(settings).start()
    bridge = Bridge(publisher, path, acks)
    sdnotify.ready()

    def stop(*_: object) -> None:
        try:
            bridge.hang_up()
        except OSError as problem:  # the connection was going anyway
            log.debug("MQTT: hang-up: %s", problem)

    for number in (signal.SIGTERM, signal.SIGINT):
        signal.signal(number, stop)
    try:
        bridge.run()
    finally:
        sdnotify.stopping()
        publisher.close()
        line = publisher.status()
        if publisher.rival is None:
            log.info("%s", line)
        if acks is not None:
            bridge.ack(f"status {line}")
    if publisher.rival is not None:
        print(f"gravebox: mqtt: another publisher ({publisher.rival}) already publishes under "
              f"{settings.base_topic}: this one does not start", file=sys.stderr)
        return 2
    return 0

