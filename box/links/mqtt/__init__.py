"""The box's events on MQTT, for the home (docs/mqtt.md): `gravebox mqtt`, a process of its own.

The box publishes its state dump on its control socket (box/links/control.py) after every change, with
its newest events, each numbered (box/parts/phonelink.py, `PhoneLink`). This process subscribes to that
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

What lives where:

    topics.py      the topics' payloads: the retained state (`Reading`), an event's payload, the
                   device's id, the codec of the events read from the box (`event_from_entry`)
    discovery.py   Home Assistant's discovery documents
    publisher.py   the connection to the broker (`MqttPublisher`, paho on its own thread)
    bridge.py      the box's side: its state dumps followed, each event once (`Window`, `Bridge`),
                   and `main`, the `gravebox mqtt` process
    child.py       `gravebox mqtt` beside a box of another process (`MqttChild`, `PacedControl`)
"""

from box.links.mqtt.bridge import STATUS_LINE, Bridge, Window, main
from box.links.mqtt.child import MqttChild, PacedControl
from box.links.mqtt.discovery import discovery
from box.links.mqtt.publisher import MqttPublisher
from box.links.mqtt.topics import OFFLINE, ONLINE, TRIGGERS, Reading, event_from_entry, event_payload, node_id

__all__ = [
    "OFFLINE",
    "ONLINE",
    "STATUS_LINE",
    "TRIGGERS",
    "Bridge",
    "MqttChild",
    "MqttPublisher",
    "PacedControl",
    "Reading",
    "Window",
    "discovery",
    "event_from_entry",
    "event_payload",
    "main",
    "node_id",
]
