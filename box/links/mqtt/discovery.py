"""Home Assistant's discovery documents: one device, its sensors, event entities and device triggers
(docs/mqtt.md lists them), retained under the discovery prefix and sent again at every connection."""

from __future__ import annotations

import socket
from typing import Any

from box.links.mqtt.topics import OFFLINE, ONLINE, TRIGGERS, node_id
from box.storage.config import MqttConfig


def discovery(settings: MqttConfig, version: str, box: str | None = None) -> dict[str, dict[str, Any]]:
    """Home Assistant's discovery configs: topic -> payload (docs/mqtt.md lists them). The device is
    named after the box (`box`: its host name by default), so two boxes are two devices.

    A sensor with nothing to say renders `None`, which Home Assistant shows as *unknown*; each event
    entity and device trigger also hears "withdrawn" on its topic when an undo takes its event back.
    """
    base, node, prefix = settings.base_topic, node_id(settings.base_topic), settings.discovery_prefix
    name = f"Gravebox {box or socket.gethostname()}"
    device = {"identifiers": [node], "name": name, "model": "Gravebox game box", "manufacturer": "Gravebox",
              "sw_version": version}
    origin = {"name": "Gravebox", "sw_version": version}
    available = {"availability_topic": f"{base}/availability", "payload_available": ONLINE,
                 "payload_not_available": OFFLINE}
    state = f"{base}/state"
    sensors = {
        "game": ("Game", "{{ value_json.title or None }}", "mdi:cards-playing"),
        "current_player": ("Current player", "{{ value_json.current_player or None }}", "mdi:account-arrow-right"),
        "leader": ("Leader", "{{ value_json.leader | join(', ') if value_json.leader else None }}", "mdi:crown"),
        "last_roll": ("Last roll", "{{ value_json.dice | sum if value_json.dice else None }}", "mdi:dice-multiple"),
        "players": ("Players", "{{ value_json.players | join(', ') if value_json.players else None }}",
                    "mdi:account-group"),
    }
    configs: dict[str, dict[str, Any]] = {}
    for key, (name, template, icon) in sensors.items():
        config = {"name": name, "unique_id": f"{node}_{key}", "state_topic": state, "value_template": template,
                  "icon": icon, **available, "device": device, "origin": origin}
        if key == "last_roll":  # a number: Home Assistant keeps its history
            config["state_class"] = "measurement"
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
            "event_types": [name, "withdrawn"], **available, "device": device, "origin": origin,
        }
        for kind, said in ((slug, name), (f"{slug}_withdrawn", "withdrawn")):
            configs[f"{prefix}/device_automation/{node}/{kind}/config"] = {
                "automation_type": "trigger", "topic": f"{base}/event/{name}", "type": kind, "subtype": "gravebox",
                "value_template": "{{ value_json.event_type }}", "payload": said, "device": device, "origin": origin,
            }
    return configs

