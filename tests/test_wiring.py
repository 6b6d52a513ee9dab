"""The wiring diagrams, boot configuration and udev rules agree with the pin map and each other."""

from __future__ import annotations

import itertools
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from box.diagrams import netlist as wd
from box.diagrams.__main__ import main as draw_diagrams
from box.diagrams.svg import layout, render_svg
from box.storage.pinmap import DEFAULT_PINMAP, READER_UART_PINS, load_pinmap

REPO = Path(__file__).resolve().parent.parent
PINMAP = load_pinmap(DEFAULT_PINMAP)
MODELS = list(wd.MODELS)
SVG = "{http://www.w3.org/2000/svg}"


def svg_text(model: str) -> list[str]:
    root = ET.fromstring(wd.svg_path(model).read_text(encoding="utf-8"))
    return ["".join(element.itertext()) for element in root.iter(f"{SVG}text")]


@pytest.mark.parametrize("model", MODELS)
def test_committed_svg_is_up_to_date(model: str) -> None:
    assert wd.svg_path(model).read_text(encoding="utf-8") == render_svg(PINMAP, model), (
        "out of date: run python -m box.diagrams"
    )


def test_check_mode_reports_a_stale_svg(tmp_path: Path) -> None:
    assert draw_diagrams(["--out", str(tmp_path)]) == 0
    assert draw_diagrams(["--out", str(tmp_path), "--check"]) == 0
    stale = wd.svg_path("pi4", tmp_path)
    stale.write_text(stale.read_text().replace("button up", "button sideways"))
    assert draw_diagrams(["--out", str(tmp_path), "--check"]) == 1


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
    assert [i for i in ids if i and i.startswith("pin")] == [f"pin{n}" for n in range(1, 41)]


def groups(model: str) -> dict[str, ET.Element]:
    root = ET.fromstring(wd.svg_path(model).read_text(encoding="utf-8"))
    return {g.get("id", ""): g for g in root.iter(f"{SVG}g")}


def polyline(group: ET.Element) -> list[tuple[float, float]]:
    line = group.find(f"{SVG}polyline")
    assert line is not None
    return [tuple(map(float, point.split(","))) for point in (line.get("points") or "").split()]  # type: ignore[misc]


def terminal_points(group: ET.Element) -> set[tuple[float, float]]:
    """The centres of a part's terminal dots or of a header pin's shape."""
    points = {(float(c.get("cx", 0)), float(c.get("cy", 0))) for c in group.iter(f"{SVG}circle")}
    for r in group.iter(f"{SVG}rect"):  # pin 1 is square
        points.add(
            (float(r.get("x", 0)) + float(r.get("width", 0)) / 2, float(r.get("y", 0)) + float(r.get("height", 0)) / 2)
        )
    return points


@pytest.mark.parametrize("model", MODELS)
def test_every_part_and_every_wire_is_drawn_end_to_end(model: str) -> None:
    drawn = groups(model)
    for part in wd.parts(PINMAP, model):
        assert f"part-{part.id}" in drawn, part.id
    rails = {line.get("id"): float(line.get("y1", 0)) for line in drawn["bus"].iter(f"{SVG}line")}
    assert set(rails) == {f"rail-{name}" for name in wd.RAILS}
    wires = wd.netlist(PINMAP, model)
    assert len({w.id for w in wires}) == len(wires)
    for wire in wires:
        points = polyline(drawn[wire.id])
        for end, point in ((wire.a, points[0]), (wire.b, points[-1])):
            if end.startswith("rail:"):
                assert point[1] == rails[f"rail-{end[5:]}"], (wire.id, end)
            elif end.startswith("pin"):
                assert point in terminal_points(drawn[end]), (wire.id, end)
            else:
                assert point in terminal_points(drawn[f"part-{end.split(':')[0]}"]), (wire.id, end)
        # Straight runs only (the drawing is orthogonal): each step moves along one axis.
        assert all(a[0] == b[0] or a[1] == b[1] for a, b in itertools.pairwise(points)), wire.id


def nets(wires: list[wd.Wire]) -> dict[str, str]:
    """End -> a name for its net (ends joined by wires are one net)."""
    parent: dict[str, str] = {}

    def find(end: str) -> str:
        while parent.setdefault(end, end) != end:
            end = parent[end]
        return end

    for wire in wires:
        parent[find(wire.a)] = find(wire.b)
    return {end: find(end) for end in parent}


@pytest.mark.parametrize("model", MODELS)
def test_no_two_nets_share_a_stretch_of_line(model: str) -> None:
    placed = layout(PINMAP, model)
    net = nets(placed.wires)
    segments = []
    for wire in placed.wires:
        for a, b in itertools.pairwise(wire.points):
            segments.append((net[wire.a], a, b))
    for (net1, a1, b1), (net2, a2, b2) in itertools.combinations(segments, 2):
        if net1 == net2:
            continue
        for axis in (0, 1):  # same line (x equal for verticals, y for horizontals) and overlapping
            other = 1 - axis
            if a1[axis] == b1[axis] == a2[axis] == b2[axis]:
                lo1, hi1 = sorted((a1[other], b1[other]))
                lo2, hi2 = sorted((a2[other], b2[other]))
                assert min(hi1, hi2) <= max(lo1, lo2), (model, net1, net2, a1, b1, a2, b2)


@pytest.mark.parametrize("model", MODELS)
def test_the_netlist_wires_each_part_as_the_guide_says(model: str) -> None:
    wires = wd.netlist(PINMAP, model)
    pairs = {(w.a, w.b) for w in wires}
    net = nets(wires)
    for name, gpio in PINMAP.buttons.items():  # NO to the GPIO, COM to ground, NC free
        assert (f"pin{wd.PHYSICAL[gpio]}", f"{name}:NO") in pairs and (f"{name}:COM", "rail:GND") in pairs
        assert f"{name}:NC" not in net
    assert (f"pin{wd.PHYSICAL[PINMAP.buzzer.pin]}", "buzzer:+") in pairs
    # Power: the Pi's 3V3 feeds the OLED only; the readers have their own regulated rail.
    on_pi_3v3 = {
        end for end, root in net.items() if root == net["rail:3V3"] and ":" in end and not end.startswith("rail")
    }
    assert on_pi_3v3 == {"oled:VCC"}
    assert net["pin1"] == net["rail:3V3"] and net["pin2"] == net["rail:5V"] and net["pin6"] == net["rail:GND"]
    assert net["regulator:IN"] == net["rail:5V"] and net["regulator:OUT"] == net["rail:READERS"]
    for port in wd.READER_PORTS[model]:
        reader = f"reader-{port.reader}"
        assert net[f"{reader}:VCC"] == net["rail:READERS"] and net[f"{reader}:GND"] == net["rail:GND"]
        if port.tx is not None and port.rx is not None:  # crossed: the Pi's TX to the board's RXD
            assert net[f"{reader}:RXD"] == net[f"pin{wd.PHYSICAL[port.tx]}"]
            assert net[f"{reader}:TXD"] == net[f"pin{wd.PHYSICAL[port.rx]}"]
        else:
            assert net[f"{reader}:RXD"] == net[f"usb-{port.reader}:TXD"]
            assert net[f"{reader}:TXD"] == net[f"usb-{port.reader}:RXD"]
            assert net[f"usb-{port.reader}:GND"] == net["rail:GND"]
    # A way to power on again: the Pi 5's own button, else a wake button from GPIO3 to GND.
    assert (("pin5", "wake:NO") in pairs) == (model != "pi5")
    # Nothing at 5 V reaches a GPIO.
    gpio_pins = {f"pin{pin}" for pin, what in wd.HEADER.items() if isinstance(what, int)}
    assert not any(net.get(pin) == net["rail:5V"] for pin in gpio_pins)


def test_the_power_budget_says_why_the_readers_have_their_own_rail() -> None:
    low = 3 * wd.LOADS["reader"][0] + wd.LOADS["oled"][0]
    high = 3 * wd.LOADS["reader"][1] + wd.LOADS["oled"][1]
    assert high > 0.9 * wd.PI_3V3_RULE_OF_THUMB, "readers and OLED together crowd the Pi's 3V3"
    text = " ".join(wd.power_budget("pi4"))
    assert f"{low}–{high} mA" in text and "TXD to GND must read 3.3 V or less" in text
    drawn = " ".join(svg_text("pi4"))
    assert "Power budget." in drawn and f"{low}–{high} mA" in drawn


@pytest.mark.parametrize("model", ["pi5", "pi4"])
def test_reader_uart_pins_are_drawn_and_free_of_other_parts(model: str) -> None:
    texts = svg_text(model)
    used = {*PINMAP.buttons.values(), PINMAP.buzzer.pin, *wd.I2C1.values()}
    for port in wd.READER_PORTS[model]:
        assert port.tx is not None and port.rx is not None
        assert {port.tx, port.rx}.isdisjoint(used), port
        assert f"GPIO{port.tx}: {port.uart} TX → {port.reader} reader RXD" in texts
        assert f"GPIO{port.rx}: {port.uart} RX ← {port.reader} reader TXD" in texts
    # Same pairs, in reader order, as the pin map loader's check (box/storage/pinmap.py).
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
