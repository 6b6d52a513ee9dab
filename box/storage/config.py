"""The owner's settings file (`/etc/gravebox/config.toml` on a box), validated.

```toml
[box]
names = ["Ann", "Bob", "Cid"]   # player names offered by the menu, in seating order
decks = "/etc/gravebox/decks"   # a folder of <game>.csv files replacing the built-in decks
pinmap = "/etc/gravebox/pinmap.toml"
hardware = "pi"                 # "simulated": the service runs on simulated parts (a demo box, a test rig)

[web]
listen = "0.0.0.0:8080"         # where the phone page (gravebox web) listens
open = true                     # reading pages open on the local network; false: only paired phones
hosts = ["gravebox.home"]       # names the page answers to besides its hostname, hostname.local and addresses

[mqtt]                          # the box's events to an MQTT broker (docs/mqtt.md); off without this table
host = "broker.home"            # the broker (the one setting needed)
port = 1883                     # 8883 by default with a CA file
ca_file = "/etc/gravebox/mqtt-ca.pem"         # TLS, checked against this CA
username = "gravebox"
password_file = "/etc/gravebox/mqtt-password" # readable by the service only (no rights for others)
base_topic = "gravebox/HOSTNAME"              # the default: gravebox/ and this machine's name
discovery = true                # Home Assistant's MQTT discovery
discovery_prefix = "homeassistant"

[hotspot]                       # the box's own Wi-Fi when it knows none (`gravebox hotspot`, docs/install.md)
enabled = false                 # true: on (the box menu's Own Wi-Fi line turns it on and off too)
after = 120                     # seconds without any network (from the start) before it starts
```
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from box.decks.codec import check_decks_folder
from box.errors import ConfigError, DeckError
from box.files.text import parse_toml, read_text
from box.words import DEFAULT_CONTRAST

DEFAULT_CONFIG = Path("/etc/gravebox/config.toml")
KEYS = {"names", "decks", "pinmap", "contrast", "hardware"}
HARDWARE = ("pi", "simulated")
WEB_KEYS = {"listen", "open", "hosts"}
HOTSPOT_KEYS = {"enabled", "after"}
MQTT_KEYS = {"host", "port", "ca_file", "username", "password_file", "base_topic", "discovery", "discovery_prefix"}
MAX_CONFIG_BYTES = 64 * 1024
"""A settings file is a few lines: a file far larger is not one."""
MAX_PASSWORD_BYTES = 1024
TOPIC = re.compile(r"[^#+\x00/\s][^#+\x00\s]{0,199}")  # a topic to publish under: no wildcards, no spaces


@dataclass(frozen=True)
class MqttConfig:
    """Where the box publishes its events (box/links/mqtt/); the password is never shown (repr)."""

    host: str
    port: int = 1883
    ca_file: Path | None = None
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    base_topic: str = "gravebox/box"
    discovery: bool = True
    discovery_prefix: str = "homeassistant"

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"


def mqtt_broker(address: str, configured: MqttConfig | None) -> MqttConfig:
    """`--mqtt HOST:PORT`: the configured settings (if any) with this broker; ValueError, one line.

    >>> mqtt_broker("127.0.0.1:1884", None).address
    '127.0.0.1:1884'
    >>> mqtt_broker("nowhere", None)
    Traceback (most recent call last):
    ValueError: --mqtt: must be HOST:PORT, like 127.0.0.1:1883 (not 'nowhere')
    """
    import dataclasses

    found = re.fullmatch(r"([A-Za-z0-9._-]{1,253}|\[[0-9A-Fa-f:]+\]):(\d{1,5})", address)
    if found is None or not 1 <= int(found.group(2)) <= 65535:
        raise ValueError(f"--mqtt: must be HOST:PORT, like 127.0.0.1:1883 (not {address[:80]!r})")
    host, port = found.group(1).strip("[]"), int(found.group(2))
    if configured is not None:
        return dataclasses.replace(configured, host=host, port=port)
    return MqttConfig(host, port, base_topic=default_base_topic())


def default_base_topic() -> str:
    """`gravebox/<hostname>`, the name made safe for a topic level.

    >>> default_base_topic().startswith("gravebox/")
    True
    """
    import socket

    name = re.sub(r"[^A-Za-z0-9_-]", "-", socket.gethostname().split(".")[0]) or "box"
    return f"gravebox/{name}"


@dataclass(frozen=True)
class Config:
    names: tuple[str, ...] = ()
    decks: Path | None = None
    pinmap: Path | None = None
    web_listen: str | None = None
    web_open: bool = True
    web_hosts: tuple[str, ...] = ()
    contrast: int = DEFAULT_CONTRAST
    mqtt: MqttConfig | None = None  # None: MQTT off
    hardware: str = "pi"  # "simulated": the installed service on fakes, said so, never a silent fallback
    hotspot_enabled: bool = False  # the box's own Wi-Fi is on (the box menu may turn it on or off)
    hotspot_after: int = 120  # seconds without a network before it starts


def load_config(path: Path | None, secrets: bool = False) -> Config:
    """Read the settings; no file is the defaults. Raises ConfigError with file, line, field.

    The MQTT password file is read only with `secrets` (`gravebox mqtt`, the one process that uses
    it): the box and the page neither read it nor fail over it."""
    if path is None or not present(path):
        return Config()
    text = read_text(path, ConfigError, "settings file", limit=MAX_CONFIG_BYTES)
    data = parse_toml(text, path, ConfigError)

    def fail(key: str, message: str, section: str = "box") -> ConfigError:
        written = re.compile(rf"""\s*["']?{re.escape(key)}["']?\s*=""")  # a key may hold any character
        line = next((n for n, t in enumerate(text.splitlines(), 1) if written.match(t)), None)
        return ConfigError(path, message, line=line, field=f"{section}.{key[:40]}")

    def section(name: str, keys: Collection[str]) -> dict[str, Any]:
        """The table [name] (empty when absent), each of its keys one of `keys`."""
        table = data.get(name, {})
        if not isinstance(table, dict):
            raise ConfigError(path, f"{name} must be a section: [{name}]", line=fail(name, "").line, field=name)
        for key in table:
            if key not in keys:
                raise fail(key, f"unknown setting; settings are {', '.join(sorted(keys))}", name)
        return table

    unknown = set(data) - {"box", "web", "mqtt", "hotspot"}
    if unknown:
        shown = ", ".join(sorted(name[:40] for name in unknown))
        raise ConfigError(path, f"unknown section(s) {shown}; only [box], [web], [mqtt] and [hotspot]")
    hotspot = section("hotspot", HOTSPOT_KEYS)
    if not isinstance(hotspot.get("enabled", False), bool):
        raise fail("enabled", "must be true or false", "hotspot")
    after = hotspot.get("after", 120)
    if isinstance(after, bool) or not isinstance(after, int) or not 10 <= after <= 86_400:
        raise fail("after", "must be a whole number of seconds, 10..86400", "hotspot")
    mqtt = mqtt_settings(data["mqtt"], path, fail, secrets) if "mqtt" in data else None
    web = section("web", WEB_KEYS)
    if "listen" in web and (not isinstance(web["listen"], str) or not re.fullmatch(r"\S+:\d{1,5}", web["listen"])):
        raise fail("listen", 'must be "HOST:PORT" in quotes', "web")
    if not isinstance(web.get("open", True), bool):
        raise fail("open", "must be true or false", "web")
    hosts = web.get("hosts", [])
    if not isinstance(hosts, list) or not all(isinstance(h, str) and re.fullmatch(r"[A-Za-z0-9.-]{1,253}", h) for h in hosts):
        raise fail("hosts", 'must be a list of host names in quotes, like ["gravebox.home"]', "web")
    box = section("box", KEYS)
    names = box.get("names", [])
    if not isinstance(names, list) or not all(isinstance(n, str) and n.strip() for n in names):
        raise fail("names", "must be a list of non-empty names")
    if len({n.strip().casefold() for n in names}) != len(names):
        raise fail("names", "names must differ (spaces around a name and case do not count)")
    contrast = box.get("contrast", DEFAULT_CONTRAST)
    if isinstance(contrast, bool) or not isinstance(contrast, int) or not 0 <= contrast <= 255:
        raise fail("contrast", "must be a whole number 0..255 (the OLED's brightness)")
    hardware = box.get("hardware", "pi")
    if hardware not in HARDWARE:
        raise fail("hardware", 'must be "pi" (the parts of a Raspberry Pi) or "simulated" (fakes)')
    paths = {}
    for key in ("decks", "pinmap"):
        if key in box:
            if not isinstance(box[key], str):
                raise fail(key, "must be a path in quotes")
            paths[key] = Path(box[key])
    if "decks" in paths:
        try:
            check_decks_folder(paths["decks"])
        except DeckError as problem:
            raise fail("decks", f"{problem.message}: {paths['decks']}") from None
    return Config(
        names=tuple(n.strip() for n in names),
        decks=paths.get("decks"),
        pinmap=paths.get("pinmap"),
        web_listen=web.get("listen"),
        web_open=web.get("open", True),
        web_hosts=tuple(h.lower() for h in hosts),
        contrast=contrast,
        mqtt=mqtt,
        hardware=hardware,
        hotspot_enabled=hotspot.get("enabled", False),
        hotspot_after=after,
    )


def present(path: Path) -> bool:
    """`path` is there, or may be: a file behind a folder closed to this user is there, and
    reading it then says so in one line (never a PermissionError out of `Path.exists()`)."""
    try:
        path.stat()
    except PermissionError:
        return True
    except OSError:
        return False
    return True


def mqtt_settings(table: object, path: Path, fail: Callable[..., ConfigError], secrets: bool = False) -> MqttConfig:
    """The `[mqtt]` table, checked; with `secrets`, the password file is read here (bounded, and only
    if it is root's or this user's, and no one but this process's group may read it). Raises
    ConfigError with file, line, field."""
    if not isinstance(table, dict):
        raise ConfigError(path, "mqtt must be a section: [mqtt]", line=fail("mqtt", "").line, field="mqtt")
    for key in table:
        if key not in MQTT_KEYS:
            raise fail(key, f"unknown setting; settings are {', '.join(sorted(MQTT_KEYS))}", "mqtt")
    host = table.get("host")
    if not isinstance(host, str) or not re.fullmatch(r"[A-Za-z0-9.:_-]{1,253}", host):
        raise fail("host" if "host" in table else "mqtt", 'must be the broker\'s host name or address in quotes', "mqtt")
    paths: dict[str, Path] = {}
    for key in ("ca_file", "password_file"):
        if key in table:
            if not isinstance(table[key], str) or not table[key]:
                raise fail(key, "must be a path in quotes", "mqtt")
            paths[key] = Path(table[key])
    port = table.get("port", 8883 if "ca_file" in paths else 1883)
    if isinstance(port, bool) or not isinstance(port, int) or not 1 <= port <= 65535:
        raise fail("port", "must be a whole number 1..65535", "mqtt")
    username = table.get("username")
    if username is not None and (not isinstance(username, str) or not 0 < len(username) <= 256):
        raise fail("username", "must be a name in quotes", "mqtt")
    for key in ("discovery",):
        if not isinstance(table.get(key, True), bool):
            raise fail(key, "must be true or false", "mqtt")
    base, prefix = table.get("base_topic", default_base_topic()), table.get("discovery_prefix", "homeassistant")
    for key, value in (("base_topic", base), ("discovery_prefix", prefix)):
        if not isinstance(value, str) or not TOPIC.fullmatch(value.rstrip("/")):
            raise fail(key, 'must be a topic in quotes, like "gravebox/living-room" (no +, # or spaces)', "mqtt")
    if "ca_file" in paths and not paths["ca_file"].is_file():
        raise fail("ca_file", f"no such file: {paths['ca_file']}", "mqtt")
    password = None
    if "password_file" in paths and secrets:
        try:
            password = read_password(paths["password_file"])
        except ConfigError as problem:
            raise fail("password_file", f"{problem.path}: {problem.message}", "mqtt") from None
    return MqttConfig(host, port, paths.get("ca_file"), username, password, base.rstrip("/"),
                      table.get("discovery", True), prefix.rstrip("/"))


def group_name(gid: int) -> str:
    import grp

    try:
        return grp.getgrgid(gid).gr_name
    except KeyError:
        return str(gid)


def read_password(path: Path) -> str:
    """The first line of the password file; ConfigError when others may read it, when another group
    than this process's may (`chown root:gravebox`, docs/mqtt.md), when another user than root or
    this one owns it, or when it is no such file.

    >>> import tempfile; secret = Path(tempfile.mkdtemp()) / "password"
    >>> _ = secret.write_text("s3cret\\n"); secret.chmod(0o640)
    >>> read_password(secret)
    's3cret'
    >>> secret.chmod(0o644); read_password(secret)
    Traceback (most recent call last):
    box.errors.ConfigError: ...password: others may read it: chmod o-rwx it (the service's user or group only)
    """
    from box.files.bounded import read_bounded

    try:
        status = os.stat(path, follow_symlinks=False)
    except FileNotFoundError:
        raise ConfigError(path, "no such password file") from None
    except OSError as problem:
        raise ConfigError(path, f"cannot read it: {problem.strerror or problem}") from None
    mode = status.st_mode
    if stat.S_ISREG(mode) and mode & 0o007:
        raise ConfigError(path, "others may read it: chmod o-rwx it (the service's user or group only)")
    ours = group_name(os.getegid())
    if stat.S_ISREG(mode) and mode & 0o070 and status.st_gid != os.getegid():
        raise ConfigError(path, f"the group {group_name(status.st_gid)} may read it: chown root:{ours} it, or chmod g-rwx")
    if stat.S_ISREG(mode) and status.st_uid not in (0, os.geteuid()):
        raise ConfigError(path, f"owned by another user: chown root:{ours} it")
    data = read_bounded(path, MAX_PASSWORD_BYTES, ConfigError, "password file")
    try:
        line = data.decode("utf-8").splitlines()[0] if data.strip() else ""
    except UnicodeDecodeError:
        raise ConfigError(path, "not UTF-8 text") from None
    if not line:
        raise ConfigError(path, "empty: the password goes on its first line")
    return line
