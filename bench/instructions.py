"""Instruction counts of the hot paths (valgrind's callgrind), and what they project to on a Zero 2 W.

Time on a shared machine varies up to 2x from run to run; the instructions a piece of work
executes hardly do. Each figure is counted by running a small scenario under
``valgrind --tool=callgrind`` twice, with 0 and with N repetitions of the work, and dividing the
difference by N (the set-up cancels out); start-up is counted whole (exec to READY's first frame).
The inputs, the undos and the actions are counted alone (below): the simulator's work around
them would otherwise be most of the count, or its noise.
Every thread counts: the loop's, and the pusher's packing and sending to the panel (the paged
driver over luma's ``noop`` interface: the bus's time is not CPU).

The projection to a Zero 2 W (a Cortex-A53 at 1 GHz) assumes CPython runs there at 0.6 to 0.8
instructions a cycle (an assumption, not a measurement: check it on a Pi, docs/performance.md):
``ms = instructions / (IPC * 1e6)``. An input's figure (``zero2w_total_ms``) adds, from what the
counted inputs actually sent: its frame's bytes on the 400 kHz bus (the worst input's), a tap's
bytes on the reader's serial line at the rate its driver set (the worst tap's), and one fsync of
the journal's commit on the SD card (SD_FSYNC_MS, an assumption: ``--fsync-ms`` takes a Pi's
measured figure); an undo adds the fsync.

Scenarios (a ``SimulatedBox`` on virtual time, Deck of Death):

- ``press``: a press the game journals (DOWN or UP in the Immunity picker: the cursor moves), its
  own path only (`Press`): from the button's release, the edge it counts on, to its frame sent;
- ``tap``: an Immunity card laid on a reader, its own path only (`Tap`): the PN532 driver's scan
  and NDEF read, the loop's handling, the render and the packing and sending of the picker it
  opens. Counted alone: callgrind collects inside ``operator.call`` only (``--toggle-collect``),
  with the simulated chip's own work hidden; the lift and the BACK between taps are not counted,
  nor the first tap (it imports the tag I/O, once a run, and reads the tag's record: the taps
  counted are of a tag the readers know, whose record is not read again, box/ports/nfc/reader.py);
- ``press_followed``, ``tap_followed``: the same with the control socket served and followed as
  with pages open on phones and MQTT on: two subscribers (the phone page's process, whatever the
  number of phones, and the MQTT process). Counted: the events kept for them, the loop's state
  dump and its line, and the socket's sending of the line to each (on the socket's threads); not
  counted: the followers (other processes on a box) and the kernel's work;
- ``undo``: the last action taken back at the end of a 40,000-action game (``bench/journals.py``),
  from the last action before a checkpoint down (the states after the base are kept: none is
  replayed), and ``undo_checkpoint``: the one that crosses a checkpoint (loads the one before and
  replays the K - 1 actions after it), counted once; both as the box menu's undo does it
  (``Box.undo``: the label read, the session's undo and its commit, the notice, the events
  published), counted alone, as the tap; the render of the screen after it is not counted;
- ``idle_second``: a second of the box with nothing happening;
- ``history_page``: the phone page's ``/history`` (``gravebox web``'s app, asked in process) over
  1,000 finished games and a 40,000-action game in play (``bench/history_scale.py``'s journal),
  its read model built, the page asked once before the count (imports, templates);
- ``ready_fresh``, ``ready_long_game``: ``python`` started to the first frame of a box put
  together as ``gravebox run --fake`` does (``bench/startup_phases.py``), new journal or the long game.

Needs Debian's ``valgrind`` (``apt-get install -y valgrind``); without it the bench says so and
skips. Run from the repository root: ``python bench/instructions.py [--quick]`` (about 6 minutes, half
of it the history page).
"""

from __future__ import annotations

import argparse
import functools
import json
import operator
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchlib import ROOT, as_installed, emit

BENCH = Path(__file__).resolve().parent
IPC = (0.6, 0.8)  # CPython's instructions per cycle on a Cortex-A53 (assumed)
CLOCK_GHZ = 1.0  # the Zero 2 W's cores
# Goals on a Zero 2 W, in ms (idle: % of a core). The bus time is added for the inputs.
GOALS = {"press": 30.0, "tap": 30.0, "press_followed": 30.0, "tap_followed": 30.0, "undo": 20.0, "undo_checkpoint": 20.0, "ready_fresh": 1500.0,
         "ready_long_game": 1500.0, "idle_second": 1.0, "history_page": 1000.0}
BUS_KHZ = 400  # the panel's I2C clock; 9 clocks a byte (its ACK)
ON_THE_BUS = {"press", "tap", "press_followed", "tap_followed"}  # inputs whose frame's bytes on the bus are added
ON_THE_UART = {"tap", "tap_followed"}  # inputs whose bytes on the reader's serial line are added
COMMITTED = ON_THE_BUS | {"undo", "undo_checkpoint"}  # work that waits for one commit's fsync
SD_FSYNC_MS = 5.0
"""One small SQLite commit's fsync (WAL, synchronous=FULL) on a Zero 2 W's SD card: an assumption (a
class-A1 card writes a 4 KB block in ~2 ms; the WAL's append and ext4's journal make two or three), not
a measurement; replace it with a Pi's own (`bench/undo.py` prints the floor commit's time)."""
REPEATS = {"press": 40, "tap": 20, "press_followed": 40, "tap_followed": 20, "undo": 30, "undo_checkpoint": 1, "action": 30, "action_checkpoint": 1, "idle_second": 20,
           "history_page": 1}
HISTORY_GAMES = 1000  # finished games in the history page's journal
IMMUNITY_CARD = "dd177"
TOGGLED = ["--collect-atstart=no", "--toggle-collect=_operator_call", "--toggle-collect=functools_reduce"]
"""callgrind collects only inside ``operator.call`` (`counted`), and not inside ``functools.reduce`` within it (`uncounted`)."""
FOLLOWED_RISE_PCT = 5.0  # the followed press and tap: at most this much above the press and the tap alone
COUNTED_ALONE = {"press", "tap", "press_followed", "tap_followed", "undo", "undo_checkpoint", "action", "action_checkpoint"}  # scenarios whose own path is marked by `counted`; the rest count the whole process


# ---------------------------------------------------------------- the scenarios (run in the child)

class WireCount:
    """luma's serial interface for the paged driver, sending nothing and counting the bytes an I2C
    bus would carry: each command or data write one transaction, with its address and control
    bytes (smbus2's managed mode: one transaction however long the data)."""

    def __init__(self) -> None:
        self.wire = 0

    def command(self, *cmd: int) -> None:
        self.wire += 2 + len(cmd)

    def data(self, data: Any) -> None:
        self.wire += 2 + len(data)

    def cleanup(self) -> None:
        pass


WIRE = WireCount()
WIRED: list[int] = []  # the wire bytes of each counted input's frame
SERIAL: list[tuple[int, int]] = []  # each counted tap's bytes on the reader's line, both ways, and the line's rate


def _world(scratch: Path) -> Any:
    from box.ports.display import open_oled
    from box.sim.world import SimulatedBox

    world = SimulatedBox(state_dir=scratch, seed=1)
    world.parts.pusher.device = open_oled("ssd1306", 1, 0x3C, WIRE)  # the box's paged driver, no bus
    world.box.lobby.start_game("deck-of-death", world.now, players=4)
    world.advance(1.0)
    return world


def counted(work: Callable[[], Any]) -> Any:
    """Run ``work`` where callgrind collects: it counts only inside ``operator.call`` (see `TOGGLED`)."""
    return operator.call(work)


def uncounted(work: Callable[..., Any]) -> Callable[..., Any]:
    """``work`` made invisible to the count: callgrind stops collecting inside ``functools.reduce``."""

    def hidden(*args: Any, **kwargs: Any) -> Any:
        return functools.reduce(lambda _, __: work(*args, **kwargs), (None, None))

    return hidden


class Tap:
    """A card tap's own path, counted alone: what the box does between the card's answer and its frame sent.

    Counted: the reader's scan as its driver does it (the chip's answer, the tag's NDEF record read
    through InDataExchange, the release), the event queued as the reader's thread queues it, the
    loop's handling (the game's step, the journal's commit), the render and the pusher's packing
    and sending over luma's ``noop`` interface. Not counted: the simulated PN532 itself (a chip on
    a box; its methods run hidden), the simulator's polling of the readers, the card's lift and the
    BACK that closes the picker before the next tap.
    """

    def __init__(self, world: Any, reader: str, uid: bytes):
        from box.ports.nfc.simchip import SimNtag

        self.world, self.reader, self.uid = world, reader, uid
        self.driver = world.parts.readers[reader]
        self.chip = world.chip(reader)
        self.line = 0  # bytes both ways on the reader's serial line
        receive, send = self.chip.receive, self.chip.send

        def received(connection: int, data: bytes) -> None:
            self.line += len(data)
            receive(connection, data)

        def sent(connection: int, size: int, timeout: float | None = 0.0) -> bytes:
            data = send(connection, size, timeout)
            self.line += len(data)
            return data

        self.chip.receive, self.chip.send = received, sent
        for name in ("receive", "send", "waiting", "discard_output", "cancel_read"):
            setattr(self.chip, name, uncounted(getattr(self.chip, name)))
        self.card = SimNtag(uid, card=world.box.tags.lookup(uid))

    def lay_and_count(self) -> None:
        world, pushes, count = self.world, self.world.parts.pusher.pushed, self.world.box.session.count
        self.chip.place(self.card)
        wire, line = WIRE.wire, self.line
        counted(self._path)
        WIRED.append(WIRE.wire - wire)
        SERIAL.append((self.line - line, self.driver.rate))
        assert world.box.session.count == count + 1 and world.parts.pusher.pushed == pushes + 1, "the tap was taken, its frame sent"

    def _path(self) -> None:
        world = self.world
        for event in self.driver.poll(world.now):  # on a box the reader's thread does this and queues the events
            world.loop.enqueue(event)
        world.loop.process(world.now)
        assert world.parts.pusher.push_due(world.now)

    def take_back(self) -> None:
        """Lift the card and close the picker it opened (not counted), the next tap's screen as the first's."""
        self.world.lift(self.reader)
        self.world.press("back")
        self.world.advance(1.0)


def _long_game(scratch: Path) -> tuple[Any, Any]:
    """A session resumed at the end of the 40,000-action game, and its journal."""
    from journals import copy_to

    from box.base.session import GameSession
    from box.games import rules_for
    from box.storage.journal import Journal

    journal = Journal(copy_to("long-game", scratch))
    record = journal.unfinished_game()
    assert record is not None
    rules = rules_for(record.name)
    return GameSession(rules, rules.load_deck(None), record, journal), journal


class Press:
    """A press's own path, counted alone: from the button's release (the edge a press counts on) to its frame sent.

    Counted: the pin's edge through gpiozero's mock pin to the loop's inbox, the loop's handling
    (the press detector, the game's step, the journal's commit), the render and the pusher's
    packing and sending. Not counted: the press down and the hold before it, and the time after.
    """

    def __init__(self, world: Any):
        self.world = world

    def hold_and_count(self, button: str) -> None:
        world, pushes, count = self.world, self.world.parts.pusher.pushed, self.world.box.session.count
        pin = world.pin(button)
        pin.drive_low()
        world.advance(0.1)
        wire = WIRE.wire
        counted(functools.partial(self._release, pin))
        WIRED.append(WIRE.wire - wire)
        assert world.box.session.count == count + 1 and world.parts.pusher.pushed == pushes + 1, "the press was taken, its frame sent"
        world.advance(0.1)

    def _release(self, pin: Any) -> None:
        world = self.world
        pin.drive_high()
        world.loop.process(world.now)
        assert world.parts.pusher.push_due(world.now)


FOLLOWERS = 2  # the phone page's process (one subscription for every phone) and the MQTT process


def follow(world: Any, scratch: Path) -> None:
    """Serve the box's control socket and follow it as a box is followed with pages open on phones
    and MQTT on (`FOLLOWERS`), each follower read by a thread of its own (not counted: another
    process on a box). The socket's sending to each is counted, on its own thread."""
    import threading

    from box.links import control
    from box.links.client import ControlClient

    server = control.ControlServer(scratch / "control.sock", world.loop.enqueue)
    send = server.send
    server.send = lambda client, line: counted(functools.partial(send, client, line))  # type: ignore[method-assign]
    server.start()
    world.loop.attach_control(server)
    for _ in range(FOLLOWERS):
        stream = ControlClient(server.path).subscribe()
        threading.Thread(target=lambda s=stream: [None for _ in s], daemon=True).start()
    world.advance(0.1)


def child(scenario: str, repeats: int) -> None:
    """Set the scenario up, then do its work ``repeats`` times (0: only the set-up). The dataclasses'
    code it makes is not kept at its exit: the run with repeats and the one without would otherwise
    differ by the first one's writing (box/files/classcode.py), and an installed box's services
    never write it."""
    import atexit

    import box

    atexit.unregister(box.CLASS_CODE.save)
    logging_off()
    with tempfile.TemporaryDirectory(prefix="gravebox-bench-") as name:
        scratch = Path(name)
        if scenario in ("press", "tap", "press_followed", "tap_followed"):
            world = _world(scratch)
            if scenario.endswith("_followed"):
                follow(world, scratch)
                scenario = scenario.removesuffix("_followed")
            uid = world.box.tags.uid_of("deck-of-death", IMMUNITY_CARD)
            reader = next(iter(world.parts.readers))
            if scenario == "press":
                world.put(reader, uid)  # the Immunity picker: DOWN and UP move its cursor
                world.lift(reader)
                world.advance(4.0)  # past the simulator's polling of the readers
                press = Press(world)
                for n in range(repeats):
                    press.hold_and_count("down" if n % 2 == 0 else "up")
            else:
                tap = Tap(world, reader, uid)
                tap.lay_and_count()  # the first tap imports the tag I/O: counted in both runs, it cancels out
                tap.take_back()
                del WIRED[:], SERIAL[:]  # nor are its bytes those of a repeated tap (its record read, the screen it opened from)
                for _ in range(repeats):
                    tap.lay_and_count()
                    tap.take_back()
        elif scenario in ("action", "action_checkpoint"):
            session, journal = _long_game(scratch)
            from box.base.session import CHECKPOINT_EVERY, decode

            last = decode(journal.action(session.last_seq))  # the action that made the newest checkpoint
            assert session.undo() and len(session.tail) == CHECKPOINT_EVERY - 1
            actions = [action for _, action, _ in session.tail] + [last]
            while session.tail:
                assert session.undo()
            if scenario == "action_checkpoint":
                for action in actions[:-1]:
                    session.apply(action)
            # action: the actions that write no checkpoint; action_checkpoint: the one that writes it (counted once)
            for action in actions[:repeats] if scenario == "action" else actions[-1:][:repeats]:
                assert counted(functools.partial(session.apply, action)).state is session.state
            journal.close()
        elif scenario in ("undo", "undo_checkpoint"):
            from journals import copy_to

            from box.base.session import CHECKPOINT_EVERY
            from box.sim.world import SimulatedBox

            copy_to("long-game", scratch)
            world = SimulatedBox(state_dir=scratch, seed=1)  # the box resumes the long game
            session = world.box.session
            assert session is not None
            # undo: from the last action before a checkpoint (the most kept states after the base);
            # undo_checkpoint: from a checkpoint itself, where the next undo crosses it (counted once)
            position = CHECKPOINT_EVERY - 1 if scenario == "undo" else 0
            while session.count % CHECKPOINT_EVERY != position:
                assert session.undo()
            for _ in range(repeats):
                count = session.count
                counted(functools.partial(world.box.undo, world.now))  # as the box menu's undo does it
                assert session.count == count - 1, "undone"
            world.close()
        elif scenario == "idle_second":
            world = _world(scratch)
            for _ in range(repeats):
                world.advance(1.0)
        elif scenario == "history_page":
            from history_scale import with_read_model
            from starlette.testclient import TestClient

            from box.web.app import WebSettings, create_app

            state = scratch / "state"
            shutil.copytree(with_read_model(HISTORY_GAMES), state)  # built by the parent, outside the counts
            app = create_app(WebSettings(state_dir=state, control=scratch / "none.sock", hosts=("testserver",)))
            client = TestClient(app, base_url="http://testserver")  # no lifespan: no link to a box trying to connect
            assert client.get("/history").status_code == 200
            for _ in range(repeats):
                client.get("/history")
        else:
            raise SystemExit(f"unknown scenario {scenario!r}")
    if WIRED:
        print(json.dumps({"wire_bytes": WIRED, "serial": SERIAL}))  # for the parent: the bus and line times of what was sent


def logging_off() -> None:
    import logging

    logging.disable(logging.WARNING)


# ---------------------------------------------------------------- counting (the parent)

def valgrind() -> str | None:
    return shutil.which("valgrind")


OUTPUT: list[str] = []  # what the last counted command printed


def count(command: list[str], scratch: Path, toggled: bool = False) -> int:
    """The instructions ``command`` executes, all threads, under callgrind; ``toggled``: only inside `counted`.
    What it printed is kept in OUTPUT."""
    out = scratch / f"callgrind.{time.monotonic_ns()}"
    env = {**os.environ, "PYTHONHASHSEED": "0"}  # byte code cached as a box has it (a compile would count)
    only = TOGGLED if toggled else []
    run = subprocess.run(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", "--dump-instr=no", "--compress-strings=no", *only, *command],
        capture_output=True, text=True, env=env, cwd=ROOT,
    )
    if run.returncode != 0:
        raise RuntimeError(f"{' '.join(command[-3:])}: {run.stderr.strip().splitlines()[-1:]}")
    OUTPUT[:] = run.stdout.splitlines()
    total = 0
    for path in scratch.glob(out.name + "*"):  # one file per thread with --separate-threads; one here
        for line in path.read_text(errors="replace").splitlines():
            if line.startswith(("summary:", "totals:")):
                total = max(total, int(line.split()[1]))
        path.unlink()
    return total


def projection(instructions: float) -> list[float]:
    """Milliseconds on a Zero 2 W, at the slow and the fast end of the assumed IPC."""
    return [round(instructions / (ipc * CLOCK_GHZ * 1e6), 1) for ipc in (IPC[0], IPC[1])]


def unmeasured(base: int, more: int, repeats: int, toggled: bool = False) -> str | None:
    """Why two counts give no figure for the work repeated between them, or None when they do: a
    count that is not positive (the run without repeats counts nothing only where callgrind
    collects inside `counted` alone: `toggled`) or a difference that is not (an overflowed counter,
    a base run that did more than the repeated one) is no measurement, and never passes."""
    if more <= 0 or base < 0 or (base == 0 and not toggled):
        return f"callgrind counted nothing ({base}, {more} instructions)"
    if repeats < 1 or more <= base:
        return f"{repeats} repeats counted {more - base} instructions beyond the run without them: not a measurement"
    return None


def bus_ms(wire_bytes: int) -> float:
    """The time `wire_bytes` take on the panel's bus (9 clocks a byte at BUS_KHZ)."""
    return round(wire_bytes * 9 / BUS_KHZ, 1)


def wire_bytes(output: list[str], key: str = "wire_bytes") -> list[Any] | None:
    """The wire bytes of each counted input (``serial``: each tap's bytes on its line and the line's
    rate), as the child printed them (None: it printed none)."""
    for line in reversed(output):
        if line.startswith('{"wire_bytes"'):
            return list(json.loads(line)[key]) or None
    return None


def uart_ms(serial: list[list[int]]) -> float:
    """The worst tap's time on its serial line: its bytes both ways, 10 bits a byte at the line's rate."""
    return round(max(count * 10 / rate * 1000 for count, rate in serial), 2)


def scenario_row(
    scenario: str,
    base: int,
    more: int,
    repeats: int,
    toggled: bool = False,
    wired: list[int] | None = None,
    serial: list[list[int]] | None = None,
    fsync_ms: float = SD_FSYNC_MS,
) -> dict[str, Any]:
    """A scenario's figures from its counts without and with `repeats` repeats: the instructions a
    repeat, projected to a Zero 2 W with what else the work waits for (its frame on the bus, a tap's
    bytes on the serial line, the commit's fsync), and whether its goal is met (never when it cannot
    be measured, nor when a leg it needs was not seen).

    >>> scenario_row("press", 10_000_000, 10_000_000 - 2_149_432_533, 1)["meets_goal"]
    False
    >>> row = scenario_row("press", 10_000_000, 12_400_000, 1, wired=[400])
    >>> row["zero2w_with_bus_ms"], row["zero2w_total_ms"]
    ([13.0, 12.0], [18.0, 17.0])
    >>> scenario_row("press", 0, 2_400_000, 1, toggled=True)["meets_goal"]  # no bytes seen on the bus: not judged
    False
    >>> scenario_row("tap", 0, 4_200_000, 1, toggled=True, wired=[700])["meets_goal"]  # nor a tap without its line
    False
    >>> scenario_row("tap", 0, 4_200_000, 1, toggled=True, wired=[700], serial=[[39, 460800]])["zero2w_total_ms"]
    [28.7, 26.9]
    >>> scenario_row("press", 0, 2_400_000, 1, toggled=True, wired=[398])["bus_ms"], scenario_row("idle_second", 0, 9, 1)["meets_goal"]
    (9.0, False)
    """
    goal = GOALS.get(scenario)
    problem = unmeasured(base, more, repeats, toggled)
    if problem is not None:
        return {"instructions": None, "error": problem, "goal": goal, "meets_goal": False, "repeats": repeats}
    per = (more - base) / repeats
    ms = projection(per)
    if scenario == "idle_second":
        row = {"instructions": round(per), "zero2w_pct_of_core": [round(v / 10, 3) for v in ms]}
        row["meets_goal"] = row["zero2w_pct_of_core"][0] <= GOALS[scenario]
        return {**row, "goal": goal, "repeats": repeats}
    row = {"instructions": round(per), "zero2w_cpu_ms": ms}
    waits = 0.0
    if scenario in ON_THE_BUS:
        if not wired:
            return {**row, "error": "no frame seen on the bus", "goal": goal, "meets_goal": False, "repeats": repeats}
        bus = bus_ms(max(wired))  # the worst frame of the counted inputs
        row.update(bus_ms=bus, wire_bytes={"mean": round(statistics.fmean(wired)), "worst": max(wired)})
        row["zero2w_with_bus_ms"] = [round(v + bus, 1) for v in ms]
        waits += bus
    if scenario in ON_THE_UART:
        if not serial:
            return {**row, "error": "no bytes seen on the reader's line", "goal": goal, "meets_goal": False, "repeats": repeats}
        row.update(uart_ms=uart_ms(serial), uart_bytes=max(count for count, _ in serial), uart_baud=min(rate for _, rate in serial))
        waits += row["uart_ms"]
    if scenario in COMMITTED:
        row["fsync_ms_assumed"] = fsync_ms
        waits += fsync_ms
    if waits:
        row["zero2w_total_ms"] = [round(v + waits, 1) for v in ms]
    if goal is not None:  # an action's own cost is part of a press's, with its goal
        row["meets_goal"] = ms[0] + waits <= goal
    return {**row, "goal": goal, "repeats": repeats}


def judge_followed(figures: dict[str, Any]) -> None:
    """The followed press and tap against the press and tap alone: their rise, and their goal met
    only when it is within FOLLOWED_RISE_PCT (never without both counts).

    >>> figures = {"press": {"instructions": 2_000_000}, "press_followed": {"instructions": 2_080_000, "meets_goal": True}}
    >>> judge_followed(figures); figures["press_followed"]["rise_pct"], figures["press_followed"]["meets_goal"]
    (4.0, True)
    >>> figures = {"tap_followed": {"instructions": 5_000_000, "meets_goal": True}}
    >>> judge_followed(figures); figures["tap_followed"]["meets_goal"]
    False
    """
    for alone in ("press", "tap"):
        followed = figures.get(f"{alone}_followed")
        if followed is None:
            continue
        ours, theirs = followed.get("instructions"), figures.get(alone, {}).get("instructions")
        if not ours or not theirs:
            followed["meets_goal"] = False  # without both counts there is no rise to judge
            continue
        rise = 100 * (ours / theirs - 1)
        followed["rise_pct"], followed["rise_goal_pct"] = round(rise, 1), FOLLOWED_RISE_PCT
        followed["meets_goal"] = bool(followed.get("meets_goal")) and rise <= FOLLOWED_RISE_PCT


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Count every scenario and print the counts, the projections and the goals as one JSON line."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--repeats", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--only", help=f"comma-separated scenarios of {', '.join(REPEATS)} (start-up is counted only without it)")
    parser.add_argument("--fsync-ms", type=float, default=SD_FSYNC_MS, help=f"one commit's fsync on the SD card (default {SD_FSYNC_MS:g}, assumed)")
    args = parser.parse_args(argv)
    if args.child:
        child(args.child, args.repeats)
        return {}
    conversion = (
        f"ms on a Zero 2 W = instructions / (IPC x {CLOCK_GHZ:g} GHz), IPC {IPC[0]}-{IPC[1]} (CPython on a "
        "Cortex-A53: an assumption); an input adds the bytes its frame sent, on the 400 kHz bus at 9 clocks a byte, "
        "a tap its bytes on the reader's line at the driver's rate (10 bits a byte), an input and an undo one "
        f"commit's fsync ({args.fsync_ms:g} ms on the SD card: assumed)"
    )
    if valgrind() is None:
        return emit(
            "instructions",
            {
                "skipped": "valgrind is not installed (apt-get install -y valgrind)",
                "conversion": conversion,
                "meets_target": False,  # what was not counted has not met its goal
            },
        )
    from history_scale import with_read_model
    from journals import journal

    only = args.only.split(",") if args.only else list(REPEATS)
    unknown = [name for name in only if name not in REPEATS]
    if unknown:
        parser.error(f"unknown scenario {unknown[0]!r}; choose from {', '.join(REPEATS)}")
    journal("long-game")  # built once, outside the counts
    as_installed()  # the dataclasses' code kept, as install.sh keeps it: no count pays for compiling them
    if "history_page" in only:
        with_read_model(HISTORY_GAMES)
    python = [sys.executable]
    me = str(BENCH / "instructions.py")
    figures: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="gravebox-bench-") as name:
        scratch = Path(name)
        for scenario, repeats in ((name, REPEATS[name]) for name in only):
            repeats = max(1, repeats // 4) if args.quick else repeats
            toggled = scenario in COUNTED_ALONE
            base = count([*python, me, "--child", scenario, "--repeats", "0"], scratch, toggled)
            more = count([*python, me, "--child", scenario, "--repeats", str(repeats)], scratch, toggled)
            if toggled and more == 0:
                raise SystemExit(
                    "callgrind collected nothing inside operator.call: this Python's own symbols are stripped "
                    "(install its debug symbols, or use a Python built with them, as pyenv builds it)"
                )
            figures[scenario] = scenario_row(
                scenario, base, more, repeats, toggled, wire_bytes(OUTPUT), wire_bytes(OUTPUT, "serial"), args.fsync_ms
            )
        judge_followed(figures)
        floor = count([*python, "-c", "pass"], scratch)
        for scenario, kind in (("ready_fresh", None), ("ready_long_game", "long-game")) if not args.only else ():
            command = [*python, str(BENCH / "startup_phases.py")]
            if kind is not None:
                command += ["--journal", str(journal(kind))]
            total = count(command, scratch)
            ms = projection(total)
            figures[scenario] = {
                "instructions": total, "zero2w_ms": ms, "goal": GOALS[scenario],
                "meets_goal": 0 < floor < total and ms[0] <= GOALS[scenario],  # a start counted below `pass` is no count
                "floor_python_c_pass": floor, "floor_zero2w_ms": projection(floor),
            }
    if "idle_second" in figures:
        figures["idle_second"]["goal_unit"] = "% of a core"
    return emit(
        "instructions",
        {
            **figures,
            "conversion": conversion,
            "meets_target": all(value.get("meets_goal", True) for value in figures.values() if isinstance(value, dict)),
            "target": "the goals above, projected to a Zero 2 W at the slow end (IPC 0.6)",
        },
    )


if __name__ == "__main__":
    main()
