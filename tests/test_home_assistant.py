"""The box as a real Home Assistant sees it: HA core (scripts/home-assistant.sh installs it, cached
outside the repository) started once for this file, its MQTT integration set up through its REST
config flow on a real mosquitto, while the box plays scripted games through `gravebox sim --script
--mqtt` (each of the four games), and a box of its own process with `gravebox mqtt` beside it is
killed and started again. Read back through HA's REST and websocket APIs: the device, each
entity's state during and after each game, the device triggers, each event fired exactly once,
availability across a killed publisher, a restarted broker and a power cut, docs/mqtt.md's
automations as written, and no warning in HA's log about the box.

HA runs in its own venv (Python 3.13), whatever the suite's Python: the file runs on the suite's
first pass only (./run-tests sets GRAVEBOX_SECOND_PASS for the others)."""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from box.links.mqtt import TRIGGERS
from tests.home_assistant import WAIT, HaSocket, HomeAssistant, changes, installed
from tests.test_mqtt import MOSQUITTO, SCENARIOS, Broker, Watcher

pytestmark = [
    pytest.mark.skipif(not installed(), reason="no Home Assistant: scripts/home-assistant.sh installs it"),
    pytest.mark.skipif(bool(os.environ.get("GRAVEBOX_SECOND_PASS")),
                       reason="Home Assistant runs once, on the suite's first pass (it has its own Python)"),
]

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs" / "mqtt.md"
DOCS_BOX = "living-room"  # the box docs/mqtt.md's examples are written for


def named_box() -> tuple[str, list[str]]:
    """The box's host name and how to run a command under it: `living-room` in a UTS namespace of
    its own where this machine allows one (root), else this machine's name."""
    prefix = ["unshare", "--uts", "sh", "-c", f'hostname {DOCS_BOX} && exec "$@"', "-"]
    try:
        named = subprocess.run([*prefix, "true"], capture_output=True, timeout=WAIT).returncode == 0
    except OSError:
        named = False
    host = re.sub(r"[^A-Za-z0-9_-]", "-", socket.gethostname().split(".")[0]) or "box"
    return (DOCS_BOX, prefix) if named else (host, [])


BOX, UNDER_BOX = named_box()
SLUG = re.sub(r"[^a-z0-9]+", "_", BOX.lower()).strip("_")
BASE = f"gravebox/{BOX}"
SENSORS = {key: f"sensor.gravebox_{SLUG}_{key}" for key in ("game", "current_player", "leader", "last_roll", "players")}
EVENT_ENTITIES = {name: f"event.gravebox_{SLUG}_{re.sub(r'[^a-z]+', '_', label.lower())}"
                  for name, label in TRIGGERS.items()}


def doc_automations() -> dict[str, str]:
    """docs/mqtt.md's automations, each a package of HA's configuration as written (for another box
    than living-room, its name put in)."""
    blocks = re.findall(r"```yaml\n(automation:\n.*?)```", DOCS.read_text(), re.S)
    assert len(blocks) == 3, "docs/mqtt.md's three automation examples"
    return {f"doc_{number}": block.replace(DOCS_BOX, BOX).replace("living_room", SLUG)
            for number, block in enumerate(blocks, 1)}


def counting_automations(device_id: str, triggers: list[dict[str, Any]]) -> str:
    """What the test counts with: each device trigger, and an mqtt trigger on every event topic,
    fire the event `gravebox_test` (mode parallel: none is dropped while another runs)."""
    automations = [{
        "id": f"count_{trigger['type']}", "alias": f"count {trigger['type']}", "mode": "parallel", "max": 1000,
        "trigger": [{key: value for key, value in trigger.items() if key != "metadata"}],
        "action": [{"event": "gravebox_test", "event_data": {"via": "device", "type": trigger["type"]}}],
    } for trigger in triggers if trigger["device_id"] == device_id and trigger["domain"] == "mqtt"]
    automations.append({
        "id": "count_mqtt", "alias": "count mqtt", "mode": "parallel", "max": 1000,
        "trigger": [{"platform": "mqtt", "topic": f"{BASE}/event/#"}],
        "action": [{"event": "gravebox_test", "event_data": {
            "via": "mqtt", "topic": "{{ trigger.topic }}", "event_type": "{{ trigger.payload_json.event_type }}",
            "number": "{{ trigger.payload_json.run ~ '/' ~ trigger.payload_json.seq "
                      "if trigger.payload_json.seq is defined else '' }}"}}],
    })
    return json.dumps(automations)


@dataclass
class House:
    """Home Assistant, its websocket (every event subscribed to kept), the broker, the device."""

    ha: HomeAssistant
    socket: HaSocket
    broker: Broker
    folder: Path
    device: dict[str, Any] = field(default_factory=dict)
    triggers: list[dict[str, Any]] = field(default_factory=list)

    def box(self, *command: str) -> list[str]:
        return [*UNDER_BOX, sys.executable, "-m", "box", *command]

    def publisher(self, control: Path) -> subprocess.Popen[str]:
        """`gravebox mqtt` following the box's control socket, as its service does on a box (its log
        in publisher.log)."""
        with (self.folder / "publisher.log").open("a") as log:
            return subprocess.Popen(self.box("mqtt", "--socket", str(control), "--config",
                                             str(self.folder / "none.toml"), "--mqtt", f"127.0.0.1:{self.broker.port}"),
                                    cwd=ROOT, stdout=subprocess.DEVNULL, stderr=log, text=True)

    def state(self, key: str) -> str:
        return str(self.ha.state(SENSORS[key])["state"])

    def wait_state(self, entity_id: str, wanted: str, since: int = 0) -> None:
        self.socket.wait_for(lambda events: any(new == wanted for _, new, _ in changes(events[since:], entity_id)),
                             f"{entity_id} {wanted!r}")

    def fired(self, since: int = 0) -> list[dict[str, Any]]:
        return [event["data"] for event in self.socket.since(since) if event["event_type"] == "gravebox_test"]


@pytest.fixture(scope="module")
def house(tmp_path_factory: pytest.TempPathFactory) -> Iterator[House]:
    if not MOSQUITTO.exists():
        pytest.skip("mosquitto is not installed (scripts/test-packages.sh installs it)")
    broker = Broker(tmp_path_factory.mktemp("broker"))
    broker.start()
    folder = tmp_path_factory.mktemp("home-assistant")
    (folder / "config").mkdir()
    ha = HomeAssistant(folder / "config")
    house = None
    try:
        ha.start()
        ha.onboard()
        socket_ = ha.socket()
        for kind in ("state_changed", "gravebox_test", "automation_triggered", "call_service"):
            socket_.subscribe(kind)
        house = House(ha, socket_, broker, folder)
        ha.connect_mqtt(broker.port)
        # The box announces itself at its publisher's first connection, the box not running yet.
        publisher = house.publisher(folder / "no-box.sock")
        house.wait_state(SENSORS["game"], "unavailable")
        publisher.terminate()
        assert publisher.wait(WAIT) == 0
        devices = socket_.call("config/device_registry/list")
        house.device = next(device for device in devices if device["name"] == f"Gravebox {BOX}")
        house.triggers = socket_.call("device_automation/trigger/list", device_id=house.device["id"])
        (ha.folder / "automations.yaml").write_text(counting_automations(house.device["id"], house.triggers))
        ha.add_packages(doc_automations())  # the owner's, with MQTT set up
        ha.rest("POST", "/api/services/automation/reload", {})
        socket_.wait_for(lambda events: any(new == "on" for _, new, _ in changes(events, "automation.count_mqtt")),
                         "the test's automations loaded")
        yield house
    finally:
        if house is not None:
            house.socket.close()
        ha.stop()
        broker.stop()


def test_the_device_its_entities_and_its_triggers(house: House) -> None:
    device = house.device
    assert device["name"] == f"Gravebox {BOX}" and device["model"] == "Gravebox game box"
    assert device["manufacturer"] == "Gravebox" and device["sw_version"]
    entities = {entity["entity_id"]: entity for entity in house.socket.call("config/entity_registry/list")
                if entity["device_id"] == device["id"]}
    # the entity ids docs/mqtt.md names, as Home Assistant makes them
    assert set(entities) == {*SENSORS.values(), *EVENT_ENTITIES.values()}
    last_roll = house.ha.state(SENSORS["last_roll"])
    assert last_roll["attributes"]["state_class"] == "measurement"
    for entity_id in EVENT_ENTITIES.values():
        name = next(name for name, known in EVENT_ENTITIES.items() if known == entity_id)
        assert house.ha.state(entity_id)["attributes"]["event_types"] == [name, "withdrawn"]
    kinds = {(trigger["type"], trigger["subtype"]) for trigger in house.triggers if trigger["domain"] == "mqtt"}
    slugs = [name.replace("-", "_") for name in TRIGGERS]
    assert kinds == {(kind, "gravebox") for slug in slugs for kind in (slug, f"{slug}_withdrawn")}
    others = [trigger for trigger in house.triggers if trigger["domain"] != "mqtt"]
    assert [(t["domain"], t["type"], t["entity_id"]) for t in others] == [  # the last roll, a number
        ("sensor", "value", entities[SENSORS["last_roll"]]["id"])]


@dataclass(frozen=True)
class Game:
    """A scenario played through `gravebox sim --script --mqtt`, and what Home Assistant shows of it."""

    script: str
    title: str
    players: str
    winners: str | None  # the leader at the end: the winners; None: the game goes on, or nobody won
    over: bool
    triggers: dict[str, int]  # how often each device trigger fires
    said: tuple[str, ...] = ()  # what docs/mqtt.md's announcement says


GAMES = [
    Game("deck-of-death/laps-and-start", "Deck of Death", "Ann, Bob", None, False, {"lap_completed": 2}),
    Game("deadlines/classic", "Deadlines", "Ann, Bob", "Bob", True, {"column_completed": 3, "game_over": 1},
         ("Deadlines is over. Bob won.",)),
    # the game over undone and played again: game over, withdrawn, game over
    Game("dead-set/win-mid-scoring", "Dead Set", "Ann, Bob", "Bob", True, {"game_over": 2, "game_over_withdrawn": 1},
         ("Dead Set is over. Bob won.",) * 2),
    # Ann's winning whack, then Bob's Fuhgeddaboutit on it: the game goes on, its game over withdrawn
    Game("dead-fellas/win", "Dead Fellas", "Ann, Bob, Carl", None, False, {"game_over": 1, "game_over_withdrawn": 1},
         ("Dead Fellas is over. Ann won.",)),
    Game("deadlines/til-death-lose", "Deadlines", "Ann, Bob", None, True, {"game_over": 1},  # the table lost
         ("Deadlines is over. Nobody won.",)),
    Game("box/tools", "Dead Set", "P1, P2, P3", None, False, {"timer_done": 1}),  # the shot timer, a power cut
]


def runs(values: list[str | None]) -> list[str | None]:
    """`values` without repeats in a row."""
    return [value for number, value in enumerate(values) if number == 0 or values[number - 1] != value]


@pytest.mark.parametrize("game", GAMES, ids=[game.script for game in GAMES])
def test_each_game_as_home_assistant_shows_it(house: House, game: Game, tmp_path: Path) -> None:
    watcher = Watcher(house.broker.port, f"{BASE}/event/#")
    since = house.socket.mark()
    try:
        played = subprocess.run(house.box("sim", "--script", str(SCENARIOS / f"{game.script}.script"), "--seed", "1",
                                          "--config", str(tmp_path / "none.toml"),
                                          "--mqtt", f"127.0.0.1:{house.broker.port}"),
                                cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert played.returncode == 0, played.stderr
        # the sim's publisher said goodbye: every entity unavailable, all it published before taken
        for entity_id in [*SENSORS.values(), *EVENT_ENTITIES.values()]:
            house.wait_state(entity_id, "unavailable", since)
        published = watcher.wait_for(lambda seen: True)
    finally:
        watcher.stop()
    told = [json.loads(payload) for _, payload, _ in published]
    expected = Counter(f"{topic.rsplit('/', 1)[1].replace('-', '_')}{'_withdrawn' * (data['event_type'] == 'withdrawn')}"
                       for (topic, _, _), data in zip(published, told, strict=True)
                       if topic.rsplit("/", 1)[1] in TRIGGERS)
    assert {kind: count for kind, count in expected.items()} == game.triggers
    numbers = [f"{data['run']}/{data['seq']}" for data in told if "seq" in data]
    assert len(numbers) == len(set(numbers))  # the box told each event once

    def fired() -> list[dict[str, Any]]:
        return house.fired(since)

    # each event once through each way an automation hears it: an mqtt trigger, a device trigger
    house.socket.wait_for(lambda events: len([f for f in fired() if f["via"] == "mqtt"]) >= len(published)
                          and Counter(f["type"] for f in fired() if f["via"] == "device") == expected,
                          f"{len(published)} mqtt triggers and device triggers {dict(expected)}")
    heard = [f for f in fired() if f["via"] == "mqtt"]
    assert [f["topic"] for f in heard] == [topic for topic, _, _ in published]
    assert sorted(f["number"] for f in heard if f["number"]) == sorted(numbers)
    assert Counter(f["type"] for f in fired() if f["via"] == "device") == expected
    # and each event entity's state changes once an event (coming back from unavailable is no event)
    events = house.socket.since(since)
    for name, entity_id in EVENT_ENTITIES.items():
        fresh = [attributes["event_type"] for old, new, attributes in changes(events, entity_id)
                 if "unavailable" not in (old, new)]
        slug = name.replace("-", "_")
        assert fresh == [data["event_type"] for (topic, _, _), data in zip(published, told, strict=True)
                         if topic.endswith(f"/event/{name}")], name
        assert len(fresh) == expected[slug] + expected[f"{slug}_withdrawn"]

    # the sensors: from unavailable to the fresh box's state (never the last game's), the game, unavailable
    def shown(key: str) -> list[str | None]:
        return runs([new for _, new, _ in changes(events, SENSORS[key])])

    for key in SENSORS:
        assert "none" not in {str(value).lower() for value in shown(key)}, key  # nothing to say: unknown
    assert shown("game")[-2:] == [game.title, "unavailable"]
    assert shown("game")[0] in ("unknown", game.title) and GAMES[GAMES.index(game) - 1].title not in shown("game")[:1]
    assert shown("players")[-2:] == [game.players, "unavailable"]
    players = game.players.split(", ")
    during = {value for value in shown("current_player") if value not in ("unknown", "unavailable")}
    assert during and during <= set(players)
    after = shown("current_player")[-2]
    assert after == ("unknown" if game.over else after) and (game.over or after in players)
    leaders = [value for value in shown("leader") if value not in ("unknown", "unavailable")]
    assert all(set(value.split(", ")) <= set(players) for value in leaders)  # who leads, by name
    if game.over:
        assert shown("leader")[-2] == (game.winners or "unknown")  # the winners; nobody: unknown
    rolls = [(new, attributes.get("faces")) for _, new, attributes in changes(events, SENSORS["last_roll"])
             if new not in ("unknown", "unavailable")]
    assert all(int(total) == sum(faces) for total, faces in rolls)
    figures = [attributes for _, new, attributes in changes(events, SENSORS["players"]) if new == game.players]
    assert figures and set(players) <= set(figures[-1])  # each player's figures, as attributes

    # docs/mqtt.md's automations, as written: the lights flash once a lap by either of its two
    # automations; the announcement says each game over, with its winners or "Nobody won."
    ran = Counter(event["data"]["name"] for event in events if event["event_type"] == "automation_triggered")
    laps = game.triggers.get("lap_completed", 0)
    assert ran["Gravebox: flash the lights on a lap"] == ran["Gravebox: flash the lights on a lap (event entity)"] == laps
    calls = [event["data"] for event in events if event["event_type"] == "call_service"]
    flashes = [call["service_data"] for call in calls if (call["domain"], call["service"]) == ("light", "turn_on")]
    assert flashes == [{"entity_id": [f"light.{SLUG}"], "color_name": "red", "flash": "short"}] * 2 * laps
    spoken = [call["service_data"] for call in calls if (call["domain"], call["service"]) == ("tts", "speak")]
    assert [said["message"] for said in spoken] == list(game.said)
    assert all(said["entity_id"] == ["tts.piper"] and said["media_player_entity_id"] == f"media_player.{SLUG}"
               for said in spoken)


class DrivenBox:
    """tests/driven_box.py: a simulated box in a process of its own, played a line at a time."""

    def __init__(self, folder: Path, decks: Path):
        self.state, self.control, self.decks = folder / "state", folder / "run" / "control.sock", decks
        self.process: subprocess.Popen[str] | None = None
        self.answers: queue.Queue[str] = queue.Queue()

    def start(self) -> DrivenBox:
        self.process = subprocess.Popen(
            [sys.executable, str(ROOT / "tests" / "driven_box.py"), str(self.state), str(self.control), str(self.decks)],
            cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        threading.Thread(target=lambda out: [self.answers.put(line.strip()) for line in out],
                         args=(self.process.stdout,), daemon=True).start()
        assert self.answers.get(timeout=WAIT) == "ready"
        return self

    def play(self, *lines: str) -> None:
        assert self.process is not None and self.process.stdin is not None
        for line in lines:
            self.process.stdin.write(line + "\n")
            self.process.stdin.flush()
            assert self.answers.get(timeout=WAIT) == "ok", line

    def cut(self) -> None:
        """The power goes: SIGKILL, no goodbye."""
        if self.process is not None:
            self.process.kill()
            self.process.wait(WAIT)
            self.process = None


def killed(process: subprocess.Popen[str]) -> None:
    process.send_signal(signal.SIGKILL)
    process.wait(WAIT)


def test_a_killed_publisher_a_restarted_broker_and_a_power_cut(house: House, tmp_path: Path) -> None:
    """A game of Deck of Death on a box of its own process with `gravebox mqtt` beside it, as on a
    box: the publisher killed and started again (systemd would), the broker restarted (it keeps
    nothing), the box's power cut (both killed) and both started again on the same state folder.
    Home Assistant shows the game in play after each, and each lap fires once."""
    box = DrivenBox(tmp_path, SCENARIOS / "deck-of-death" / "decks").start()
    since = house.socket.mark()
    publisher = house.publisher(box.control)
    try:
        house.wait_state(SENSORS["game"], "unknown", since)  # online, and no game yet
        box.play("start deck-of-death names=Ann,Bob", "press ok", "dice 6 6", "press roll")  # Ann's lap
        house.wait_state(SENSORS["current_player"], "Bob", since)

        def laps() -> int:
            return sum(1 for fired in house.fired(since) if fired.get("type") == "lap_completed")

        house.socket.wait_for(lambda _: laps() == 1, "Ann's lap")

        mark = house.socket.mark()  # the publisher killed: its last will; started again: the game as it stands
        killed(publisher)
        house.wait_state(SENSORS["game"], "unavailable", mark)
        publisher = house.publisher(box.control)
        house.wait_state(SENSORS["game"], "Deck of Death", mark)
        assert (house.state("players"), house.state("current_player"), house.state("last_roll")) == ("Ann, Bob", "Bob", "12")
        box.play("press ok", "dice 5 6", "press roll", "tap middle Truth")
        house.wait_state(SENSORS["last_roll"], "11", mark)

        mark = house.socket.mark()  # the broker restarted, its retained messages gone
        house.broker.stop()
        house.wait_state(SENSORS["game"], "unavailable", mark)
        house.broker.start()
        house.socket.wait_for(lambda events: any(new == "Deck of Death" for _, new, _ in changes(
            events[mark:], SENSORS["game"])), "the game again after the broker's restart", timeout=60)
        box.play("dice 4 5", "press roll", "press ok")
        house.wait_state(SENSORS["last_roll"], "9", mark)

        mark = house.socket.mark()  # the power cut: the box and its publisher gone at once
        box.cut()
        killed(publisher)
        house.wait_state(SENSORS["game"], "unavailable", mark)
        box.start()
        publisher = house.publisher(box.control)
        house.wait_state(SENSORS["game"], "Deck of Death", mark)
        assert (house.state("players"), house.state("current_player")) == ("Ann, Bob", "Bob")
        box.play("dice 1 2", "press roll")  # Bob passes Start: his lap
        house.socket.wait_for(lambda _: laps() == 2, "Bob's lap")
    finally:
        box.cut()
        publisher.terminate()
        publisher.wait(WAIT)
    # each event once: told once on the broker, heard once by an mqtt trigger, once by a device trigger
    fired = house.fired(since)
    numbers = [f["number"] for f in fired if f["via"] == "mqtt" and f["number"]]
    assert len(numbers) == len(set(numbers)) and len({number.split("/")[0] for number in numbers}) == 2  # two runs
    assert [f["type"] for f in fired if f["via"] == "device"] == ["lap_completed"] * 2
    events = house.socket.since(since)
    lap_events = [attributes["event_type"] for old, new, attributes in changes(events, EVENT_ENTITIES["lap-completed"])
                  if "unavailable" not in (old, new)]
    assert lap_events == ["lap-completed"] * 2
    ran = Counter(event["data"]["name"] for event in events if event["event_type"] == "automation_triggered")
    assert ran["Gravebox: flash the lights on a lap"] == ran["Gravebox: flash the lights on a lap (event entity)"] == 2


# What Home Assistant may warn of here that is not about the box: this machine (no pip while it
# runs, no fast zlib, no libturbojpeg), the test's stand-in integration, and the broker's restart.
NOT_THE_BOX = re.compile("|".join((
    r"Skipping pip installation of required modules",
    r"zlib_ng and isal are not available",
    r"Error loading libturbojpeg",
    r"We found a custom integration house which has not been tested",
    r"\[homeassistant\.components\.mqtt\.client\] (Disconnected from MQTT server|Error returned from MQTT server"
    r"|Failed to connect to MQTT server)",
    r"in _async_resubscribe_and_publish_birth_message",  # HA's own birth message, as the broker comes back
)))


def test_home_assistant_warns_of_nothing_about_the_box(house: House) -> None:
    """Run last: the log of everything above (the games, the restarts) has no warning or error but
    those about this machine; none about the box's discovery, payloads or templates."""
    assert house.ha.log.exists()
    unexpected = [line for line in house.ha.warnings() if not NOT_THE_BOX.search(line)]
    assert not unexpected, "\n".join(unexpected)
    assert f"Registered new sensor.mqtt entity: {SENSORS['game']}" in house.ha.log.read_text()  # the log of the box
