"""`gravebox run` as a service: what the box needs from the system around it (systemd's
notifications and signals, the control socket, logind's power-off) and what it says when it
cannot run on this machine at all.
"""

from __future__ import annotations

import importlib
import logging
import os
from collections.abc import Callable
from pathlib import Path

TYPE_CHECKING = False  # typing's flag without importing typing at every start: mypy reads it as True
if TYPE_CHECKING:  # for the annotations only
    import argparse
    import threading

    from box.core.app import App
    from box.links.control import ControlServer
    from box.storage.pinmap import DisplayWiring, PinMap


NOT_A_PI = (
    'not a Raspberry Pi: to run this box on simulated parts, set hardware = "simulated"'
    " under [box] in /etc/gravebox/config.toml, then restart it"
)


def configured_hardware(args: argparse.Namespace) -> str | None:
    """The settings' `hardware` ("pi", "simulated"); None when the settings cannot be read."""
    from box.errors import FileProblem
    from box.storage.config import DEFAULT_CONFIG, load_config

    try:
        return load_config(args.config if args.config else DEFAULT_CONFIG).hardware
    except FileProblem:
        return None


def not_a_pi() -> int:
    """The service on a machine without a Pi's parts and not told to fake them: said once (the log,
    `systemctl status`), READY and the watchdog until stopped: no restart loop."""
    import threading

    from box.core.fault import stay_up_showing

    stop = threading.Event()
    install_signal_handlers(stop, wake=lambda: None)
    stay_up_showing(NOT_A_PI, stop, None)  # its one line in the log
    return 0


def serve_control(app: App, directory: Path | None = None) -> ControlServer | None:
    """The phone page's socket (box/links/control.py); without a runtime folder the box runs on without it."""
    from box.links.control import REPLY_WAIT, ControlServer, socket_path

    try:
        control = ControlServer(socket_path(directory), app.inbox.put, wait=REPLY_WAIT)
        control.start()
    except OSError as problem:  # no safe folder for it (box/links/trust.py): said in one line
        logging.getLogger("gravebox").warning("no phone page: %s", problem)
        return None
    app.loop.attach_control(control)
    return control


def under_systemd() -> bool:
    """Started by systemd (the service), not from a shell."""
    return bool(os.environ.get("NOTIFY_SOCKET") or os.environ.get("INVOCATION_ID"))


def fault_display_wiring(pinmap: PinMap | None) -> DisplayWiring | None:
    """Where the panel is when the box cannot start: the pin map's, else the box's own pin map's."""
    from box.errors import FileProblem
    from box.storage.pinmap import load_pinmap

    if pinmap is not None:
        return pinmap.display
    try:
        return load_pinmap(default_pinmap()).display
    except FileProblem:
        return None


def default_pinmap() -> Path:
    from box.storage.pinmap import default_pinmap_path

    return default_pinmap_path()


def install_signal_handlers(stop: threading.Event, wake: Callable[[], object]) -> None:
    """SIGTERM (systemd's stop) and SIGINT end the loop at once: set `stop`, then wake the loop."""
    import signal

    def handle(*_: object) -> None:
        stop.set()
        wake()

    for number in (signal.SIGTERM, signal.SIGINT):
        signal.signal(number, handle)


def power_off() -> None:
    """Ask logind to power off (allowed for the gravebox user by the polkit rule)."""
    import subprocess

    command = ["systemctl", "--no-ask-password", "poweroff"]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        logging.getLogger("gravebox").error("power off failed: %s", result.stderr.strip())


def keep_class_code() -> None:
    """Compile the methods of every dataclass the box and its games define, and keep them beside the
    byte code (box/files/classcode.py): install.sh runs this as root, once pip has installed the box
    where its services cannot write."""
    import box

    box.CLASS_CODE.forget()  # this version's classes only: an earlier one's are not kept
    import box.core.app  # the box's modules, as a start imports them
    import box.core.hardware
    from box.games import GAMES, rules_for

    for game in GAMES:
        rules_for(game)
    for service in ("box.links.mqtt.bridge", "box.web.server", "box.web.app"):  # `gravebox mqtt`'s and `web`'s
        try:
            importlib.import_module(service)
        except ModuleNotFoundError as missing:  # its extra not installed: it cannot start either
            if (missing.name or "box").split(".")[0] == "box":
                raise
    box.CLASS_CODE.save()
