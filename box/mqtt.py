"""The box's events on MQTT, for the home (docs/mqtt.md): a subscriber of the box's EventBus.

Registered by the composition root (box/app.py) with one line when the settings file has an
`[mqtt]` table (box/config.py): `MqttPublisher` is a function of one event, run on its
subscription's thread, and paho-mqtt's network loop runs on paho's own thread (`loop_start`):
nothing here ever runs on the box's loop, and paho is imported only by `start`.

Under the base topic (`gravebox/<hostname>` by default):

    <base>/availability    "online" / "offline", retained; "offline" is also the last will
    <base>/state           retained JSON: the game, its players, whose turn, figures, leader, dice...
    <base>/event/<name>    each event, not retained: {"event_type": "lap-completed", ...its fields}

and, with discovery on, Home Assistant's discovery configs under `<prefix>/` (one device, its
sensors, event entities and device triggers), retained, sent again at every connection.

A broker that is down, slow or refusing is retried by paho with backoff (1 s to a minute); the
events meanwhile wait in a bounded queue (the oldest dropped and counted), and `status` says in
one line what is the matter (the phone's Box page and the log show it; never the password).

>>> reading = Reading()
>>> from box.events import GameStarted, Standing, DiceRolled
>>> reading.take(GameStarted("dead-set", "Dead Set", {}, ("Ann", "Bob"), 4))
True
>>> _ = reading.take(Standing("dead-set", "Bob", {"Ann": {"celebrities": 2}, "Bob": {"celebrities": 1}}))
>>> _ = reading.take(DiceRolled((3, 5), game=None))
>>> {key: reading.document()[key] for key in ("game", "current_player", "leader", "dice")}
{'game': 'dead-set', 'current_player': 'Bob', 'leader': ['Ann'], 'dice': [3, 5]}
"""

from __future__ import annotations

import json
import logging
import re
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from box.config import MqttConfig
from box.events import (
    ActionAccepted,
    ChugTimed,
    DiceRolled,
    Event,
    EventBus,
    GameLeft,
    GameOver,
    GameStarted,
    ReaderChanged,
    Standing,
    StorageBack,
    StorageFailed,
    TimerDone,
    TurnPassed,
    Undone,
    as_json,
    event_name,
)

if TYPE_CHECKING:
    from paho.mqtt.client import Client

log = logging.getLogger(__name__)

PENDING_LIMIT = 256  # events kept while the broker is away; beyond it the oldest are dropped (counted)
RETRY_DELAYS = (1, 60)  # paho's reconnection backoff: from 1 s, doubling, to a minute
KEEPALIVE = 30  # seconds: the broker gives the last will after 1.5 x this without a word
CLOSE_WAIT = 5.0  # seconds `close` waits for what is queued to reach a reachable broker
ONLINE, OFFLINE = "online", "offline"
TRIGGERS = {  # the events Home Assistant offers as event entities and device triggers: name -> label
    "lap-completed": "Lap",
    "column-completed": "Column complete",
    "game-over": "Game over",
    "timer-done": "Shot timer done",
}


class Reading:
    """The retained state, folded from the events: a read model, no network."""

    def __init__(self) -> None:
        self.state: dict[str, Any] = {"dice": None, "timer": None, "readers_offline": [], "storage": "ok"}
        self.idle()

    def idle(self) -> None:
        self.state.update(game=None, title=None, number=None, players=[], current_player=None, actions=0,
                          figures={}, leader=[], over=False, winners=[])

    def document(self) -> dict[str, Any]:
        return dict(self.state)

    def take(self, event: Event) -> bool:
        """Fold `event` into the state; True when the state changed."""
        before = json.dumps(self.state, sort_keys=True)
        state = self.state
        if isinstance(event, GameStarted):
            self.idle()
            state.update(game=event.game, title=event.title, number=event.number, players=list(event.seats))
        elif isinstance(event, TurnPassed):
            state["current_player"] = event.player
        elif isinstance(event, Standing):
            figures = {player: dict(row) for player, row in event.figures.items()}
            state.update(current_player=event.current_player, figures=figures, leader=leaders(event.game, figures))
        elif isinstance(event, GameOver):
            figures = {player: dict(row) for player, row in event.figures.items()}
            state.update(figures=figures, winners=list(event.winners), leader=list(event.winners), over=True,
                         current_player=None, actions=event.actions)
        elif isinstance(event, Undone):
            state.update(actions=max(0, state["actions"] - 1), over=False, winners=[])
        elif isinstance(event, GameLeft):
            self.idle()
        elif isinstance(event, DiceRolled):
            state["dice"] = list(event.faces)
        elif isinstance(event, TimerDone):
            state["timer"] = {"done": True, "seconds": event.seconds}
        elif isinstance(event, ChugTimed):
            state["timer"] = {"chug": event.seconds, "best": event.best}
        elif isinstance(event, ReaderChanged):
            offline = set(state["readers_offline"]) - {event.reader}
            state["readers_offline"] = sorted(offline if event.online else offline | {event.reader})
        elif isinstance(event, StorageFailed):
            state["storage"] = event.reason
        elif isinstance(event, StorageBack):
            state["storage"] = "ok"
        elif isinstance(event, ActionAccepted):
            state["actions"] += 1
        return json.dumps(state, sort_keys=True) != before


def leaders(game: str, figures: Mapping[str, Mapping[str, int | float]]) -> list[str]:
    """Who leads on the game's first declared figure (the most, or the fewest where the game
    declares so: `Figure.fewest_lead`); nobody while everyone is level.

    >>> leaders("dead-set", {"Ann": {"celebrities": 3}, "Bob": {"celebrities": 5}})
    ['Bob']
    >>> leaders("deadlines", {"Ann": {"penalties": 0}, "Bob": {"penalties": 2}}), leaders("dead-set", {})
    (['Ann'], [])
    """
    from box.games import rules_for

    declared = rules_for(game).figures
    if not declared or not figures:
        return []
    first = declared[0]
    values = {player: row.get(first.key, 0) for player, row in figures.items()}
    best = (min if first.fewest_lead else max)(values.values())
    ahead = [player for player, value in values.items() if value == best]
    return [] if len(ahead) == len(values) and len(values) > 1 else ahead


def event_payload(event: Event, at: float) -> dict[str, Any]:
    """An event as its topic carries it: Home Assistant's `event_type`, its fields, when (UNIX time).

    >>> event_payload(DiceRolled((6, 6), None), 1.5)
    {'event_type': 'dice-rolled', 'faces': [6, 6], 'game': None, 'at': 1.5}
    """
    fields = as_json(event)
    return {"event_type": fields.pop("event"), **fields, "at": at}


def node_id(base_topic: str) -> str:
    """The device's id for Home Assistant, from the base topic.

    >>> node_id("gravebox/living-room")
    'gravebox_living_room'
    """
    return re.sub(r"[^A-Za-z0-9_]", "_", base_topic).strip("_") or "gravebox"


def discovery(settings: MqttConfig, version: str) -> dict[str, dict[str, Any]]:
    """Home Assistant's discovery configs: topic -> payload (docs/mqtt.md lists them)."""
    base, node, prefix = settings.base_topic, node_id(settings.base_topic), settings.discovery_prefix
    device = {"identifiers": [node], "name": "Gravebox", "model": "Gravebox game box", "manufacturer": "Gravebox",
              "sw_version": version}
    origin = {"name": "Gravebox", "sw_version": version}
    available = {"availability_topic": f"{base}/availability", "payload_available": ONLINE,
                 "payload_not_available": OFFLINE}
    state = f"{base}/state"
    sensors = {
        "game": ("Game", "{{ value_json.title or 'none' }}", "mdi:cards-playing"),
        "current_player": ("Current player", "{{ value_json.current_player or 'none' }}", "mdi:account-arrow-right"),
        "leader": ("Leader", "{{ value_json.leader | join(', ') if value_json.leader else 'none' }}", "mdi:crown"),
        "last_roll": ("Last roll", "{{ value_json.dice | sum if value_json.dice else 'none' }}", "mdi:dice-multiple"),
        "players": ("Players", "{{ value_json.players | join(', ') if value_json.players else 'none' }}",
                    "mdi:account-group"),
    }
    configs: dict[str, dict[str, Any]] = {}
    for key, (name, template, icon) in sensors.items():
        config = {"name": name, "unique_id": f"{node}_{key}", "state_topic": state, "value_template": template,
                  "icon": icon, **available, "device": device, "origin": origin}
        if key in ("players", "last_roll"):  # the scores, and the two faces, as attributes
            config["json_attributes_topic"] = state
            config["json_attributes_template"] = (
                "{{ value_json.figures | tojson }}" if key == "players" else "{{ {'faces': value_json.dice} | tojson }}"
            )
        configs[f"{prefix}/sensor/{node}/{key}/config"] = config
    for name, label in TRIGGERS.items():
        slug = name.replace("-", "_")
        configs[f"{prefix}/event/{node}/{slug}/config"] = {
            "name": label, "unique_id": f"{node}_{slug}", "state_topic": f"{base}/event/{name}",
            "event_types": [name], **available, "device": device, "origin": origin,
        }
        configs[f"{prefix}/device_automation/{node}/{slug}/config"] = {
            "automation_type": "trigger", "topic": f"{base}/event/{name}", "type": slug, "subtype": "gravebox",
            "device": device, "origin": origin,
        }
    return configs


class MqttPublisher:
    """The subscriber: call `start`, then register it on the bus; `close` says goodbye."""

    def __init__(self, settings: MqttConfig, version: str = "", clock: Callable[[], float] = time.time,
                 pending_limit: int = PENDING_LIMIT):
        self.settings, self.version, self.clock = settings, version or package_version(), clock
        self.reading = Reading()
        self.pending: deque[tuple[str, str]] = deque()  # (topic, payload) of events waiting for the broker
        self.pending_limit = pending_limit
        self.dropped = 0  # events that never reached the broker (queue full while it was away)
        self.connected = False
        self.state_dirty = True
        self.lock = threading.Lock()  # the subscription's thread and paho's thread share the above
        self.line = f"MQTT: connecting to {settings.address}"
        self.refused = ""
        self.client: Client | None = None
        self.connections = 0  # how many times the broker took us (tests: a reconnection is seen)
        self.changed = threading.Condition(self.lock)

    # ----- the subscriber's side (its own thread) ----------------------------------------------

    def __call__(self, event: Event) -> None:
        with self.lock:
            if self.reading.take(event):
                self.state_dirty = True
            if not isinstance(event, Standing):  # the state carries it
                topic = f"{self.settings.base_topic}/event/{event_name(event)}"
                payload = json.dumps(event_payload(event, round(self.clock(), 3)), separators=(",", ":"),
                                     ensure_ascii=False)
                if len(self.pending) >= self.pending_limit:
                    self.pending.popleft()
                    self.dropped += 1
                self.pending.append((topic, payload))
            if self.connected:
                self._send()

    def _send(self) -> None:
        """Publish the pending events and a changed state (the lock held, connected)."""
        client = self.client
        assert client is not None
        while self.pending:
            topic, payload = self.pending.popleft()
            client.publish(topic, payload, qos=1)
        if self.state_dirty:
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

    # ----- for the loop, the tests and the end ------------------------------------------------

    def status(self) -> str:
        """One line for the phone's Box page: connected, or what is the matter; with the drops."""
        with self.lock:
            dropped = f" ({self.dropped} events dropped while it was away)" if self.dropped else ""
            return self.line + dropped

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


def attach(bus: EventBus, settings: MqttConfig) -> MqttPublisher:
    """Start a publisher and subscribe it to `bus`: the composition root's one line."""
    publisher = MqttPublisher(settings).start()
    bus.subscribe("mqtt", publisher)
    return publisher


def publisher_on(bus: EventBus) -> MqttPublisher | None:
    """The MQTT publisher following `bus`, if any (the simulator closes it at the end)."""
    return next((s.handler for s in bus.subscriptions if isinstance(s.handler, MqttPublisher)), None)
