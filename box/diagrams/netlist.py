"""Draw the wiring diagram (SVG) for each Pi model from the pin map: every part, every wire.

The pin map (`wiring/pinmap.toml`) says which GPIO each button and the buzzer use and where the
OLED sits; this module adds what the pin map cannot know: which UART (and GPIO pair) each PN532
reader uses on each Pi model, the power bus the parts share, and the parts' own terminals. From
that it builds a netlist (`netlist`: every wire, end to end) and draws it: the 40-pin header, the
parts with their named terminals, the power bus strip and each wire as its own coloured line
(box/diagrams/svg.py).
The same tables are what `firmware/config-*.txt` and `systemd/udev/gravebox-*.rules` are checked
against (tests/test_wiring.py), so the drawing, the boot configuration and the udev names agree.

Regenerate after changing the pin map or the tables below:

    python -m box.diagrams            # writes wiring/wiring-<model>.svg
    python -m box.diagrams --check    # exit 1 if a committed SVG is out of date

>>> [reader.uart for reader in READER_PORTS["pi5"]]
['uart0', 'uart2', 'uart3']
>>> HEADER[11], HEADER[1]
(17, '3V3')
>>> from box.storage.pinmap import DEFAULT_PINMAP, load_pinmap
>>> ("pin11", "up:NO") in {(w.a, w.b) for w in netlist(load_pinmap(DEFAULT_PINMAP), "pi4")}
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from box.storage.pinmap import PinMap

WIRING_DIR = Path(__file__).resolve().parents[2] / "wiring"

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
WAKE_PIN = 5  # GPIO3: a short to GND wakes a halted Pi 4 or Zero 2 W (also the OLED's SCL)
# The power bus strip, top to bottom: what feeds each rail.
RAILS = {
    "5V": "5 V from header pin 2",
    "3V3": "3.3 V from header pin 1 (OLED only)",
    "READERS": "3.3 V from the readers' regulator",
    "GND": "GND from header pin 6",
}
# Current drawn from each rail, (low, high) in mA (datasheet figures and reports; measure yours).
LOADS = {"reader": (100, 150), "oled": (10, 20)}
PI_3V3_RULE_OF_THUMB = 500  # mA commonly quoted for the Pi's 3V3 pins, shared with the Pi itself


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

# Colours per role: pins, wires and labels.
COLOURS = {
    "3V3": "#e8a33d",
    "5V": "#d9534f",
    "READERS": "#c77c0e",
    "GND": "#333333",
    "button": "#3a9d5d",
    "buzzer": "#8e5ea2",
    "display": "#3b7dd8",
    "reader": "#e07b24",
    "usb": "#7a7a7a",
    "free": "#bbbbbb",
}


def pin_roles(pinmap: PinMap, model: str) -> dict[int, tuple[str, str]]:
    """Physical pin -> (role, label) for every pin of the header."""
    roles: dict[int, tuple[str, str]] = {}
    for pin, what in HEADER.items():
        if what == "3V3":
            roles[pin] = ("3V3", "3V3 power (OLED)" if pin == 1 else "3V3: not used (readers have their own)")
        elif what == "5V":
            roles[pin] = ("5V", "5V to the power bus" if pin == 2 else "5V: not used")
        elif what == "GND":
            roles[pin] = ("GND", "GND to the power bus" if pin == 6 else "GND")
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


# --- the parts and the netlist ---------------------------------------------------------------


@dataclass(frozen=True)
class Part:
    """One part drawn as a box with its terminals: `top` ones face the header, `bottom` the bus."""

    id: str
    title: str
    note: str
    role: str
    top: tuple[str, ...]
    bottom: tuple[str, ...]


@dataclass(frozen=True)
class Wire:
    """One wire from end `a` to end `b`: "pin<N>" (header), "<part>:<terminal>" or "rail:<name>"."""

    a: str
    b: str
    role: str
    points: tuple[tuple[int, int], ...] = field(default=(), compare=False)

    @property
    def id(self) -> str:
        return f"wire-{self.a}-{self.b}".replace(":", ".")


def has_wake_button(model: str) -> bool:
    """Pi 4 and Zero 2 W have no power button: a button from GPIO3 to GND wakes them from halt."""
    return model != "pi5"


def parts(pinmap: PinMap, model: str) -> list[Part]:
    """Every part of the box on this model, left to right as drawn."""
    d = pinmap.display
    found = [
        Part(
            "oled",
            f"OLED {d.controller.upper()}",
            f"I2C {d.i2c_address:#04x}",
            "display",
            ("SDA", "SCL"),
            ("VCC", "GND"),
        ),
        *(Part(name, f"button {name}", "arcade, microswitch", "button", ("NO",), ("COM",)) for name in pinmap.buttons),
        Part("buzzer", "buzzer", pinmap.buzzer.kind, "buzzer", ("+",), ("−",)),
    ]
    if has_wake_button(model):
        found.append(Part("wake", "button wake", "power on (optional)", "button", ("NO",), ("COM",)))
    for port in READER_PORTS[model]:
        if port.usb:
            found.append(
                Part(
                    f"usb-{port.reader}",
                    f"USB-serial {port.reader}",
                    port.usb,
                    "usb",
                    ("USB",),
                    ("RXD", "TXD", "", "", "GND"),
                )
            )
        found.append(
            Part(
                f"reader-{port.reader}",
                f"PN532 {port.reader}",
                "HSU: switches 0 0",
                "reader",
                ("TXD", "RXD"),
                ("VCC", "GND"),
            )
        )
    if model == "zero2w":
        found.append(Part("hub", "USB hub", "ports 1 2 3 below", "usb", ("IN",), ("1", "2", "3")))
    found.append(Part("regulator", "3.3 V regulator", "≥ 1 A, for the readers", "READERS", ("IN", "GND", "OUT"), ()))
    return found


def netlist(pinmap: PinMap, model: str) -> list[Wire]:
    """Every wire of the box on this model, in drawing order."""
    wires = [
        Wire("pin2", "rail:5V", "5V"),
        Wire("pin1", "rail:3V3", "3V3"),
        Wire("pin6", "rail:GND", "GND"),
        Wire(f"pin{PHYSICAL[I2C1['SDA']]}", "oled:SDA", "display"),
        Wire(f"pin{PHYSICAL[I2C1['SCL']]}", "oled:SCL", "display"),
        Wire("oled:VCC", "rail:3V3", "3V3"),
        Wire("oled:GND", "rail:GND", "GND"),
    ]
    for name, gpio in pinmap.buttons.items():
        wires += [Wire(f"pin{PHYSICAL[gpio]}", f"{name}:NO", "button"), Wire(f"{name}:COM", "rail:GND", "GND")]
    wires += [
        Wire(f"pin{PHYSICAL[pinmap.buzzer.pin]}", "buzzer:+", "buzzer"),
        Wire("buzzer:−", "rail:GND", "GND"),
    ]
    if has_wake_button(model):
        wires += [Wire(f"pin{WAKE_PIN}", "wake:NO", "button"), Wire("wake:COM", "rail:GND", "GND")]
    for port in READER_PORTS[model]:
        reader = f"reader-{port.reader}"
        if port.tx is not None and port.rx is not None:
            wires += [
                Wire(f"pin{PHYSICAL[port.tx]}", f"{reader}:RXD", "reader"),
                Wire(f"pin{PHYSICAL[port.rx]}", f"{reader}:TXD", "reader"),
            ]
        else:
            usb = f"usb-{port.reader}"
            wires += [
                Wire(f"hub:{port.usb.rsplit(' ', 1)[1] if port.usb else ''}", f"{usb}:USB", "usb"),
                Wire(f"{usb}:TXD", f"{reader}:RXD", "reader"),
                Wire(f"{usb}:RXD", f"{reader}:TXD", "reader"),
                Wire(f"{usb}:GND", "rail:GND", "GND"),
            ]
        wires += [Wire(f"{reader}:VCC", "rail:READERS", "READERS"), Wire(f"{reader}:GND", "rail:GND", "GND")]
    if model == "zero2w":
        wires.append(Wire("usb-port", "hub:IN", "usb"))
    wires += [
        Wire("regulator:IN", "rail:5V", "5V"),
        Wire("regulator:GND", "rail:GND", "GND"),
        Wire("regulator:OUT", "rail:READERS", "READERS"),
    ]
    return wires


def power_budget(model: str) -> list[str]:
    """The budget lines: what each rail feeds and why the readers have their own 3.3 V."""
    readers = len(READER_PORTS[model])
    r_low, r_high = (readers * n for n in LOADS["reader"])
    o_low, o_high = LOADS["oled"]
    return [
        f"Power budget. Readers: {readers} × {LOADS['reader'][0]}–{LOADS['reader'][1]} mA with the RF field on = "
        f"{r_low}–{r_high} mA: the READERS rail, from its own 3.3 V regulator (≥ 1 A) fed by the 5 V rail. "
        f"OLED: {o_low}–{o_high} mA from the Pi's 3V3 (pin 1). All of it on the Pi's 3V3 pins would be "
        f"{r_low + o_low}–{r_high + o_high} mA against the ~{PI_3V3_RULE_OF_THUMB} mA rule of thumb that the Pi "
        "itself shares: too close, so the readers never hang on pin 1 or 17.",
        "Readers at 5 V instead: most PN532 boards have their own 3.3 V regulator and accept 5 V on VCC. Measure "
        "first: power one board alone at 5 V; TXD to GND must read 3.3 V or less at idle (some boards shift their "
        "UART to VCC level: 5 V would harm the Pi). If so, leave out the regulator and wire the READERS rail to 5 V.",
    ]


def connection_notes(pinmap: PinMap, model: str) -> list[str]:
    """The lines printed under the drawing: how each part is connected, in words."""
    d = pinmap.display
    notes = [
        "Buttons: microswitch NO (normally open) to the GPIO, COM to GND; NC stays free (wired to NC a button "
        "reads as always pressed). Internal pull-ups, no resistors: "
        + ", ".join(f"{name} GPIO{gpio} (pin {PHYSICAL[gpio]})" for name, gpio in pinmap.buttons.items()),
        f"Buzzer ({pinmap.buzzer.kind}): + to GPIO{pinmap.buzzer.pin} (pin {PHYSICAL[pinmap.buzzer.pin]}), − to GND",
        f"OLED {d.controller.upper()} 128×64, I2C{d.i2c_port} address {d.i2c_address:#04x}: VCC 3V3 (pin 1), GND, "
        "SDA GPIO2 (pin 3), SCL GPIO3 (pin 5). Set display.controller to ssd1306 or sh1106 to match the panel.",
    ]
    for port in READER_PORTS[model]:
        device = pinmap.readers.get(port.reader, f"/dev/gravebox-{port.reader}")
        if port.usb:
            notes.append(
                f"Reader {port.reader} → {device}: PN532 (HSU) on a 3.3 V USB-serial adapter in {port.usb}; "
                "adapter TXD → PN532 RXD, adapter RXD ← PN532 TXD, adapter GND to GND; PN532 VCC from the READERS rail"
            )
        else:
            assert port.tx is not None and port.rx is not None  # an on-board UART has both its pins
            notes.append(
                f"Reader {port.reader} → {device}: PN532 (HSU) on {port.uart}: RXD to GPIO{port.tx} TX "
                f"(pin {PHYSICAL[port.tx]}), TXD to GPIO{port.rx} RX (pin {PHYSICAL[port.rx]}), VCC READERS rail, GND"
            )
    notes.append(
        "PN532 HSU pins: Elechouse V3 and the red 'PN532 NFC RFID Module V3': 4-pin header GND VCC SDA SCL on top, "
        "TXD RXD on the back (TXD = SDA, RXD = SCL), both switches OFF (0 0) = HSU. Adafruit breakout: FTDI header "
        "GND, 5.0V, TXD, RXD; SEL0 and SEL1 off = UART."
    )
    if has_wake_button(model):
        notes.append(
            "Power on again after a power-off: replug the supply, or press the wake button (GPIO3, pin 5, to GND; "
            "it shares the OLED's SCL, harmless while the box runs)."
        )
    else:
        notes.append(
            "Power on again after a power-off: press the Pi 5's power button (or a button wired to its J2 pads)."
        )
    notes.append("Pin 1 is the square pad. Signals are 3.3 V only: nothing at 5 V may reach a GPIO.")
    return [*notes, *power_budget(model)]


def svg_path(model: str, directory: Path = WIRING_DIR) -> Path:
    return directory / f"wiring-{model}.svg"
