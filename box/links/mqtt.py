"""The box's events on MQTT, for the home (docs/mqtt.md): `gravebox mqtt`, a process of its own.

The box publishes its state dump on its control socket (box/links/control.py) after every change, with
its newest events, each numbered (box/parts/phone.py, `PhoneLink`). This process subscribes to that
stream with the page's client (box/links/client.py), takes each event once by its number
(`Window`: a dump it skipped costs nothing while the event is still in the window; one that fell
out of it is counted as missed), and publishes it with paho-mqtt (`MqttPublisher`, paho's network
loop on paho's own thread). The box imports nothing of MQTT, paho or ssl: its network stays off.

Under the base topic (`gravebox/<hostname>` by default):

    <base>/availability    "online" while this process has both the box and the broker, else
                           "offline", retained; "offline" is also the last will
    <base>/state           retained JSON: the game, its players, whose turn, figures, leader, dice...
    <base>/event/<name>    each event, not retained: {"event_type": "lap-completed", ...its fields}

and, with discovery on, Home Assistant's discovery configs under `<prefix>/` (one device, its
sensors, event entities and device triggers), retained, sent again at every connection.

A broker that is down, slow or refusing is retried by paho with backoff (1 s to a minute); the
events meanwhile wait in a bounded queue (the oldest dropped and counted), and `status` says in
one line what is the matter: the process sends it to the box ("mqtt-status"), whose state dump
carries it to the phone's Box page; the log has it too (never the password).

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
import socket
import subprocess
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, get_args

from box.events import (
    ActionAccepted,
    ChugTimed,
    DiceRolled,
    Event,
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
from box.links.client import ControlClient, Subscription
from box.links.control import ControlServer
from box.storage.config import MqttConfig

if TYPE_CHECKING:
    from paho.mqtt.client import Client

log = logging.getLogger(__name__)

PENDING_LIMIT = 256  # events kept while the broker is away; beyond it the oldest are dropped (counted)
RETRY_DELAYS = (1, 60)  # paho's reconnection backoff: from 1 s, doubling, to a minute
KEEPALIVE = 30  # seconds: the broker gives the last will after 1.5 x this without a word
CLOSE_WAIT = 5.0  # seconds `close` waits for what is queued to reach a reachable broker
BOX_RETRY = 1.0  # seconds between tries to reach the box's control socket
CATCH_UP = 60.0  # seconds: at its start, the process publishes the events in the box's window this recent
STATUS_LINE = 200  # characters of the status line the box takes (box/links/control.py's bound for a text)
REPORT_EVERY = 5.0  # seconds between looks at whether the status line changed (it is sent when it does)
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


EVENT_TYPES: dict[str, type] = {
    "".join(f"-{c.lower()}" if c.isupper() and i else c.lower() for i, c in enumerate(kind.__name__)): kind
    for kind in get_args(Event)
}
META = ("event", "seq", "run", "at")  # what box/parts/phone.py adds to an event's fields


def event_from_entry(entry: Any) -> Event:
    """An event of the box's state dump (`as_json`'s form, numbered) as the event it was; ValueError
    (one line) for anything else: the one codec of the events this process reads.

    >>> event_from_entry({"event": "dice-rolled", "faces": [2, 3], "game": None, "seq": 4, "run": "ab"})
    DiceRolled(faces=(2, 3), game=None)
    >>> event_from_entry({"event": "dice-rolled", "faces": [2, 3]})
    Traceback (most recent call last):
    ...
    ValueError: dice-rolled: fields game missing
    """
    if not isinstance(entry, dict) or entry.get("event") not in EVENT_TYPES:
        raise ValueError(f"not an event of the box: {str(entry)[:60]}")
    kind: Any = EVENT_TYPES[entry["event"]]
    fields = {key: value for key, value in entry.items() if key not in META}
    missing, extra = set(kind._fields) - set(fields), set(fields) - set(kind._fields)
    if missing or extra:
        said = [f"fields {', '.join(sorted(missing))} missing"] if missing else []
        said += [f"unknown fields {', '.join(sorted(extra))}"] if extra else []
        raise ValueError(f"{entry['event']}: {'; '.join(said)}"[:120])
    event: Event = kind(**{key: tuple(value) if isinstance(value, list) else value for key, value in fields.items()})
    return event


class Window:
    """Which events of the box's window (the state dump's `events`) are new: each taken once, by its
    run (a start of the box) and number; the ones that left the window unseen are counted (`missed`).

    A fresh process publishes what the window holds of the last `catch_up` seconds (the box's start,
    a script's first moves) and takes the older events as already told.

    >>> window = Window(clock=lambda: 100.0)
    >>> old, new = {"event": "storage-back", "seq": 1, "run": "a", "at": 1.0}, {"event": "storage-back", "seq": 2, "run": "a", "at": 99.0}
    >>> [e["seq"] for e in window.new([old, new])], [e["seq"] for e in window.new([old, new])]
    ([2], [])
    >>> [e["seq"] for e in window.new([{**new, "seq": 5}])], window.missed
    ([5], 2)
    """

    def __init__(self, clock: Callable[[], float] = time.time, catch_up: float = CATCH_UP):
        self.clock, self.catch_up = clock, catch_up
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
            if run != self.run:  # the box started again (or this process did): its numbers begin anew
                self.run, self.seq = run, seq - 1 if fresh else 0
            if fresh and self.told_before(entry):
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


class Bridge:
    """The box's control socket to the broker: follow the box's state dumps, publish each new event
    once, tell the box how MQTT is doing ("mqtt-status"). `acks`: a stream that hears "seen RUN SEQ"
    after every dump (the simulator paces itself on it)."""

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
            at = entry.get("at")
            self.publisher.publish(event, at if isinstance(at, (int, float)) else None)
        with self.publisher.changed:  # the lock's condition: the dump is taken (tests wait on it)
            self.publisher.missed = self.window.missed
            self.publisher.changed.notify_all()
        run, seq = self.window.newest()
        self.ack(f"seen {run} {seq}")

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
        publisher.close()
        line = publisher.status()
        log.info("%s", line)
        if acks is not None:
            bridge.ack(f"status {line}")
    return 0


# ----- beside a box of another process: `gravebox run --mqtt` and `gravebox sim --mqtt` -------------

START_WAIT = 15.0  # seconds the child process has to follow the box
PACE_WAIT = 10.0  # seconds a simulated box waits for the child to take its events, at most


class MqttChild:
    """`gravebox mqtt` as a child process following the control socket at `path` (`options`: its
    --config and --mqtt). With `acks` it tells what it has taken, so that a box on virtual time
    can wait for it (`wait_seen`), and its last status line (`stop` returns it)."""

    def __init__(self, path: Path, options: list[str], acks: bool = False):
        self.path, self.options, self.acks = path, options, acks
        self.process: subprocess.Popen[str] | None = None
        self.seen: tuple[str | None, int] = (None, 0)
        self.subscribed = False
        self.ended = False
        self.last_line: str | None = None
        self.heard = threading.Condition()
        self.reader: threading.Thread | None = None

    def start(self) -> MqttChild:
        import os
        import sys

        home = str(Path(__file__).resolve().parents[2])  # the same box code as this process
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
                elif word == "seen":
                    run, _, seq = rest.partition(" ")
                    self.seen = (run, int(seq)) if seq.isdigit() else self.seen
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

    def stop(self, timeout: float = CLOSE_WAIT * 2) -> str | None:
        """SIGTERM: the child says goodbye to the broker and ends; its last status line."""
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
    would otherwise leave the window before it reads them."""

    def __init__(self, path: Path, child: MqttChild, margin: int = 10):
        super().__init__(path, lambda command: None)
        self.child, self.margin = child, margin
        self.newest: tuple[str, int] | None = None  # the newest numbered event published

    def publish(self, state: dict[str, Any]) -> None:
        super().publish(state)
        numbered = [e for e in state.get("events") or () if isinstance(e, dict) and isinstance(e.get("seq"), int)]
        if numbered:
            self.newest = (str(numbered[-1]["run"]), numbered[-1]["seq"])
            if not self.child.ended:
                self.child.wait_seen(self.newest[0], self.newest[1] - self.margin)

    def all_taken(self) -> bool:
        """Wait until the child has taken every event published (False: it did not, in time)."""
        return self.newest is None or self.child.wait_seen(*self.newest)
