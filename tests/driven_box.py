"""A simulated box in a process of its own, played a line at a time, for tests that cut its power
(SIGKILL) in the middle of a game and start it again on the same state folder, with `gravebox mqtt`
following its control socket as on a box:

    python tests/driven_box.py STATE_DIR SOCKET DECKS_DIR

reads script commands (docs/sim.md) on standard input, one a line, and answers each on standard
output with `ok` once the box's state dump after it is on its control socket (`error: ...` for a
line it refused); `ready` first, when the socket is open. Between lines its clock follows the wall
clock (a pass every TICK), so that it answers its control socket as a box does."""

from __future__ import annotations

import select
import sys
from pathlib import Path

from box.links.control import ControlServer
from box.sim.script import ScriptError, ScriptRunner, parse_script
from box.sim.world import SimulatedBox

TICK = 0.05  # seconds between the box's passes while no line comes


def main(state_dir: str, socket_path: str, decks: str) -> None:
    control = ControlServer(Path(socket_path), lambda command: None)
    control.start()
    world = SimulatedBox(state_dir=Path(state_dir), decks_dir=Path(decks), seed=1, control=control)
    runner = ScriptRunner(world, "stdin")
    print("ready", flush=True)
    while True:
        if not select.select([sys.stdin], [], [], TICK)[0]:
            world.advance(TICK)
            continue
        line = sys.stdin.readline()
        if not line:
            return
        try:
            runner.run(parse_script(line, "stdin"))
            world.bus.flush()
            world.advance(0.0)
            print("ok", flush=True)
        except ScriptError as problem:
            print(f"error: {problem}", flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:4])
