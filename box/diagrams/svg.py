"""The wiring diagram drawn: the 40-pin header, the parts with their named terminals, the power bus
strip and each wire of the netlist (box/diagrams/netlist.py) as its own coloured line, as SVG.

>>> from box.storage.pinmap import DEFAULT_PINMAP, load_pinmap
>>> render_svg(load_pinmap(DEFAULT_PINMAP), "pi4").startswith("<svg")
True
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from xml.sax.saxutils import escape

from box.diagrams.netlist import COLOURS, MODELS, RAILS, Part, Wire, connection_notes, netlist, parts, pin_roles
from box.storage.pinmap import PinMap

WIDTH = 1500
HEADER_TOP, ROW = 100, 22
LEFT_X, RIGHT_X = 700, 730  # the header's two pin columns
TRACKS_TOP = HEADER_TOP + 20 * ROW + 20
TRACK = 7
PART_W, PART_H, TERMINAL = 92, 64, 26


@dataclass
class Layout:
    """Where each part and terminal is drawn, and the routed wires."""

    boxes: dict[str, tuple[int, int, int, int]] = field(default_factory=dict)
    ends: dict[str, tuple[int, int]] = field(default_factory=dict)
    rails: dict[str, int] = field(default_factory=dict)
    rail_x: tuple[int, int] = (60, WIDTH - 20)
    wires: list[Wire] = field(default_factory=list)
    height: int = 0


def _place(layout: Layout, part: Part, x: int, y: int, width: int = PART_W) -> None:
    """Put a part's box at (x, y); its terminals every TERMINAL pixels ("" leaves a gap)."""
    layout.boxes[part.id] = (x, y, width, PART_H)
    for names, edge in ((part.top, y), (part.bottom, y + PART_H)):
        for index, name in enumerate(names):
            if name:
                layout.ends[f"{part.id}:{name}"] = (x + 14 + index * TERMINAL, edge)


def _pin_point(pin: int) -> tuple[int, int]:
    return (LEFT_X if pin % 2 else RIGHT_X, HEADER_TOP + (pin - 1) // 2 * ROW)


def layout(pinmap: PinMap, model: str) -> Layout:
    """Place the parts, the bus and the wires (deterministic)."""
    out = Layout()
    wires = netlist(pinmap, model)
    header_wires = [w for w in wires if w.a.startswith("pin") or w.a == "usb-port"]
    all_parts = {p.id: p for p in parts(pinmap, model)}
    row_y = TRACKS_TOP + TRACK * (len(header_wires) + 1) + 30
    x = 70
    for part in all_parts.values():
        if part.role in ("display", "button", "buzzer"):
            _place(out, part, x, row_y)
            x += PART_W + 14
    x += 20
    readers = [p for p in all_parts.values() if p.role == "reader"]
    readers_y = row_y
    if model == "zero2w":
        # Hub at the end of the first row; below it a row of adapters, each above its reader.
        _place(out, all_parts["hub"], x, row_y, width=120)
        out.ends["usb-port"] = (WIDTH - 60, HEADER_TOP)
        adapters_y = row_y + PART_H + 50
        readers_y = adapters_y + PART_H + 50
        for index, reader in enumerate(readers):
            _place(
                out, all_parts[f"usb-{reader.id.removeprefix('reader-')}"], x + index * (PART_W + 50), adapters_y, 126
            )
    for index, reader in enumerate(readers):
        _place(out, reader, x + index * (PART_W + 50), readers_y)
    bus_top = readers_y + PART_H + 40
    for index, rail in enumerate(RAILS):
        out.rails[rail] = bus_top + 16 + index * 22
    regulator_y = bus_top + 16 + len(RAILS) * 22 + 20
    _place(out, all_parts["regulator"], WIDTH - 20 - PART_W - 40, regulator_y, PART_W + 20)
    out.height = regulator_y + PART_H + 30

    # Header wires: out of the pin sideways to a lane of their own (lower pins nearer the header),
    # down to a track of their own below the header, along it to the part, down to the terminal.
    from_pins = [w for w in header_wires if w.a.startswith("pin")]
    left = sorted((w for w in from_pins if int(w.a[3:]) % 2), key=lambda w: -int(w.a[3:]))
    right = sorted((w for w in from_pins if not int(w.a[3:]) % 2), key=lambda w: -int(w.a[3:]))
    lane: dict[str, int] = {}
    for index, wire in enumerate(left):
        lane[wire.b] = LEFT_X - 40 - index * 8
    for index, wire in enumerate(right):
        lane[wire.b] = RIGHT_X + 40 + index * 8
    margin = {"rail:5V": 20, "rail:3V3": 30, "rail:GND": 40}
    for index, wire in enumerate(header_wires):
        track = TRACKS_TOP + TRACK * index
        if wire.a == "usb-port":
            start = out.ends["usb-port"]
            end = out.ends[wire.b]
            via: tuple[tuple[int, int], ...] = ((start[0], track), (end[0], track))
        elif wire.b.startswith("rail:"):
            start = _pin_point(int(wire.a[3:]))
            end = (out.rail_x[0], out.rails[wire.b[5:]])
            via = ((lane[wire.b], start[1]), (lane[wire.b], track), (margin[wire.b], track), (margin[wire.b], end[1]))
        else:
            start = _pin_point(int(wire.a[3:]))
            end = out.ends[wire.b]
            via = ((lane[wire.b], start[1]), (lane[wire.b], track), (end[0], track))
        out.wires.append(Wire(wire.a, wire.b, wire.role, (start, *via, end)))
    for wire in wires:
        if wire in header_wires:
            continue
        a = out.ends[wire.a]
        if wire.b.startswith("rail:"):
            out.wires.append(Wire(wire.a, wire.b, wire.role, (a, (a[0], out.rails[wire.b[5:]]))))
        elif wire.a.startswith("hub:"):
            b = out.ends[wire.b]
            mid = a[1] + 12 * int(wire.a[4:])
            out.wires.append(Wire(wire.a, wire.b, wire.role, (a, (a[0], mid), (b[0], mid), b)))
        else:
            out.wires.append(Wire(wire.a, wire.b, wire.role, (a, out.ends[wire.b])))
    return out


def _text(x: int, y: int, text: str, **attributes: str) -> str:
    extra = "".join(f' {key.replace("_", "-")}="{value}"' for key, value in attributes.items())
    return f'<text x="{x}" y="{y}"{extra}>{escape(text)}</text>'


def render_svg(pinmap: PinMap, model: str) -> str:
    """The wiring diagram of one model as SVG text (deterministic: same input, same bytes)."""
    roles = pin_roles(pinmap, model)
    placed = layout(pinmap, model)
    all_parts = {p.id: p for p in parts(pinmap, model)}
    notes = [
        line
        for note in connection_notes(pinmap, model)
        for line in textwrap.wrap(note, width=150, subsequent_indent="    ")
    ]
    notes_y = placed.height + 10
    height = notes_y + 20 * len(notes) + 20
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
        f'viewBox="0 0 {WIDTH} {height}" font-family="DejaVu Sans, Arial, sans-serif" font-size="12">',
        f'<rect width="{WIDTH}" height="{height}" fill="#ffffff"/>',
        _text(20, 30, f"Gravebox wiring: {MODELS[model]}", font_size="20", font_weight="bold"),
        _text(
            20,
            52,
            "Every part and every wire. The 40-pin header seen from above (odd pins left); parts below it, "
            "the power bus strip at the bottom (generated from wiring/pinmap.toml by box/diagrams/netlist.py)",
            fill="#555555",
        ),
        f'<rect x="{LEFT_X - 14}" y="{HEADER_TOP - 14}" width="{RIGHT_X - LEFT_X + 28}" height="{20 * ROW + 6}" '
        'rx="5" fill="#1d1d1d"/>',
    ]
    if model == "zero2w":
        ux, uy = placed.ends["usb-port"]
        out.append(
            f'<g id="part-usb-port"><rect x="{ux - 40}" y="{uy - 24}" width="80" height="24" rx="3" fill="#555555"/>'
        )
        out.append(_text(ux, uy - 8, "Zero USB data", font_size="10", text_anchor="middle", fill="#ffffff"))
        out.append(f'<circle cx="{ux}" cy="{uy}" r="3" fill="{COLOURS["usb"]}"/></g>')
    for pin in range(1, 41):
        role, label = roles[pin]
        x, y = _pin_point(pin)
        colour = COLOURS[role]
        shape = (
            f'<rect x="{x - 8}" y="{y - 8}" width="16" height="16" fill="{colour}" stroke="#ffffff"/>'
            if pin == 1
            else f'<circle cx="{x}" cy="{y}" r="8" fill="{colour}" stroke="#ffffff"/>'
        )
        out.append(f'<g id="pin{pin}">{shape}')
        out.append(_text(x, y + 3, str(pin), font_size="8", text_anchor="middle", fill="#ffffff"))
        # Labels sit beyond the lanes: odd pins far left, even pins far right.
        text_x, anchor = (LEFT_X - 150, "end") if pin % 2 else (RIGHT_X + 150, "start")
        weight = {} if role in ("free", "GND") else {"font_weight": "bold"}
        fill = "#888888" if role == "free" else colour
        out.append(_text(text_x, y + 4, label, text_anchor=anchor, fill=fill, **weight) + "</g>")
    # The bus strip.
    bx0, bx1 = placed.rail_x
    top = min(placed.rails.values()) - 16
    out.append(
        f'<g id="bus"><rect x="{bx0 - 6}" y="{top}" width="{bx1 - bx0 + 12}" height="{len(RAILS) * 22 + 10}" '
        'rx="4" fill="#f4f1ea" stroke="#999999"/>'
    )
    for rail, y in placed.rails.items():
        out.append(
            f'<line id="rail-{rail}" x1="{bx0}" y1="{y}" x2="{bx1}" y2="{y}" stroke="{COLOURS[rail]}" stroke-width="4"/>'
        )
        out.append(_text(bx0 + 6, y - 4, f"{rail}: {RAILS[rail]}", font_size="10", fill=COLOURS[rail]))
    out.append("</g>")
    # Parts.
    for part_id, (x, y, w, h) in placed.boxes.items():
        part = all_parts[part_id]
        colour = COLOURS[part.role]
        out.append(
            f'<g id="part-{part_id}"><rect x="{x}" y="{y}" width="{w}" height="{h}" rx="4" fill="#ffffff" stroke="{colour}" stroke-width="2"/>'
        )
        out.append(_text(x + w // 2, y + 28, part.title, text_anchor="middle", font_weight="bold", fill=colour))
        out.append(_text(x + w // 2, y + 42, part.note, text_anchor="middle", font_size="9", fill="#555555"))
        for names, edge, dy in ((part.top, y, 12), (part.bottom, y + h, -5)):
            for name in filter(None, names):
                tx, _ = placed.ends[f"{part_id}:{name}"]
                out.append(f'<circle cx="{tx}" cy="{edge}" r="3" fill="{colour}"/>')
                out.append(_text(tx, edge + dy, name, font_size="9", text_anchor="middle"))
        out.append("</g>")
    # Wires, each a polyline with a dot where it meets a rail.
    for wire in placed.wires:
        points = " ".join(f"{x},{y}" for x, y in wire.points)
        width = "3" if wire.role == "usb" else "1.6"
        out.append(
            f'<g id="{wire.id}"><polyline points="{points}" fill="none" stroke="{COLOURS[wire.role]}" stroke-width="{width}"/>'
        )
        if wire.b.startswith("rail:"):
            ex, ey = wire.points[-1]
            out.append(f'<circle cx="{ex}" cy="{ey}" r="3.5" fill="{COLOURS[wire.b[5:]]}"/>')
        out.append("</g>")
    # Rail names last, on a halo, so that no wire hides them.
    for rail, y in placed.rails.items():
        halo = {"stroke": "#f4f1ea", "stroke_width": "4", "paint_order": "stroke"}
        out.append(_text(bx0 + 6, y - 4, f"{rail}: {RAILS[rail]}", font_size="10", fill=COLOURS[rail], **halo))
    for index, note in enumerate(notes):
        out.append(_text(20, notes_y + 20 * index, note, **{"xml:space": "preserve"}))
    out.append("</svg>")
    return "\n".join(out) + "\n"
