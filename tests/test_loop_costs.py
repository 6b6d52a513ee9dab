"""What an input costs the loop: one render and one frame per change, state dumps only for followers."""

from __future__ import annotations

import contextlib
import json
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from box.games import GAMES
from box.links import control as control_module
from box.links.client import ControlClient
from box.links.control import ControlCommand, ControlServer
from box.screens.render import next_scroll
from box.sim.world import SimulatedBox
from box.storage.roster import ROSTER_FILE, Roster, save_roster

SCENARIOS = Path(__file__).parent / "scenarios"
TOKEN = bytes.fromhex("04c0ffee000001")
NAMES = ["Annabelle Long", "Bartholomew Lang", "Cornelius Lengh"]


@pytest.fixture
def world(tmp_path: Path):
    (tmp_path / "state").mkdir()
    save_roster(Roster.checked(NAMES, {}), tmp_path / "state" / ROSTER_FILE)
    world = SimulatedBox(state_dir=tmp_path / "state", decks_dir=SCENARIOS / "dead-set" / "decks", seed=1)
    yield world
    world.close()


def costs(world: SimulatedBox, act) -> tuple[int, int]:
    """The renders and the frames submitted to the display while `act` runs."""
    renders, submitted = world.loop.renders, world.parts.pusher.submitted
    act()
    return world.loop.renders - renders, world.parts.pusher.submitted - submitted


def scrolls(world: SimulatedBox) -> bool:
    """Whether a line of the screen on show is too long for its row (so it scrolls)."""
    return next_scroll(world.box.screen(world.now), 0.0) is not None


def test_every_input_that_changes_a_screen_with_a_scrolling_line_renders_it_once(world: SimulatedBox) -> None:
    world.loop.enqueue(ControlCommand("enrol-player", {"name": NAMES[2]}))
    world.advance(0.05)
    world.put("left", TOKEN)
    world.lift("left")
    for button in ("down", "ok", "up"):  # Dead Set's players page: 3
        assert costs(world, lambda b=button: world.press(b)) == (1, 1), button
    assert costs(world, lambda: world.put("right", TOKEN)) == (1, 1), "a tap"  # a player token seats its player
    assert world.box.screen(world.now).notice.startswith(NAMES[2])
    world.lift("right")
    assert costs(world, lambda: world.press("ok")) == (1, 1)  # the options page, START selected
    assert costs(world, lambda: world.press("down")) == (1, 1), "DOWN to the names"
    assert scrolls(world), "the selected line is too long for its row"
    assert costs(world, lambda: world.press("ok")) == (1, 1)  # who sits where
    assert costs(world, lambda: world.press("back")) == (1, 1), "BACK to the options"
    assert scrolls(world)
    assert costs(world, lambda: world.advance(0.5)) == (0, 0)  # it rests at its start
    for _ in range(3):  # then each character it moves on is one frame
        wait = next_scroll(world.box.screen(world.now), world.now - world.loop.shown_at)
        assert wait is not None and costs(world, lambda w=wait: world.advance(w)) == (1, 1)


@pytest.mark.parametrize("followers", [0, 1, 10])
def test_a_state_dump_is_made_once_per_change_for_all_followers_and_never_for_no_one(
    world: SimulatedBox, tmp_path: Path, monkeypatch, followers: int
) -> None:
    monkeypatch.setattr(control_module, "MAX_SUBSCRIBERS", 10)  # the box's cost is the same at its limit
    made: list[int] = []
    dump_parts = world.box.dump_parts
    monkeypatch.setattr(world.box, "dump_parts", lambda now: made.append(1) or dump_parts(now))
    control = ControlServer(tmp_path / "run" / "control.sock", world.loop.enqueue)
    sent: list[int] = []
    publish = control.publish
    monkeypatch.setattr(control, "publish", lambda *parts, events=None: sent.append(1) or publish(*parts, events=events))
    control.start()
    streams = [ControlClient(control.path).subscribe() for _ in range(followers)]
    try:
        world.loop.attach_control(control)
        world.advance(0.05)  # the followers' first dump
        assert len(made) == len(sent) == (1 if followers else 0)
        for button in ("down", "down", "up"):
            before = len(made)
            world.press(button)  # its edges, the press, the detector's deadlines: several passes
            assert len(made) - before == (1 if followers else 0), button
        before = len(made)
        world.advance(30.0)  # nothing happens on the menu
        assert len(made) == before
        assert len(made) == len(sent)
        if followers:
            assert all(next(stream)["screen"] == "menu" for stream in streams)
    finally:
        for stream in streams:
            stream.close()
        control.stop()


def test_a_change_made_while_nobody_follows_reaches_the_first_follower(world: SimulatedBox, tmp_path: Path) -> None:
    control = ControlServer(tmp_path / "run" / "control.sock", world.loop.enqueue)
    control.start()
    try:
        world.loop.attach_control(control)
        world.advance(0.05)
        world.press("down")  # Dead Set, seen by no one
        assert world.loop.dumps == 0
        stream = ControlClient(control.path).subscribe()
        world.advance(0.05)
        assert world.loop.dumps == 1 and next(stream)["screen"] == "menu"
        world.box.notices.say("Bob's turn", world.now)  # a change no message brought: the screen shows it
        world.advance(0.05)
        assert world.loop.dumps == 2 and next(stream)["notice"] == "Bob's turn"
        stream.close()
    finally:
        control.stop()


@contextlib.contextmanager
def followed(tmp_path: Path, seed: int) -> Iterator[tuple[SimulatedBox, ControlServer]]:
    """A simulated box whose control socket one subscriber follows."""
    world = SimulatedBox(state_dir=tmp_path / "state", seed=seed)
    control = ControlServer(tmp_path / "run" / "control.sock", world.loop.enqueue)
    control.start()
    stream = ControlClient(control.path).subscribe()
    try:
        world.loop.attach_control(control)
        yield world, control
    finally:
        stream.close()
        control.stop()
        world.close()


def test_a_press_and_its_events_go_in_one_dump(tmp_path: Path) -> None:
    """The events a press publishes are in the dump its pass makes: no second dump follows for them."""
    with followed(tmp_path, seed=1) as (world, control):
        world.box.lobby.start_game("deck-of-death", world.now, players=2)
        world.put("left", world.box.tags.uid_of("deck-of-death", "dd177"))  # Guardian Angel: its picker
        world.lift("left")
        world.advance(4.0)
        for button in ("down", "up", "down"):  # each moves the picker's cursor: an action
            dumps, count = world.loop.dumps, world.box.session.count
            world.press(button)
            world.advance(1.0)
            assert world.box.session.count == count + 1, button
            assert world.loop.dumps == dumps + 1, button
            sent = json.loads(control.latest or b"")["state"]["events"]
            assert sent[-1]["event"] == "action-accepted" and sent[-1]["seq"] == world.loop.link.numbered


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_line_in_parts_is_the_whole_dump_with_no_key_twice(tmp_path: Path, game: str) -> None:
    """The line is made of the box's keys, the game's and the loop's: no key in two of them, and
    together the state the Box dumps whole (docs/state.md), whatever the game and its moves."""
    with followed(tmp_path, seed=3) as (world, control):
        world.box.lobby.start_game(game, world.now, players=3)
        moves = random.Random(game)
        for _ in range(40):
            world.press(moves.choice(["ok", "down", "up", "roll", "back"]))
            world.advance(0.5)
            pairs = json.loads(control.latest or b"", object_pairs_hook=lambda pairs: pairs)[0][1]
            keys = [key for key, _ in pairs]
            assert len(keys) == len(set(keys)), keys
            state = json.loads(control.latest or b"")["state"]
            whole = json.loads(json.dumps(world.box.dump(world.now)))
            assert {key: state[key] for key in whole} == whole
