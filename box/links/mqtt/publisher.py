"""The broker's side: paho's client on paho's own thread, and one sender thread of ours.

No call into paho is ever made while a lock is held that paho's callbacks take: the callbacks only
note what happened (under `lock`, briefly) and wake the sender; the sender takes what is due under
the lock and publishes it with the lock released. Every return code of `publish` is looked at: what
paho could not queue waits here (bounded; the oldest dropped and counted, the status line says so).
The sender pings systemd's watchdog (box/links/sdnotify.py) on each pass: a stuck sender stops it.

At each connection, in this order: the retained marker of what was published (`<base>/published`)
is read back with a probe that also finds a second publisher on the same topics; then discovery,
the events, the marker, the state, and last "online".
"""

from __future__ import annotations

import json
import logging
import os
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

from box.events import Event, GameLeft, GameOver, GameStarted, Standing, Undone, event_name
from box.links import sdnotify
from box.links.mqtt.discovery import discovery
from box.links.mqtt.topics import OFFLINE, ONLINE, Moves, Reading, event_payload, is_cursor_move, marker_from
from box.storage.config import MqttConfig

if TYPE_CHECKING:
    from paho.mqtt.client import Client, MQTTMessage

log = logging.getLogger(__name__)

PENDING_LIMIT = 256  # events kept here while the broker is away or slow; beyond it the oldest are dropped
QUEUED_LIMIT = 64  # messages paho holds unacknowledged at most (its own bound): then they wait here
RETRY_DELAYS = (1, 60)  # paho's reconnection backoff: from 1 s, doubling, to a minute
KEEPALIVE = 30  # seconds: the broker gives the last will after 1.5 x this without a word
CLOSE_WAIT = 5.0  # seconds `close` waits for what is queued to reach a reachable broker
TICK = 1.0  # seconds: the sender wakes at least this often (the watchdog's ping)
PROBE_GRACE = 0.5  # seconds after its probe came back that an answer of another publisher is waited for


class Outgoing(NamedTuple):
    topic: str
    payload: str
    retain: bool = False
    kind: str = ""  # "event" (counted when lost); "marker", "state", "availability" (made again); or ""


def client_id(base_topic: str) -> str:
    """Unique per box and process: two publishers never push each other off the broker."""
    return f"gravebox-{socket.gethostname()}-{os.getpid()}-{base_topic.replace('/', '-')}"[:100]


class MqttPublisher:
    """The broker's side: call `start`, then hand it the events (`publish`); `close` says goodbye.

    Availability is "online" only while `box_online` says the box is followed too."""

    def __init__(self, settings: MqttConfig, version: str = "", clock: Callable[[], float] = time.time,
                 pending_limit: int = PENDING_LIMIT, queued_limit: int = QUEUED_LIMIT):
        self.settings, self.version, self.clock = settings, version or package_version(), clock
        self.base = settings.base_topic
        self.id = client_id(self.base)
        self.reading = Reading()
        self.moves = Moves()
        self.over_told: dict[str, Any] | None = None  # the game over published for the game in play
        self.pending: deque[Outgoing] = deque()  # events waiting for the broker
        self.retry: deque[Outgoing] = deque()  # a batch paho would not queue (full): sent first
        self.pending_limit, self.queued_limit = pending_limit, queued_limit
        self.dropped = 0  # events that never reached the broker (counted, said in the status line)
        self.missed = 0  # events that left the box's window before this process saw them (the bridge's count)
        self.connected = False
        self.full = False  # paho's queue is full (the broker does not acknowledge): wait for an answer
        self.box_up = False  # the box's state is followed (the bridge says so)
        self.settled = False  # a state dump was taken since the box was last reached: the state is the box's
        self.state_dirty = True
        self.hello_due = False  # connected: subscribe to the marker, probe, discovery, state, online
        self.probe_due = False
        self.discovery_due = False
        self.started = False  # the marker was read back and no rival answered (or the broker was away)
        self.unsubscribe_due = False
        self.availability: str | None = None  # what availability says next (None: nothing new)
        self.told: tuple[str, int] | None = None  # the marker read back: (run, seq) published before
        self.probe_back: float | None = None  # when our probe came back (monotonic): the marker came before it
        self.mark: tuple[str, int] | None = None  # the newest (run, seq) handed to paho
        self.mark_due = False
        self.rival: str | None = None  # another publisher answered our probe: its client id
        self.closing = False
        self.lock = threading.Lock()  # guards the above; never held while calling paho
        self.changed = threading.Condition(self.lock)
        self.line = f"MQTT: connecting to {settings.address}"
        self.refused = ""
        self.client: Client | None = None
        self.sender: threading.Thread | None = None
        self.connections = 0  # how many times the broker took us (tests: a reconnection is seen)

    # ----- the events' side (the bridge's thread) ----------------------------------------------

    def publish(self, event: Event, at: float | None = None, mark: tuple[str, int] | None = None) -> None:
        """Fold `event` into the state and queue it for the sender; `at`: when it happened (UNIX
        time; now by default); `mark`: its run and number on the box (the marker follows them)."""
        when = round(self.clock() if at is None else at, 3)
        with self.lock:
            was_over = self.reading.state["over"]
            if self.reading.take(event):
                self.state_dirty = True
            if mark is not None:
                self.mark, self.mark_due = mark, True
            if isinstance(event, GameStarted | GameLeft):
                self.over_told = None
            if isinstance(event, Undone):
                for name, payload in self.moves.undo():
                    self._withdraw(name, payload, when)
                if was_over and self.over_told is not None:  # the move that ended the game, undone
                    self._withdraw("game-over", self.over_told, when)
            if is_cursor_move(event):  # a move all the same: its undo withdraws nothing
                self.moves.take(event, None)
            elif not isinstance(event, Standing):  # the state carries a standing
                payload = event_payload(event, when, mark)
                self.moves.take(event, payload)
                self._queue(Outgoing(f"{self.base}/event/{event_name(event)}", _json(payload), kind="event"))
                if isinstance(event, GameOver):
                    self.over_told = payload
            self.changed.notify_all()

    def _withdraw(self, name: str, payload: dict[str, Any], when: float) -> None:
        """An event published before, taken back (the lock held): "withdrawn" on its topic."""
        if name == "game-over":
            self.over_told = None
            self.moves.forget(payload)
        withdrawn = {"event_type": "withdrawn", "withdrawn": payload, "at": when}
        self._queue(Outgoing(f"{self.base}/event/{name}", _json(withdrawn), kind="event"))

    __call__ = publish

    def _queue(self, message: Outgoing) -> None:
        if len(self.pending) >= self.pending_limit:
            self.pending.popleft()
            self.dropped += 1
        self.pending.append(message)

    def settle(self, dump: Any) -> None:
        """The box's current state (its state dump, after its events): the retained state follows it;
        the first dump since the box was reached makes it "online", after that state."""
        with self.lock:
            was_over = self.reading.state["over"]
            if self.reading.settle(dump) or not self.settled:
                self.state_dirty = True
            told = self.over_told  # the game itself took its end back (a Fuhgeddaboutit on the winning whack)
            game = self.reading.state["game"]
            if was_over and not self.reading.state["over"] and told is not None and told.get("game") == game:
                self._withdraw("game-over", told, round(self.clock(), 3))
            if self.box_up and not self.settled:
                self.settled, self.availability = True, ONLINE
            self.changed.notify_all()

    def box_online(self, up: bool) -> None:
        """The box's socket was reached (True: "online" once its first dump is taken) or went away
        (False: "offline", after the last state taken from it, which is still the box's)."""
        with self.lock:
            self.box_up = up
            if up:
                self.settled = False
            else:
                self.availability = OFFLINE
            self.changed.notify_all()

    # ----- the sender (its own thread: the only one that calls paho's publish) ------------------

    def _run_sender(self) -> None:
        pinger = sdnotify.WatchdogPinger()
        while True:
            with self.lock:
                self.changed.wait_for(lambda: self.closing or self._due(), TICK if self.started else PROBE_GRACE / 5)
                batch = self._take() if self.connected and not self.full else []
                if batch:
                    self.changed.notify_all()  # taken: whoever waits for the queue to empty
                subscribe, self.hello_due = self.hello_due and self.connected, False
                unsubscribe, self.unsubscribe_due = self.unsubscribe_due and self.connected, False
                ending = self.closing
            pinger.tick()
            client = self.client
            if client is None:
                return
            if subscribe:  # the marker (until it is read), and the probes of another publisher
                topics = [(f"{self.base}/published/probe", 1)]
                client.subscribe(topics if self.started else [(f"{self.base}/published", 1), *topics])
            if unsubscribe:
                client.unsubscribe(f"{self.base}/published")
            self._deliver(client, batch)
            if ending:
                return

    def _due(self) -> bool:
        """Whether the sender has something to do now (the lock held)."""
        if not self.connected:
            return False
        if self.hello_due or self.probe_due or self.unsubscribe_due:
            return True
        if self.full:
            return False
        return bool(self.retry or (self.ready() and (self.pending or self.mark_due or self.availability
                                                      or (self.state_dirty and self.settled))))

    def ready(self) -> bool:
        """Whether what this process publishes may go (the lock held): the marker was read back and
        no other publisher answered the probe in its time, or the broker was away at the start."""
        if self.rival is not None:
            return False
        if not self.started and self.probe_back is not None and time.monotonic() - self.probe_back >= PROBE_GRACE:
            self.started, self.unsubscribe_due = True, True
            self.changed.notify_all()
        return self.started

    def _take(self) -> list[Outgoing]:
        """What is due, in order (the lock held): the probe; what paho refused before; once the marker is
        read: the events, the marker, the state, availability."""
        out: list[Outgoing] = []
        if self.probe_due:
            self.probe_due = False
            out.append(Outgoing(f"{self.base}/published/probe", _json({"probe": self.id})))
        out += self.retry
        self.retry.clear()
        if not self.ready():
            return out
        if self.discovery_due:
            self.discovery_due = False
            out += [Outgoing(topic, _json(config), True) for topic, config in discovery(self.settings, self.version).items()]
        out += self.pending
        self.pending.clear()
        if self.mark_due and self.mark is not None:
            self.mark_due = False
            out.append(Outgoing(f"{self.base}/published", _json({"run": self.mark[0], "seq": self.mark[1]}), True,
                                "marker"))
        if self.state_dirty and self.settled:
            self.state_dirty = False
            out.append(Outgoing(f"{self.base}/state", _json(self.reading.document()), True, "state"))
        if self.availability is not None:
            out.append(Outgoing(f"{self.base}/availability", self.availability, True, "availability"))
            self.availability = None
        return out

    def _deliver(self, client: Client, batch: list[Outgoing]) -> None:
        """Hand `batch` to paho, the lock released; what paho cannot queue waits, what it refuses is counted."""
        from paho.mqtt.client import MQTT_ERR_NO_CONN, MQTT_ERR_QUEUE_SIZE, MQTT_ERR_SUCCESS

        for index, message in enumerate(batch):
            try:
                code = client.publish(message.topic, message.payload, qos=1, retain=message.retain).rc
            except (ValueError, RuntimeError) as problem:  # not to be sent at all
                code, said = None, str(problem)
            else:
                said = f"code {code}"
            if code in (MQTT_ERR_SUCCESS, MQTT_ERR_NO_CONN):  # sent, or paho sends it at the reconnection
                continue
            with self.lock:
                if code == MQTT_ERR_QUEUE_SIZE:  # the broker is slow to acknowledge: wait for it
                    self.full = True
                    self._keep(batch[index:])
                    self._say(f"MQTT: {self.settings.address} does not acknowledge; events wait", logging.WARNING)
                    return
                self.dropped += message.kind == "event"
            log.warning("MQTT: %s not published: %s", message.topic, said)

    def _keep(self, unsent: list[Outgoing]) -> None:
        """What paho would not queue (the lock held): the events back in front of the queue (its bound
        holds: the oldest dropped and counted), the marker and the state made again, the rest retried."""
        events = [message for message in unsent if message.kind == "event"]
        self.pending.extendleft(reversed(events))
        while len(self.pending) > self.pending_limit:
            self.pending.popleft()
            self.dropped += 1
        self.mark_due = self.mark_due or any(message.kind == "marker" for message in unsent)
        self.state_dirty = self.state_dirty or any(message.kind == "state" for message in unsent)
        said = [message.payload for message in unsent if message.kind == "availability"]
        self.availability = self.availability or (said[-1] if said else None)
        self.retry.extend(message for message in unsent if message.kind == "")

    # ----- paho's callbacks (paho's thread): note, wake the sender, never call paho -------------

    def start(self) -> MqttPublisher:
        """Connect in the background: paho's thread connects, and reconnects with backoff."""
        import ssl

        from paho.mqtt.client import CallbackAPIVersion, Client

        settings = self.settings
        client = Client(CallbackAPIVersion.VERSION2, client_id=self.id)
        client.will_set(f"{self.base}/availability", OFFLINE, qos=1, retain=True)
        if settings.username is not None:
            client.username_pw_set(settings.username, settings.password)
        if settings.ca_file is not None:
            try:
                client.tls_set(ca_certs=str(settings.ca_file), cert_reqs=ssl.CERT_REQUIRED)
            except (OSError, ValueError) as problem:  # ssl.SSLError is an OSError: not a CA file
                with self.lock:
                    self._say(f"MQTT: off: cannot use the CA file {settings.ca_file}: {problem}", logging.ERROR)
                return self
        client.reconnect_delay_set(*RETRY_DELAYS)
        client.max_queued_messages_set(self.queued_limit)
        self.attach(client)
        log.info("MQTT: publishing to %s under %s", settings.address, self.base)
        client.connect_async(settings.host, settings.port, keepalive=KEEPALIVE)
        client.loop_start()
        return self

    def attach(self, client: Any) -> MqttPublisher:
        """Take `client` (paho's, or a test's stand-in with its calls): its callbacks, and the sender."""
        client.on_connect, client.on_disconnect = self._connected, self._disconnected
        client.on_connect_fail, client.on_publish = self._unreachable, self._acknowledged
        client.on_message, client.on_subscribe = self._heard, self._subscribed
        self.client = client
        self.sender = threading.Thread(target=self._run_sender, name="mqtt-sender", daemon=True)
        self.sender.start()
        return self

    def _connected(self, client: Client, userdata: object, flags: object, reason: Any, properties: object) -> None:
        with self.lock:
            if reason.is_failure:
                self.refused = str(reason)
                self._say(f"MQTT: {self.settings.address} refused the box: {reason}; trying again", logging.WARNING)
                return
            self.refused = ""
            self.connected, self.full, self.hello_due = True, False, True
            self.discovery_due, self.state_dirty = self.settings.discovery, True
            self.availability = ONLINE if self.box_up and self.settled else None  # else "offline" stands: said, or the will
            self.connections += 1
            self._say(f"MQTT: connected to {self.settings.address}, publishing under {self.base}")

    def _subscribed(self, client: Client, userdata: object, mid: int, reasons: Any, properties: object) -> None:
        with self.lock:
            self.probe_due = True  # the retained marker comes before our probe comes back
            self.changed.notify_all()

    def _heard(self, client: Client, userdata: object, message: MQTTMessage) -> None:
        """The marker read back, our probe back, or another publisher's probe (answered: it refuses)."""
        try:
            data = json.loads(message.payload)
        except ValueError:
            data = None
        with self.lock:
            if message.topic == f"{self.base}/published":
                self.told = self.told or marker_from(data)
            elif not isinstance(data, dict):
                return
            elif data.get("probe") == self.id:
                self.probe_back = self.probe_back or time.monotonic()
            elif isinstance(data.get("probe"), str) and self.started and self.rival is None:
                self.retry.append(Outgoing(f"{self.base}/published/probe", _json({"busy": self.id})))
            elif isinstance(data.get("busy"), str) and data["busy"] != self.id and not self.started:
                self.rival = data["busy"]
                self._say(f"MQTT: another publisher ({self.rival}) publishes under {self.base}", logging.ERROR)
            self.changed.notify_all()

    def _acknowledged(self, client: Client, userdata: object, mid: int, reason: Any, properties: object) -> None:
        with self.lock:
            if self.full:
                self.full = False
                self._say(f"MQTT: connected to {self.settings.address}, publishing under {self.base}")

    def _disconnected(self, client: Client, userdata: object, flags: object, reason: Any, properties: object) -> None:
        with self.lock:
            self.connected = False
            if not self.refused and self.client is not None:
                self._say(f"MQTT: lost {self.settings.address} ({reason}); trying again", logging.WARNING)

    def _unreachable(self, client: Client, userdata: object) -> None:
        with self.lock:
            self._say(f"MQTT: cannot reach the broker at {self.settings.address}; trying again", logging.WARNING)

    def _say(self, line: str, level: int = logging.INFO) -> None:
        """The status line changed (the lock held): logged once, without the password (never in it)."""
        if line != self.line:
            self.line = line
            log.log(level, "%s", line)
        self.changed.notify_all()

    # ----- for the bridge, the tests and the end ----------------------------------------------

    def wait_marker(self, timeout: float) -> tuple[str, int] | None:
        """Wait (bounded) until the marker was read back and a rival had its time to answer; the
        marker, or None (none, or the broker is not there: the bridge falls back on its catch-up)."""
        with self.changed:
            self.changed.wait_for(lambda: self.started or self.rival is not None, timeout)
            if not self.started and self.rival is None:  # the broker is away: what comes goes once it is back
                self.started, self.unsubscribe_due = True, True
                self.changed.notify_all()
            return self.told

    def status(self) -> str:
        """One line for the phone's Box page: connected, or what is the matter; with the losses."""
        with self.lock:
            lost = []
            if self.dropped:
                lost.append(f"{self.dropped} events lost")
            if self.missed:
                lost.append(f"{self.missed} events missed from the box")
            box = "" if self.box_up else "; the box is not running"
            return self.line + box + (f" ({'; '.join(lost)})" if lost else "")

    def wait(self, condition: Callable[[MqttPublisher], bool], timeout: float) -> bool:
        """Wait until `condition(self)` holds after a change of connection; False on time-out."""
        with self.changed:
            return self.changed.wait_for(lambda: condition(self), timeout)

    def close(self, timeout: float = CLOSE_WAIT) -> None:
        """Say "offline" and leave: what is queued goes first when the broker is there (bounded wait)."""
        client = self.client
        if client is None:
            return
        self.wait(lambda publisher: publisher.connected, timeout if self.connections == 0 else 0)
        with self.lock:
            self.started = self.started or self.rival is None
            self.availability, self.closing = None, True
            self.changed.notify_all()
        if self.sender is not None:
            self.sender.join(timeout)
        with self.lock:
            left = sum(message.kind == "event" for message in self.pending)
            if left:
                self.dropped += left
                log.warning("MQTT: %d events not sent before the end", left)
        info = None
        if self.connected and self.rival is None:
            info = client.publish(f"{self.base}/availability", OFFLINE, qos=1, retain=True)
        self.client = None
        if info is not None:
            try:
                info.wait_for_publish(timeout)
            except (RuntimeError, ValueError) as problem:  # the connection went meanwhile
                log.info("MQTT: goodbye not sent: %s", problem)
        client.disconnect()
        client.loop_stop()


def _json(data: Any) -> str:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


def package_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("gravebox")
    except PackageNotFoundError:
        return "unknown"
