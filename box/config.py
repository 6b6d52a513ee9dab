"""The owner's settings file (`/etc/gravebox/config.toml` on a box), validated.

```toml
[box]
names = ["Ann", "Bob", "Cid"]   # player names offered by the menu, in seating order
decks = "/etc/gravebox/decks"   # a folder of <game>.csv files replacing the built-in decks
pinmap = "/etc/gravebox/pinmap.toml"

[web]
listen = "0.0.0.0:8080"         # where the phone page (gravebox web) listens
open = true                     # reading pages open on the local network; false: only paired phones
hosts = ["gravebox.home"]       # names the page answers to besides its hostname, hostname.local and addresses
```
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from box.cards import check_decks_folder
from box.errors import ConfigError, DeckError, parse_toml, read_text
from box.words import DEFAULT_CONTRAST

DEFAULT_CONFIG = Path("/etc/gravebox/config.toml")
KEYS = {"names", "decks", "pinmap", "contrast"}
WEB_KEYS = {"listen", "open", "hosts"}
MAX_CONFIG_BYTES = 64 * 1024
"""A settings file is a few lines: a file far larger is not one."""


@dataclass(frozen=True)
class Config:
    names: tuple[str, ...] = ()
    decks: Path | None = None
    pinmap: Path | None = None
    web_listen: str | None = None
    web_open: bool = True
    web_hosts: tuple[str, ...] = ()
    contrast: int = DEFAULT_CONTRAST


def load_config(path: Path | None) -> Config:
    """Read the settings; no file is the defaults. Raises ConfigError with file, line, field."""
    if path is None or not path.exists():
        return Config()
    text = read_text(path, ConfigError, "settings file", limit=MAX_CONFIG_BYTES)
    data = parse_toml(text, path, ConfigError)

    def fail(key: str, message: str, section: str = "box") -> ConfigError:
        written = re.compile(rf"""\s*["']?{re.escape(key)}["']?\s*=""")  # a key may hold any character
        line = next((n for n, t in enumerate(text.splitlines(), 1) if written.match(t)), None)
        return ConfigError(path, message, line=line, field=f"{section}.{key[:40]}")

    unknown = set(data) - {"box", "web"}
    if unknown:
        shown = ", ".join(sorted(name[:40] for name in unknown))
        raise ConfigError(path, f"unknown section(s) {shown}; only [box] and [web]")
    web = data.get("web", {})
    if not isinstance(web, dict):
        raise ConfigError(path, "web must be a section: [web]", line=fail("web", "").line, field="web")
    for key in web:
        if key not in WEB_KEYS:
            raise fail(key, f"unknown setting; settings are {', '.join(sorted(WEB_KEYS))}", "web")
    if "listen" in web and (not isinstance(web["listen"], str) or not re.fullmatch(r"\S+:\d{1,5}", web["listen"])):
        raise fail("listen", 'must be "HOST:PORT" in quotes', "web")
    if not isinstance(web.get("open", True), bool):
        raise fail("open", "must be true or false", "web")
    hosts = web.get("hosts", [])
    if not isinstance(hosts, list) or not all(isinstance(h, str) and re.fullmatch(r"[A-Za-z0-9.-]{1,253}", h) for h in hosts):
        raise fail("hosts", 'must be a list of host names in quotes, like ["gravebox.home"]', "web")
    box = data.get("box", {})
    if not isinstance(box, dict):
        raise ConfigError(path, "box must be a section: [box]", line=fail("box", "").line, field="box")
    for key in box:
        if key not in KEYS:
            raise fail(key, f"unknown setting; settings are {', '.join(sorted(KEYS))}")
    names = box.get("names", [])
    if not isinstance(names, list) or not all(isinstance(n, str) and n.strip() for n in names):
        raise fail("names", "must be a list of non-empty names")
    if len({n.strip().casefold() for n in names}) != len(names):
        raise fail("names", "names must differ (spaces around a name and case do not count)")
    contrast = box.get("contrast", DEFAULT_CONTRAST)
    if isinstance(contrast, bool) or not isinstance(contrast, int) or not 0 <= contrast <= 255:
        raise fail("contrast", "must be a whole number 0..255 (the OLED's brightness)")
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
    )
