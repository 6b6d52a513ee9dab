"""The wiring diagrams, boot configuration and udev rules agree with the pin map and each other."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from box import wiring_diagram as wd
from box.pinmap import DEFAULT_PINMAP, READER_UART_PINS, load_pinmap

REPO = Path(__file__).resolve().parent.parent
PINMAP = load_pinmap(DEFAULT_PINMAP)
MODELS = list(wd.MODELS)
SVG = "{http://www.w3.org/2000/svg}"


def svg_text(model: str) -> list[str]:
    root = ET.fromstring(wd.svg_path(model).read_text(encoding="utf-8"))
    return ["".join(element.itertext()) for element in root.iter(f"{SVG}text")]


@pytest.mark.parametrize("model", MODELS)
def test_committed_svg_is_up_to_date(model: str) -> None:
    assert wd.svg_path(model).read_text(encoding="utf-8") == wd.render_svg(PINMAP, model), (
        "out of date: run python -m box.wiring_diagram"
    )


def test_check_mode_reports_a_stale_svg(tmp_path: Path) -> None:
    assert wd.main(["--out", str(tmp_path)]) == 0
    assert wd.main(["--out", str(tmp_path), "--check"]) == 0
    stale = wd.svg_path("pi4", tmp_path)
    stale.write_text(stale.read_text().replace("button up", "button sideways"))
    assert wd.main(["--out", str(tmp_path), "--check"]) == 1


@pytest.mark.parametrize("model", MODELS)
def test_every_pin_of_the_pin_map_appears(model: str) -> None:
    texts = svg_text(model)
    labels = "\n".join(texts)
    for name, gpio in PINMAP.buttons.items():
        assert f"GPIO{gpio}: button {name}" in texts
        assert f"{name} GPIO{gpio} (pin {wd.PHYSICAL[gpio]})" in labels
    assert f"GPIO{PINMAP.buzzer.pin}: buzzer ({PINMAP.buzzer.kind})" in texts
    assert f"GPIO2: OLED SDA ({PINMAP.display.controller})" in texts
    assert f"GPIO3: OLED SCL ({PINMAP.display.controller})" in texts
    assert f"{PINMAP.display.i2c_address:#04x}" in labels
    for reader, device in PINMAP.readers.items():
        assert f"Reader {reader} → {device}" in labels
    # All 40 header pins are drawn, each once.
    root = ET.fromstring(wd.svg_path(model).read_text(encoding="utf-8"))
    ids = [group.get("id") for group in root.iter(f"{SVG}g")]
    assert ids == [f"pin{n}" for n in range(1, 41)]


@pytest.mark.parametrize("model", ["pi5", "pi4"])
def test_reader_uart_pins_are_drawn_and_free_of_other_parts(model: str) -> None:
    texts = svg_text(model)
    used = {*PINMAP.buttons.values(), PINMAP.buzzer.pin, *wd.I2C1.values()}
    for port in wd.READER_PORTS[model]:
        assert port.tx is not None and port.rx is not None
        assert {port.tx, port.rx}.isdisjoint(used), port
        assert f"GPIO{port.tx}: {port.uart} TX → {port.reader} reader RXD" in texts
        assert f"GPIO{port.rx}: {port.uart} RX ← {port.reader} reader TXD" in texts
    # Same pairs, in reader order, as the pin map loader's check (box/pinmap.py).
    assert tuple((p.tx, p.rx) for p in wd.READER_PORTS[model]) == READER_UART_PINS


def test_zero2w_readers_use_no_gpio() -> None:
    assert all(p.tx is None and p.rx is None and p.usb for p in wd.READER_PORTS["zero2w"])
    assert not any("uart" in text and "reader" in text for text in svg_text("zero2w") if text.startswith("GPIO"))


def config_lines(model: str) -> list[str]:
    text = (REPO / f"firmware/config-{model}.txt").read_text()
    return [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]


@pytest.mark.parametrize("model", MODELS)
def test_boot_config_turns_on_fast_i2c_and_exactly_the_readers_uarts(model: str) -> None:
    lines = config_lines(model)
    assert lines[0] == "[all]", "the block must not inherit a [pi4]/[cm4] filter from above it"
    assert "dtparam=i2c_arm=on" in lines and "dtparam=i2c_arm_baudrate=400000" in lines
    overlays = {line.removeprefix("dtoverlay=") for line in lines if line.startswith("dtoverlay=")}
    assert overlays == {p.overlay for p in wd.READER_PORTS[model] if p.overlay}
    assert ("enable_uart=1" in lines) == (model == "pi4")
    assert not any(line.startswith(("dtparam=spi=on", "dtparam=uart0_console")) for line in lines)


UDEV_RULE = re.compile(
    r'^SUBSYSTEM=="tty", (?P<match>\S+=="[^"]+"), SYMLINK\+="(?P<name>gravebox-\w+)", GROUP="dialout", MODE="0660", ENV\{ID_MM_DEVICE_IGNORE\}="1"$'
)


@pytest.mark.parametrize("model", MODELS)
def test_udev_rules_name_each_reader_from_its_port(model: str) -> None:
    text = (REPO / f"systemd/udev/gravebox-{model}.rules").read_text()
    assert text.startswith("# gravebox: managed by install.sh"), "install.sh replaces only marked rules"
    rules = [line for line in text.splitlines() if line and not line.startswith("#")]
    parsed = [UDEV_RULE.match(line) for line in rules]
    assert all(parsed), rules
    names = {m["name"]: m["match"] for m in parsed if m}
    # Every reader device of the pin map gets its link, from the port the table says.
    assert {f"/dev/{name}" for name in names} == set(PINMAP.readers.values())
    for port in wd.READER_PORTS[model]:
        assert names[f"gravebox-{port.reader}"] == port.udev_match


def test_udev_ports_are_distinct_per_model() -> None:
    for model, ports in wd.READER_PORTS.items():
        assert len({p.udev_match for p in ports}) == len(ports), model
