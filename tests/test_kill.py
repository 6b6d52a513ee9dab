"""The real `gravebox` process: SIGKILLed mid-game, under a systemd-like watchdog, stopped by SIGTERM.

No sleeping: the tests wait on the process's pipes and sockets with `select` and
timeouts.
"""

from __future__ import annotations

import os
import random
import re
import select
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

from bench.soak import RandomPlayer
from box.games import GAMES
from box.sim.script import ScriptRunner, parse_script
from box.sim.world import SimulatedBox
from box.storage.journal import Journal
from tests.support import environment, gravebox_command

REPO = Path(__file__).resolve().parent.parent
JOURNALED = re.compile(rb"journaled action (\d+) of game (\d+)")
KILLS_PER_GAME = 13  # x 4 games: 52 kills
WAIT = 60.0  # seconds: the most a step of these tests may take on a loaded machine


def random_game_script(game: str, seed: int, steps: int, state_dir: Path) -> list[str]:
    """Lines of a random game, chosen by playing it on a simulated box once."""
    world = SimulatedBox(state_dir=state_dir, seed=seed)
    player = RandomPlayer(game, random.Random(seed), faults=False)
    runner = ScriptRunner(world, "generator")
    lines: list[str] = []
    try:
        for _ in range(steps):
            step = player.step(world)
            runner.run(parse_script("\n".join(step), "generator"))
            lines += step
    finally:
        world.parts.close()
        world.box.journal.close()
    return lines


def run_until_killed(command: list[str], kill_after: int) -> tuple[list[tuple[int, int]], bool]:
    """Run the command; SIGKILL it once it has logged `kill_after` durable appends.

    Returns every (seq, game) it logged before it died, and whether it was killed
    (False: it finished the script first).
    """
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=environment())
    assert process.stderr is not None
    output = b""
    try:
        while len(JOURNALED.findall(output)) < kill_after:
            ready, _, _ = select.select([process.stderr], [], [], WAIT)
            assert ready, f"no output for {WAIT} s: {output[-500:]!r}"
            chunk = os.read(process.stderr.fileno(), 65536)
            if not chunk:
                break
            output += chunk
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=WAIT)
        output += process.stderr.read()  # logged before the kill, still in the pipe
    finally:
        process.stderr.close()
        if process.poll() is None:
            process.kill()
            process.wait(timeout=WAIT)
    assert b"Traceback" not in output, output.decode(errors="replace")[-2000:]
    killed = process.returncode == -signal.SIGKILL
    return [(int(seq), int(game)) for seq, game in JOURNALED.findall(output)], killed


@pytest.mark.slow
def test_sigkill_at_random_moments_loses_no_logged_action(tmp_path: Path) -> None:
    rng = random.Random(4242)
    kills = appends = 0
    for game in GAMES:
        state_dir = tmp_path / game
        lines = random_game_script(game, seed=kills + 1, steps=220, state_dir=tmp_path / f"gen-{game}")
        start = tmp_path / f"{game}-start.script"
        start.write_text("\n".join(lines) + "\n", encoding="utf-8")
        going_on = tmp_path / f"{game}-more.script"  # after a kill: the box resumes, the table plays on
        going_on.write_text("\n".join(line for line in lines if not line.startswith("start")) + "\n", encoding="utf-8")
        logged: set[tuple[int, int]] = set()
        runs = 0
        while runs < 3 * KILLS_PER_GAME:
            runs += 1
            script = going_on if resumes(state_dir) else start
            command = [*gravebox_command(), "sim", "--verbose", "--script", str(script)]
            command += ["--state-dir", str(state_dir), "--seed", str(runs)]
            moment = rng.choice([0, 1, 2, 3, rng.randint(1, 40), rng.randint(1, 120)])
            now_logged, killed = run_until_killed(command, moment)
            logged |= set(now_logged)
            appends += len(now_logged)
            kills += killed
            if not (state_dir / "journal.db").exists():
                assert not logged, "actions logged, yet no journal"
                continue  # killed before the box had opened its journal
            journal, damaged = Journal.open_or_recover(state_dir / "journal.db")
            try:
                assert damaged is None, f"the kill left the journal unreadable: {damaged}"
                assert journal.db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
                rows = set(journal.db.execute("SELECT seq, game FROM actions"))
            finally:
                journal.close()
            lost = logged - rows
            assert not lost, f"{game}, run {runs}: logged actions missing after a SIGKILL: {sorted(lost)[:5]}"
            if kills >= KILLS_PER_GAME * (list(GAMES).index(game) + 1):
                break
    print(f"SIGKILLs: {kills}, durable appends logged before them: {appends}")  # figures for docs/reliability.md
    assert kills >= 4 * KILLS_PER_GAME, f"only {kills} kills"
    assert appends >= 100, f"only {appends} durable appends logged: the kills hit little"


def resumes(state_dir: Path) -> bool:
    """Whether a box booting on this state folder resumes a game."""
    if not (state_dir / "journal.db").exists():
        return False
    journal = Journal(state_dir / "journal.db")
    try:
        return journal.unfinished_game() is not None
    finally:
        journal.close()


# ----- the service under a systemd-like supervisor ---------------------------------------------


def notifications(listener: socket.socket, until: float, wanted: int) -> list[str]:
    """Datagrams on the fake NOTIFY_SOCKET until `wanted` WATCHDOG=1 pings arrive or time runs out."""
    got: list[str] = []
    while sum(m == "WATCHDOG=1" for m in got) < wanted:
        left = until - time.monotonic()
        if left <= 0:
            break
        ready, _, _ = select.select([listener], [], [], left)
        if ready:
            got += listener.recv(4096).decode().splitlines()
    return got


def run_fake_box(state_dir: Path, tmp_path: Path, pings: int) -> tuple[list[str], str, int]:
    """Start `gravebox run --fake` under a fake notify socket, wait for READY and pings, SIGTERM it."""
    path = tmp_path / "notify.sock"
    path.unlink(missing_ok=True)
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as listener:
        listener.bind(str(path))
        env = environment(NOTIFY_SOCKET=str(path), WATCHDOG_USEC="200000")
        command = [*gravebox_command(), "run", "--fake", "--state-dir", str(state_dir)]
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, text=True)
        try:
            got = notifications(listener, time.monotonic() + WAIT, pings)
            process.send_signal(signal.SIGTERM)
            _, stderr = process.communicate(timeout=WAIT)
            ready, _, _ = select.select([listener], [], [], 0)
            while ready:
                got += listener.recv(4096).decode().splitlines()
                ready, _, _ = select.select([listener], [], [], 0)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait(timeout=WAIT)
    return got, stderr, process.returncode


def test_the_service_says_ready_pings_the_watchdog_and_stops_cleanly_on_sigterm(tmp_path: Path) -> None:
    got, stderr, status = run_fake_box(tmp_path / "state", tmp_path, pings=3)
    assert "READY=1" in got, (got, stderr)
    assert got.index("READY=1") < got.index("WATCHDOG=1"), got
    assert got.count("WATCHDOG=1") >= 3, got
    assert status == 0, stderr
    assert "Traceback" not in stderr, stderr
    assert "STOPPING=1" in got, got


def test_a_damaged_journal_does_not_stop_the_service_and_is_reported_once(tmp_path: Path) -> None:
    state_dir = tmp_path / "state"
    state_dir.mkdir()
    (state_dir / "journal.db").write_bytes(b"SQLite format 3\x00" + os.urandom(3000))
    got, stderr, status = run_fake_box(state_dir, tmp_path, pings=1)
    assert "READY=1" in got and status == 0, (got, stderr)
    assert "journal damaged" in stderr, stderr
    assert len(list(state_dir.glob("journal.db.bad-*"))) == 1
    got, stderr, status = run_fake_box(state_dir, tmp_path, pings=1)  # the next start: no crash loop
    assert "READY=1" in got and status == 0, (got, stderr)
    assert "journal damaged" not in stderr, stderr
