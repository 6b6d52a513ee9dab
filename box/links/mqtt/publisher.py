"""The broker's side: paho's client on paho's own thread, the events queued (bounded) while the
broker is away, availability, and the status line said to the box."""

from __future__ import annotations

import json
import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from box.events import Event, Standing, event_name
from box.links.mqtt.discovery import discovery
from box.links.mqtt.topics import OFFLINE, ONLINE, Reading, event_payload, node_id
from box.storage.config import MqttConfig

if TYPE_CHECKING:
    from paho.mqtt.client import Client

log = logging.getLogger(__name__)

PENDING_LIMIT = 256  # events kept while the broker is away; beyond it the oldest are dropped (counted)
RETRY_DELAYS = (1, 60)  # paho's reconnection backoff: from 1 s, doubling, to a minute
KEEPALIVE = 30  # seconds: the broker gives the last will after 1.5 x this without a word
CLOSE_WAIT = 5.0  # seconds `close` waits for what is queued to reach a reachable broker


class MqttPublisher:
    """The broker's side: call `start`, then hand it the events (`publish`); `close` says goodbye.

    Availability is "online" only while `box_online` says the box is followed too."""

    def __init__(self, settings: MqttConfig, version: str = "", clock: Callable[[], float] = time.time,
                 pending_limit: int = PENDING_LIMIT):
        self.settings, self.version, self.clock = settings, version or package_version(), clock
        self.reading = Reading()
        self.pending: deque[tuple[str, str]] = deque()  # (topic, payload) of events waiting for the broker
        self.pending_limit = pending_limit
        self.dropped = 0  # events that never reached the broker (queue full while it was away)
        self.missed = 0  # events that left the box's window before this process saw them (the bridge's count)
        self.connected = False
        self.box_up = False  # the box's state is followed (the bridge says so)
        self.state_dirty = True
        self.lock = threading.Lock()  # the bridge's thread and paho's thread share the above
        self.line = f"MQTT: connecting to {settings.address}"
        self.refused = ""
        self.client: Client | None = None
        self.connections = 0  # how many times the broker took us (tests: a reconnection is seen)
        self.changed = threading.Condition(self.lock)

    # ----- the events' side (the bridge's thread) ----------------------------------------------

    def publish(self, event: Event, at: float | None = None) -> None:
        """Fold `event` into the state and send it (or queue it while the broker is away);
        `at`: when it happened (UNIX time; now by default)."""
        with self.lock:
            if self.reading.take(event):
                self.state_dirty = True
            if not isinstance(event, Standing):  # the state carries it
                topic = f"{self.settings.base_topic}/event/{event_name(event)}"
                when = round(self.clock() if at is None else at, 3)
                payload = json.dumps(event_payload(event, when), separators=(",", ":"), ensure_ascii=False)
                if len(self.pending) >= self.pending_limit:
                    self.pending.popleft()
                    self.dropped += 1
                self.pending.append((topic, payload))
            if self.connected:
                self._send()

    __call__ = publish

    def box_online(self, up: bool) -> None:
        """The box's socket was reached (True) or went away (False): availability follows."""
        with self.lock:
            self.box_up = up
            if self.connected and self.client is not None:
                self.client.publish(f"{self.settings.base_topic}/availability", ONLINE if up else OFFLINE,
                                    qos=1, retain=True)
                self._send()
            self.changed.notify_all()

    def _send(self) -> None:
        """Publish the pending events and a changed state (the lock held, connected); the state only
        while the box is followed (before, this process knows nothing of it)."""
        client = self.client
        assert client is not None
        while self.pending:
            topic, payload = self.pending.popleft()
            client.publish(topic, payload, qos=1)
        if self.state_dirty and self.box_up:
            self.state_dirty = False
            state = json.dumps(self.reading.document(), separators=(",", ":"), ensure_ascii=False)
            client.publish(f"{self.settings.base_topic}/state", state, qos=1, retain=True)

    # ----- the connection (paho's thread) -------------------------------------------------------

    def start(self) -> MqttPublisher:
        """Connect in the background: paho's thread connects, and reconnects with backoff."""
        import ssl

        from paho.mqtt.client import CallbackAPIVersion, Client

        settings = self.settings
        client = Client(CallbackAPIVersion.VERSION2, client_id=f"gravebox-{node_id(settings.base_topic)}")
        client.will_set(f"{settings.base_topic}/availability", OFFLINE, qos=1, retain=True)
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
        client.max_queued_messages_set(self.pending_limit)
        client.on_connect, client.on_disconnect = self._connected, self._disconnected
        client.on_connect_fail = self._unreachable
        self.client = client
        log.info("MQTT: publishing to %s under %s", settings.address, settings.base_topic)
        client.connect_async(settings.host, settings.port, keepalive=KEEPALIVE)
        client.loop_start()
        return self

    def _connected(self, client: Client, userdata: object, flags: object, reason: Any, properties: object) -> None:
        with self.lock:
            if reason.is_failure:
                self.refused = str(reason)
                self._say(f"MQTT: {self.settings.address} refused the box: {reason}; trying again", logging.WARNING)
                return
            self.refused = ""
            if self.box_up:  # else "offline" stands: said when the box went, or the will
                client.publish(f"{self.settings.base_topic}/availability", ONLINE, qos=1, retain=True)
            if self.settings.discovery:
                for topic, config in discovery(self.settings, self.version).items():
                    client.publish(topic, json.dumps(config, separators=(",", ":")), qos=1, retain=True)
            self.connected, self.state_dirty = True, True
            self.connections += 1
            self._send()
            self._say(f"MQTT: connected to {self.settings.address}, publishing under {self.settings.base_topic}")

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

    def status(self) -> str:
        """One line for the phone's Box page: connected, or what is the matter; with the losses."""
        with self.lock:
            lost = []
            if self.dropped:
                lost.append(f"{self.dropped} events dropped while it was away")
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
            if self.connected:
                self._send()
                info = client.publish(f"{self.settings.base_topic}/availability", OFFLINE, qos=1, retain=True)
            else:
                info = None
            self.client = None
        if info is not None:
            try:
                info.wait_for_publish(timeout)
            except (RuntimeError, ValueError) as problem:  # the connection went meanwhile
                log.info("MQTT: goodbye not sent: %s", problem)
        client.disconnect()
        client.loop_stop()


def package_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("gravebox")
    except PackageNotFoundError:
        return "unknown"

