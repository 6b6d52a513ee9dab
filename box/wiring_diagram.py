"""Draw the wiring diagram (SVG) for each Pi model from the pin map.

The pin map (`wiring/pinmap.toml`) says which GPIO each button and the buzzer use and where the
OLED sits; this module adds what the pin map cannot know, which UART (and GPIO pair) each PN532
reader uses on each Pi model, and draws the 40-pin header with every connection labelled.
The same table is what `firmware/config-*.txt` and `systemd/udev/gravebox-*.rules` are checked
against (tests/test_wiring.py), so the drawing, the boot configuration and the udev names agree.

Regenerate after changing the pin map or the tables below:

    python -m box.wiring_diagram            # writes wiring/wiring-<model>.svg
    python -m box.wiring_diagram --check    # exit 1 if a committed SVG is out of date

>>> [reader.uart for reader in READER_PORTS["pi5"]]
['uart0', 'uart2', 'uart3']
>>> HEADER[11], HEADER[1]
(17, '3V3')
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

from box.pinmap import DEFAULT_PINMAP, PinMap, load_pinmap

WIRING_DIR = Path(__file__).resolve().parent.parent / "wiring"

MODELS = {"pi5": "Raspberry Pi 5", "pi4": "Raspberry Pi 4", "zero2w": "Raspberry Pi Zero 2 W"}

# The 40-pin header, physical pin -> BCM GPIO number or power/ground name (same on all three).
HEADER: dict[int, int | str] = {
    1: "3V3", 2: "5V", 3: 2, 4: "5V", 5: 3, 6: "GND", 7: 4, 8: 14, 9: "GND", 10: 15,
    11: 17, 12: 18, 13: 27, 14: "GND", 15: 22, 16: 23, 17: "3V3", 18: 24, 19: 10, 20: "GND",
    21: 9, 22: 25, 23: 11, 24: 8, 25: "GND", 26: 7, 27: 0, 28: 1, 29: 5, 30: "GND",
    31: 6, 32: 12, 33: 13, 34: "GND", 35: 19, 36: 16, 37: 26, 38: 20, 39: "GND", 40: 21,
}  # fmt: skip
PHYSICAL = {gpio: pin for pin, gpio in HEADER.items() if isinstance(gpio, int)}
I2C1 = {"SDA": 2, "SCL": 3}  # i2c_port = 1 (the only I2C bus on the header's pins 3 and 5)


@dataclass(frozen=True)
class ReaderPort:
    """Where one PN532 reader is connected on one Pi model.

    On-board UART: `uart`, its `tx`/`rx` GPIOs and the config.txt `overlay` that enables it.
    USB adapter (Zero 2 W): `usb` names the hub port. `udev_match` is the udev key that picks
    the port (the UART's platform device, or the USB path) for the /dev/gravebox-<reader> link.
    """

    reader: str
    udev_match: str
    uart: str | None = None
    tx: int | None = None
    rx: int | None = None
    overlay: str | None = None
    usb: str | None = None


def _usb(reader: str, port: int) -> ReaderPort:
    # The Zero 2 W's only USB port (dwc2 at 3f980000) with a hub: hub port N is device 1-1.N.
    return ReaderPort(reader, f'ENV{{ID_PATH}}=="platform-3f980000.usb-usb-0:1.{port}:1.0"', usb=f"USB hub port {port}")


READER_PORTS: dict[str, tuple[ReaderPort, ...]] = {
    # Pi 5: RP1's PL011 UARTs; the platform device addresses are the RP1 ones (verify on a Pi).
    "pi5": (
        ReaderPort("left", 'KERNELS=="1f00030000.serial"', "uart0", 14, 15, "uart0-pi5"),
        ReaderPort("middle", 'KERNELS=="1f00038000.serial"', "uart2", 4, 5, "uart2-pi5"),
        ReaderPort("right", 'KERNELS=="1f0003c000.serial"', "uart3", 8, 9, "uart3-pi5"),
    ),
    # Pi 4: uart0 is freed from Bluetooth by disable-bt (+ enable_uart=1); uart3/uart4 overlays.
    "pi4": (
        ReaderPort("left", 'KERNELS=="fe201000.serial"', "uart0", 14, 15, "disable-bt"),
        ReaderPort("middle", 'KERNELS=="fe201600.serial"', "uart3", 4, 5, "uart3"),
        ReaderPort("right", 'KERNELS=="fe201800.serial"', "uart4", 8, 9, "uart4"),
    ),
    # Zero 2 W: one usable UART, so the readers sit on USB-serial adapters behind a hub.
    "zero2w": (_usb("left", 1), _usb("middle", 2), _usb("right", 3)),
}

# Colours per role: fill of the pin and of its label.
COLOURS = {
    "3V3": "#e8a33d",
    "5V": "#d9534f",
    "GND": "#333333",
    "button": "#3a9d5d",
    "buzzer": "#8e5ea2",
    "display": "#3b7dd8",
    "reader": "#e07b24",
    "free": "#bbbbbb",
}


def pin_roles(pinmap: PinMap, model: str) -> dict[int, tuple[str, str]]:
    """Physical pin -> (role, label) for every pin of the header."""
    roles: dict[int, tuple[str, str]] = {}
    for pin, what in HEADER.items():
        if what == "3V3":
            roles[pin] = ("3V3", "3V3 power (OLED, readers)")
        elif what == "5V":
            roles[pin] = ("5V", "5V: do not use (3.3 V parts only)")
        elif what == "GND":
            roles[pin] = ("GND", "GND")
        else:
            roles[pin] = ("free", f"GPIO{what}")
    for name, gpio in pinmap.buttons.items():
        roles[PHYSICAL[gpio]] = ("button", f"GPIO{gpio}: button {name}")
    roles[PHYSICAL[pinmap.buzzer.pin]] = ("buzzer", f"GPIO{pinmap.buzzer.pin}: buzzer ({pinmap.buzzer.kind})")
    for signal, gpio in I2C1.items():
        roles[PHYSICAL[gpio]] = ("display", f"GPIO{gpio}: OLED {signal} ({pinmap.display.controller})")
    for port in READER_PORTS[model]:
        if port.tx is not None and port.rx is not None:
            roles[PHYSICAL[port.tx]] = ("reader", f"GPIO{port.tx}: {port.uart} TX → {port.reader} reader RXD")
            roles[PHYSICAL[port.rx]] = ("reader", f"GPIO{port.rx}: {port.uart} RX ← {port.reader} reader TXD")
    return roles


def connection_notes(pinmap: PinMap, model: str) -> list[str]:
    """The lines printed under the header: how each part is connected."""
    d = pinmap.display
    notes = [
        "Buttons: each between its GPIO and GND (internal pull-ups): "
        + ", ".join(f"{name} GPIO{gpio} (pin {PHYSICAL[gpio]})" for name, gpio in pinmap.buttons.items()),
        f"Buzzer ({pinmap.buzzer.kind}): + to GPIO{pinmap.buzzer.pin} (pin {PHYSICAL[pinmap.buzzer.pin]}), − to GND",
        f"OLED {d.controller.upper()} 128×64, I2C{d.i2c_port} address {d.i2c_address:#04x}: VCC 3V3 (pin 1), GND (pin 9), "
        f"SDA GPIO2 (pin 3), SCL GPIO3 (pin 5). Set display.controller to ssd1306 or sh1106 to match the panel.",
    ]
    for port in READER_PORTS[model]:
        device = pinmap.readers.get(port.reader, f"/dev/gravebox-{port.reader}")
        if port.usb:
            notes.append(
                f"Reader {port.reader} → {device}: PN532 (HSU) on a 3.3 V USB-serial adapter in {port.usb}; "
                "adapter TX → PN532 RXD, RX ← TXD, GND; PN532 VCC from 3V3 (pin 17)"
            )
        else:
            notes.append(
                f"Reader {port.reader} → {device}: PN532 (HSU) on {port.uart}: RXD to GPIO{port.tx} TX "
                f"(pin {PHYSICAL[port.tx]}), TXD to GPIO{port.rx} RX (pin {PHYSICAL[port.rx]}), VCC 3V3, GND"
            )
    notes.append("All parts at 3.3 V. PN532 switches on HSU. Pin 1 is the square pad.")
    return notes


def render_svg(pinmap: PinMap, model: str) -> str:
    """The wiring diagram of one model as SVG text (deterministic: same input, same bytes)."""
    roles = pin_roles(pinmap, model)
    # One note may take several lines; continuation lines are indented.
    notes = [
        line
        for note in connection_notes(pinmap, model)
        for line in textwrap.wrap(note, width=125, subsequent_indent="    ")
    ]
    top, row, width = 70, 24, 1000
    left_x, right_x = width // 2 - 16, width // 2 + 16
    notes_y = top + 20 * row + 30
    height = notes_y + 22 * len(notes) + 20
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Arial, sans-serif" font-size="13">',
        f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
        f'<text x="20" y="30" font-size="20" font-weight="bold">Gravebox wiring: {escape(MODELS[model])}</text>',
        '<text x="20" y="52" fill="#555555">40-pin header seen from above, odd pins on the left '
        "(generated from wiring/pinmap.toml by box/wiring_diagram.py)</text>",
        f'<rect x="{left_x - 16}" y="{top - 16}" width="64" height="{20 * row + 8}" rx="6" fill="#1d1d1d"/>',
    ]
    for pin in range(1, 41):
        role, label = roles[pin]
        x = left_x if pin % 2 else right_x
        y = top + (pin - 1) // 2 * row
        colour = COLOURS[role]
        shape = (
            f'<rect x="{x - 9}" y="{y - 9}" width="18" height="18" fill="{colour}" stroke="#ffffff"/>'
            if pin == 1
            else f'<circle cx="{x}" cy="{y}" r="9" fill="{colour}" stroke="#ffffff"/>'
        )
        out.append(f'<g id="pin{pin}">{shape}')
        out.append(f'<text x="{x}" y="{y + 4}" font-size="9" text-anchor="middle" fill="#ffffff">{pin}</text>')
        text_x, anchor = (x - 22, "end") if pin % 2 else (x + 22, "start")
        weight = ' font-weight="bold"' if role not in ("free", "GND") else ""
        fill = "#888888" if role == "free" else colour
        out.append(
            f'<text x="{text_x}" y="{y + 4}" text-anchor="{anchor}" fill="{fill}"{weight}>{escape(label)}</text></g>'
        )
    for index, note in enumerate(notes):
        out.append(f'<text x="20" y="{notes_y + 22 * index}" xml:space="preserve">{escape(note)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def svg_path(model: str, directory: Path = WIRING_DIR) -> Path:
    return directory / f"wiring-{model}.svg"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pinmap", type=Path, default=DEFAULT_PINMAP, help="pin map to draw (default: %(default)s)")
    parser.add_argument("--out", type=Path, default=WIRING_DIR, help="directory for wiring-<model>.svg")
    parser.add_argument("--check", action="store_true", help="only check that the SVGs are up to date")
    args = parser.parse_args(argv)
    pinmap = load_pinmap(args.pinmap)
    stale = []
    for model in MODELS:
        path, svg = svg_path(model, args.out), render_svg(pinmap, model)
        if path.exists() and path.read_text(encoding="utf-8") == svg:
            continue
        if args.check:
            stale.append(str(path))
        else:
            path.write_text(svg, encoding="utf-8")
            print(f"wrote {path}")
    if stale:
        print("out of date (run python -m box.wiring_diagram): " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
