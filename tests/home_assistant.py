"""A real Home Assistant for tests/test_home_assistant.py: HA core from the venv scripts/home-assistant.sh
makes (~/.cache/gravebox/homeassistant, or $GRAVEBOX_HOME_ASSISTANT), started headless on a loopback
port with a minimal configuration, its owner made through the REST onboarding API, its MQTT
integration set up through the REST config flow, and read back through its REST and websocket APIs.

The owner's light and speaker are a custom integration of the test's own (`house`): it registers
`light.turn_on` and `tts.speak`, whose calls Home Assistant fires as `call_service` events, so an
automation of docs/mqtt.md runs as written and what it would do is seen."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import threading
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from websockets.sync.client import ClientConnection, connect

HOME = Path(os.environ.get("GRAVEBOX_HOME_ASSISTANT") or Path.home() / ".cache/gravebox/homeassistant")
HASS = HOME / "bin" / "hass"
START_WAIT = 120.0  # seconds Home Assistant may take to start (about 4 here)
WAIT = 20.0  # seconds anything else may take, at most

CONFIGURATION = """\
homeassistant:
  name: Test home
  latitude: 0
  longitude: 0
  elevation: 0
  unit_system: metric
  time_zone: UTC
  country: GB
  packages: !include_dir_named packages
http:
  server_host: 127.0.0.1
  server_port: {port}
api:
config:
websocket_api:
device_automation:
onboarding:
automation: !include automations.yaml
logger:
  default: info
house:
"""

HOUSE = '''\
"""The test's stand-in for an owner's light and speaker: light.turn_on and tts.speak do nothing
but are called (Home Assistant fires call_service for each call)."""


async def async_setup(hass, config):
    async def nothing(call):
        return None

    hass.services.async_register("light", "turn_on", nothing)
    hass.services.async_register("tts", "speak", nothing)
    return True
'''


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class HomeAssistant:
    """`hass -c FOLDER` on a loopback port: start, onboard, connect its MQTT integration to a broker."""

    def __init__(self, folder: Path):
        self.folder, self.port = folder, free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        (folder / "configuration.yaml").write_text(CONFIGURATION.format(port=self.port))
        (folder / "automations.yaml").write_text("[]\n")
        (folder / "packages").mkdir()  # `add_packages`
        house = folder / "custom_components" / "house"
        house.mkdir(parents=True)
        (house / "__init__.py").write_text(HOUSE)
        (house / "manifest.json").write_text(json.dumps({
            "domain": "house", "name": "House", "version": "1.0", "documentation": "https://example.invalid",
            "codeowners": [], "requirements": [], "dependencies": [], "iot_class": "local_push"}))
        self.process: subprocess.Popen[str] | None = None
        self.output: list[str] = []
        self.token = ""

    @property
    def log(self) -> Path:
        return self.folder / "home-assistant.log"

    def start(self) -> None:
        """Start it (--skip-pip: it installs nothing) and wait for its "initialized" line."""
        self.process = subprocess.Popen([str(HASS), "-c", str(self.folder), "--skip-pip"], stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True)
        ready = threading.Event()

        def read(stream: Any) -> None:
            for line in stream:
                self.output.append(line)
                if "Home Assistant initialized in" in line:
                    ready.set()
            ready.set()

        threading.Thread(target=read, args=(self.process.stdout,), daemon=True).start()
        ready.wait(START_WAIT)
        assert self.process.poll() is None and any("initialized in" in line for line in self.output), (
            "Home Assistant did not start:\n" + "".join(self.output[-30:]))

    def onboard(self) -> None:
        """The owner through the onboarding API, a token for the auth code it returns."""
        client = f"{self.url}/"
        code = self.rest("POST", "/api/onboarding/users", {"client_id": client, "name": "Owner", "username": "owner",
                                                           "password": "a grave secret", "language": "en"})["auth_code"]
        body = f"grant_type=authorization_code&client_id={client}&code={code}".encode()
        request = urllib.request.Request(f"{self.url}/auth/token", data=body, method="POST")
        with urllib.request.urlopen(request, timeout=WAIT) as answer:
            self.token = json.loads(answer.read())["access_token"]

    def connect_mqtt(self, port: int) -> dict[str, Any]:
        """The MQTT integration as a config entry, through the config flow: its broker step."""
        flow = self.rest("POST", "/api/config/config_entries/flow", {"handler": "mqtt"})
        assert flow["step_id"] == "broker", flow
        done = self.rest("POST", f"/api/config/config_entries/flow/{flow['flow_id']}",
                         {"broker": "127.0.0.1", "port": port})
        assert done["type"] == "create_entry", done
        return done

    def add_packages(self, packages: dict[str, str]) -> None:
        """Configuration packages (for `automation.reload`: an automation with an mqtt trigger set up
        before the MQTT integration has no trigger until it is set up again)."""
        for name, text in packages.items():
            (self.folder / "packages" / f"{name}.yaml").write_text(text)

    def rest(self, method: str, path: str, body: Any = None) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(f"{self.url}{path}", data=data, method=method)
        request.add_header("Content-Type", "application/json")
        if self.token:
            request.add_header("Authorization", f"Bearer {self.token}")
        with urllib.request.urlopen(request, timeout=WAIT) as answer:
            return json.loads(answer.read() or b"null")

    def state(self, entity_id: str) -> dict[str, Any]:
        return dict(self.rest("GET", f"/api/states/{entity_id}"))

    def socket(self) -> HaSocket:
        return HaSocket(f"ws://127.0.0.1:{self.port}/api/websocket", self.token)

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(WAIT)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(WAIT)
            self.process = None

    def warnings(self) -> list[str]:
        """The log's warnings and errors, each with the lines that follow it (a traceback)."""
        found: list[str] = []
        for line in self.log.read_text(errors="replace").splitlines():
            if " WARNING " in line or " ERROR " in line or " CRITICAL " in line:
                found.append(line)
            elif found and not line[:4].isdigit():
                found[-1] += "\n" + line
        return found


class HaSocket:
    """Home Assistant's websocket API: `call` a command and get its result; the events of every
    subscription are kept in `events` (in order), and `wait_for` waits for them with a bound."""

    def __init__(self, url: str, token: str):
        self.stack = contextlib.ExitStack()
        self.connection: ClientConnection = self.stack.enter_context(connect(url, max_size=None))
        assert json.loads(self.connection.recv(WAIT))["type"] == "auth_required"
        self.connection.send(json.dumps({"type": "auth", "access_token": token}))
        assert json.loads(self.connection.recv(WAIT))["type"] == "auth_ok"
        self.number = 0
        self.results: dict[int, dict[str, Any]] = {}
        self.events: list[dict[str, Any]] = []
        self.changed = threading.Condition()
        self.reader = threading.Thread(target=self.read, daemon=True)
        self.reader.start()

    def read(self) -> None:
        try:
            for raw in self.connection:
                message = json.loads(raw)
                with self.changed:
                    if message.get("type") == "event":
                        self.events.append(message["event"])
                    else:
                        self.results[message["id"]] = message
                    self.changed.notify_all()
        except Exception:  # the connection closed: the waits below say what did not come
            pass

    def call(self, kind: str, **fields: Any) -> Any:
        with self.changed:
            self.number += 1
            number = self.number
        self.connection.send(json.dumps({"id": number, "type": kind, **fields}))
        with self.changed:
            assert self.changed.wait_for(lambda: number in self.results, WAIT), f"no answer to {kind}"
            answer = self.results.pop(number)
        assert answer.get("success"), f"{kind}: {answer}"
        return answer.get("result")

    def subscribe(self, event_type: str) -> None:
        self.call("subscribe_events", event_type=event_type)

    def wait_for(self, found: Callable[[list[dict[str, Any]]], bool], what: str, timeout: float = WAIT) -> None:
        with self.changed:
            if not self.changed.wait_for(lambda: found(self.events), timeout):
                last = [json.dumps(event.get("data"))[:200] for event in self.events[-8:]]
                raise AssertionError(f"Home Assistant did not show {what} in {timeout:.0f} s; its last events:\n"
                                     + "\n".join(last))

    def since(self, mark: int) -> list[dict[str, Any]]:
        with self.changed:
            return list(self.events[mark:])

    def mark(self) -> int:
        with self.changed:
            return len(self.events)

    def close(self) -> None:
        self.stack.close()
        self.reader.join(WAIT)


def changes(events: list[dict[str, Any]], entity_id: str) -> Iterator[tuple[str | None, str | None, dict[str, Any]]]:
    """The state changes of `entity_id` among `events`: (from, to, the new attributes)."""
    for event in events:
        data = event.get("data") or {}
        if event.get("event_type") == "state_changed" and data.get("entity_id") == entity_id:
            old, new = data.get("old_state") or {}, data.get("new_state") or {}
            yield old.get("state"), new.get("state"), new.get("attributes") or {}


def installed() -> bool:
    return HASS.exists() and shutil.which(str(HASS)) is not None
