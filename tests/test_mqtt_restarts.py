"""The MQTT process started again, or late, on a real broker (mosquitto; skipped without it): each
event reaches the broker once (the retained marker of what was published, read back at start), the
state published at start is the box's (its state dump), "online" comes after it, and a second
publisher on the same topics is refused in one line."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from box.events import ActionAccepted, DiceRolled, Undone
from box.links.control import ControlServer
from box.links.mqtt import Bridge, MqttPublisher
from box.sim.world import SimulatedBox
from tests.test_mqtt import SCENARIOS, WAIT, Broker, Watcher, broker, settings

__all__ = ["broker"]  # the module's broker, shared


class Box:
    """A simulated box with its control socket; MQTT processes come and go beside it (`follow`)."""

    def __init__(self, folder: Path, base: str, port: int):
        self.settings = settings(port, base)
        self.control = ControlServer(folder / "run" / "control.sock", lambda command: None)
        self.control.start()
        self.world = SimulatedBox(folder / "state", decks_dir=SCENARIOS / "dead-set" / "decks", control=self.control,
                                  mqtt=self.settings)

    def follow(self) -> tuple[MqttPublisher, Bridge, threading.Thread]:
        publisher = MqttPublisher(self.settings).start()
        bridge = Bridge(publisher, self.control.path, retry=0.05)
        thread = threading.Thread(target=bridge.run, daemon=True)
        thread.start()
        assert publisher.wait(lambda p: p.box_up, WAIT)
        return publisher, bridge, thread

    def pass_(self, bridge: Bridge) -> None:
        """The box's events out in a dump, and the bridge has taken them."""
        assert self.world.bus.flush()
        self.world.advance(0.0)
        link = self.world.loop.link
        assert link is not None
        numbered = [e for e in link.events() if "seq" in e]
        with bridge.publisher.changed:
            assert bridge.publisher.changed.wait_for(
                lambda: not numbered or bridge.window.newest() == (numbered[-1]["run"], numbered[-1]["seq"]), WAIT)

    def rolls(self, count: int, bridge: Bridge | None = None) -> None:
        for number in range(count):
            self.world.box.publish(DiceRolled((1 + number % 6, 2), game=None))
        if bridge is not None:
            self.pass_(bridge)
        else:
            assert self.world.bus.flush()
            self.world.advance(0.0)

    def close(self) -> None:
        self.world.close()
        self.control.stop()


def stop(bridge: Bridge, thread: threading.Thread) -> None:
    bridge.hang_up()
    thread.join(WAIT)
    bridge.publisher.close()


def numbers(watcher: Watcher, base: str) -> list[tuple[str, int]]:
    with watcher.changed:
        return [(data["run"], data["seq"]) for topic, payload, _ in watcher.messages
                if topic.startswith(f"{base}/event/") and "seq" in (data := json.loads(payload))]


def test_each_event_reaches_the_broker_once_across_restarts_of_the_publisher(broker: Broker, tmp_path: Path) -> None:
    box = Box(tmp_path, "test/once", broker.port)
    watcher = Watcher(broker.port, "test/once/event/#")
    try:
        _, bridge, thread = box.follow()
        box.world.box.lobby.start_game("dead-set", box.world.now, names=["Ann", "Bob"])
        box.rolls(4, bridge)
        watcher.wait_for(lambda seen: len(numbers(watcher, "test/once")) >= 5)
        stop(bridge, thread)
        box.rolls(3)  # while no publisher runs (systemd's RestartSec): still in the box's window
        for _ in range(2):  # started again, twice, within the minute a fresh start used to publish again
            _, bridge, thread = box.follow()
            box.rolls(2, bridge)
            stop(bridge, thread)
        link = box.world.loop.link
        assert link is not None
        told = [(link.run, seq) for seq in range(1, link.numbered + 1)]
        watcher.wait_for(lambda seen: len(numbers(watcher, "test/once")) >= len(told))
        assert numbers(watcher, "test/once") == told  # each once, in order: none again, none lost
    finally:
        watcher.stop()
        box.close()


def test_a_killed_publisher_started_again_publishes_only_what_it_had_not(broker: Broker, tmp_path: Path) -> None:
    box = Box(tmp_path, "test/killed", broker.port)
    watcher = Watcher(broker.port, "test/killed/event/#")
    marked = Watcher(broker.port, "test/killed/published")  # what each process said it had published
    config = tmp_path / "config.toml"
    config.write_text('[mqtt]\nhost = "nowhere.invalid"\nbase_topic = "test/killed"\n', encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent)}
    command = [sys.executable, "-m", "box", "mqtt", "--socket", str(box.control.path), "--mqtt",
               f"127.0.0.1:{broker.port}", "--config", str(config), "--acks"]
    link = box.world.loop.link
    assert link is not None
    try:
        for round_ in range(3):
            process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            try:
                assert process.stdout is not None and process.stdout.readline().strip() == "subscribed"
                box.rolls(3)
                watcher.wait_for(lambda seen: len(numbers(watcher, "test/killed")) >= link.numbered)
                # its marker follows the events: killed before it lands, the next one would publish them again
                marked.wait_for(lambda seen: bool(seen) and json.loads(seen[-1][1]).get("seq") == link.numbered)
            finally:
                process.send_signal(signal.SIGKILL)  # no goodbye at all
                process.wait(WAIT)
            box.rolls(1 + round_)  # while it is down: published by the next one, once
        assert numbers(watcher, "test/killed") == [(link.run, seq) for seq in range(1, link.numbered - 2)]
        process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            assert process.stdout is not None and process.stdout.readline().strip() == "subscribed"
            box.world.advance(0.0)
            watcher.wait_for(lambda seen: len(numbers(watcher, "test/killed")) >= link.numbered)
        finally:
            process.terminate()
            process.wait(WAIT)
        assert numbers(watcher, "test/killed") == [(link.run, seq) for seq in range(1, link.numbered + 1)]
    finally:
        watcher.stop()
        marked.stop()
        box.close()


def test_a_publisher_started_late_in_a_game_publishes_the_game_as_it_stands_then_online(
    broker: Broker, tmp_path: Path
) -> None:
    box = Box(tmp_path, "test/late", broker.port)
    watcher = Watcher(broker.port, "test/late/#")
    try:
        box.world.box.lobby.start_game("dead-set", box.world.now, names=["Ann", "Bob"])
        box.world.box.card_placed("left", box.world.uid_for("ds70"), box.world.now)
        box.rolls(30)  # the game's start has long left the box's window of events
        _, bridge, thread = box.follow()
        box.world.advance(0.0)  # a pass: the box's dump to its new follower
        try:
            seen = watcher.wait_for(lambda seen: ("test/late/availability", "online", False) in seen)
            states = [json.loads(payload) for topic, payload, _ in seen if topic == "test/late/state"]
            assert states, "no state before online"
            state = states[-1]
            assert (state["game"], state["title"], state["players"]) == ("dead-set", "Dead Set", ["Ann", "Bob"])
            assert state["current_player"] in ("Ann", "Bob") and set(state["figures"]) == {"Ann", "Bob"}
            assert state["actions"] == 1 and state["dice"] is not None
        finally:
            stop(bridge, thread)
    finally:
        watcher.stop()
        box.close()


def test_a_second_publisher_on_the_same_topics_is_refused_in_one_line(broker: Broker, tmp_path: Path) -> None:
    box = Box(tmp_path, "test/twice", broker.port)
    config = tmp_path / "config.toml"
    config.write_text('[mqtt]\nhost = "nowhere.invalid"\nbase_topic = "test/twice"\n', encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent)}
    command = [sys.executable, "-m", "box", "mqtt", "--socket", str(box.control.path), "--mqtt",
               f"127.0.0.1:{broker.port}", "--config", str(config)]
    publisher, bridge, thread = box.follow()
    watcher = Watcher(broker.port, "test/twice/availability")
    try:
        box.rolls(1, bridge)
        second = subprocess.run(command, env=env, capture_output=True, text=True, timeout=WAIT * 2)
        assert second.returncode == 2
        line = second.stderr.splitlines()[-1]  # the log says it too; the command's own word is one line
        assert "Traceback" not in second.stderr and second.stderr.count("gravebox: mqtt:") == 1
        assert line.startswith("gravebox: mqtt: another publisher (gravebox-") and "test/twice" in line
        assert f"({publisher.id})" in line  # the one that runs, which goes on
        assert publisher.connections == 1 and watcher.last("test/twice/availability") == "online"
    finally:
        watcher.stop()
        stop(bridge, thread)
        box.close()


def test_an_undone_event_is_withdrawn_and_cursor_moves_are_not_told(broker: Broker, tmp_path: Path) -> None:
    box = Box(tmp_path, "test/undo", broker.port)
    watcher = Watcher(broker.port, "test/undo/event/#")
    _, bridge, thread = box.follow()
    try:
        world = box.world
        world.box.lobby.start_game("dead-set", world.now, names=["Ann", "Bob"])
        world.box.card_placed("left", world.uid_for("ds70"), world.now)
        box.pass_(bridge)
        watcher.wait_for(lambda seen: any(t.endswith("/action-accepted") for t, _, _ in seen))
        world.box.publish(Undone("dead-set", "Ada"))  # the box's undo of the last action, as told
        box.pass_(bridge)
        seen = watcher.wait_for(lambda seen: any(t.endswith("/action-accepted") and '"withdrawn"' in p for t, p, _ in seen))
        withdrawn = [(t, json.loads(p)) for t, p, _ in seen if '"event_type":"withdrawn"' in p]
        accepted = next(json.loads(p) for t, p, _ in seen if t.endswith("/action-accepted"))
        assert ("test/undo/event/action-accepted", accepted["seq"]) in [(t, d["withdrawn"]["seq"]) for t, d in withdrawn]
        assert [d["withdrawn"]["event_type"] for _, d in withdrawn] == ["turn-passed", "action-accepted"]  # newest first
        world.box.publish(ActionAccepted("dead-set", "move to Draw a card", "Ann"))  # a cursor move
        world.box.publish(Undone("dead-set", "move to Draw a card"))  # and its undo: nothing to withdraw
        world.box.publish(DiceRolled((3, 3), game=None))
        box.pass_(bridge)
        seen = watcher.wait_for(lambda seen: any(t.endswith("/dice-rolled") for t, _, _ in seen))
        assert not any("move to" in payload for _, payload, _ in seen)
        assert len([p for _, p, _ in seen if '"event_type":"withdrawn"' in p]) == len(withdrawn)  # none more
    finally:
        watcher.stop()
        stop(bridge, thread)
        box.close()


class Cutter:
    """A TCP proxy before the broker that cuts the connection after the broker's `cut`-th packet read
    back (CONNACK, SUBACK, the probe, PUBACKs...) of each connection, while `cuts` lasts."""

    def __init__(self, port: int, cut: int, cuts: int):
        self.target, self.cut, self.cuts = port, cut, cuts
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target))
            cutting = self.cuts > 0
            self.cuts -= 1
            threading.Thread(target=self.pipe, args=(client, upstream, None), daemon=True).start()
            threading.Thread(target=self.pipe, args=(upstream, client, self.cut if cutting else None),
                             daemon=True).start()

    def pipe(self, source: socket.socket, sink: socket.socket, cut: int | None) -> None:
        reads = 0
        try:
            while data := source.recv(4096):
                sink.sendall(data)
                reads += 1
                if cut is not None and reads >= cut:
                    break
        except OSError:
            pass
        for end in (source, sink):
            with contextlib.suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)
            end.close()

    def close(self) -> None:
        self.listener.close()


@pytest.mark.parametrize("cut", [1, 2, 3, 4, 6])
def test_a_broker_dropping_the_connection_at_each_step_of_a_reconnect_while_events_flow(
    broker: Broker, tmp_path: Path, cut: int
) -> None:
    """The broker's side cut after its first, second... answer of each of two connections, events
    flowing meanwhile: the process reconnects each time, publishes every event, says it is
    connected, and ends when asked (no deadlock: 3 of 8 runs hung before)."""
    cutter = Cutter(broker.port, cut, cuts=2)
    box = Box(tmp_path, f"test/cut{cut}", cutter.port)
    watcher = Watcher(broker.port, f"test/cut{cut}/event/#")
    _, bridge, thread = box.follow()
    try:
        for _ in range(6):
            box.rolls(2, bridge)
        link = box.world.loop.link
        assert link is not None
        watcher.wait_for(lambda seen: {seq for _, seq in numbers(watcher, f"test/cut{cut}")} >= set(
            range(1, link.numbered + 1)))
        # connected, and every message acknowledged (a loaded machine may still await an ack)
        assert bridge.publisher.wait(lambda p: p.connected and "connected to" in p.line, WAIT), bridge.publisher.status()
        assert bridge.publisher.connections >= 2 and cutter.cuts <= 0  # it was cut, and came back
    finally:
        bridge.hang_up()
        thread.join(WAIT)
        assert not thread.is_alive()
        bridge.publisher.close()
        watcher.stop()
        cutter.close()
        box.close()
