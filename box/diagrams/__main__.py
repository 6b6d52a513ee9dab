"""`python -m box.diagrams`: write `wiring/wiring-<model>.svg` from the pin map, or `--check` them.

    python -m box.diagrams            # writes wiring/wiring-<model>.svg
    python -m box.diagrams --check    # exit 1 if a committed SVG is out of date
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from box.diagrams.netlist import MODELS, WIRING_DIR, svg_path
from box.diagrams.svg import render_svg
from box.storage.pinmap import DEFAULT_PINMAP, load_pinmap


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Draw the wiring diagram (SVG) for each Pi model from the pin map.")
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
        print("out of date (run python -m box.diagrams): " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
