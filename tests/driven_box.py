"""A simulated box in a process of its own, played a line at a time, for tests that cut its power
(SIGKILL) in the middle of a game and start it again on the same state folder, with `gravebox mqtt`
following its control socket as on a box:

    python tests/driven_box.py STATE_DIR SOCKET DECKS_DIR

reads script commands (docs/sim.md) on standard input, one a line, and answers each on standard
output with `ok` once the box's state dump after it is on its control socket (`error: ...` for a
line it refused); `ready` first, when the socket is open."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from box.links.control import ControlServer  # noqa: E402
from box.sim.script import ScriptError, ScriptRunner, parse_script  # noqa: E402
from box.sim.world import SimulatedBox  # noqa: E402


def main(state_dir: str, socket_path: str, decks: str) -> None:
    control = ControlServer(Path(socket_path), lambda command: None)
    control.start()
    world = SimulatedBox(state_dir=Path(state_dir), decks_dir=Path(decks), seed=1, control=control)
    runner = ScriptRunner(world, "stdin")
    print("ready", flush=True)
    for line in sys.stdin:
        try:
            runner.run(parse_script(line, "stdin"))
            world.bus.flush()
            world.advance(0.0)
            print("ok", flush=True)
        except ScriptError as problem:
            print(f"error: {problem}", flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:4])
