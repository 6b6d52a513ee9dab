"""The box's events on a real MQTT broker: Debian's mosquitto on a loopback port (./run-tests
installs it with scripts/test-packages.sh; these tests skip only where it is not installed).

The MQTT process (`gravebox mqtt`, box/links/mqtt/) follows a real box's control socket: as a child
process, or its `Bridge` on a thread of the test beside a simulated box."""

from __future__ import annotations

import json
import logging
import os
import pwd
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from box.cli.main import main
from box.events import ActionAccepted, DiceRolled, GameOver, GameStarted, StorageFailed, Undone
from box.links.control import ControlServer
from box.links.mqtt import TRIGGERS, Bridge, MqttPublisher, discovery
from box.sim.world import SimulatedBox
from box.storage.config import MqttConfig, load_config

mqtt = pytest.importorskip("paho.mqtt.client")

MOSQUITTO, PASSWD = Path("/usr/sbin/mosquitto"), Path("/usr/bin/mosquitto_passwd")
SCENARIOS = Path(__file__).parent / "scenarios"
LAPS = SCENARIOS / "deck-of-death" / "laps-and-start.script"
WAIT = 15.0  # seconds any network condition may take, at most


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Broker:
    """mosquitto in the foreground on a loopback port; `stop` and `start` again keep the port."""

    def __init__(self, folder: Path, users: dict[str, str] | None = None):
        self.port, self.folder = free_port(), folder
        lines = [f"listener {self.port} 127.0.0.1", "persistence false", "log_dest stderr", "log_type all"]
        lines.append(f"user {pwd.getpwuid(os.getuid()).pw_name}")  # as root it would become "mosquitto"
        if users:
            passwords = folder / "passwords"
            passwords.write_text("".join(f"{user}:{word}\n" for user, word in users.items()))
            subprocess.run([str(PASSWD), "-U", str(passwords)], check=True, capture_output=True, timeout=WAIT)
            lines += ["allow_anonymous false", f"password_file {passwords}"]
        else:
            lines.append("allow_anonymous true")
        self.config = folder / "mosquitto.conf"
        self.config.write_text("\n".join(lines) + "\n")
        self.process: subprocess.Popen[str] | None = None
        self.log: list[str] = []

    def start(self) -> None:
        self.process = subprocess.Popen([str(MOSQUITTO), "-c", str(self.config)], stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True)
        ready = threading.Event()

        def read(stream: object) -> None:
            for line in stream:  # type: ignore[attr-defined]
                self.log.append(line)
                if " running" in line:  # "mosquitto version ... running": the listener is open
                    ready.set()

        threading.Thread(target=read, args=(self.process.stdout,), daemon=True).start()
        assert ready.wait(WAIT), "".join(self.log)

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(WAIT)
            self.process = None


@pytest.fixture(scope="module")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Broker]:
    if not MOSQUITTO.exists():
        pytest.skip("mosquitto is not installed (scripts/test-packages.sh installs it)")
    running = Broker(tmp_path_factory.mktemp("broker"))
    running.start()
    yield running
    running.stop()


class Watcher:
    """A client following `topic` on the broker: every message kept, waited for with a bound."""

    def __init__(self, port: int, topic: str = "#", **credentials: str):
        self.messages: list[tuple[str, str, bool]] = []  # topic, payload, retained
        self.changed = threading.Condition()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
        if credentials:
            self.client.username_pw_set(credentials["username"], credentials["password"])
        subscribed = threading.Event()
        self.client.on_message = self.received
        self.client.on_subscribe = lambda *_: subscribed.set()
        self.client.on_connect = lambda client, *_: client.subscribe(topic, qos=1)
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()
        assert subscribed.wait(WAIT)

    def received(self, client: object, userdata: object, message: mqtt.MQTTMessage) -> None:
        with self.changed:
            self.messages.append((message.topic, message.payload.decode(), bool(message.retain)))
            self.changed.notify_all()

    def wait_for(self, found: Callable[[list[tuple[str, str, bool]]], bool]) -> list[tuple[str, str, bool]]:
        with self.changed:
            assert self.changed.wait_for(lambda: found(self.messages), WAIT), self.messages[-5:]
            return list(self.messages)

    def last(self, topic: str) -> str | None:
        with self.changed:
            return next((payload for seen, payload, _ in reversed(self.messages) if seen == topic), None)

    def stop(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def settings(port: int, base: str, **more: object) -> MqttConfig:
    return MqttConfig("127.0.0.1", port, base_topic=base, **more)  # type: ignore[arg-type]


class Beside:
    """A simulated box with its control socket, and the MQTT process's `Bridge` following it on a thread."""

    def __init__(self, folder: Path, mqtt_settings: MqttConfig, decks: Path | None = None):
        self.control = ControlServer(folder / "run" / "control.sock", lambda command: None)
        self.control.start()
        self.world = SimulatedBox(folder / "state", decks_dir=decks, control=self.control, mqtt=mqtt_settings)
        self.publisher = MqttPublisher(mqtt_settings).start()
        self.bridge = Bridge(self.publisher, self.control.path, retry=0.05)
        self.thread = threading.Thread(target=self.bridge.run, daemon=True)
        self.thread.start()
        assert self.publisher.wait(lambda p: p.box_up, WAIT)

    def settle(self) -> None:
        """The box's events to the bridge: the phone link has them, a pass publishes the dump, the bridge takes it."""
        assert self.world.bus.flush()
        self.world.advance(0.0)
        link = self.world.loop.link
        numbered = [e for e in link.events() if "seq" in e] if link is not None else []
        if numbered:
            with self.publisher.changed:
                assert self.publisher.changed.wait_for(
                    lambda: self.bridge.window.newest() == (numbered[-1]["run"], numbered[-1]["seq"]), WAIT)

    def close(self) -> None:
        self.bridge.hang_up()
        self.thread.join(WAIT)
        self.publisher.close()
        self.world.close()
        self.control.stop()


def test_a_scripted_game_in_the_simulator_publishes_the_documented_topics(
    broker: Broker, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[mqtt]\nhost = "nowhere.invalid"\nbase_topic = "test/sim"\n', encoding="utf-8")
    watcher = Watcher(broker.port, "test/sim/#")
    # --mqtt overrides the settings' broker and keeps the rest (the base topic)
    argv = ["sim", "--script", str(LAPS), "--config", str(config), "--seed", "1", "--mqtt", f"127.0.0.1:{broker.port}"]
    assert main(argv) == 0
    assert "MQTT: connected to 127.0.0.1:" in capsys.readouterr().out
    seen = watcher.wait_for(lambda seen: ("test/sim/availability", "offline", False) in seen)
    seen = [message for message in seen if "/published" not in message[0]]  # the marker and the probe
    topics = [topic for topic, _, _ in seen]
    # the state first (the box's, from its first dump), then "online": the house never sees an old state online
    assert topics.index("test/sim/state") < seen.index(("test/sim/availability", "online", False))
    assert topics.index("test/sim/availability") == seen.index(("test/sim/availability", "online", False))
    for name in ("game-started", "action-accepted", "turn-passed", "lap-completed", "dice-rolled"):
        assert f"test/sim/event/{name}" in topics
    lap = json.loads(watcher.last("test/sim/event/lap-completed") or "")
    assert lap["event_type"] == "lap-completed" and lap["game"] == "deck-of-death" and lap["lap"] == 1
    assert not any(retained for _, _, retained in seen)  # a live follower gets the retained ones as news
    state = json.loads(watcher.last("test/sim/state") or "")
    assert state["game"] == "deck-of-death" and state["players"] == ["Ann", "Bob"]
    assert state["figures"]["Ann"]["laps"] == 1 and state["dice"] is not None and state["current_player"] in ("Ann", "Bob")
    watcher.stop()

    later = Watcher(broker.port, "test/sim/#")  # who comes later gets the state and availability retained
    kept = later.wait_for(lambda seen: {"test/sim/state", "test/sim/availability"} <= {t for t, _, _ in seen})
    assert all(retained for _, _, retained in kept)
    assert json.loads(later.last("test/sim/state") or "") == state and later.last("test/sim/availability") == "offline"
    later.stop()



def test_a_power_cut_in_a_script_comes_after_the_mqtt_process_took_the_events_before_it(
    broker: Broker, tmp_path: Path
) -> None:
    """On virtual time a script's `restart` follows its last step at once: the MQTT child takes
    that step's events before the cut (on a box it would have had the time), none is lost."""
    script = tmp_path / "rolls.script"
    script.write_text("start dead-set names=Ann,Bob\n" + "".join(f"dice {n} 1\npress roll\nrestart\n" for n in range(1, 6)))
    watcher = Watcher(broker.port, "test/cuts/event/dice-rolled")
    config = tmp_path / "config.toml"
    config.write_text('[mqtt]\nhost = "127.0.0.1"\nbase_topic = "test/cuts"\n', encoding="utf-8")
    try:
        assert main(["sim", "--script", str(script), "--config", str(config), "--mqtt", f"127.0.0.1:{broker.port}"]) == 0
        seen = watcher.wait_for(lambda seen: len(seen) >= 5)
        assert [json.loads(payload)["faces"] for _, payload, _ in seen] == [[n, 1] for n in range(1, 6)]
    finally:
        watcher.stop()

def test_the_simulator_ends_its_mqtt_child_only_after_it_took_the_last_state_and_said_it(
    broker: Broker, tmp_path: Path
) -> None:
    """The script's last input takes the game over back (a Fuhgeddaboutit on the winning whack):
    after the sim ends, the retained state is the box's last: the game going on, Ann's turn, her
    score without the whack (not the game over, nor the state before it)."""
    config = tmp_path / "config.toml"
    config.write_text('[mqtt]\nhost = "127.0.0.1"\nbase_topic = "test/last"\n', encoding="utf-8")
    script = SCENARIOS / "dead-fellas" / "win.script"
    assert main(["sim", "--script", str(script), "--config", str(config), "--seed", "1",
                 "--mqtt", f"127.0.0.1:{broker.port}"]) == 0
    later = Watcher(broker.port, "test/last/#")  # the retained topics, after the publisher said goodbye
    try:
        later.wait_for(lambda seen: {"test/last/state", "test/last/availability"} <= {t for t, _, _ in seen})
        state = json.loads(later.last("test/last/state") or "")
        assert (state["over"], state["current_player"], state["winners"]) == (False, "Ann", [])
        assert state["figures"]["Ann"]["score"] == 8  # 6 before the winning whack, 10 with it, 8 after it
        assert later.last("test/last/availability") == "offline"
    finally:
        later.stop()


def test_the_child_is_waited_for_until_it_took_the_last_state_dump_not_only_its_last_event() -> None:
    """Two dumps with the same newest event: taking the first is not taking the last."""
    import io
    from types import SimpleNamespace

    from box.links.mqtt import MqttChild
    from box.links.mqtt.bridge import fingerprint
    from box.links.statelines import state_line

    events = [{"event": "turn-passed", "run": "r", "seq": 5, "player": "Ann"}]
    before, last = (state_line({"over": over, "current_player": player, "events": events})
                    for over, player in ((True, None), (False, "Ann")))

    def hears(*lines: bytes) -> None:  # the child's acks of these dumps, then its end
        said = "".join(f"seen r 5 {fingerprint(json.loads(line)['state'])}\n" for line in lines)
        child.process = SimpleNamespace(stdout=io.StringIO(said))  # type: ignore[assignment]
        child.hear()

    child = MqttChild(Path("unused.sock"), [], acks=True)
    hears(before)
    assert child.wait_seen("r", 5, timeout=0) and not child.wait_taken(last, timeout=0)
    assert child.wait_taken(before, timeout=0) and child.wait_taken(None, timeout=0)
    hears(before, last)
    assert child.wait_taken(last, timeout=0)


# What Home Assistant's MQTT integration documents for each discovered component: required keys,
# and the keys it accepts (a key outside these is refused by its schema).
COMMON = {"name", "unique_id", "device", "origin", "icon", "availability_topic", "payload_available",
          "payload_not_available", "qos", "object_id", "entity_category", "enabled_by_default"}
SCHEMA = {
    "sensor": ({"state_topic"}, COMMON | {"state_topic", "value_template", "json_attributes_topic",
                                         "json_attributes_template", "unit_of_measurement", "device_class",
                                         "state_class", "expire_after", "force_update"}),
    "event": ({"state_topic", "event_types"}, COMMON | {"state_topic", "event_types", "value_template",
                                                     "json_attributes_topic", "json_attributes_template",
                                                     "device_class"}),
    "device_automation": ({"automation_type", "topic", "type", "subtype", "device"},
                          {"automation_type", "topic", "type", "subtype", "device", "payload", "qos",
                           "value_template", "origin"}),
}
DEVICE_KEYS = {"identifiers", "connections", "name", "model", "manufacturer", "sw_version", "hw_version",
               "suggested_area", "via_device", "configuration_url"}


def test_discovery_configs_follow_home_assistants_documented_schema(broker: Broker) -> None:
    configs = discovery(settings(broker.port, "test/ha"), "1.2.3")
    components: dict[str, int] = {}
    pairs = set()
    for topic, config in configs.items():
        prefix, component, node, object_id, last = topic.split("/")
        assert (prefix, node, last) == ("homeassistant", "test_ha", "config") and object_id.isidentifier()
        required, allowed = SCHEMA[component]
        assert required <= set(config) <= allowed, topic
        assert set(config["device"]) <= DEVICE_KEYS and config["device"]["identifiers"] == ["test_ha"]
        assert config["device"]["sw_version"] == "1.2.3" and config["device"]["name"] == f"Gravebox {socket.gethostname()}"
        if component == "device_automation":
            assert config["automation_type"] == "trigger"
            pairs.add((config["type"], config["subtype"]))
        else:
            assert config["availability_topic"] == "test/ha/availability" and config["unique_id"].startswith("test_ha_")
        if component == "event":
            assert config["state_topic"] == f"test/ha/event/{config['event_types'][0]}"
        components[component] = components.get(component, 0) + 1
    # each trigger twice: its event, and its withdrawal by an undo
    assert components == {"sensor": 5, "event": len(TRIGGERS), "device_automation": 2 * len(TRIGGERS)}
    assert len(pairs) == 2 * len(TRIGGERS)  # (type, subtype) unique per device
    assert len({c["unique_id"] for c in configs.values() if "unique_id" in c}) == 5 + len(TRIGGERS)

    publisher = MqttPublisher(settings(broker.port, "test/ha")).start()  # and the broker gets them, retained
    watcher = Watcher(broker.port, "homeassistant/+/test_ha/#")
    seen = watcher.wait_for(lambda seen: len(seen) >= len(configs))
    assert {topic: json.loads(payload) for topic, payload, _ in seen} == json.loads(
        json.dumps(discovery(settings(broker.port, "test/ha"), publisher.version))
    )
    watcher.stop()
    publisher.close()


def test_availability_follows_the_box_and_the_last_will_tells_the_house_the_process_is_gone(
    broker: Broker, tmp_path: Path
) -> None:
    control = ControlServer(tmp_path / "run" / "control.sock", lambda command: None)
    control.start()
    watcher = Watcher(broker.port, "test/will/availability")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent)}
    command = [sys.executable, "-m", "box", "mqtt", "--socket", str(control.path), "--mqtt",
               f"127.0.0.1:{broker.port}", "--config", str(tmp_path / "none.toml"), "--acks"]
    config = tmp_path / "none.toml"
    config.write_text('[mqtt]\nhost = "nowhere.invalid"\nbase_topic = "test/will"\n', encoding="utf-8")
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert process.stdout is not None and process.stdout.readline().strip() == "subscribed"
        control.publish({"events": []})
        assert process.stdout.readline().startswith("seen")
        watcher.wait_for(lambda seen: ("test/will/availability", "online", False) in seen)
        control.stop()  # the box stops: the house hears it at once
        watcher.wait_for(lambda seen: seen[-1][:2] == ("test/will/availability", "offline"))
        control = ControlServer(control.path, lambda command: None)
        control.start()  # and back: "online" once its first state dump is taken
        assert process.stdout.readline().strip() == "subscribed"
        control.publish({"events": [], "game": None})
        watcher.wait_for(lambda seen: seen[-1][:2] == ("test/will/availability", "online"))
        process.send_signal(signal.SIGKILL)  # a power cut: no goodbye, the broker gives the will
        watcher.wait_for(lambda seen: seen[-1][:2] == ("test/will/availability", "offline"))
    finally:
        process.kill()
        process.wait(WAIT)
        watcher.stop()
        control.stop()


def test_a_broker_restart_in_the_middle_of_a_game(tmp_path: Path) -> None:
    if not MOSQUITTO.exists():
        pytest.skip("mosquitto is not installed (scripts/test-packages.sh installs it)")
    broker = Broker(tmp_path)
    broker.start()
    beside = Beside(tmp_path, settings(broker.port, "test/restart"), decks=SCENARIOS / "dead-set" / "decks")
    world, publisher = beside.world, beside.publisher
    try:
        assert publisher.wait(lambda p: p.connected, WAIT)
        world.box.lobby.start_game("dead-set", world.now, names=["Ann", "Bob"])
        beside.settle()
        watcher = Watcher(broker.port, "test/restart/state")
        watcher.wait_for(lambda seen: bool(seen) and '"game":"dead-set"' in seen[-1][1])
        watcher.stop()

        broker.stop()  # the broker goes away mid-game: the box plays on, the status says so
        assert publisher.wait(lambda p: not p.connected and "trying again" in p.line, WAIT)
        world.box.card_placed("left", world.uid_for("ds70"), world.now)
        world.box.publish(DiceRolled((2, 3), game=None))
        beside.settle()
        assert publisher.missed == 0 and publisher.dropped == 0
        assert beside.bridge.wait_told(lambda line: "trying again" in line, WAIT)
        world.advance(0.0)
        assert "trying again" in (world.loop.mqtt_status or str)()  # the Box page's line, in the box's dump
        assert "trying again" in json.loads(beside.control.latest or b"{}")["state"]["mqtt"]

        broker.start()  # back: paho reconnects with its backoff; the state is the newest
        assert publisher.wait(lambda p: p.connections == 2, WAIT)
        watcher = Watcher(broker.port, "test/restart/state")
        seen = watcher.wait_for(lambda seen: bool(seen))
        state = json.loads(seen[-1][1])
        assert state["game"] == "dead-set" and state["dice"] == [2, 3] and state["actions"] == 1
        assert "connected" in publisher.status()
        watcher.stop()
    finally:
        beside.close()
        broker.stop()


def test_a_power_cut_of_the_box_and_its_events_after_it(broker: Broker, tmp_path: Path) -> None:
    beside = Beside(tmp_path, settings(broker.port, "test/cut"), decks=SCENARIOS / "dead-set" / "decks")
    watcher = Watcher(broker.port, "test/cut/event/#")
    try:
        beside.world.box.lobby.start_game("dead-set", beside.world.now, names=["Ann", "Bob"])
        beside.settle()
        beside.world.restart()  # a new run of the box: its events are numbered from 1 again
        beside.world.box.publish(DiceRolled((1, 1), game=None))
        beside.settle()
        seen = watcher.wait_for(lambda seen: any(topic.endswith("dice-rolled") for topic, _, _ in seen))
        assert [topic.rsplit("/", 1)[1] for topic, _, _ in seen].count("game-started") == 1
        assert beside.publisher.missed == 0
    finally:
        watcher.stop()
        beside.close()


def test_a_user_and_password_and_never_the_password_in_the_log(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    if not MOSQUITTO.exists() or not PASSWD.exists():
        pytest.skip("mosquitto is not installed (scripts/test-packages.sh installs it)")
    broker = Broker(tmp_path, users={"box": "c0ffin-lid", "house": "h0use"})
    broker.start()
    secret = tmp_path / "mqtt-password"
    secret.write_text("c0ffin-lid\n")
    secret.chmod(0o640)
    config = tmp_path / "config.toml"
    config.write_text(f'[mqtt]\nhost = "127.0.0.1"\nport = {broker.port}\nusername = "box"\n'
                      f'password_file = "{secret}"\nbase_topic = "test/auth"\n', encoding="utf-8")
    caplog.set_level(logging.DEBUG)
    wrong = MqttPublisher(settings(broker.port, "test/wrong", username="box", password="guess"))
    good = None
    try:
        wrong.start()
        assert wrong.wait(lambda p: "refused" in p.line, WAIT)
        assert "Not authorized" in wrong.status() and not wrong.connected
        loaded = load_config(config, secrets=True).mqtt
        assert loaded is not None and "c0ffin" not in repr(loaded)
        good = MqttPublisher(loaded).start()
        watcher = Watcher(broker.port, "test/auth/#", username="house", password="h0use")
        assert good.wait(lambda p: p.connected, WAIT)
        good(GameStarted("dead-set", "Dead Set", {}, ("Ann", "Bob"), 1))
        watcher.wait_for(lambda seen: any(topic == "test/auth/event/game-started" for topic, _, _ in seen))
        watcher.stop()
    finally:
        wrong.close(timeout=0)
        if good is not None:
            good.close()
        broker.stop()
    assert caplog.records and not any("c0ffin" in record.getMessage() or "guess" in record.getMessage()
                                      for record in caplog.records)


def test_events_wait_for_an_absent_broker_up_to_a_bound_and_the_drops_are_counted() -> None:
    publisher = MqttPublisher(settings(free_port(), "test/absent"), pending_limit=3).start()  # nobody listens there
    try:
        assert publisher.wait(lambda p: "cannot reach the broker" in p.line, WAIT)
        for number in range(5):
            publisher(StorageFailed(f"fault {number}"))
        assert publisher.dropped == 2 and [json.loads(m.payload)["reason"] for m in publisher.pending] == [
            "fault 2", "fault 3", "fault 4"]
        assert publisher.status().endswith("(2 events lost)")
        assert publisher.reading.document()["storage"] == "fault 4"
    finally:
        publisher.close(timeout=0)


def test_the_retained_state_follows_the_game() -> None:
    publisher = MqttPublisher(settings(1, "test/state"))  # never started: the read model alone
    publisher(GameStarted("dead-set", "Dead Set", {}, ("Ann", "Bob"), 3))
    publisher(GameOver("dead-set", "Dead Set", ("Ann", "Bob"), ("Bob",), {"Bob": {"celebrities": 13}}, 3, 40))
    state = publisher.reading.document()
    assert (state["over"], state["winners"], state["leader"], state["actions"]) == (True, ["Bob"], ["Bob"], 40)



def test_a_game_over_the_game_itself_takes_back_is_withdrawn() -> None:
    """Dead Fellas: a Fuhgeddaboutit on the winning whack; the game goes on (no undo): the house
    hears the game over withdrawn, once, after the move that took it back."""
    publisher = MqttPublisher(settings(1, "test/back"))  # never started: what it queues
    publisher(GameStarted("dead-fellas", "Dead Fellas", {}, ("Ann", "Bob"), 3))
    publisher(GameOver("dead-fellas", "Dead Fellas", ("Ann", "Bob"), ("Ann",), {"Ann": {"score": 10}}, 3, 40))
    publisher.settle({"game": "dead-fellas", "players": ["Ann", "Bob"], "over": True, "winners": ["Ann"]})
    publisher(ActionAccepted("dead-fellas", "Fuhgeddaboutit x1: cancelled", "Bob"))
    for _ in range(2):
        publisher.settle({"game": "dead-fellas", "players": ["Ann", "Bob"], "current_player": "Ann", "over": False})
    told = [(message.topic.rsplit("/", 1)[1], json.loads(message.payload)) for message in publisher.pending]
    assert [(name, data["event_type"]) for name, data in told] == [
        ("game-started", "game-started"), ("game-over", "game-over"), ("action-accepted", "action-accepted"),
        ("game-over", "withdrawn")]
    assert told[-1][1]["withdrawn"] == told[1][1]
    assert publisher.reading.document()["over"] is False
    # a dump that says the game goes on before its undo's event came: the undo withdraws the rest, once
    publisher.pending.clear()
    publisher(GameOver("dead-fellas", "Dead Fellas", ("Ann", "Bob"), ("Ann",), {"Ann": {"score": 10}}, 3, 42))
    publisher.settle({"game": "dead-fellas", "players": ["Ann", "Bob"], "current_player": "Ann", "over": False})
    publisher(Undone("dead-fellas", "Ann wins!"))
    told = [(message.topic.rsplit("/", 1)[1], json.loads(message.payload)["event_type"]) for message in publisher.pending]
    assert told == [("game-over", "game-over"), ("game-over", "withdrawn"), ("action-accepted", "withdrawn"),
                    ("undone", "undone")]

STARTS = """
import sys, tempfile, time
from pathlib import Path
from box.core.app import assemble
from box.storage.config import MqttConfig
from box.storage.pinmap import load_pinmap
from box.base.settings import Settings
app = assemble(load_pinmap(), time.monotonic, Settings(), Path(tempfile.mkdtemp()), simulated=True,
               mqtt=MqttConfig("127.0.0.1", 1883))
app.loop.process(time.monotonic())
print(app.loop.mqtt_status())
print(" ".join(sorted(sys.modules)))
app.close()
"""


def test_with_mqtt_on_the_box_loads_nothing_of_it() -> None:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent)}
    run = subprocess.run([sys.executable, "-c", STARTS], env=env, capture_output=True, text=True, check=True,
                         timeout=60)
    status, modules = run.stdout.split("\n", 1)
    assert "has not reported" in status  # the Box page's line until the MQTT process speaks
    assert "box.core.app" in modules.split() and not [m for m in modules.split() if m.startswith(("box.links.mqtt", "paho", "ssl"))]


def test_gravebox_run_with_mqtt_starts_the_mqtt_process_beside_the_box(broker: Broker, tmp_path: Path) -> None:
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    config = tmp_path / "config.toml"
    config.write_text('[mqtt]\nhost = "nowhere.invalid"\nbase_topic = "test/run"\n', encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent), "GRAVEBOX_RUNTIME": str(runtime)}
    watcher = Watcher(broker.port, "test/run/#")
    box = subprocess.Popen([sys.executable, "-m", "box", "run", "--fake", "--state-dir", str(tmp_path / "state"),
                            "--config", str(config), "--mqtt", f"127.0.0.1:{broker.port}"], env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        watcher.wait_for(lambda seen: ("test/run/availability", "online", False) in seen)
        watcher.wait_for(lambda seen: any(topic == "test/run/state" for topic, _, _ in seen))
        box.terminate()  # the box stops its MQTT process, which says goodbye
        assert box.wait(WAIT) == 0
        watcher.wait_for(lambda seen: seen[-1][:2] == ("test/run/availability", "offline"))
    finally:
        box.kill()
        box.wait(WAIT)
        watcher.stop()


def test_sensors_render_none_with_nothing_to_say_which_home_assistant_shows_as_unknown() -> None:
    """Rendered with Jinja as Home Assistant does: "None" is its word for unknown; a number where there is one."""
    jinja2 = pytest.importorskip("jinja2")
    from box.links.mqtt import Reading

    configs = discovery(settings(1883, "test/none"), "1")
    sensors = {topic.split("/")[3]: config for topic, config in configs.items() if "/sensor/" in topic}
    idle = Reading().document()
    rendered = {key: jinja2.Template(config["value_template"]).render(value_json=idle) for key, config in sensors.items()}
    assert set(rendered.values()) == {"None"}, rendered
    rolled = {**idle, "dice": [3, 4]}
    assert jinja2.Template(sensors["last_roll"]["value_template"]).render(value_json=rolled) == "7"
    assert sensors["last_roll"]["state_class"] == "measurement"


def test_the_docs_announcement_renders_for_a_game_over_with_and_without_winners() -> None:
    """docs/mqtt.md's example, rendered as Home Assistant renders it (YAML's folded `>-`, then Jinja)."""
    jinja2 = pytest.importorskip("jinja2")
    docs = (Path(__file__).parent.parent / "docs" / "mqtt.md").read_text(encoding="utf-8")
    block = docs.split("**An announcement at game over:**", 1)[1].split("```yaml", 1)[1].split("```", 1)[0]
    template = " ".join(line.strip() for line in block.split("message: >-", 1)[1].splitlines() if line.strip())
    condition = json.loads(block.split("value_template:", 1)[1].splitlines()[0].strip())
    for winners, said in ((["Bob"], "Deck of Death is over. Bob won."), ([], "Deck of Death is over. Nobody won.")):
        payload = {"event_type": "game-over", "title": "Deck of Death", "winners": winners}
        trigger = {"payload_json": payload}
        assert jinja2.Template(condition).render(trigger=trigger) == "True"
        assert " ".join(jinja2.Template(template).render(trigger=trigger).split()) == said
    withdrawn = {"payload_json": {"event_type": "withdrawn", "withdrawn": {"event_type": "game-over"}}}
    assert jinja2.Template(condition).render(trigger=withdrawn) == "False"
