"""``gravebox`` with its readers on given serial devices, for bench/idle.py: ``idle_box.py PATHS_JSON run --fake ...``.

``--fake`` opens simulated parts, readers included (``pn532sim://``, in this process); here each
reader is opened on the device named for it in ``PATHS_JSON`` instead (the ptys of
``box.ports.nfc.simpty``, served by another process), so the driver makes the system calls it makes
on a Pi's UART. Everything else is ``gravebox`` as shipped: the composition root
(``box.core.app.assemble``) opens the parts through the wrapped ``open_parts``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import box.core.app
from box.cli.main import main
from box.ports.nfc.reader import Pn532Reader


def readers_on(paths: dict[str, str]) -> None:
    """Make ``assemble``'s ``open_parts`` open each reader on ``paths[name]``."""
    open_parts = box.core.app.open_parts

    def with_readers(*args, **kwargs):  # type: ignore[no-untyped-def]
        parts = open_parts(*args, **kwargs)
        parts.make_readers = lambda: {name: Pn532Reader(name, paths[name]) for name in parts.pinmap.readers}
        return parts

    box.core.app.open_parts = with_readers


if __name__ == "__main__":
    readers_on(json.loads(sys.argv[1]))
    sys.exit(main(sys.argv[2:]))
