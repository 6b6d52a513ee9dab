"""Beside a box of another process: `gravebox run --mqtt` and `gravebox sim --mqtt` start
`gravebox mqtt` as a child (`MqttChild`); the simulator paces its socket on it (`PacedControl`)."""

from __future__ import annotations

import json
import logging
import subprocess
import threading
from pathlib import Path
from typing import Any

from box.events import EncodedEvents
from box.links.control import ControlServer
from box.links.mqtt.bridge import fingerprint
from box.links.mqtt.publisher import CLOSE_WAIT
from box.words import digits_value

log = logging.getLogger(__name__)

START_WAIT = 15.0  # seconds the child process has to follow the box
PACE_WAIT = 10.0  # seconds a simulated box waits for the child to take its events, at most


class MqttChild:
    """`gravebox mqtt` as a child process following the control socket at `path` (`options`: its
    --config and --mqtt). With `acks` it tells what it has taken, so that a box on virtual time
    can wait for it (`wait_seen`: an event; `wait_taken`: a state dump), and its last status line
    (`stop` returns it)."""

    def __init__(self, path: Path, options: list[str], acks: bool = False):
        self.path, self.options, self.acks = path, options, acks
        self.process: subprocess.Popen[str] | None = None
        self.seen: tuple[str | None, int] = (None, 0)
        self.taken: str | None = None  # the fingerprint of the last state dump it took
        self.subscribed = False
        self.ended = False
        self.last_line: str | None = None
        self.heard = threading.Condition()
        self.reader: threading.Thread | None = None

    def start(self) -> MqttChild:
        import os
        import sys

        home = str(Path(__file__).resolve().parents[3])  # the same box code as this process
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (home, os.environ.get("PYTHONPATH"))))}
        command = [sys.executable, "-m", "box", "mqtt", "--socket", str(self.path), *self.options]
        if self.acks:
            command.append("--acks")
        self.process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE if self.acks else None, text=True)
        if self.acks:
            self.reader = threading.Thread(target=self.hear, name="mqtt-child", daemon=True)
            self.reader.start()
        return self

    def hear(self) -> None:
        assert self.process is not None and self.process.stdout is not None
        for line in self.process.stdout:
            word, _, rest = line.rstrip("\n").partition(" ")
            with self.heard:
                if word == "subscribed":
                    self.subscribed = True
                elif word == "seen":  # "seen RUN SEQ FINGERPRINT": a dump taken, its newest event
                    run, seq, taken = [*rest.split(" "), "", ""][:3]
                    number = digits_value(seq)
                    self.seen = (run, number) if number is not None else self.seen
                    self.taken = taken or None
                elif word == "status":
                    self.last_line = rest
                self.heard.notify_all()
        with self.heard:
            self.ended = True
            self.heard.notify_all()

    def wait_subscribed(self, timeout: float = START_WAIT) -> bool:
        with self.heard:
            return self.heard.wait_for(lambda: self.subscribed or self.ended, timeout) and self.subscribed

    def wait_seen(self, run: str, seq: int, timeout: float = PACE_WAIT) -> bool:
        """Wait until the child has taken event `seq` of `run` (False: it ended, or `timeout`)."""
        def taken() -> bool:
            return self.seen[0] == run and self.seen[1] >= seq

        with self.heard:
            self.heard.wait_for(lambda: self.ended or taken(), timeout)
            return taken()

    def wait_taken(self, line: bytes | None, timeout: float = PACE_WAIT) -> bool:
        """Wait until the child has taken the state dump `line` (the control socket's, one JSON line)
        and handed its state to the publisher (False: it ended, or `timeout`)."""
        if line is None:
            return True
        wanted = fingerprint(json.loads(line)["state"])
        with self.heard:
            self.heard.wait_for(lambda: self.ended or self.taken == wanted, timeout)
            return self.taken == wanted

    def stop(self, timeout: float = CLOSE_WAIT * 3 + 2) -> str | None:
        """SIGTERM: the child says goodbye to the broker and ends; its last status line. `timeout`
        outlasts the child's own goodbye (`MqttPublisher.close`: at most three CLOSE_WAITs, for the
        broker, the queue and "offline"), so that a slow goodbye is not killed as a hung one."""
        process = self.process
        if process is None:
            return None
        process.terminate()
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            log.warning("MQTT: the MQTT process did not end; killed")
            process.kill()
            process.wait(timeout)
        if self.reader is not None:
            self.reader.join(timeout)
        return self.last_line


class PacedControl(ControlServer):
    """The simulator's control socket with `--mqtt`: on virtual time a script outruns any follower,
    so each state dump waits (at most `PACE_WAIT`) until the MQTT child has taken the events that
    would otherwise leave the window before it reads them; `all_taken` waits for the last dump."""

    def __init__(self, path: Path, child: MqttChild, margin: int = 10):
        super().__init__(path, lambda command: None)
        self.child, self.margin = child, margin

    def publish(self, *parts: dict[str, Any], events: EncodedEvents | None = None) -> None:
        super().publish(*parts, events=events)
        numbered = [e for e in events or () if isinstance(e.get("seq"), int)]
        if numbered and not self.child.ended:
            self.child.wait_seen(str(numbered[-1]["run"]), numbered[-1]["seq"] - self.margin)

    def all_taken(self) -> bool:
        """Wait until the child has taken the last state dump published, with every event in it
        (False: it did not, in time)."""
        return self.child.wait_taken(self.latest)
