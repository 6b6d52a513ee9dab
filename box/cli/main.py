"""The `gravebox` command. Imports stay inside the commands so `--help` is fast.

gravebox                 start the box (the simulator where there is no Pi)
gravebox run [--fake]    start the box on its hardware (or, told to, on fakes)
gravebox sim [--script FILE] ...   the simulator: a terminal, or a script on virtual time
gravebox web [--listen HOST:PORT]  the phone page beside the box
gravebox mqtt [--mqtt HOST:PORT]   the box's events to an MQTT broker, beside the box
gravebox hotspot         the box's own Wi-Fi when it knows none, beside the box
gravebox print GAME|board -o FILE.pdf  cards or the board to print and play
gravebox backup -o FILE  the whole box in one file; gravebox restore FILE puts it back
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Callable
from pathlib import Path

TYPE_CHECKING = False  # typing's flag without importing typing at every start: mypy reads it as True
if TYPE_CHECKING:  # for the annotations only: the commands import what they use

    from box.base.settings import Settings
    from box.links.control import ControlServer
    from box.links.mqtt import MqttChild
    from box.sim.script import ScriptRunner
    from box.sim.world import SimulatedBox
    from box.storage.config import Config, MqttConfig
    from box.web.thread import Beside

EXIT_BAD_FILE = 2


SUMMARIES = {
    "run": "start the box (the simulator where there is no Pi)",
    "sim": "the simulator: play in the terminal, or run a script",
    "selftest": "check every part of the box",
    "enroll": "teach the box which tag is which card",
    "web": "serve the phone page (scores, history, cards)",
    "mqtt": "publish the box's events to an MQTT broker (docs/mqtt.md)",
    "hotspot": "the box's own Wi-Fi when it has no network (docs/install.md)",
    "print": "print a game's cards or the board as PDF, to play without buying a deck",
    "backup": "write the whole box (games, roster, tags, history, settings, decks) to one file",
    "restore": "put a backup back (the box stopped): what it replaces is kept",
}
COMMANDS = tuple(SUMMARIES)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The command line; only `command`, the subcommand given, gets its options (building every
    subcommand's would cost each start ~1 ms; `gravebox --help` lists them all without)."""
    parser = argparse.ArgumentParser(
        prog="gravebox",
        description="Gravebox: a game box for four party games about death. Without a command: run.",
    )
    commands = parser.add_subparsers(dest="command")
    for name, summary in SUMMARIES.items():
        subcommand = commands.add_parser(name, help=summary)
        if name == command:
            add_options(subcommand, name)
    return parser


def add_options(parser: argparse.ArgumentParser, command: str) -> None:
    """The options every subcommand takes, then `command`'s own."""
    parser.add_argument("--config", type=Path, help="settings file (default /etc/gravebox/config.toml)")
    parser.add_argument("--state-dir", type=Path, help="where the journal and the tag map live")
    parser.add_argument("--decks", type=Path, help="folder of <game>.csv files replacing the built-in decks")
    parser.add_argument("--verbose", "-v", action="store_true", help="log more")
    if command == "run":
        parser.add_argument("--fake", action="store_true", help="run on simulated parts even on a Pi")
        parser.add_argument("--pinmap", type=Path, help="pin map file (default wiring/pinmap.toml)")
        parser.add_argument("--mqtt", metavar="HOST:PORT",
                            help="publish the events to this MQTT broker: starts `gravebox mqtt` beside the box")
    elif command == "sim":
        parser.add_argument("--script", type=Path, help="play this script of physical inputs on virtual time")
        parser.add_argument("--state-out", type=Path, help="write the final state dump as JSON")
        parser.add_argument("--frames", type=Path, help="save every distinct frame as PNG in this folder")
        parser.add_argument("--seed", type=int, help="seed the dice (otherwise the OS's random source)")
        parser.add_argument("--web", metavar="HOST:PORT", help="serve the phone page beside the simulator")
        parser.add_argument("--mqtt", metavar="HOST:PORT",
                            help="publish the events to this MQTT broker: starts `gravebox mqtt` beside the box")
    elif command == "mqtt":
        parser.add_argument("--mqtt", metavar="HOST:PORT", help="this broker, over the settings' [mqtt] host and port")
        parser.add_argument("--socket", type=Path, help="the box's control socket (default: the service's)")
        parser.add_argument("--acks", action="store_true", help=argparse.SUPPRESS)  # for a box on virtual time
    elif command == "hotspot":
        parser.add_argument("--socket", type=Path, help="the box's control socket (default: the service's)")
    elif command == "selftest":  # these three's options come with their modules: imported only when used
        from box.cli.selftest import add_arguments

        add_arguments(parser)
    elif command == "enroll":
        from box.cli.enroll import add_arguments

        add_arguments(parser)
    elif command == "web":
        from box.web.server import add_arguments

        add_arguments(parser)
    elif command == "print":
        from box.cli.print import add_arguments

        add_arguments(parser)
    elif command == "backup":
        from box.cli.backup import add_backup_arguments

        add_backup_arguments(parser)
    elif command == "restore":
        from box.cli.backup import add_restore_arguments

        add_restore_arguments(parser)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or (argv[0] not in COMMANDS and argv[0] not in ("-h", "--help")):
        argv = ["run", *argv]
    args = build_parser(argv[0]).parse_args(argv)
    quiet = (args.command == "sim" and getattr(args, "script", None) is not None) or getattr(args, "acks", False)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.WARNING if quiet else logging.INFO,
        format="%(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    from box.errors import FileProblem
    from box.storage.journal import StorageError

    try:
        if args.command == "sim":
            return simulate(args)
        if args.command == "selftest":
            from box.cli.selftest import main as selftest

            return selftest(args)
        if args.command == "enroll":
            from box.cli.enroll import main as enrol

            return enrol(args)
        if args.command == "web":
            from box.web.server import main as web

            return web(args)
        if args.command == "print":
            from box.cli.print import main as print_pdf

            return print_pdf(args)
        if args.command in ("backup", "restore"):
            from box.cli import backup

            return backup.backup(args) if args.command == "backup" else backup.restore(args)
        if args.command == "mqtt":
            return publish_mqtt(args)
        if args.command == "hotspot":
            from box.cli.hotspot import main as hotspot

            return hotspot(args)
        return run(args)
    except FileProblem as problem:
        print(f"gravebox: {problem}", file=sys.stderr)
        return EXIT_BAD_FILE
    except StorageError as problem:  # not the file's fault: a later start may work
        print(f"gravebox: {problem}", file=sys.stderr)
        return 1


def settings_from(args: argparse.Namespace) -> tuple[Config, Settings]:
    from box.base.settings import Settings
    from box.decks.codec import check_decks_folder
    from box.parts.phone import page_address
    from box.storage.config import DEFAULT_CONFIG, load_config

    config = load_config(args.config if args.config else DEFAULT_CONFIG)
    decks = check_decks_folder(args.decks, field="--decks") if args.decks else config.decks
    page = page_address(config.web_listen, config.web_hosts)  # shown by the box menu's *Phone page*
    file = args.config or DEFAULT_CONFIG  # a backup to a stick takes it
    return config, Settings(names=config.names, decks_dir=decks, contrast=config.contrast, page=page, config_file=file,
                            own_wifi=config.hotspot_enabled)


def mqtt_from(args: argparse.Namespace, config: Config) -> MqttConfig | None:
    """The broker the events go to: `--mqtt HOST:PORT` (over the settings' [mqtt]), else the settings'."""
    from box.errors import FileProblem
    from box.storage.config import mqtt_broker

    address = getattr(args, "mqtt", None)
    if address is None:
        return config.mqtt
    try:
        return mqtt_broker(address, config.mqtt)
    except ValueError as problem:
        raise FileProblem("--mqtt", str(problem).removeprefix("--mqtt: ")) from None


def publish_mqtt(args: argparse.Namespace) -> int:
    """`gravebox mqtt`: follow the box's control socket, publish its events (box/links/mqtt/)."""
    from box.links.control import socket_path
    from box.links.mqtt import main as publish
    from box.storage.config import DEFAULT_CONFIG, load_config

    settings = mqtt_from(args, load_config(args.config if args.config else DEFAULT_CONFIG, secrets=True))
    if settings is None:
        print("gravebox: mqtt: no broker: the settings have no [mqtt] table and no --mqtt HOST:PORT was given",
              file=sys.stderr)
        return EXIT_BAD_FILE
    return publish(settings, args.socket or socket_path(), acks=sys.stdout if args.acks else None)


def mqtt_child(args: argparse.Namespace, path: Path, acks: bool = False) -> MqttChild:
    """`gravebox mqtt` started beside this box on its control socket `path`, with this command's
    settings file and `--mqtt`."""
    from box.links.mqtt import MqttChild

    options = ["--config", str(args.config)] if args.config else []
    options += ["--mqtt", args.mqtt] if getattr(args, "mqtt", None) else []
    return MqttChild(path, options, acks=acks)


def writable_outputs(args: argparse.Namespace) -> None:
    """`--state-out` and `--frames` must be writable before a script runs, not found unwritable after."""
    from box.errors import FileProblem

    state_out, frames = getattr(args, "state_out", None), getattr(args, "frames", None)
    if state_out is not None:
        folder = state_out.parent
        if state_out.is_dir() or not folder.is_dir() or not os.access(folder, os.W_OK):
            raise FileProblem(state_out, "cannot write the state dump there", field="--state-out")
    if frames is not None:
        try:
            frames.mkdir(parents=True, exist_ok=True)
        except OSError as problem:
            message = f"cannot save frames there: {problem.strerror or problem}"
            raise FileProblem(frames, message, field="--frames") from None
        if not os.access(frames, os.W_OK):
            raise FileProblem(frames, "cannot save frames there: not writable", field="--frames")


def run(args: argparse.Namespace) -> int:
    """Start the box: real parts on a Pi, the terminal simulator elsewhere; simulated parts where
    told so (`--fake`, or `hardware = "simulated"` in the settings: never by itself)."""
    from box.cli.service import configured_hardware, not_a_pi, under_systemd
    from box.core.hardware import is_raspberry_pi

    hardware = configured_hardware(args)
    fake = getattr(args, "fake", False) or hardware == "simulated"
    if hardware == "simulated":
        logging.getLogger("gravebox").warning('hardware = "simulated" in the settings: running on simulated parts')
    if not fake and not is_raspberry_pi():
        if under_systemd():
            if hardware is None:  # the settings cannot be read: their fault screen says why
                return run_box(args, simulated=True)
            return not_a_pi()
        print("gravebox: this is not a Raspberry Pi: starting the simulator (gravebox sim)", file=sys.stderr)
        args.script = None
        return simulate(args)
    return run_box(args, simulated=fake)


def run_box(args: argparse.Namespace, simulated: bool) -> int:
    import gc
    import threading
    import time

    from box.cli.service import (
        default_pinmap,
        fault_display_wiring,
        install_signal_handlers,
        power_off,
        serve_control,
        under_systemd,
    )

    gc.disable()  # until the box is up: see the freeze below
    try:
        from box.core.app import assemble
        from box.core.fault import open_fault_display, stay_up_showing
        from box.core.hardware import HardwareError
        from box.errors import FileProblem
        from box.parts.notices import panel_reason
        from box.storage.journal import StorageError, enter_state_directory, state_directory
        from box.storage.pinmap import load_pinmap

        stop = threading.Event()
        wake: list[Callable[[], None]] = []  # the loop's wake-up, once there is a loop
        install_signal_handlers(stop, wake=lambda: [call() for call in wake])
        while True:
            pinmap = None
            try:
                config, settings = settings_from(args)
                pinmap = load_pinmap(getattr(args, "pinmap", None) or config.pinmap or default_pinmap())
                state_dir = enter_state_directory(args.state_dir or state_directory(simulated=simulated))
                app = assemble(pinmap, time.monotonic, settings, state_dir, simulated, mqtt=mqtt_from(args, config))
                break
            except HardwareError as problem:
                print(f"gravebox: {problem}", file=sys.stderr)
                return 1
            except (FileProblem, StorageError) as problem:
                if not under_systemd():
                    raise  # the command line: one line, exit status 2 (a bad file) or 1 (the storage)
                # The service: a restart cannot mend this; say it on the panel and stay up until stopped
                # (the log's one line: `stay_up_showing`'s "cannot start: ...", the file by its whole path).
                gc.enable()
                display = open_fault_display(fault_display_wiring(pinmap), simulated)
                may_pass = (lambda: True) if isinstance(problem, StorageError) else None  # the storage: try again
                if not stay_up_showing(panel_reason(problem), stop, display, retry=may_pass, said=str(problem)):
                    return 0
        # A start makes ~30,000 objects (modules, classes, the parts) that live as long as the box:
        # the ~70 collections a start would run walk them for nothing (~4 ms here), and frozen they
        # are skipped by every later full collection (6 ms each here without, 0.1 ms with).
        gc.freeze()
    finally:
        gc.enable()
    control = serve_control(app)
    wake.append(lambda: app.inbox.put(None))
    beside = mqtt_child(args, control.path).start() if control is not None and getattr(args, "mqtt", None) else None
    try:
        app.loop.run(stop, on_power_off=power_off)
    finally:
        if beside is not None:
            beside.stop()
        if control is not None:
            control.stop()
        app.close()
    return 0


def simulate(args: argparse.Namespace) -> int:
    """`gravebox sim`: a script on virtual time, or the terminal simulator; `--web`: the page beside."""
    config, settings = settings_from(args)
    mqtt = mqtt_from(args, config)
    beside = None
    if getattr(args, "web", None):
        from box.web.thread import Beside

        try:
            beside = Beside.parse(args.web)
        except ValueError as problem:
            print(f"gravebox: {problem}", file=sys.stderr)
            return EXIT_BAD_FILE
    try:
        return simulate_with(args, settings, beside, mqtt)
    finally:
        if beside is not None:
            beside.stop()


def page_of(beside: Beside | None) -> str:
    """What the simulator says of the phone page: the address a phone types, or how to serve it.

    >>> page_of(None)
    'off (gravebox sim --web 0.0.0.0:8080 serves it)'
    """
    if beside is None:
        return "off (gravebox sim --web 0.0.0.0:8080 serves it)"
    from urllib.parse import urlsplit

    from box.parts.phone import page_address

    url = urlsplit(beside.url)
    return page_address(f"[{url.hostname}]:{url.port}")


def simulate_with(args: argparse.Namespace, settings: Settings, beside: Beside | None, mqtt: MqttConfig | None) -> int:
    import tempfile

    if getattr(args, "script", None) is None:
        if not (sys.stdin.isatty() and sys.stdout.isatty()):
            print(
                "gravebox: the simulator needs a terminal; without one, play a script"
                " (gravebox sim --script FILE) or run the box on fakes (gravebox run --fake)",
                file=sys.stderr,
            )
            return 1
        from box.links.control import ControlServer
        from box.sim.terminal import play_in_terminal

        state_dir = args.state_dir or Path.home() / ".local" / "state" / "gravebox-sim"
        with tempfile.TemporaryDirectory(prefix="gravebox-sim-run-") as run:
            if beside is not None:
                server = beside.start(state_dir, settings.decks_dir)
            else:  # a control socket all the same: `gravebox mqtt --socket PATH` may follow it
                server = ControlServer(Path(run) / "control.sock", lambda command: None)
                try:
                    server.start()
                except OSError as problem:
                    print(f"gravebox: no control socket for the simulator: {problem}", file=sys.stderr)
                    return 1
            print(f"gravebox: the simulator's control socket is {server.path}", file=sys.stderr)
            page = page_of(beside)  # said on the terminal's first line
            settings.page = page if beside is not None else settings.page  # and on the box menu's *Phone page*
            try:
                seed = getattr(args, "seed", None)
                return play_in_terminal(state_dir, settings, seed=seed, control=server, page=page)
            finally:
                if beside is None:
                    server.stop()

    from box.sim.script import ScriptError, run_script

    writable_outputs(args)
    with tempfile.TemporaryDirectory(prefix="gravebox-sim-") as scratch:
        state_dir = args.state_dir or Path(scratch)
        control = beside.start(state_dir, settings.decks_dir) if beside is not None else None
        child = None
        if mqtt is not None:  # `gravebox mqtt` beside the simulated box, on its control socket
            control, child = mqtt_beside(args, control, Path(scratch) / "run")
            if child is None:
                return 1
        try:
            world, runner = run_script(args.script, state_dir, settings.decks_dir, args.seed, args.frames, control, mqtt)
            if child is not None and control is not None and not taken_by(child, world, control):
                print("gravebox: the MQTT process did not take the box's last state in time", file=sys.stderr)
        except ScriptError as problem:
            print(f"gravebox: {problem}", file=sys.stderr)
            return 1
        finally:
            if child is not None:  # the script ended either way: the MQTT process says goodbye
                line = child.stop()
                if beside is None and control is not None:
                    control.stop()
        try:
            said = (line or "MQTT: the MQTT process said nothing") if child is not None else None
            report(args, world, runner, said, beside)
        finally:
            world.end()  # the box closed and its subscribers done before the folder goes
            if beside is not None:
                beside.stop()  # the page reads the folder too
    return 0


def report(
    args: argparse.Namespace, world: SimulatedBox, runner: ScriptRunner, mqtt_line: str | None, beside: Beside | None
) -> None:
    """A passed script: the state dump written (`--state-out`), the one line said."""
    import json

    from box.errors import FileProblem

    dump = world.dump()
    if args.state_out:
        try:
            args.state_out.write_text(json.dumps(dump, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        except OSError as problem:
            raise FileProblem(args.state_out, f"cannot write it: {problem.strerror or problem}") from None
    print(
        f"{args.script}: ok, {runner.expects} expects passed, {world.now:.1f} s of virtual time,"
        f" {world.pushes} frames pushed"
    )
    if mqtt_line is not None:
        print(mqtt_line)
    if beside is not None:
        beside.wait(f"the phone page shows the final state on {beside.url}")


def mqtt_beside(
    args: argparse.Namespace, control: ControlServer | None, folder: Path
) -> tuple[ControlServer | None, MqttChild | None]:
    """A scripted simulation's `--mqtt`: the MQTT process on the simulator's control socket (a new
    one that waits for it, unless the page's is there); no child when it cannot follow (said)."""
    from box.links.mqtt import PacedControl

    child = mqtt_child(args, control.path if control is not None else folder / "control.sock", acks=True)
    paced = None
    if control is None:
        control = paced = PacedControl(child.path, child)
        paced.start()
    child.start()
    if not child.wait_subscribed():
        print("gravebox: the MQTT process (gravebox mqtt) did not reach the simulator", file=sys.stderr)
        child.stop()
        if paced is not None:
            paced.stop()
        return control, None
    return control, child


def taken_by(child: MqttChild, world: SimulatedBox, control: ControlServer) -> bool:
    """Wait (bounded) until the MQTT child has taken the simulated box's last state dump on
    `control`, with its newest events: its state is the publisher's, which says it before goodbye."""
    world.bus.flush()
    world.advance(0.0)  # a last pass: the state dump with the newest events
    return child.wait_taken(control.latest)

if __name__ == "__main__":
    sys.exit(main())
