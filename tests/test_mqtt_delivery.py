"""How the MQTT process hands its messages to paho (box/links/mqtt/publisher.py), against a stand-in
with paho's locking: no deadlock when the connection drops during any publish, every return code
looked at (a broker that stops acknowledging), and the watchdog pinged only while the sender works."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from box.events import StorageFailed
from box.links.mqtt import MqttPublisher
from box.links.mqtt import publisher as publishing
from box.storage.config import MqttConfig

mqtt = pytest.importorskip("paho.mqtt.client")

WAIT = 5.0


class PahoLike:
    """A stand-in for paho's client with paho's locking: `publish` takes the client's lock, and its
    network thread calls the callbacks while it holds that lock (as paho's does when the connection
    drops). A publisher calling `publish` with a lock its callbacks take would hang that thread."""

    def __init__(self, queue_limit: int = 64):
        self.lock = threading.Lock()
        self.changed = threading.Condition(self.lock)
        self.published: list[tuple[str, str, bool]] = []
        self.unacked: list[int] = []
        self.queue_limit = queue_limit
        self.drop_at: int | None = None  # the connection drops while this publish (by its number) is made
        self.stuck = False  # a callback could not run: the deadlock
        self.mid = 0
        self.blocked = threading.Event()  # set: publish never returns (a deadlocked paho)
        self.on_connect: Callable[..., None] = lambda *_: None
        self.on_disconnect: Callable[..., None] = lambda *_: None
        self.on_subscribe: Callable[..., None] = lambda *_: None
        self.on_message: Callable[..., None] = lambda *_: None
        self.on_publish: Callable[..., None] = lambda *_: None
        self.on_connect_fail: Callable[..., None] = lambda *_: None

    def network(self, callback: Callable[[], None]) -> None:
        """paho's thread: `callback` called while it holds the client's lock."""
        def run() -> None:
            with self.lock:
                callback()

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        thread.join(2)
        self.stuck = self.stuck or thread.is_alive()

    def connect(self) -> None:
        self.network(lambda: self.on_connect(self, None, None, SimpleNamespace(is_failure=False), None))

    def drop(self) -> None:
        self.network(lambda: self.on_disconnect(self, None, None, "connection lost", None))

    def subscribe(self, topics: Any, qos: int = 0) -> None:
        self.network(lambda: self.on_subscribe(self, None, 1, [], None))

    def unsubscribe(self, topic: str) -> None:
        pass

    def publish(self, topic: str, payload: str, qos: int = 0, retain: bool = False) -> SimpleNamespace:
        if self.blocked.is_set():
            threading.Event().wait()
        if self.drop_at == len(self.published):
            self.drop()
        with self.lock:
            if len(self.unacked) >= self.queue_limit:
                return SimpleNamespace(rc=mqtt.MQTT_ERR_QUEUE_SIZE, mid=0, wait_for_publish=lambda timeout: False)
            self.mid += 1
            self.published.append((topic, payload, retain))
            self.changed.notify_all()
            if not topic.endswith("/probe"):
                self.unacked.append(self.mid)
        if topic.endswith("/published/probe"):  # the broker sends it back
            message = SimpleNamespace(topic=topic, payload=payload.encode(), retain=False)
            self.network(lambda: self.on_message(self, None, message))
        return SimpleNamespace(rc=mqtt.MQTT_ERR_SUCCESS, mid=self.mid, wait_for_publish=lambda timeout: True)

    def acknowledge(self) -> None:
        with self.lock:
            mids, self.unacked = self.unacked, []
        for mid in mids:
            self.network(lambda mid=mid: self.on_publish(self, None, mid, 0, None))

    def events(self) -> list[str]:
        with self.lock:
            return self._events()

    def _events(self) -> list[str]:
        return [json.loads(payload)["reason"] for topic, payload, _ in self.published if topic.startswith("test/fake/event/")]

    def wait_events(self, count: int) -> list[str]:
        """The events handed over, once `count` of them are (or after a bound)."""
        with self.changed:
            self.changed.wait_for(lambda: len(self._events()) >= count and self.published[-1][0].endswith("availability"),
                                  WAIT)
            return self._events()

    def disconnect(self) -> None:
        pass

    def loop_stop(self) -> None:
        pass


@pytest.fixture(autouse=True)
def short_grace(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(publishing, "PROBE_GRACE", 0.02)


def attached(fake: PahoLike, started: bool = True, **more: Any) -> MqttPublisher:
    settings = MqttConfig("127.0.0.1", 1883, base_topic="test/fake", discovery=more.pop("discovery", True))
    publisher = MqttPublisher(settings, version="1", **more).attach(fake)
    fake.connect()
    assert not started or publisher.wait(lambda p: p.started, WAIT)
    return publisher


def all_sent(publisher: MqttPublisher) -> bool:
    return publisher.started and not (publisher.pending or publisher.availability or publisher.state_dirty)


@pytest.mark.parametrize("step", range(0, 24, 1))
def test_the_connection_dropping_during_any_publish_of_a_connection_never_deadlocks(step: int) -> None:
    """The connection drops while the n-th message of a connection is handed over (the discovery,
    the events, the marker, the state, "online"): paho's thread gets its callback through, the
    status says so, and the reconnection sends the rest."""
    fake = PahoLike()
    fake.drop_at = step
    publisher = attached(fake, started=False)
    try:
        publisher.box_online(True)
        for number in range(5):
            publisher(StorageFailed(f"fault {number}"), mark=("run", number + 1))
        publisher.settle({"events": [], "game": None})
        with fake.changed:  # the drop happened, or the connection's messages were all handed over without it
            assert fake.changed.wait_for(lambda: len(fake.published) > step or (
                len(fake._events()) == 5 and fake.published[-1][0].endswith("availability")), WAIT)
        assert publisher.wait(lambda p: not p.connected or all_sent(p), WAIT)
        assert not fake.stuck
        if not publisher.connected:
            assert "trying again" in publisher.status()
            fake.drop_at = None
            fake.connect()
        assert publisher.wait(lambda p: p.connected and all_sent(p), WAIT)
        assert not fake.stuck and "connected to" in publisher.status()
        assert fake.wait_events(5) == [f"fault {number}" for number in range(5)]
        topics = [topic for topic, _, _ in fake.published]
        assert topics.index("test/fake/state") < topics.index("test/fake/availability")
    finally:
        publisher.close(timeout=0.1)


def test_a_broker_that_stops_acknowledging_keeps_the_newest_events_counts_the_rest_and_sends_them_after() -> None:
    fake = PahoLike(queue_limit=5)
    publisher = attached(fake, discovery=False, pending_limit=10)
    try:
        for number in range(20):  # one by one, as a game makes them
            publisher(StorageFailed(f"fault {number}"), mark=("run", number + 1))
            assert publisher.wait(lambda p: p.full or not p.pending, WAIT)
        assert publisher.full and len(publisher.pending) == 10
        handed = fake.events()  # paho's queue is full (the events and the markers between them)
        assert handed == [f"fault {number}" for number in range(len(handed))] and 1 <= len(handed) <= 5
        lost = 20 - len(handed) - 10
        assert publisher.dropped == lost and "does not acknowledge" in publisher.status()
        assert publisher.status().endswith(f"({lost} events lost)")
        for _ in range(5):  # the broker answers again: what waited goes, in order, once
            fake.acknowledge()
            assert publisher.wait(lambda p: p.full or not (p.pending or p.mark_due), WAIT)
        assert not (publisher.pending or publisher.mark_due or publisher.full)
        assert fake.events() == [*handed, *(f"fault {number}" for number in range(10, 20))]
        marker = [json.loads(payload) for topic, payload, _ in fake.published if topic == "test/fake/published"]
        assert marker[-1] == {"run": "run", "seq": 20}
    finally:
        publisher.close(timeout=0.1)


def test_the_last_state_taken_from_the_box_goes_out_before_offline_though_the_box_went_away_first() -> None:
    """The box's last dump is taken, then the box goes away (its process ends, or `gravebox sim
    --mqtt` stops) before the sender could send that state (here: the broker is not there yet):
    the state is still the box's, and goes out, then "offline"; never the one before it."""
    fake = PahoLike()
    settings = MqttConfig("127.0.0.1", 1883, base_topic="test/fake", discovery=False)
    publisher = MqttPublisher(settings, version="1").attach(fake)  # the broker comes later
    try:
        publisher.box_online(True)
        for current in ("Bob", "Ann"):  # Bob's turn, then the box's last dump: Ann's
            publisher.settle({"game": "dead-fellas", "players": ["Ann", "Bob"], "current_player": current, "over": False})
        publisher.box_online(False)
        fake.connect()
        with fake.changed:
            assert fake.changed.wait_for(lambda: any(t == "test/fake/state" for t, _, _ in fake.published), WAIT)
        assert publisher.wait(lambda p: all_sent(p), WAIT)
        states = [json.loads(payload) for topic, payload, _ in fake.published if topic == "test/fake/state"]
        assert [state["current_player"] for state in states] == ["Ann"]
        assert ("test/fake/availability", "online", True) not in fake.published  # the box is gone
    finally:
        publisher.close(timeout=0.1)
    assert fake.published[-1] == ("test/fake/availability", "offline", True)


def test_the_sender_pings_the_watchdog_only_while_it_works(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    listener.bind(str(tmp_path / "notify"))
    listener.settimeout(2)
    monkeypatch.setenv("NOTIFY_SOCKET", str(tmp_path / "notify"))
    monkeypatch.setenv("WATCHDOG_USEC", "100000")  # a ping every 50 ms
    monkeypatch.delenv("WATCHDOG_PID", raising=False)
    monkeypatch.setattr(publishing, "TICK", 0.05)
    fake = PahoLike()
    publisher = attached(fake, discovery=False)
    pings = iter(lambda: listener.recv(64), b"")
    assert next(pings) == b"WATCHDOG=1" and next(pings) == b"WATCHDOG=1"
    fake.blocked.set()  # paho hangs: the sender is stuck in publish
    publisher(StorageFailed("stuck"), mark=("run", 1))
    listener.settimeout(0.5)
    drained = sum(1 for _ in drain(listener))
    assert drained <= 2 and not list(drain(listener))  # what was in flight, then silence: systemd restarts it
    listener.close()


def drain(listener: socket.socket) -> Iterator[bytes]:
    while True:
        try:
            yield listener.recv(64)
        except TimeoutError:
            return


def test_the_unit_has_a_watchdog_and_says_when_it_is_ready() -> None:
    unit = (Path(__file__).parent.parent / "systemd" / "gravebox-mqtt.service").read_text()
    lines = {line.split("=", 1)[0]: line.split("=", 1)[1] for line in unit.splitlines() if "=" in line
             and not line.startswith("#")}
    assert lines["Type"] == "notify" and int(lines["WatchdogSec"]) > 0 and lines["NotifyAccess"] == "main"


def test_the_client_id_is_unique_per_box_and_process(monkeypatch: pytest.MonkeyPatch) -> None:
    first = publishing.client_id("gravebox/living-room")
    monkeypatch.setattr(publishing.os, "getpid", lambda: 1)
    assert first != publishing.client_id("gravebox/living-room")
    assert socket.gethostname() in first and first.endswith("gravebox-living-room")
