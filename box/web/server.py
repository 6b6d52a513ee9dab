"""`gravebox web`: serve the phone page with uvicorn.

>>> parse_listen("0.0.0.0:8080")
('0.0.0.0', 8080)
>>> parse_listen("[::]:80")
('::', 80)
>>> parse_listen("box:99999")
Traceback (most recent call last):
...
ValueError: --listen: port 99999 is not 0..65535
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path
from typing import Any

from box.words import digits_value

DEFAULT_LISTEN = "0.0.0.0:8080"


# uvicorn as the page needs it: HTTP/1.1 on asyncio, server-sent events but no WebSocket, quiet logs
UVICORN_OPTIONS: dict[str, Any] = {
    "http": "h11",
    "loop": "asyncio",
    "ws": "none",
    "lifespan": "on",
    "access_log": False,
    "log_level": "warning",
}


def parse_listen(text: str) -> tuple[str, int]:
    """HOST:PORT (IPv6 in brackets) as a host and a port number; ValueError names what is wrong."""
    host, colon, digits = text.rpartition(":")
    port = digits_value(digits)
    if not colon or not host or port is None:
        raise ValueError(f"--listen: expected HOST:PORT, not {text!r}")
    if not 0 <= port <= 65535:  # 0: any free port (the URL is printed)
        raise ValueError(f"--listen: port {port} is not 0..65535")
    return host.removeprefix("[").removesuffix("]"), port


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--listen", help=f"address and port to serve on (default: the config's, else {DEFAULT_LISTEN})")
    parser.add_argument("--runtime-dir", type=Path, help="where the box's control socket is (default /run/gravebox, else $XDG_RUNTIME_DIR/gravebox)")


def main(args: argparse.Namespace) -> int:
    from box.links.control import socket_path
    from box.links.trust import Trust
    from box.storage.config import DEFAULT_CONFIG, load_config
    from box.storage.journal import state_directory

    config = load_config(args.config if args.config else DEFAULT_CONFIG)
    try:
        host, port = parse_listen(args.listen or config.web_listen or DEFAULT_LISTEN)
        control = socket_path(getattr(args, "runtime_dir", None))
        if control.parent.exists():  # else the box makes it; the page checks it at every connection
            Trust.here().check_folder(control.parent)
    except (ValueError, OSError) as problem:
        print(f"gravebox web: {problem}", file=sys.stderr)
        return 2
    import uvicorn

    from box.web.app import WebSettings, create_app

    settings = WebSettings(
        state_dir=args.state_dir or state_directory(),
        control=control,
        open_reading=config.web_open,
        hosts=config.web_hosts,
        decks_dir=args.decks or config.decks,
        settings_file=args.config or DEFAULT_CONFIG,
    )
    logging.getLogger("box").info("phone page on http://%s:%d/", host, port)
    uvicorn.run(create_app(settings), host=host, port=port, **UVICORN_OPTIONS, timeout_graceful_shutdown=2)
    return 0
