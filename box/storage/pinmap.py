"""The pin map: which GPIO each button and the buzzer use, the OLED, the card readers.

One TOML file (`wiring/pinmap.toml`) describes the wiring; `load_pinmap` reads
and validates it so that a typo stops the box with one line naming the file,
the line and the field, before any pin is touched.

>>> pinmap = load_pinmap(DEFAULT_PINMAP)
>>> pinmap.buttons["ok"], pinmap.buzzer.kind, pinmap.display.controller
(22, 'passive', 'ssd1306')
>>> list(pinmap.readers)
['left', 'middle', 'right']
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from box.errors import ConfigError
from box.files.text import parse_toml, read_text
from box.words import BUTTONS, CONTROLLERS, READERS

MAX_PINMAP_BYTES = 64 * 1024  # the box's own is 2 kB
GPIO_PINS = range(28)  # BCM GPIO0..GPIO27 on the 40-pin header
I2C_PINS = (2, 3)  # I2C1 SDA/SCL: the OLED
# The UARTs the readers use when they sit on the Pi's own UARTs, in reader order:
# GPIO14/15 (uart0), GPIO4/5 (uart3 on a Pi 4, uart2 on a Pi 5), GPIO8/9 (uart4 / uart3).
READER_UART_PINS = ((14, 15), (4, 5), (8, 9))
# Readers on USB-serial adapters use no GPIO at all.
USB_SERIAL = re.compile(r"^/dev/(ttyUSB|ttyACM|serial/by-id/|serial/by-path/.*usb)")
BUZZER_KINDS = ("passive", "active")
BAUDRATES = (9600, 19200, 38400, 57600, 115200, 230400, 460800, 921600)
SECTIONS = {
    "buttons": set(BUTTONS),
    "buzzer": {"pin", "kind"},
    "display": {"controller", "i2c_port", "i2c_address"},
    "readers": {*READERS, "baudrate"},
}


def default_pinmap_path() -> Path:
    """Where the box's own pin map lives: the one place that knows the path.

    >>> default_pinmap_path().name
    'pinmap.toml'
    """
    return Path(__file__).resolve().parents[2] / "wiring" / "pinmap.toml"


DEFAULT_PINMAP = default_pinmap_path()


@dataclass(frozen=True)
class BuzzerWiring:
    """The buzzer's GPIO and kind: "passive" (a piezo that plays tones) or "active" (beeps)."""

    pin: int
    kind: str


@dataclass(frozen=True)
class DisplayWiring:
    """The OLED: its controller ("ssd1306" or "sh1106") and where it sits on I2C."""

    controller: str
    i2c_port: int
    i2c_address: int


@dataclass(frozen=True)
class PinMap:
    """The validated wiring. `buttons` maps a button name to its BCM pin; `readers` maps
    a reader name to its serial device path, in file order."""

    path: str
    buttons: Mapping[str, int]
    buzzer: BuzzerWiring
    display: DisplayWiring
    readers: Mapping[str, str]
    baudrate: int


def load_pinmap(path: str | Path = DEFAULT_PINMAP) -> PinMap:
    """Read and validate a pin map file; raise `ConfigError` naming file, line and field."""
    text = read_text(path, ConfigError, "pin map", limit=MAX_PINMAP_BYTES)
    data = parse_toml(text, path, ConfigError)
    return _Checker(str(path), text).check(data)


class _Checker:
    """Validation of one parsed file, with the file's text at hand to find each key's line."""

    def __init__(self, path: str, text: str):
        self.path = path
        self.lines = text.splitlines()

    def fail(self, section: str, key: str | None, message: str) -> ConfigError:
        field = f"{section}.{key}" if key else section
        return ConfigError(self.path, message, line=self.line_of(section, key), field=field)

    def line_of(self, section: str, key: str | None) -> int | None:
        """The 1-based line of `key` in `[section]` (of the header when key is None)."""
        current = None
        for number, raw in enumerate(self.lines, start=1):
            line = raw.strip()
            header = re.match(r"^\[\s*([A-Za-z0-9_-]+)\s*\]", line)
            if header:
                current = header[1]
                if key is None and current == section:
                    return number
            elif current == section and key is not None and re.match(rf"^\"?{re.escape(key)}\"?\s*=", line):
                return number
        return None

    def check(self, data: dict[str, Any]) -> PinMap:
        section = data.get("readers")
        reader_names = [key for key in section if key != "baudrate"] if isinstance(section, dict) else []
        if len(reader_names) > len(READERS):
            extra = reader_names[len(READERS)]
            raise self.fail("readers", extra, f"at most {len(READERS)} readers, found {len(reader_names)}")
        for section, value in data.items():
            if section not in SECTIONS:
                raise self.fail(section, None, f"unknown section [{section}]; expected {', '.join(SECTIONS)}")
            if not isinstance(value, dict):
                raise self.fail(section, None, f"[{section}] must be a table")
            for key in value:
                if key not in SECTIONS[section]:
                    allowed = ", ".join(sorted(SECTIONS[section]))
                    raise self.fail(section, key, f"unknown key {key!r} in [{section}]; expected one of {allowed}")
        for section in SECTIONS:
            if section not in data:
                raise ConfigError(self.path, f"missing section [{section}]", field=section)

        buttons = {name: self.pin("buttons", name, data) for name in BUTTONS}
        buzzer = BuzzerWiring(
            pin=self.pin("buzzer", "pin", data), kind=self.choice("buzzer", "kind", data, BUZZER_KINDS)
        )
        display = DisplayWiring(
            controller=self.choice("display", "controller", data, CONTROLLERS),
            i2c_port=self.number("display", "i2c_port", data, range(0, 23)),
            i2c_address=self.number("display", "i2c_address", data, range(0x08, 0x78)),
        )
        readers, baudrate = self.readers(data["readers"])
        self.check_pins_unique(buttons, buzzer, readers)
        return PinMap(
            path=self.path,
            buttons=MappingProxyType(buttons),
            buzzer=buzzer,
            display=display,
            readers=MappingProxyType(readers),
            baudrate=baudrate,
        )

    def value(self, section: str, key: str, data: dict[str, Any]) -> Any:
        if key not in data[section]:
            raise ConfigError(
                self.path, f"missing {key!r} in [{section}]", line=self.line_of(section, None), field=f"{section}.{key}"
            )
        return data[section][key]

    def number(self, section: str, key: str, data: dict[str, Any], allowed: range) -> int:
        value = self.value(section, key, data)
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(section, key, f"must be a whole number, not {value!r}")
        if value not in allowed:
            raise self.fail(section, key, f"must be between {allowed.start} and {allowed.stop - 1}, not {value}")
        return value

    def pin(self, section: str, key: str, data: dict[str, Any]) -> int:
        pin = self.number(section, key, data, GPIO_PINS)
        if pin in I2C_PINS:
            raise self.fail(section, key, f"GPIO{pin} is I2C1 (the OLED on GPIO2/3); choose another pin")
        return pin

    def choice(self, section: str, key: str, data: dict[str, Any], allowed: tuple[str, ...]) -> str:
        value = self.value(section, key, data)
        if value not in allowed:
            raise self.fail(section, key, f"must be one of {', '.join(allowed)}, not {value!r}")
        return value

    def readers(self, section: dict[str, Any]) -> tuple[dict[str, str], int]:
        readers: dict[str, str] = {}
        for name, device in section.items():
            if name == "baudrate":
                continue
            if not isinstance(device, str) or not device.startswith("/dev/") or device != device.strip():
                raise self.fail("readers", name, f"must be a device path such as /dev/ttyUSB0, not {device!r}")
            other = next((known for known, path in readers.items() if path == device), None)
            if other is not None:
                raise self.fail("readers", name, f"{device} is already reader {other}: one device, one reader")
            readers[name] = device
        if not readers:
            raise self.fail("readers", None, f"no readers: name at least one of {', '.join(READERS)}")
        baudrate = section.get("baudrate", 460800)  # the rate the PN532s are asked for (they start at 115200)
        if not (isinstance(baudrate, int) and baudrate in BAUDRATES):
            raise self.fail("readers", "baudrate", f"must be one of {', '.join(map(str, BAUDRATES))}, not {baudrate!r}")
        return readers, baudrate

    def check_pins_unique(self, buttons: dict[str, int], buzzer: BuzzerWiring, readers: dict[str, str]) -> None:
        """A GPIO serves one purpose: no pin twice, none on a UART a reader uses."""
        users: dict[int, str] = {}
        uarts = iter(READER_UART_PINS)
        for name, device in readers.items():
            if not USB_SERIAL.match(device):
                for pin in next(uarts):
                    users[pin] = f"readers.{name} (UART on GPIO{pin})"
        for field, pin in [*((f"buttons.{name}", pin) for name, pin in buttons.items()), ("buzzer.pin", buzzer.pin)]:
            if pin in users:
                section, key = field.split(".")
                raise self.fail(section, key, f"GPIO{pin} is already used by {users[pin]}")
            users[pin] = field
